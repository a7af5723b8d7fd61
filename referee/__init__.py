"""The referee: game engines, matches, and the gRPC service bots play through."""

import os

# gRPC's C core logs at INFO what a peer sends in some frames (a GOAWAY's debug text,
# newlines and all): any client could write its own lines into a server's stderr, 13 MB a
# second from one address, for next to nothing of its budget. Read when grpc loads, so it
# is set here, before any of the project's modules imports grpc; an operator's own
# setting wins.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
