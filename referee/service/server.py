"""Starting a grpc.aio server for a RefereeCore."""

from __future__ import annotations

from collections.abc import Sequence

import grpc

from referee.service.core import RefereeCore
from referee.service.errors import RefereeError
from referee.service.servicer import RefereeServicer, _handlers
from referee.service.sessions import MAX_RECEIVE_BYTES


async def start_server(
    core: RefereeCore, addresses: Sequence[str], admin_token: str | None = None
) -> grpc.aio.Server:
    """Start a grpc.aio server for ``core`` on ``addresses`` ("127.0.0.1:50051",
    "unix:/path/sock", "127.0.0.1:0" for any free port). Returns the started server;
    ``server.bound_addresses`` lists the addresses with the ports actually bound."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    server.add_generic_rpc_handlers((_handlers(RefereeServicer(core, admin_token)),))
    bound = []
    for address in addresses:
        port = server.add_insecure_port(address)
        if address.startswith("unix:"):
            bound.append(address)
        elif port == 0:
            raise RefereeError(f"cannot listen on {address}")
        else:
            bound.append(f"{address.rsplit(':', 1)[0]}:{port}")
    await server.start()
    server.bound_addresses = bound  # type: ignore[attr-defined]
    return server
