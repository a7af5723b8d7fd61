"""Passing a client's connections on to a gRPC server while counting what they cost it.

gRPC parses every byte that reaches it, and some HTTP/2 it parses without end: a client
that sent HEADERS and then CONTINUATION frames without end (legal HTTP/2, no token
needed) was parsed at 340 MB/s for 0.6 of a core, and no gRPC option bounds it (grpcio
1.85). Nor can gRPC say who costs what. So the connections of each client (a bot the
arena starts: arena/referee_relay.py; a remote address of a server's TCP port:
front_door.py) are accepted here, passed on to the server's own socket, and counted in
an ``Account``:

- at most ``max_connections`` at once, those accepted and not yet served included;
- what they cost the server comes out of a budget (``Budget``), refilled at a steady
  rate. Bytes alone do not measure the cost (a call costs the servicer far more than its
  bytes), so each connection, each call opened (an HTTP/2 HEADERS frame, read from the
  9-byte frame headers as they pass: ``FrameCounter``), each CONTINUATION frame and each
  frame at all counts as many bytes. A client that empties the budget is over its limit:
  nothing more it sends is passed on, and its connections are closed;
- reads are paced, over all of a client's connections together: past
  ``Budget.reads_per_second`` its connections are not read until READS_PER_RESUME reads
  are allowed again (what it sent meanwhile waits in the kernel and comes in one read).
  A client writing a few bytes at a time on many connections otherwise cost a wake-up
  per write, a core at 20,000 writes a second, within any byte budget.

What reaches the client is passed on as the server sends it; a client that stops
reading holds up its own connections only (each direction pauses when the other's
buffer is full). A connection whose client is gone is cut at once; one closed in order
by either end is cut CLOSE_GRACE_SECONDS later, whatever it still holds.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

_PREFACE_BYTES = 24  # "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", before the client's first frame
_FRAME_HEADER_BYTES = 9
_HEADERS, _CONTINUATION = 0x1, 0x9
ACCEPTS_PER_WAKE = 4  # connections taken from a listening socket per turn of the loop
READS_PER_RESUME = 50  # a paced client's connections are read again once this many may be
# A link closed gracefully (one end said it is done) has this long to pass on what it
# holds; then both ends are cut. Each end stops reading the other's when its own buffer is
# full, so a client that stopped reading could otherwise hold a closing link for good.
CLOSE_GRACE_SECONDS = 2.0
OverLimit = Callable[[str], None]
# Connects the server's end of a link: a transport whose protocol is the one made here.
ConnectServer = Callable[[Callable[[], asyncio.Protocol]], Awaitable[asyncio.Transport]]


def accept_one(
    listener: socket.socket, stop: Callable[[], None], resume: Callable[[], None]
) -> tuple[socket.socket, Any] | None:
    """The next connection queued on a non-blocking ``listener`` and its address; None when
    none waits. Out of descriptors, ``stop`` is called at once and ``resume`` in 0.1 s
    (taking connections then, the loop would spin on one it cannot take)."""
    try:
        return listener.accept()
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        stop()
        asyncio.get_running_loop().call_later(0.1, resume)
        return None


@dataclass(frozen=True)
class Budget:
    """What a client may cost the server. A bot's moves and its gRPC library's own
    frames come to under 60 bytes and about 3 frames a decision: two random bots at gin,
    answered as fast as the referee could (520 decisions a second each), cost 88 KiB a
    second each by this count, their connection and call included; a 12th of the rate."""

    burst_bytes: int = 2 << 20
    bytes_per_second: int = 1 << 20
    # Each costs the server far more than its bytes: an accept and a connection to the
    # server (one opened and closed without end stays under the cap of connections at
    # once); a call (the servicer's work, whatever the call); a CONTINUATION frame (gRPC
    # clients never need one, and gRPC reads a header block without end).
    connection_bytes: int = 16 << 10
    call_bytes: int = 16 << 10
    continuation_bytes: int = 64 << 10
    # Every frame, whatever its kind: gRPC parses each and answers some (a SETTINGS frame
    # of 9 bytes gets an acknowledgement). A red-team bot's empty SETTINGS frames, 106,000
    # a second within a budget of bytes alone, cost the arena 0.29 of a core.
    frame_bytes: int = 32
    # What each byte a client sends counts as: below 1 where clients may send much
    # (uploads) and the calls and frames above are what must stay rare.
    byte_cost: float = 1.0
    # Reads, over all of a client's connections: an honest bot needs about one a
    # decision, and the referee answers one seat at most about 1,000 times a second.
    reads_per_second: int = 1000
    read_burst: int = 250

    def describe(self) -> str:
        burst, rate = self.burst_bytes / (1 << 20), self.bytes_per_second / (1 << 20)
        text = f"{burst:g} MiB at once, refilled at {rate:g} MiB a second"
        if self.byte_cost != 1:
            text += f", each byte sent counting as {self.byte_cost:g}"
        return text


@dataclass
class Bucket:
    """Units that may be spent now: ``burst`` at most, refilled at ``rate`` a second."""

    burst: float
    rate: float
    level: float = field(init=False)
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.level = self.burst

    def take(self, size: float, now: float | None = None) -> bool:
        """Take ``size``; False (and nothing taken) when there is not as much."""
        self._refill(time.monotonic() if now is None else now)
        if size > self.level:
            return False
        self.level -= size
        return True

    def wait(self, units: float = 1, now: float | None = None) -> float:
        """Seconds until ``units`` are there (0: now)."""
        self._refill(time.monotonic() if now is None else now)
        return max(0.0, (min(units, self.burst) - self.level) / self.rate)

    def full(self, now: float | None = None) -> bool:
        self._refill(time.monotonic() if now is None else now)
        return self.level >= self.burst

    def _refill(self, now: float) -> None:
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now


class FrameCounter:
    """Counts a client's HTTP/2 frames as its bytes pass, from their 9-byte headers: all
    of them, the calls it opens (HEADERS) and the CONTINUATION frames it sends."""

    def __init__(self) -> None:
        self.skip = _PREFACE_BYTES  # bytes to pass over: the preface, then each payload
        self.header = b""
        self.frames = self.headers = self.continuations = 0

    def feed(self, data: bytes) -> None:
        at, size = 0, len(data)
        while at < size:
            if self.skip:
                step = min(self.skip, size - at)
                self.skip -= step
                at += step
                continue
            taken = data[at : at + _FRAME_HEADER_BYTES - len(self.header)]
            self.header += taken
            at += len(taken)
            if len(self.header) < _FRAME_HEADER_BYTES:
                return
            kind = self.header[3]
            self.frames += 1
            self.headers += kind == _HEADERS
            self.continuations += kind == _CONTINUATION
            self.skip = int.from_bytes(self.header[:3], "big")
            self.header = b""


class Account:
    """One client's connections and what they have cost. ``cap_is_limit``: whether a
    connection past ``max_connections`` puts the client over its limit (a bot: it is
    stopped) or is only refused, its connection charged (a remote address). ``holder``
    says who holds the connections, in the reason given. ``on_limit`` is told once, with
    why the client went over a limit; the reason stays in ``over``."""

    def __init__(
        self,
        budget: Budget,
        max_connections: int,
        holder: str,
        cap_is_limit: bool = True,
        on_limit: OverLimit | None = None,
    ) -> None:
        self.budget = budget
        self.max_connections = max_connections
        self.holder = holder
        self.cap_is_limit = cap_is_limit
        self.on_limit = on_limit
        self.bucket = Bucket(budget.burst_bytes, budget.bytes_per_second)
        self.reads = Bucket(budget.read_burst, budget.reads_per_second)
        self.over: str | None = None
        self.closed = False
        self.sent_bytes = 0  # passed on to the server
        self.charged_bytes = 0  # taken from the budget
        self.paced_reads = 0  # reads after which the relay waited to read again
        self.links: dict[Link, None] = {}  # in the order they were made
        self.closing: set[Link] = set()  # closed gracefully, within their grace
        self.pending = 0  # accepted, not yet served
        self._paced = False  # its connections wait for the pace of reads

    @property
    def connections(self) -> int:
        return len(self.links)

    def newest(self) -> Link | None:
        """The link made last of those open."""
        return next(reversed(self.links), None)

    def admit(self) -> bool:
        """Whether a new connection of the client's may be served (counted as pending
        if so; ``serve`` it then); one it may not have is closed by the caller."""
        if self.closed or self.over is not None:
            return False
        held = len(self.links) + self.pending
        if held >= self.max_connections:
            if self.cap_is_limit:
                self.over_limit(
                    f"held {held + 1} connections to the referee, over the "
                    f"{self.max_connections} {self.holder}"
                )
            else:
                self._charge(self.budget.connection_bytes)
            return False
        if not self._charge(self.budget.connection_bytes):
            self.over_limit(
                "opened connections to the referee faster than it may (each counts as "
                f"{self.budget.connection_bytes >> 10} KiB of its budget, "
                f"{self.budget.describe()})"
            )
            return False
        self.pending += 1
        return True

    async def serve(
        self,
        conn: socket.socket,
        peer_pid: int,
        connect: ConnectServer,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        """Relay an admitted connection: its server end made by ``connect``;
        ``on_close`` is called once it is closed, however it ends."""
        loop = asyncio.get_running_loop()
        try:
            client, side = await loop.connect_accepted_socket(_ClientSide, conn)
        except BaseException as exc:
            conn.close()
            if on_close is not None:
                on_close()
            if isinstance(exc, OSError):  # the client hung up at once
                return
            raise  # the server is stopping
        finally:
            self.pending -= 1
        link = side.link = Link(self, client, peer_pid, on_close=on_close)
        if self.closed or self.over is not None or side.lost:
            link.close(abort=True)
            return
        self.links[link] = None
        if self._paced:
            link.pause("pace")
        try:
            server = await connect(lambda: _ServerSide(link))
        except OSError:  # the server is stopping
            link.close(abort=True)
            return
        link.server = server
        if link.closed:
            server.abort()
        else:
            link.resume()

    def close(self) -> None:
        """Close every connection, and serve none from now on."""
        self.closed = True
        self._cut_all()

    def over_limit(self, reason: str) -> None:
        if self.over is None:
            self.over = reason
            if self.on_limit is not None:
                self.on_limit(reason)
        self._cut_all()

    def _cut_all(self) -> None:
        for link in [*self.links, *self.closing]:
            link.close(abort=True)

    def _charge(self, cost: float) -> bool:
        if not self.bucket.take(cost):
            return False
        self.charged_bytes += int(cost)
        return True

    def pass_on(self, link: Link, data: bytes) -> None:
        frames = link.frames
        count, calls, continuations = frames.frames, frames.headers, frames.continuations
        frames.feed(data)
        budget = self.budget
        cost = (
            len(data) * budget.byte_cost
            + (frames.frames - count) * budget.frame_bytes
            + (frames.headers - calls) * budget.call_bytes
            + (frames.continuations - continuations) * budget.continuation_bytes
        )
        if not self._charge(cost):
            self.over_limit(
                f"sent the referee more than its budget allows ({budget.describe()}; "
                f"{self.sent_bytes / (1 << 20):.1f} MiB passed on, each call it opens "
                f"counting as {budget.call_bytes >> 10} KiB)"
            )
            return
        self.sent_bytes += len(data)
        if link.server is not None:
            link.server.write(data)
        if not self.reads.take(1) and not self._paced:
            self.paced_reads += 1
            self._pace(self.reads.wait(READS_PER_RESUME))

    def _pace(self, seconds: float) -> None:
        """Read none of the client's connections for ``seconds``."""
        self._paced = True
        for link in self.links:
            link.pause("pace")
        asyncio.get_running_loop().call_later(seconds, self._unpace)

    def _unpace(self) -> None:
        self._paced = False
        for link in list(self.links):
            link.resume("pace")


@dataclass(eq=False)
class Link:
    """One connection of a client and the relay's connection to the server for it."""

    account: Account
    client: asyncio.Transport
    peer_pid: int  # the process that connected, in this pid namespace (0: unknown)
    server: asyncio.Transport | None = None
    closed: bool = False
    frames: FrameCounter = field(default_factory=FrameCounter)
    on_close: Callable[[], None] | None = None
    grace: asyncio.TimerHandle | None = None  # cuts a gracefully closed link
    # Why the client's end is not read now: the server's end is not connected yet, or
    # cannot take more; the pace of reads. Read again when none is left.
    holds: set[str] = field(default_factory=lambda: {"connecting"})

    def pause(self, why: str) -> None:
        if not self.closed and not self.holds:
            self.client.pause_reading()
        self.holds.add(why)

    def resume(self, why: str = "connecting") -> None:
        self.holds.discard(why)
        if not self.closed and not self.holds:
            self.client.resume_reading()

    def close(self, abort: bool = False) -> None:
        """Close both ends: at once with ``abort``, else after what is buffered, within
        CLOSE_GRACE_SECONDS."""
        if self.closed:
            if abort:
                self._cut()
            return
        self.closed = True
        self.account.links.pop(self, None)
        if abort:
            self._cut()
        else:
            for transport in (self.client, self.server):
                if transport is not None:
                    transport.close()
            self.account.closing.add(self)
            self.grace = asyncio.get_running_loop().call_later(CLOSE_GRACE_SECONDS, self._cut)
        if self.on_close is not None:
            self.on_close()

    def _cut(self) -> None:
        """Both ends closed at once, whatever they hold (a closed one is left as it is)."""
        for transport in (self.client, self.server):
            if transport is not None:
                transport.abort()
        self.account.closing.discard(self)
        if self.grace is not None:
            self.grace.cancel()


class _ClientSide(asyncio.Protocol):
    """The client's end. Not read until its link is made and the server's end connected."""

    def __init__(self) -> None:
        self.link: Link | None = None
        self.lost = False  # before its link was made

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.pause_reading()

    def data_received(self, data: bytes) -> None:
        if self.link is not None and not self.link.closed:
            self.link.account.pass_on(self.link, data)

    def eof_received(self) -> bool:
        if self.link is not None:
            self.link.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.link is not None:  # the client is gone: nothing is left to pass on to it
            self.link.close(abort=True)

    def pause_writing(self) -> None:  # the client does not read: neither does its server end
        if self.link is not None and self.link.server is not None:
            self.link.server.pause_reading()

    def resume_writing(self) -> None:
        link = self.link
        if link is not None and link.server is not None and not link.closed:
            link.server.resume_reading()


class _ServerSide(asyncio.Protocol):
    def __init__(self, link: Link) -> None:
        self.link = link

    def data_received(self, data: bytes) -> None:
        if not self.link.closed:
            self.link.client.write(data)

    def eof_received(self) -> bool:
        self.link.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.link.close()

    def pause_writing(self) -> None:  # the server does not read: the client's end waits
        self.link.pause("server")

    def resume_writing(self) -> None:
        self.link.resume("server")
