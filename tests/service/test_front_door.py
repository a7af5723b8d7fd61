"""The front door of a server's TCP ports (referee/service/front_door.py), against a plain
echo server on a real Unix socket: each client address counted on its own, and who the
server is told its peers are."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from referee.service.errors import RefereeError
from referee.service.front_door import FrontDoor, HeldCounts
from referee.service.peers import FORWARDED, peer_address
from referee.service.relay import CLOSE_GRACE_SECONDS, Budget
from tests.relaying import Echo, closed_by_relay, run, until
from tests.security.bots.http2_frames import PREFACE, SETTINGS, frame

# Counting bytes only: what these tests send is not HTTP/2.
SMALL = Budget(burst_bytes=100_000, bytes_per_second=1_000, call_bytes=0, continuation_bytes=0)


@asynccontextmanager
async def door(
    tmp_path: Path,
    echo: Echo,
    max_connections: int = 16,
    per_client: int = 8,
    budget: Budget = SMALL,
    bar_seconds: float = 30.0,
) -> AsyncIterator[tuple[FrontDoor, int]]:
    """A front door on a free loopback port before ``echo``; yields it and its port."""
    front = FrontDoor(max_connections, str(tmp_path), budget, per_client, bar_seconds)
    server = await asyncio.start_unix_server(echo.handle, front.inner_path)
    port = int(front.bind("127.0.0.1:0").rsplit(":", 1)[1])
    front.start()
    try:
        yield front, port
    finally:
        front.close()
        server.close()


async def connect_from(source: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the door from ``source``, a loopback address of this machine
    (127.0.0.2 is as much this machine's as 127.0.0.1, and another client to the door)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return await asyncio.open_connection(sock=sock)


async def echoed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"ping")
    try:
        return await asyncio.wait_for(reader.readexactly(4), 3) == b"ping"
    except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
        return False


def test_bytes_pass_and_the_server_sees_the_clients_address(tmp_path: Path) -> None:
    """gRPC names the relay's end as the peer (a name of its own in the private
    folder): peer_address gives the client's address for it while the link is open."""

    async def test() -> None:
        echo = Echo()
        async with door(tmp_path, echo) as (front, port):
            reader, writer = await connect_from("127.0.0.2", port)
            assert await echoed(reader, writer)
            (name,) = echo.peers
            assert Path(name).parent == tmp_path
            assert peer_address(f"unix:{name}") == "ipv4:127.0.0.2"
            assert not Path(name).exists()  # the name is the connection's, not a file's
            writer.close()
            await until(lambda: front.held == 0)
            # Calls gRPC read before its end closed still count as the client's.
            assert peer_address(f"unix:{name}") == "ipv4:127.0.0.2"
            await until(lambda: f"unix:{name}" not in FORWARDED, CLOSE_GRACE_SECONDS + 3)

    run(test)


def test_a_client_past_its_connections_is_refused_and_others_are_not(tmp_path: Path) -> None:
    async def test() -> None:
        async with door(tmp_path, Echo(), per_client=2) as (front, port):
            held = [await connect_from("127.0.0.2", port) for _ in range(2)]
            assert all([await echoed(*conn) for conn in held])
            refused = await connect_from("127.0.0.2", port)
            assert await closed_by_relay(refused[0])
            other = await connect_from("127.0.0.3", port)
            assert await echoed(*other)
            held[0][1].close()
            await until(lambda: front.accounts["ipv4:127.0.0.2"].connections == 1)
            again = await connect_from("127.0.0.2", port)
            assert await echoed(*again)  # the cap was a refusal, not a bar
            assert front.barred == {}

    run(test)


def test_a_client_over_its_budget_is_barred_for_a_while_and_others_are_not(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def test() -> None:
        async with door(tmp_path, Echo(), bar_seconds=1.0) as (front, port):
            reader, writer = await connect_from("127.0.0.2", port)
            writer.write(bytes(200_000))  # twice its budget
            assert await closed_by_relay(reader)
            assert "ipv4:127.0.0.2" in front.barred
            barred = await connect_from("127.0.0.2", port)
            assert await closed_by_relay(barred[0])
            assert await echoed(*await connect_from("127.0.0.3", port))
            await asyncio.sleep(1.1)
            assert await echoed(*await connect_from("127.0.0.2", port))  # the bar is over

    with caplog.at_level(logging.WARNING, "referee"):
        run(test)
    (record,) = caplog.records
    assert record.getMessage().startswith(
        "closed the connections of ipv4:127.0.0.2 and refuse its new ones for 1 s: it sent "
        "the referee more than its budget allows"
    )


def test_past_the_servers_cap_connections_wait_their_turn(tmp_path: Path) -> None:
    """At the cap of connections in all, the door stops accepting: the kernel queues the
    next, which is served once one closes."""

    async def test() -> None:
        async with door(tmp_path, Echo(), max_connections=2) as (front, port):
            first = [await connect_from(f"127.0.0.{n}", port) for n in (2, 3)]
            assert all([await echoed(*conn) for conn in first])
            waiting = await connect_from("127.0.0.4", port)  # connected, in the queue
            assert not await echoed(*waiting)
            first[0][1].close()
            assert await waiting[0].readexactly(4) == b"ping"  # its ping, once served
            assert front.held == 2

    run(test)


def test_a_busy_port_is_a_one_line_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        front = FrontDoor(4, str(tmp_path))
        with pytest.raises(RefereeError, match=rf"^cannot listen on 127.0.0.1:{port}: "):
            front.bind(f"127.0.0.1:{port}")
        with pytest.raises(RefereeError, match="not a valid address"):
            front.bind("127.0.0.1:http")


def test_every_frame_is_charged_where_bytes_count_for_little(tmp_path: Path) -> None:
    """Empty SETTINGS frames are 9 bytes each, and gRPC parses and acknowledges every one:
    where a byte counts as a 16th, each frame counts as ``frame_bytes``."""
    budget = Budget(
        burst_bytes=100_000,
        bytes_per_second=1_000,
        byte_cost=1 / 16,
        frame_bytes=1_000,
        connection_bytes=0,
    )

    async def test() -> None:
        async with door(tmp_path, Echo(), budget=budget) as (front, port):
            reader, writer = await connect_from("127.0.0.2", port)
            writer.write(PREFACE + frame(SETTINGS, 0, 0) * 99)  # 99,000 of the 100,000
            assert await reader.readexactly(24 + 9 * 99)
            assert front.barred == {}
            writer.write(frame(SETTINGS, 0, 0) * 2)
            assert await closed_by_relay(reader)
            assert "ipv4:127.0.0.2" in front.barred

    run(test)


def test_every_address_of_a_host_is_listened_on(tmp_path: Path) -> None:
    """An empty host is every interface: IPv4's wildcard and IPv6's (where the machine
    has IPv6), on one port, as gRPC listens."""

    async def test() -> None:
        front = FrontDoor(4, str(tmp_path))
        try:
            bound = front.bind(":0")
            port = int(bound.rsplit(":", 1)[1])
            families = {listener.family for listener in front.listeners}
            assert socket.AF_INET in families
            assert {listener.getsockname()[1] for listener in front.listeners} == {port}
        finally:
            front.close()

    run(test)


def test_at_the_cap_the_client_holding_most_makes_room_for_another(tmp_path: Path) -> None:
    """Clients from a few addresses holding every place (calls begun and never finished
    keep connections from idling out) kept every other client out. At the cap, the client
    holding most gives up its newest connection for a client holding fewer; among
    clients holding one each, a newcomer waits its turn (the previous test)."""

    async def test() -> None:
        async with door(tmp_path, Echo(), max_connections=4) as (front, port):
            hog = [await connect_from("127.0.0.2", port) for _ in range(4)]
            assert all([await echoed(*conn) for conn in hog])
            newcomer = await connect_from("127.0.0.3", port)
            assert await echoed(*newcomer)
            assert await closed_by_relay(hog[-1][0])  # its newest
            assert all([await echoed(*conn) for conn in hog[:-1]])
            assert front.held == 4 and front.counts.held("ipv4:127.0.0.2") == 3
            another = await connect_from("127.0.0.2", port)  # the hog cannot take it back
            assert await closed_by_relay(another[0])
            assert front.counts.held("ipv4:127.0.0.2") == 3

    run(test)


def test_held_counts_know_who_holds_most() -> None:
    counts = HeldCounts()
    for client, step in [("a", 1), ("b", 1), ("a", 1), ("b", 1), ("c", 1)]:
        counts.add(client, step)
    assert counts.most == 2 and counts.top() == "b"  # the last to reach 2
    counts.add("b", -1)
    assert counts.top() == "a" and counts.held("b") == 1
    counts.add("a", -1)
    counts.add("a", -1)
    assert counts.most == 1 and counts.held("a") == 0 and counts.top() in ("b", "c")
    for client in ("b", "c"):
        counts.add(client, -1)
    assert counts.most == 0 and counts.top() is None


def test_a_door_makes_its_own_private_folder_and_removes_it() -> None:
    front = FrontDoor(4)
    folder = Path(front.inner_dir)
    assert folder.is_dir() and folder.stat().st_mode & 0o777 == 0o700
    assert Path(front.inner_path).parent == folder
    front.close()
    assert not folder.exists()
