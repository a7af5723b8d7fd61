"""The referee under hostile clients, over real streams: a bot that floods it and never
reads, a stream that stops reading, messages over the size cap at every scale, bad
Hellos, and a reconnect that must not deliver an event twice."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.bots import BotPool
from referee.match import MatchConfig, MatchResult
from referee.service import RefereeCore, bound_addresses, start_server
from referee.service import open_calls as open_calls_module
from referee.service import server as server_module
from referee.service import servicer as servicer_module
from referee.service.connection import MAX_QUEUED_BYTES, MAX_QUEUED_MESSAGES
from referee.service.open_calls import OPEN_CALLS_PER_PEER
from referee.service.servicer import HELLO_WAITS_PER_PEER
from referee.service.sessions import MAX_RECEIVE_BYTES, MAX_UNASKED_MESSAGES, PlayerSession
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.conftest import ADMIN_TOKEN, arena_process
from tests.security.bots.http2_frames import (
    GOAWAY,
    PREFACE,
    SETTINGS,
    flood_header_block,
    frame,
    open_header_block,
)
from tests.service.conftest import PY, RANDOM_BOT, SHORT_GIN, entrant, misbehaving, play_match

FLOODER = [PY, "-m", "tests.service.bots.flooder"]


def test_a_flooder_that_never_reads_is_cut_off_and_the_match_beside_it_is_unaffected(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[MatchResult, MatchResult, bool]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1")
        try:
            flooder = await pool.acquire(entrant("flooder", FLOODER))
            honest = [await pool.acquire(entrant(f"bot{i}", RANDOM_BOT)) for i in range(3)]
            config = MatchConfig(move_seconds=3.0)
            flooded, _ = core.create_match(
                "gin_rummy", SHORT_GIN, 2, 1, [flooder.token, honest[0].token],
                config=config, start_timeout=30.0,
            )  # fmt: skip
            beside, _ = core.create_match(
                "gin_rummy", SHORT_GIN, 2, 2, [honest[1].token, honest[2].token],
                config=config, start_timeout=30.0,
            )  # fmt: skip
            first, second = await asyncio.wait_for(
                asyncio.gather(flooded.wait(), beside.wait()), 120
            )
            session = core.session(flooder.token)
            holds_nothing = session is not None and session.connection is None
            return first, second, holds_nothing
        finally:
            await pool.close()
            await server.stop(0)

    flooded, beside, holds_nothing = asyncio.run(scenario())
    assert [(f.seat, f.kind) for f in flooded.faults] == [(0, "disconnect")]
    assert f"over {MAX_UNASKED_MESSAGES} messages that answer no waiting turn" in (
        flooded.faults[0].reason
    )
    assert flooded.forfeited == (0,)
    assert holds_nothing  # the stream and its queue are gone
    assert beside.reason == "finished" and not beside.faults


def test_a_stream_that_stops_reading_is_closed_at_the_queue_bound(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, int, int, grpc.StatusCode, str]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        token = core.issue_player_token("sleeper")
        session = core.session(token)
        assert session is not None
        async with grpc.aio.insecure_channel(address) as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
            await call.write(pb.BotMessage(hello=pb.Hello(token=token)))
            assert (await call.read()).HasField("welcome")
            notice = pb.EventNotice(match_id="m", kind="test", text="x" * 2000)
            most_messages = most_bytes = 0
            for _ in range(20_000):  # far more than the transport and the queue hold
                conn = session.connection
                if conn is None:
                    break
                session.send(pb.RefereeMessage(events=pb.Events(events=[notice] * 4)))
                most_messages = max(most_messages, len(conn))
                most_bytes = max(most_bytes, conn.queued_bytes)
                await asyncio.sleep(0)
            reason = session.cut_off or ""
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                while True:  # what the transport already carried, then the verdict
                    await call.read()
        await server.stop(0)
        return reason, most_messages, most_bytes, ended.value.code(), ended.value.details() or ""

    reason, most_messages, most_bytes, code, details = asyncio.run(scenario())
    assert "the bot fell behind" in reason
    assert most_messages <= MAX_QUEUED_MESSAGES and most_bytes <= MAX_QUEUED_BYTES
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "fell behind" in details


@pytest.mark.parametrize("size", [70_000, MAX_RECEIVE_BYTES - 16])
def test_a_message_over_the_size_cap_is_a_malformed_fault(tmp_path: Path, size: int) -> None:
    config = MatchConfig(move_seconds=60.0)
    result = asyncio.run(
        play_match(tmp_path, [misbehaving("oversize", 2, str(size)), RANDOM_BOT], config)
    )
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "malformed")]
    assert result.forfeited == (0,)


def test_a_message_over_the_transport_limit_costs_only_its_own_stream(tmp_path: Path) -> None:
    # gRPC refuses it from its length prefix (RESOURCE_EXHAUSTED) without reading it, and
    # ends the call: the SDK reconnects, gets its Turn again and plays on, its clock having
    # run meanwhile. The referee never holds the message (at 128 MiB it read 100 MB whole).
    config = MatchConfig(move_seconds=60.0)
    result = asyncio.run(
        play_match(tmp_path, [misbehaving("oversize", 2, "1000000"), RANDOM_BOT], config)
    )
    assert result.reason == "finished" and result.faults == ()


@pytest.mark.parametrize("size", [10_000_000, 100_000_000])
def test_a_message_over_the_budget_stops_its_sender_only(tmp_path: Path, size: int) -> None:
    """Sent through the bot's relay, a message over its budget (2 MiB at once) never
    reaches the referee: the sender is stopped with a limit fault."""
    config = MatchConfig(move_seconds=60.0)
    result = asyncio.run(
        play_match(tmp_path, [misbehaving("oversize", 2, str(size)), RANDOM_BOT], config)
    )
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "limit")], result.faults
    assert "sent the referee more than its budget allows" in result.faults[0].reason
    assert result.forfeited == (0,)


def test_a_token_that_is_not_ascii_is_unauthenticated(tmp_path: Path) -> None:
    async def scenario() -> list[pb.RefereeMessage]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        core.issue_player_token("real")
        async with grpc.aio.insecure_channel(address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            hello = pb.BotMessage(hello=pb.Hello(token="jéton-ünïcode-✓"))
            replies = [m async for m in stub.Play(iter([hello]))]
        await server.stop(0)
        return replies

    replies = asyncio.run(scenario())
    assert [r.error.code for r in replies] == ["unauthenticated"]
    assert replies[0].error.message == "unknown or expired token"


def test_a_stream_that_never_says_hello_gets_an_error_naming_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream ends with an Error, as the protocol says of every refused Hello; it
    used to end normally with nothing, which a bot reads as "no more matches"."""
    monkeypatch.setattr(servicer_module, "HELLO_TIMEOUT", 0.5)

    async def silent() -> Any:
        await asyncio.sleep(30)
        yield pb.BotMessage()

    async def scenario() -> list[pb.RefereeMessage]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
                call = stub.Play(silent())
                return [m async for m in call]
        finally:
            await server.stop(0)

    replies = asyncio.run(scenario())
    assert [(r.error.code, r.error.message) for r in replies] == [
        ("protocol", "no Hello within 0.5 seconds")
    ]


class _NoScan(dict[str, PlayerSession]):
    """The sessions of a referee, refusing to be gone through one by one."""

    def items(self) -> Any:
        raise AssertionError("the token was compared with every known token")

    def values(self) -> Any:
        raise AssertionError("the token was compared with every known token")

    def __iter__(self) -> Any:
        raise AssertionError("the token was compared with every known token")


def test_a_hello_is_judged_without_going_through_every_known_token(tmp_path: Path) -> None:
    """Comparing a Hello's token with each known one cost (players known) x (its length):
    64 KiB tokens against 1,600 players took 100 ms of the event loop per Hello, and a
    client without a token made other matches' bots miss their move clocks. A token is
    looked up: a wrong one of any length, or a right one, touches no other session."""

    async def scenario() -> tuple[pb.RefereeMessage, pb.RefereeMessage]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        tokens = [core.issue_player_token(f"p{i}") for i in range(2000)]
        core.sessions = _NoScan(core.sessions)
        replies = []
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
                for token in ("x" * 60_000, tokens[1234]):
                    call = stub.Play(iter([pb.BotMessage(hello=pb.Hello(token=token))]))
                    replies.append(await call.read())  # the first answer: Error or Welcome
                    call.cancel()
        finally:
            await server.stop(0)
        return replies[0], replies[1]

    wrong, right = asyncio.run(scenario())
    assert wrong.error.code == "unauthenticated"
    assert right.WhichOneof("kind") == "welcome", right


async def _seat_and_opponent(
    tmp_path: Path, core: RefereeCore, address: str, pool: BotPool
) -> tuple[str, asyncio.Task[MatchResult]]:
    """A match of a hand-driven seat 0 (its token returned) against a random bot."""
    opponent = await pool.acquire(entrant("random", RANDOM_BOT))
    runtime, tokens = core.create_match(
        "gin_rummy", SHORT_GIN, 2, 4, [None, opponent.token],
        names=["hand", "random"], config=MatchConfig(move_seconds=10.0), start_timeout=30.0,
    )  # fmt: skip
    return tokens[0], asyncio.get_running_loop().create_task(runtime.wait())


def test_a_second_hello_mid_match_is_a_protocol_fault_with_a_clear_text(tmp_path: Path) -> None:
    async def scenario() -> MatchResult:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1")
        try:
            token, match = await _seat_and_opponent(tmp_path, core, address, pool)
            async with grpc.aio.insecure_channel(address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
                await call.write(pb.BotMessage(hello=pb.Hello(token=token)))
                while not (await call.read()).HasField("turn"):
                    pass
                await call.write(pb.BotMessage(hello=pb.Hello(token=token)))
                return await asyncio.wait_for(match, 60)
        finally:
            await pool.close()
            await server.stop(0)

    result = asyncio.run(scenario())
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "malformed")]
    assert result.faults[0].reason == "the bot sent a second Hello (a stream says hello once)"


def test_a_turn_resent_on_reconnect_carries_no_event_twice(tmp_path: Path) -> None:
    async def scenario() -> tuple[pb.Turn, pb.Turn, list[str]]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1")
        try:
            token, match = await _seat_and_opponent(tmp_path, core, address, pool)
            hello = pb.BotMessage(hello=pb.Hello(token=token))
            async with grpc.aio.insecure_channel(address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
                await call.write(hello)
                while True:  # play until a Turn brings events along, then drop the stream
                    message = await call.read()
                    if message.HasField("turn") and message.turn.events:
                        first = message.turn
                        break
                    if message.HasField("turn"):
                        code = message.turn.legal_actions[0]
                        action = pb.Action(request_id=message.turn.request_id, code=code)
                        await call.write(pb.BotMessage(action=action))
                call.cancel()
            await asyncio.sleep(0.2)
            kinds = []
            async with grpc.aio.insecure_channel(address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
                await call.write(hello)
                while not (message := await call.read()).HasField("turn"):
                    kinds.append(message.WhichOneof("kind"))
                again = message.turn
                action = pb.Action(request_id=again.request_id, code=again.legal_actions[0])
                await call.write(pb.BotMessage(action=action))
                match.cancel()
            return first, again, kinds
        finally:
            await pool.close()
            await server.stop(0)

    first, again, kinds = asyncio.run(scenario())
    assert kinds == ["welcome", "match_start"]
    assert again.request_id == first.request_id and again.observation == first.observation
    assert first.events and not again.events  # delivered once, not resent


def test_a_bot_that_stops_sending_but_stays_connected_is_malformed(tmp_path: Path) -> None:
    """What a message over the transport's own limit leaves behind, as grpc shows it: the
    bot's side of the stream ends while the stream stays open."""

    async def scenario() -> MatchResult:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1")
        try:
            token, match = await _seat_and_opponent(tmp_path, core, address, pool)
            async with grpc.aio.insecure_channel(address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
                await call.write(pb.BotMessage(hello=pb.Hello(token=token)))
                while not (await call.read()).HasField("turn"):
                    pass
                await call.done_writing()
                return await asyncio.wait_for(match, 60)
        finally:
            await pool.close()
            await server.stop(0)

    result = asyncio.run(scenario())
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "malformed")]
    assert "transport limit, or closed its side of the stream" in result.faults[0].reason


def test_silent_connections_are_closed_and_never_take_every_descriptor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Connections that never speak HTTP/2 are closed after HANDSHAKE_SECONDS, and the
    server accepts no more at once than its cap: a client opening thousands cannot take
    the file descriptors the rest of the process needs. (Each TCP connection takes three
    descriptors, relayed by the front door: a cap of 24 descriptors' worth is 8 at once.)"""
    monkeypatch.setattr(server_module, "HANDSHAKE_SECONDS", 1.0)
    monkeypatch.setattr(server_module, "connection_cap", lambda: 24)

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    async def scenario() -> tuple[int, int, int]:
        server = await start_server(RefereeCore(), ["127.0.0.1:0"])
        host, port = bound_addresses(server)[0].rsplit(":", 1)
        before = open_fds()
        held = [socket.create_connection((host, int(port))) for _ in range(24)]
        try:
            await asyncio.sleep(0.5)  # the server accepts what it will
            taken = open_fds() - before - len(held)
            for conn in held:
                conn.setblocking(False)
            closed: set[int] = set()
            deadline = time.monotonic() + 20
            while len(closed) < len(held) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
                for i, conn in enumerate(held):
                    with contextlib.suppress(BlockingIOError):
                        if conn.recv(1) == b"":
                            closed.add(i)
            async with grpc.aio.insecure_channel(bound_addresses(server)[0]) as channel:
                reply = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=10
                )
            return taken, len(closed), reply.status
        finally:
            for conn in held:
                conn.close()
            await server.stop(0)

    taken, closed, status = asyncio.run(scenario())
    assert taken <= 3 * 8 + 2  # the cap, and a descriptor or two of gRPC's own
    assert closed == 24  # every silent one, the cap's worth at a time
    assert status == health_pb2.HealthCheckResponse.SERVING


def test_connections_that_spoke_http2_and_hold_still_are_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A connection past its handshake with no call in progress is closed after
    IDLE_CONNECTION_SECONDS; one with a call in progress (a stream) is kept, and a client
    whose idle connection was closed calls again without noticing."""
    monkeypatch.setattr(server_module, "IDLE_CONNECTION_SECONDS", 1.0)
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # SETTINGS

    async def scenario() -> tuple[float | None, bool, int]:
        server = await start_server(RefereeCore(), ["127.0.0.1:0"])
        address = bound_addresses(server)[0]
        host, port = address.rsplit(":", 1)
        still = socket.create_connection((host, int(port)))
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                watch = health.Watch(health_pb2.HealthCheckRequest())
                await watch.read()  # the stream is up: its connection has a call in progress
                still.sendall(preface)
                still.setblocking(False)
                opened, closed_after = time.monotonic(), None
                while closed_after is None and time.monotonic() - opened < 8:
                    await asyncio.sleep(0.1)
                    with contextlib.suppress(BlockingIOError):
                        while chunk := still.recv(4096):  # the server's SETTINGS, GOAWAY
                            pass
                        if chunk == b"":
                            closed_after = time.monotonic() - opened
                stream_alive = not watch.done()
                watch.cancel()
            async with grpc.aio.insecure_channel(address) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
                await asyncio.sleep(2.5)  # idle: the server closes this connection
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            return closed_after, stream_alive, reply.status
        finally:
            still.close()
            await server.stop(0)

    closed_after, stream_alive, status = asyncio.run(scenario())
    # closed for idling, well before the handshake limit (10 s) could have applied
    assert closed_after is not None and closed_after < 8
    assert stream_alive
    assert status == health_pb2.HealthCheckResponse.SERVING


def test_tokenless_streams_are_capped_per_client_address() -> None:
    """Health Watch and reflection streams need no token and stay open as long as their
    client likes: one address may hold OPEN_CALLS_PER_PEER of them, the next is refused
    with RESOURCE_EXHAUSTED until one ends; short calls are not counted."""

    async def scenario() -> tuple[grpc.StatusCode, str, int, int]:
        server = await start_server(RefereeCore(), ["127.0.0.1:0"])
        address = bound_addresses(server)[0]
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
                held: list[grpc.aio.Call] = []
                for _ in range(OPEN_CALLS_PER_PEER - 1):
                    watch = health.Watch(health_pb2.HealthCheckRequest())
                    await watch.read()
                    held.append(watch)
                info = reflection.ServerReflectionInfo()
                await info.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                services = len((await info.read()).list_services_response.service)
                held.append(info)  # its request stream still open: the call is held
                refused = health.Watch(health_pb2.HealthCheckRequest())
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await refused.read()
                checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
                held.pop(0).cancel()
                await asyncio.sleep(0.5)  # the server sees the cancellation
                again = health.Watch(health_pb2.HealthCheckRequest())
                status = (await again.read()).status
                for call in [*held, again]:
                    call.cancel()
            error = caught.value
            assert checked.status == health_pb2.HealthCheckResponse.SERVING
            return error.code(), error.details() or "", status, services
        finally:
            await server.stop(0)

    code, details, status, services = asyncio.run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"{OPEN_CALLS_PER_PEER} health or reflection streams are open from ipv4:127.0.0.1" in (
        details
    )
    assert status == health_pb2.HealthCheckResponse.SERVING  # admitted once one ended
    assert services >= 3


def test_play_streams_waiting_for_hello_are_capped_per_network_address() -> None:
    """A client re-opening Play streams that never say Hello could keep its connections
    from idling out: one network address may hold HELLO_WAITS_PER_PEER such streams; the
    next is refused with RESOURCE_EXHAUSTED, and a stream that says Hello frees its place."""

    async def scenario() -> tuple[grpc.StatusCode, str, str]:
        server = await start_server(RefereeCore(), ["127.0.0.1:0"])
        address = bound_addresses(server)[0]
        # Connections of their own (a connection carries at most STREAMS_PER_CONNECTION
        # calls; gRPC would otherwise share one between the channels).
        own = [("grpc.use_local_subchannel_pool", 1)]
        channels = [grpc.aio.insecure_channel(address, options=own) for _ in range(4)]
        try:
            async with contextlib.AsyncExitStack() as stack:
                for channel in channels:
                    await stack.enter_async_context(channel)
                stubs = [referee_pb2_grpc.RefereeStub(c) for c in channels]  # type: ignore[no-untyped-call]
                waiting = [stubs[i % 3].Play() for i in range(HELLO_WAITS_PER_PEER)]
                await asyncio.gather(*(call.wait_for_connection() for call in waiting))
                await asyncio.sleep(0.5)  # every stream has reached the servicer
                stub = stubs[3]
                refused = stub.Play()
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await refused.read()
                hello = pb.BotMessage(hello=pb.Hello(token="not a token"))
                await waiting[0].write(hello)
                answer = await waiting[0].read()
                admitted = stub.Play()
                await admitted.write(hello)
                again = await admitted.read()
                for call in [*waiting, admitted]:
                    call.cancel()
            assert answer.error.code == "unauthenticated"
            return caught.value.code(), caught.value.details() or "", again.error.code
        finally:
            await server.stop(0)

    code, details, again = asyncio.run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert details == (
        f"{HELLO_WAITS_PER_PEER} Play streams from ipv4:127.0.0.1 have not said Hello yet"
    )
    assert again == "unauthenticated"  # a place freed: heard, and refused for its token


def test_a_header_flood_at_a_tcp_port_is_cut_and_bars_its_client_only(tmp_path: Path) -> None:
    """A client of `arena serve` that opens a call's header block and sends CONTINUATION
    frames without end (no token needed) was parsed by gRPC as long as it liked, 8 GB in
    24 s at 0.6 of a core. The front door charges each CONTINUATION frame 64 KiB of the
    client address's budget: it is cut within a few MiB, its address is refused for a
    while, and the server serves others on, and says so once on stderr."""
    stderr = tmp_path / "stderr"
    serve = ("serve", "--host", "127.0.0.1", "--port", "0", "--admin-token", ADMIN_TOKEN)
    with stderr.open("w") as err, arena_process(*serve, stderr=err) as (_, line):
        address = line.split()[-1]
        host, port = address.rsplit(":", 1)

        def from_other_address() -> socket.socket:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.2", 0))
            sock.settimeout(10)
            sock.connect((host, int(port)))
            return sock

        flooder = from_other_address()
        open_header_block(flooder, "/referee.v1.Referee/Play")
        sent = flood_header_block([flooder], mib=200, seconds=15)
        flooder.close()
        again = from_other_address()
        with contextlib.suppress(ConnectionResetError):
            assert again.recv(1) == b""  # closed at once: its address is barred
        again.close()
        with grpc.insecure_channel(address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=10
            )
    assert sent < 16 << 20, sent
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    said = stderr.read_text()
    assert said.count("closed the connections of ipv4:127.0.0.2 and refuse its new ones for") == 1
    assert "sent the referee more than its budget allows" in said
    assert "Traceback" not in said


def test_what_a_client_puts_in_a_goaway_frame_never_reaches_the_servers_stderr(
    tmp_path: Path,
) -> None:
    """gRPC logs a GOAWAY's debug text at INFO, raw: a red-team client wrote 404 MB in
    30 s into an `arena serve`'s stderr, forged log lines included, within its budget.
    The project's processes run gRPC at GRPC_VERBOSITY=ERROR."""
    forged = b"\nE1128 00:00:00.000000 1 front_door.py:1] FORGED LINE\n"
    goaway = frame(GOAWAY, 0, 0, struct.pack(">II", 0, 2) + forged + b"A" * 1000)
    stderr = tmp_path / "stderr"
    serve = ("serve", "--host", "127.0.0.1", "--port", "0", "--admin-token", ADMIN_TOKEN)
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
    with stderr.open("w") as err, arena_process(*serve, stderr=err, env=env) as (_, line):
        host, port = line.split()[-1].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=1) as sock:
            sock.sendall(PREFACE + frame(SETTINGS, 0, 0) + goaway * 20)
            with contextlib.suppress(OSError):  # until the server has read them (1 s)
                while sock.recv(1 << 16):
                    pass
    assert "FORGED" not in stderr.read_text()


def test_reflection_requests_are_paced_per_client_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reflection takes requests without a token, many to an HTTP/2 frame: a red-team
    client had 17,000 a second answered, 1.2 cores of the server, for a small part of its
    budget at the front door. Requests are paced per address (here 10 at once, then 200 a
    second); none is lost."""
    monkeypatch.setattr(open_calls_module, "REQUEST_BURST", 10)
    monkeypatch.setattr(open_calls_module, "REQUESTS_PER_SECOND", 200)

    async def scenario() -> tuple[int, float]:
        server = await start_server(RefereeCore(), ["127.0.0.1:0"])
        try:
            async with grpc.aio.insecure_channel(bound_addresses(server)[0]) as channel:
                info = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
                started = time.monotonic()
                for _ in range(210):
                    await info.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                replies = [await info.read() for _ in range(210)]
                took = time.monotonic() - started
                info.cancel()
            return sum(r.HasField("list_services_response") for r in replies), took
        finally:
            await server.stop(0)

    answered, took = asyncio.run(scenario())
    assert answered == 210
    assert took >= 0.9  # 200 past the 10 at once, at 200 a second
