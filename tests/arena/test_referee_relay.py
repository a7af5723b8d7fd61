"""A bot's relay to the referee (arena/referee_relay.py, counting in
referee/service/relay.py), against a plain echo server on a real Unix socket: what it
passes on, and where it stops a bot."""

from __future__ import annotations

import array
import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from arena.referee_relay import BotRelay
from referee.service.relay import CLOSE_GRACE_SECONDS, Bucket, Budget, FrameCounter
from tests.relaying import Echo, closed_by_relay, run, until

# Counting bytes only: what the echo tests send is not HTTP/2.
BYTES_ONLY = Budget(call_bytes=0, continuation_bytes=0, connection_bytes=0, frame_bytes=0)


@asynccontextmanager
async def relayed(
    tmp_path: Path,
    echo: Echo,
    budget: Budget = BYTES_ONLY,
    max_connections: int = 16,
    admits: Callable[[int], bool] = lambda pid: True,
) -> AsyncIterator[tuple[BotRelay, list[str]]]:
    """A relay serving ``admits`` to a running ``echo``, and the reasons it gave for
    stopping its bot."""
    target = str(tmp_path / "referee.sock")
    server = await asyncio.start_unix_server(echo.handle, target)
    relay = BotRelay(str(tmp_path / "bot.sock"), target, max_connections, budget)
    told: list[str] = []
    await relay.start()
    relay.serve(admits, told.append)
    try:
        yield relay, told
    finally:
        relay.close()
        server.close()


async def connect(relay: BotRelay) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_unix_connection(relay.socket_path)


def test_bytes_pass_both_ways_and_are_counted(tmp_path: Path) -> None:
    async def test() -> None:
        echo = Echo()
        async with relayed(tmp_path, echo) as (relay, told):
            reader, writer = await connect(relay)
            message = os.urandom(300_000)
            writer.write(message)
            assert await reader.readexactly(len(message)) == message
            assert relay.account.connections == 1 and relay.account.sent_bytes == len(message)
            assert echo.received == len(message) and told == []
            writer.close()
            await until(lambda: relay.account.connections == 0)

    run(test)


def test_the_connection_past_the_limit_stops_the_bot_and_closes_them_all(tmp_path: Path) -> None:
    async def test() -> None:
        async with relayed(tmp_path, Echo(), max_connections=2) as (relay, told):
            held = [await connect(relay) for _ in range(2)]
            for reader, writer in held:  # both relayed
                writer.write(b"ping")
                assert await reader.readexactly(4) == b"ping"
            third, _ = await connect(relay)
            assert await closed_by_relay(third)
            await until(lambda: told != [])
            assert told == [
                "held 3 connections to the referee, over the 2 a bot may hold in all its processes"
            ]
            for reader, _ in held:
                assert await closed_by_relay(reader)
            assert relay.account.connections == 0
            with pytest.raises(OSError):  # once over, its socket is gone: the kernel refuses
                await connect(relay)
            assert len(told) == 1  # told once

    run(test)


def test_a_bot_past_its_byte_budget_is_stopped_and_no_more_is_passed_on(tmp_path: Path) -> None:
    async def test() -> None:
        echo = Echo()
        budget = replace(BYTES_ONLY, burst_bytes=100_000, bytes_per_second=10_000)
        async with relayed(tmp_path, echo, budget) as (relay, told):
            reader, writer = await connect(relay)
            writer.write(bytes(60_000))
            await reader.readexactly(60_000)
            writer.write(bytes(60_000))  # 120,000 within a second: over
            assert await closed_by_relay(reader)
            assert told == [
                "sent the referee more than its budget allows (0.0953674 MiB at once, "
                "refilled at 0.00953674 MiB a second; 0.1 MiB passed on, each call it opens "
                "counting as 0 KiB)"
            ], told
            assert echo.received <= 100_000 and relay.account.sent_bytes == echo.received
            with pytest.raises(OSError):  # its socket is gone: the kernel refuses
                await connect(relay)

    run(test)


def test_opening_connections_without_end_is_over_the_budget(tmp_path: Path) -> None:
    """Each connection costs the arena an accept and a connection to the referee, whatever
    is sent on it: one opened and closed over and over stays under the cap of connections
    at once, and is stopped by the budget instead."""

    async def test() -> None:
        budget = replace(BYTES_ONLY, burst_bytes=10 << 10, bytes_per_second=1)
        budget = replace(budget, connection_bytes=1024)
        async with relayed(tmp_path, Echo(), budget) as (relay, told):
            for _ in range(9):  # the budget's worth: 9 x (1024 + 1) bytes of 10 KiB
                reader, writer = await connect(relay)
                writer.write(b"x")
                assert await reader.readexactly(1) == b"x"
                writer.close()
            assert told == []
            tenth, _ = await connect(relay)
            assert await closed_by_relay(tenth)
            await until(lambda: told != [])
            assert told == [
                "opened connections to the referee faster than it may (each counts as 1 KiB "
                "of its budget, 0.00976562 MiB at once, refilled at 9.53674e-07 MiB a second)"
            ]

    run(test)


def test_the_budget_refills_at_its_rate() -> None:
    bucket = Bucket(burst=1000, rate=100, stamp=0.0)
    assert bucket.take(1000, now=0.0)
    assert not bucket.take(1, now=0.0)  # empty, and nothing taken
    assert bucket.take(500, now=5.0)  # 5 s at 100 a second
    assert not bucket.take(1, now=5.0)
    assert bucket.take(1000, now=100.0)  # never more than the burst
    assert not bucket.take(1, now=100.0)
    assert bucket.wait(now=100.0) == pytest.approx(0.01)  # one unit at 100 a second


def http2(*frames: tuple[int, bytes]) -> bytes:
    """A client's preface and frames of (type, payload) on stream 1."""
    out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    for kind, payload in frames:
        out += len(payload).to_bytes(3, "big") + bytes([kind, 0]) + (1).to_bytes(4, "big")
        out += payload
    return out


def test_frames_are_counted_however_their_bytes_are_split() -> None:
    stream = http2((4, b""), (1, b"abc"), (9, bytes(300)), (0, b"data"), (9, b""), (1, b""))
    for size in (1, 2, 7, 9, 10, 64, len(stream)):
        counter = FrameCounter()
        for at in range(0, len(stream), size):
            counter.feed(stream[at : at + size])
        assert (counter.headers, counter.continuations) == (2, 2), size


def test_frames_calls_and_continuation_frames_cost_more_than_their_bytes(
    tmp_path: Path,
) -> None:
    """A call costs the referee's servicer far more than its bytes, a CONTINUATION frame
    is parsed without end, and every frame is parsed (some answered): each counts as the
    budget says, with the connection."""

    async def test() -> None:
        budget = Budget(
            connection_bytes=1000, call_bytes=100_000, continuation_bytes=10_000, frame_bytes=7
        )
        async with relayed(tmp_path, Echo(), budget) as (relay, told):
            reader, writer = await connect(relay)
            stream = http2((1, b"abc"), (9, b"de"), (9, b""), (0, b"x"))
            for at in range(0, len(stream), 5):  # in pieces, as a socket may deliver it
                writer.write(stream[at : at + 5])
                await writer.drain()
                await asyncio.sleep(0.005)
            await reader.readexactly(len(stream))
            assert relay.account.charged_bytes == 1000 + len(stream) + 4 * 7 + 100_000 + 2 * 10_000
            assert told == []

    run(test)


def test_connections_from_other_processes_are_refused_and_cost_the_bot_nothing(
    tmp_path: Path,
) -> None:
    async def test() -> None:
        async with relayed(tmp_path, Echo(), admits=lambda pid: False) as (relay, told):
            reader, _ = await connect(relay)
            assert await closed_by_relay(reader)
            assert (
                relay.account.charged_bytes == 0 and relay.account.connections == 0 and told == []
            )

    run(test)


def test_connections_queued_faster_than_served_count_at_once(tmp_path: Path) -> None:
    """Connected without waiting, four are queued before the relay serves any: the fourth
    is over a cap of three however many it has served."""

    async def test() -> None:
        async with relayed(tmp_path, Echo(), max_connections=3) as (relay, told):
            socks = []
            for _ in range(4):  # the listening queue holds as many as the cap, and one
                sock = socket.socket(socket.AF_UNIX)
                sock.setblocking(False)
                sock.connect(relay.socket_path)  # the kernel queues it: no turn of the loop
                socks.append(sock)
            await until(lambda: told != [])
            assert told == [
                "held 4 connections to the referee, over the 3 a bot may hold in all its processes"
            ]
            for sock in socks:
                sock.close()

    run(test)


def test_reads_are_paced_and_lose_nothing(tmp_path: Path) -> None:
    """A bot writing a byte at a time, spread over its connections, cost the arena a
    wake-up per write: past the pace, the relay reads none of its connections for a
    while, and what came meanwhile comes in one read."""

    async def test() -> None:
        budget = replace(BYTES_ONLY, read_burst=2, reads_per_second=5)
        async with relayed(tmp_path, Echo(), budget) as (relay, told):
            pairs = [await connect(relay) for _ in range(3)]
            await until(lambda: relay.account.connections == 3)
            for k in range(30):
                writer = pairs[k % 3][1]
                writer.write(bytes([k]))
                await writer.drain()
                await asyncio.sleep(0.01)
            for k, (reader, _) in enumerate(pairs):
                assert await reader.readexactly(10) == bytes(range(k, 30, 3))
            assert relay.account.paced_reads >= 1 and told == []

    run(test)


def test_a_connection_whose_maker_exited_is_cut(tmp_path: Path) -> None:
    """A child connects, hands its connection over SCM_RIGHTS and exits: the connection
    lives on in the receiver, and is cut at the relay's next look. One whose maker lives
    is left alone."""
    maker = (
        "import array, socket, sys\n"
        "conn = socket.socket(socket.AF_UNIX); conn.connect(sys.argv[1])\n"
        "out = socket.socket(fileno=int(sys.argv[2]))\n"
        "out.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,"
        " array.array('i', [conn.fileno()]))])\n"
    )

    async def test() -> None:
        async with relayed(tmp_path, Echo()) as (relay, told):
            own_reader, own_writer = await connect(relay)  # made by this live process
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            subprocess.run(
                [sys.executable, "-c", maker, relay.socket_path, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                check=True,
            )
            fds = array.array("i")
            _, ancillary, _, _ = ours.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
            fds.frombytes(ancillary[0][2][: fds.itemsize])
            handed = socket.socket(fileno=fds[0])
            await until(lambda: relay.account.connections == 2)
            assert relay.cut_orphans() == 1
            handed.settimeout(5)
            assert await asyncio.to_thread(handed.recv, 1) == b""  # cut
            own_writer.write(b"still")
            assert await own_reader.readexactly(5) == b"still"
            assert relay.account.connections == 1 and told == []
            for sock in (handed, ours, theirs):
                sock.close()

    run(test)


def test_what_a_bot_does_not_read_is_not_held_by_the_relay(tmp_path: Path) -> None:
    """The referee sends 64 MiB to a bot that reads none of it: the relay stops reading
    the referee's end once it holds a little (the rest waits in the referee's own flow
    control, as it would with the bot connected directly)."""

    async def test() -> None:
        echo = Echo(flood=64 << 20)
        async with relayed(tmp_path, echo) as (relay, told):
            _, writer = await connect(relay)
            await asyncio.sleep(1.0)
            (link,) = relay.account.links
            assert link.client.get_write_buffer_size() < 2 << 20
            assert told == []
            writer.close()

    run(test)


def test_closing_the_relay_removes_its_socket(tmp_path: Path) -> None:
    async def test() -> None:
        async with relayed(tmp_path, Echo()) as (relay, _):
            reader, _ = await connect(relay)
            assert Path(relay.socket_path).exists()
        assert not Path(relay.socket_path).exists()
        assert await closed_by_relay(reader)

    run(test)


def test_any_user_may_connect_to_the_socket(tmp_path: Path) -> None:
    """A root arena's bots run as users of their own."""

    async def test() -> None:
        async with relayed(tmp_path, Echo()) as (relay, _):
            assert os.stat(relay.socket_path).st_mode & 0o777 == 0o666

    run(test)


@pytest.mark.parametrize("how", ["closes", "holds on"])
def test_a_bot_that_stops_reading_leaves_nothing_open(tmp_path: Path, how: str) -> None:
    """A bot writes to an echoing referee without reading until its writes block. Each end
    of the relay has stopped reading the other, its own buffer full. Then the bot closes:
    closed gracefully, the link's referee end waited for its buffer to drain, which
    nothing would read (a red-team bot leaked 11 connections a cycle, and the arena hung
    at the end of its tournament); now both ends are closed. Or it holds on: the stalled
    link still counts as its connection, and closing the relay closes it."""
    roomy = replace(BYTES_ONLY, burst_bytes=1 << 30)
    echo = Echo()

    async def test() -> None:
        async with relayed(tmp_path, echo, roomy) as (relay, told):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(relay.socket_path)
            sock.setblocking(False)
            stalled = 0.0
            while stalled < 1.0:  # until nothing more is taken for a second
                try:
                    sock.send(bytes(1 << 16))
                    stalled = 0.0
                except BlockingIOError:
                    await asyncio.sleep(0.1)
                    stalled += 0.1
            assert echo.open == 1 and relay.account.connections == 1
            if how == "closes":
                sock.close()
                await until(lambda: echo.open == 0, CLOSE_GRACE_SECONDS + 5)
                assert relay.account.connections == 0 and not relay.account.closing
            assert told == []
        await until(lambda: echo.open == 0)
        sock.close()

    run(test)
