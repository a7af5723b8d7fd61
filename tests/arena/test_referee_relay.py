"""A bot's relay to the referee (arena/referee_relay.py), against a plain echo server on a
real Unix socket: what it passes on, and where it stops a bot."""

from __future__ import annotations

import array
import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from arena.referee_relay import BotRelay, ByteBucket


class Echo:
    """A Unix socket server that sends back what it reads, counting it; with ``flood``,
    one that sends that many bytes to each connection and reads nothing."""

    def __init__(self, flood: int = 0) -> None:
        self.received = 0
        self.flood = flood

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.flood:
            writer.write(bytes(self.flood))
        try:
            while data := await reader.read(1 << 16):
                self.received += len(data)
                if not self.flood:
                    writer.write(data)
                    await writer.drain()
        except ConnectionError:
            pass
        writer.close()


@asynccontextmanager
async def relayed(
    tmp_path: Path, echo: Echo, **limits: int
) -> AsyncIterator[tuple[BotRelay, list[str]]]:
    """A started relay (``max_connections`` 16 unless given) to a running ``echo``, and
    the reasons it gave for stopping its bot."""
    target = str(tmp_path / "referee.sock")
    server = await asyncio.start_unix_server(echo.handle, target)
    limits.setdefault("max_connections", 16)
    relay = BotRelay(str(tmp_path / "bot.sock"), target, **limits)
    told: list[str] = []
    relay.on_limit = told.append
    await relay.start()
    try:
        yield relay, told
    finally:
        relay.close()
        server.close()


async def connect(relay: BotRelay) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_unix_connection(relay.socket_path)


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), seconds)


async def closed_by_relay(reader: asyncio.StreamReader) -> bool:
    """Whether the connection ends (EOF or reset) within a few seconds, reading on."""

    async def drain() -> None:
        while await reader.read(1 << 16):
            pass

    with suppress(ConnectionError):
        await asyncio.wait_for(drain(), 5)
    return True


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 60))


def test_bytes_pass_both_ways_and_are_counted(tmp_path: Path) -> None:
    async def test() -> None:
        echo = Echo()
        async with relayed(tmp_path, echo) as (relay, told):
            reader, writer = await connect(relay)
            message = os.urandom(300_000)
            writer.write(message)
            assert await reader.readexactly(len(message)) == message
            assert relay.connections == 1 and relay.sent_bytes == len(message)
            assert echo.received == len(message) and told == []
            writer.close()
            await until(lambda: relay.connections == 0)

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
            assert relay.connections == 0
            late, _ = await connect(relay)  # once over, nothing more is taken
            assert await closed_by_relay(late)
            assert len(told) == 1  # told once

    run(test)


def test_a_bot_past_its_byte_budget_is_stopped_and_no_more_is_passed_on(tmp_path: Path) -> None:
    async def test() -> None:
        echo = Echo()
        limits = {"burst_bytes": 100_000, "bytes_per_second": 10_000, "connection_bytes": 0}
        async with relayed(tmp_path, echo, **limits) as (
            relay,
            told,
        ):
            reader, writer = await connect(relay)
            writer.write(bytes(60_000))
            await reader.readexactly(60_000)
            writer.write(bytes(60_000))  # 120,000 within a second: over
            assert await closed_by_relay(reader)
            assert len(told) == 1 and told[0].startswith(
                "sent the referee more than 0.0953674 MiB faster than the 0.00953674 MiB a "
                "second a bot may send"
            ), told
            assert echo.received <= 100_000 and relay.sent_bytes == echo.received

    run(test)


def test_opening_connections_without_end_is_over_the_budget(tmp_path: Path) -> None:
    """Each connection costs the arena an accept and a connection to the referee, whatever
    is sent on it: one opened and closed over and over stays under the cap of connections
    at once, and is stopped by the budget instead."""

    async def test() -> None:
        limits = {"burst_bytes": 10 << 10, "bytes_per_second": 1, "connection_bytes": 1024}
        async with relayed(tmp_path, Echo(), **limits) as (relay, told):
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
                "opened connections to the referee faster than it may: each counts as 1 KiB "
                "of the 0.00976562 MiB a bot may send at once (refilled at 9.53674e-07 MiB a "
                "second)"
            ]

    run(test)


def test_the_budget_refills_at_its_rate() -> None:
    bucket = ByteBucket(burst=1000, rate=100, stamp=0.0)
    assert bucket.take(1000, now=0.0)
    assert not bucket.take(1, now=0.0)  # empty, and nothing taken
    assert bucket.take(500, now=5.0)  # 5 s at 100 a second
    assert not bucket.take(1, now=5.0)
    assert bucket.take(1000, now=100.0)  # never more than the burst
    assert not bucket.take(1, now=100.0)


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
            await until(lambda: relay.connections == 2)
            assert relay.cut_orphans() == 1
            handed.settimeout(5)
            assert await asyncio.to_thread(handed.recv, 1) == b""  # cut
            own_writer.write(b"still")
            assert await own_reader.readexactly(5) == b"still"
            assert relay.connections == 1 and told == []
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
            (link,) = relay._links
            assert link.bot.get_write_buffer_size() < 2 << 20
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
