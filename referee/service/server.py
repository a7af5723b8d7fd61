"""Starting and stopping a grpc.aio server for a RefereeCore, with the standard gRPC
health service (SERVING once started, NOT_SERVING from the moment it starts stopping)
and server reflection (so grpcurl and other tools can list and call the service)."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import weakref
from collections.abc import Callable, Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from referee.aio import to_the_end
from referee.service.core import RefereeCore
from referee.service.errors import RefereeError
from referee.service.front_door import FrontDoor
from referee.service.open_calls import OpenCallsPerPeer
from referee.service.servicer import SERVICE_NAME, RefereeServicer, handlers
from referee.service.sessions import MAX_RECEIVE_BYTES
from referee.v1 import referee_pb2 as pb

SERVICES = (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)
# A connection that has not spoken HTTP/2 this long after it opened is closed (gRPC's
# default is 120 s): connections opened and left silent cannot pile up.
HANDSHAKE_SECONDS = 10.0
# A connection with no call in progress this long is closed (gRPC's default: never), so
# connections that spoke HTTP/2 and then hold still cannot pile up either. Clients
# reconnect by themselves on their next call; a bot's Play stream is a call in progress.
IDLE_CONNECTION_SECONDS = 60.0
# Calls one connection may have open at once (gRPC's default: no limit; a client past it
# waits for one to end). Each open call may hold an unfinished message of up to the
# transport's limit (sessions.MAX_RECEIVE_BYTES), so this bounds what one connection can
# cost: 4 MiB. The arena caps the connections of its bots (arena.bots.SOCKETS).
STREAMS_PER_CONNECTION = 32


def raise_open_files_limit() -> None:
    """Let this process use every file descriptor its hard limit allows (processes often
    start at a soft 1024): connections, bots' pipes and the database share them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(1 << 20, hard if hard != resource.RLIM_INFINITY else 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def connection_cap() -> int:
    """The most connections the server accepts at once: half the file descriptors this
    process may open, so that connections can never take those the rest needs."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return (1 << 19) if soft == resource.RLIM_INFINITY else max(16, soft // 2)


async def start_server(
    core: RefereeCore,
    addresses: Sequence[str],
    admin_token: str | None = None,
    services: Sequence[Callable[[grpc.aio.Server], object]] = (),
    private_watch: bool = False,
) -> grpc.aio.Server:
    """Start a grpc.aio server for ``core`` on ``addresses`` ("127.0.0.1:50051",
    "unix:/path/sock", "127.0.0.1:0" for any free port). Returns the started server;
    ``bound_addresses(server)`` lists the addresses with the ports actually bound, and
    ``server.stop`` reports NOT_SERVING on the health service before it stops.
    ``services`` register further services (the arena's) before it starts; the
    transport reads messages of up to MAX_RECEIVE_BYTES, over Play's own limit so that
    Play can refuse an oversized message as `malformed` itself. With
    ``private_watch`` the Watch RPC needs the admin token like the admin RPCs. TCP
    clients reach gRPC through a ``FrontDoor`` (front_door.py), which counts what each
    client address costs. RefereeError (one line) when an address cannot be listened on."""
    raise_open_files_limit()
    server = grpc.aio.server(
        interceptors=[OpenCallsPerPeer()],
        options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.so_reuseport", 0),
            ("grpc.server_handshake_timeout_ms", int(HANDSHAKE_SECONDS * 1000)),
            ("grpc.max_connection_idle_ms", int(IDLE_CONNECTION_SECONDS * 1000)),
            ("grpc.max_allowed_incoming_connections", connection_cap()),
            ("grpc.max_concurrent_streams", STREAMS_PER_CONNECTION),
        ],
    )
    server.add_generic_rpc_handlers((handlers(RefereeServicer(core, admin_token, private_watch)),))
    for add_service in services:
        add_service(server)
    checks = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    reflection.enable_server_reflection(SERVICES, server, pool=pb.DESCRIPTOR.pool)
    bound = []
    door: FrontDoor | None = None
    try:
        for address in addresses:
            if address.startswith("unix:"):
                _listen(server, address)
                bound.append(address)
                continue
            if door is None:  # TCP clients come through it (front_door.py)
                door = FrontDoor(connection_cap() // 3)
                _listen(server, f"unix:{door.inner_path}")
            bound.append(door.bind(address))
    except BaseException:
        if door is not None:
            door.close()
        raise
    stop = server.stop

    async def serve() -> None:
        await server.start()
        if door is not None:
            door.start()
        for service in ("", SERVICE_NAME):  # "": the server as a whole
            await checks.set(service, health_pb2.HealthCheckResponse.SERVING)

    async def stop_serving(grace: float | None = None) -> None:
        await checks.enter_graceful_shutdown()  # health checks see NOT_SERVING first
        if door is not None:
            door.stop_accepting()
        await stop(grace)
        if door is not None:
            door.close()

    try:
        # Cut short (Ctrl-C, SIGTERM), a start leaves a server the caller never gets to
        # stop, and grpc's stop in the middle of its start fails ("invalid state").
        await to_the_end(serve())
    except asyncio.CancelledError:
        await to_the_end(stop_serving(0))
        raise
    server.stop = stop_serving  # type: ignore[method-assign]
    _BOUND[server] = bound
    return server


# The addresses each server from start_server listens on, ports as bound (port 0 picks one).
_BOUND: weakref.WeakKeyDictionary[grpc.aio.Server, list[str]] = weakref.WeakKeyDictionary()


def bound_addresses(server: grpc.aio.Server) -> list[str]:
    """The addresses a server from start_server listens on, with the ports actually bound
    ("127.0.0.1:41234", "unix:/path")."""
    return _BOUND[server]


def _listen(server: grpc.aio.Server, address: str) -> None:
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # grpc raises this when the address is taken or invalid
        port = 0
    if port == 0:
        raise RefereeError(f"cannot listen on {address} (in use, or not a valid address)")
