"""The referee service: player tokens and sessions, match runtimes, and the gRPC servicer.

:class:`RefereeCore` is the in-process API (the arena's runner calls it directly);
:func:`start_server` exposes the same core over gRPC (Play, Watch and the admin RPCs).
A token is the only way to act for a seat: a session receives only its own seats'
messages, and an action is accepted only for a request issued to it.

One module per concern:

- ``gc_tuning``: garbage-collector settings for a referee process;
- ``batching``: one timer that flushes the events sessions hold back;
- ``sessions``: a token's session (its connection, pending decisions, inbound messages);
- ``seats``: the match driver's agent for a seat played over a session;
- ``messages``: protocol messages built from match values;
- ``matches``: a match's runtime and its spectator feed;
- ``core``: the registry of tokens and matches (RefereeCore);
- ``servicer``: the gRPC methods, transport only;
- ``server``: starting the grpc.aio server.
"""

from referee.service.batching import EVENT_FLUSH_SECONDS, EventBatcher
from referee.service.core import KEEP_FINISHED, RefereeCore
from referee.service.errors import RefereeError
from referee.service.gc_tuning import GC_THRESHOLDS, tune_gc
from referee.service.matches import MatchRuntime
from referee.service.seats import StreamSeat
from referee.service.server import bound_addresses, start_server
from referee.service.servicer import HELLO_TIMEOUT, PROTOCOL, RefereeServicer
from referee.service.sessions import PlayerSession
from referee.service.spectators import FeedEntry, SpectatorFeed

__all__ = [
    "EVENT_FLUSH_SECONDS",
    "GC_THRESHOLDS",
    "HELLO_TIMEOUT",
    "KEEP_FINISHED",
    "PROTOCOL",
    "EventBatcher",
    "FeedEntry",
    "MatchRuntime",
    "PlayerSession",
    "RefereeCore",
    "RefereeError",
    "RefereeServicer",
    "SpectatorFeed",
    "StreamSeat",
    "bound_addresses",
    "start_server",
    "tune_gc",
]
