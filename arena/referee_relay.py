"""Each bot's own way to the referee: a relay in the arena's event loop.

A bot the arena starts never sees the referee's socket. It is shown a Unix socket of its
own, where the arena accepts its connections and passes their bytes on to the referee and
back. At this end the arena counts what each bot holds and sends, wherever the bot keeps
its end of a connection, which the bot's own descriptor tables cannot tell (a socket sent
over SCM_RIGHTS into a queue nobody reads is in no process's table, yet stays connected):

- only the bot's own processes are served (``admits``, by the pid ``SO_PEERCRED`` names):
  a connection from anyone else is closed and costs the bot nothing;
- at most ``max_connections`` connections at once, those accepted and not yet served
  included: the one past them is closed at once, and the bot is over its limit;
- what it costs the arena comes out of a budget (``Budget``), refilled at a steady rate.
  gRPC parses every byte that reaches it, in the arena's process, where every match's
  referee and clock run, and no gRPC option bounds some of it: a bot that sent HEADERS
  and then CONTINUATION frames without end (legal HTTP/2, no token needed) was parsed
  at 340 MB/s for 0.6 of a core. Bytes alone do not measure the cost (a call costs the
  servicer far more than its bytes), so each connection, each call opened (an HTTP/2
  HEADERS frame) and each CONTINUATION frame counts as many bytes. A bot that empties
  the budget is over its limit: nothing more it sends is passed on, its connections
  are closed and its socket stops listening, so the kernel refuses what it tries next;
- reads are paced, over all of a bot's connections together: past
  ``Budget.reads_per_second`` the relay stops reading them until READS_PER_RESUME reads
  are allowed again (what the bot sent meanwhile waits in the kernel and comes in one
  read). A bot writing a few bytes at a time on 15 connections otherwise cost the arena
  a wake-up per write, a core at 20,000 writes a second, within any byte budget; paced,
  it costs what the fastest honest bot does;
- a connection whose maker has exited is closed (``cut_orphans``): otherwise a bot could
  make connections in children that hand them on and exit, and hold them as no live
  process's.

Connections are taken from the listening socket a few at a time, so a bot connecting as
fast as it can never holds the event loop. What reaches the bot is passed on as the
referee sends it; a bot that stops reading holds up its own connections only (each
direction pauses when the other's buffer is full).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_PEERCRED = struct.Struct("3i")  # pid, uid, gid
_PREFACE_BYTES = 24  # "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", before the client's first frame
_FRAME_HEADER_BYTES = 9
_HEADERS, _CONTINUATION = 0x1, 0x9
ACCEPTS_PER_WAKE = 4  # connections taken from the listening socket per turn of the loop
READS_PER_RESUME = 50  # a paced bot's connections are read again once this many may be
OverLimit = Callable[[str], None]
Admits = Callable[[int], bool]


@dataclass(frozen=True)
class Budget:
    """What a bot may cost the arena. A bot's moves and its gRPC library's own frames come
    to under 60 bytes a decision: two random bots at gin, answered as fast as the referee
    could (520 decisions a second each), cost 39 KiB a second each by this count, its
    connection and call included; a 26th of the rate."""

    burst_bytes: int = 2 << 20
    bytes_per_second: int = 1 << 20
    # Each costs the arena far more than its bytes: an accept and a connection to the
    # referee (one opened and closed without end stays under the cap of connections at
    # once); a call (the servicer's work, whatever the call); a CONTINUATION frame (gRPC
    # clients never need one, and gRPC reads a header block without end).
    connection_bytes: int = 16 << 10
    call_bytes: int = 16 << 10
    continuation_bytes: int = 64 << 10
    # Reads, over all of a bot's connections: an honest bot needs about one a decision,
    # and the referee answers one seat at most about 1,000 times a second.
    reads_per_second: int = 1000
    read_burst: int = 250

    def describe(self) -> str:
        burst, rate = self.burst_bytes / (1 << 20), self.bytes_per_second / (1 << 20)
        return f"{burst:g} MiB at once, refilled at {rate:g} MiB a second"


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

    def _refill(self, now: float) -> None:
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now


class FrameCounter:
    """Counts a client's HTTP/2 frames as its bytes pass, from their 9-byte headers: the
    calls it opens (HEADERS) and the CONTINUATION frames it sends."""

    def __init__(self) -> None:
        self.skip = _PREFACE_BYTES  # bytes to pass over: the preface, then each payload
        self.header = b""
        self.headers = self.continuations = 0

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
            self.headers += kind == _HEADERS
            self.continuations += kind == _CONTINUATION
            self.skip = int.from_bytes(self.header[:3], "big")
            self.header = b""


class BotRelay:
    """One bot's Unix socket, ``socket_path``, relayed to the referee's, ``target_path``.
    ``start`` makes the socket; ``serve`` begins taking connections, once it is known
    whose processes to serve (``admits``) and whom to tell (``on_limit``, once, with why
    the bot went over a limit; the reason stays in ``over``)."""

    def __init__(
        self,
        socket_path: str,
        target_path: str,
        max_connections: int,
        budget: Budget | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.target_path = target_path
        self.max_connections = max_connections
        self.budget = budget or Budget()
        self.bucket = Bucket(self.budget.burst_bytes, self.budget.bytes_per_second)
        self.reads = Bucket(self.budget.read_burst, self.budget.reads_per_second)
        self.admits: Admits = lambda pid: False
        self.on_limit: OverLimit | None = None
        self.over: str | None = None
        self.sent_bytes = 0  # passed on to the referee
        self.charged_bytes = 0  # taken from the budget
        self.paced_reads = 0  # reads after which the relay waited to read again
        self._links: set[_Link] = set()
        self._paced = False  # its connections wait for the pace of reads
        self._pending = 0  # accepted, not yet served
        self._listener: socket.socket | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    async def start(self) -> None:
        # Its own accept loop, not asyncio's Server: a connection the kernel had queued
        # when a Server closed was accepted and then dropped without being closed.
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.setblocking(False)
        listener.bind(self.socket_path)
        # A short queue: past it the kernel makes a connecting bot wait, at no cost here.
        listener.listen(self.max_connections)
        self._listener = listener
        # Connecting needs write permission on the socket, and a root arena's bots have
        # users of their own (arena/bot_users.py). Its folder stays private to the arena's
        # user: the bot is shown that folder alone, read-only, and passes through it by
        # its namespace's capability to read what root may. Whoever else reaches it is
        # refused by ``admits``.
        os.chmod(self.socket_path, 0o666)

    def serve(self, admits: Admits, on_limit: OverLimit) -> None:
        """Take connections from now on: those queued meanwhile waited in the kernel."""
        self.admits, self.on_limit = admits, on_limit
        self._listen()

    @property
    def connections(self) -> int:
        return len(self._links)

    def cut_orphans(self) -> int:
        """Close every connection whose maker has exited; how many were."""
        orphans = [link for link in self._links if not _alive(link.peer_pid)]
        for link in orphans:
            link.close(abort=True)
        return len(orphans)

    def close(self) -> None:
        """Stop accepting and close every connection; the socket file goes too."""
        self._closed = True  # one accepted but not yet served is closed when it would be
        self._stop_listening()
        for link in list(self._links):
            link.close(abort=True)

    def _listen(self) -> None:
        if not self._closed and self.over is None and self._listener is not None:
            asyncio.get_running_loop().add_reader(self._listener.fileno(), self._take)

    def _stop_listening(self) -> None:
        """Close the listening socket: the kernel refuses whatever connects next, and
        resets the connections it still queued."""
        if self._listener is not None:
            with contextlib.suppress(RuntimeError):  # its event loop is closed already
                asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None
        with contextlib.suppress(OSError):
            os.unlink(self.socket_path)

    def _take(self) -> None:
        """A few of the queued connections, then back to the loop (which calls again
        while more wait)."""
        listener = self._listener
        for _ in range(ACCEPTS_PER_WAKE):
            if listener is None or self._closed or self.over is not None:
                return
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors: take them again in a moment
                asyncio.get_running_loop().remove_reader(listener.fileno())
                asyncio.get_running_loop().call_later(0.1, self._listen)
                return
            peer = _peer_pid(conn)
            if not self._admit(peer):
                conn.close()
                continue
            self._pending += 1
            task = asyncio.get_running_loop().create_task(self._serve(conn, peer))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _admit(self, peer: int) -> bool:
        if not self.admits(peer):
            return False  # not the bot's: refused, and not charged to it
        held = len(self._links) + self._pending
        if held >= self.max_connections:
            self._over_limit(
                f"held {held + 1} connections to the referee, over the "
                f"{self.max_connections} a bot may hold in all its processes"
            )
            return False
        if not self._charge(self.budget.connection_bytes):
            self._over_limit(
                "opened connections to the referee faster than it may (each counts as "
                f"{self.budget.connection_bytes >> 10} KiB of its budget, "
                f"{self.budget.describe()})"
            )
            return False
        return True

    async def _serve(self, conn: socket.socket, peer: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            bot, side = await loop.connect_accepted_socket(lambda: _BotSide(), conn)
        except OSError:  # the bot hung up at once
            conn.close()
            return
        except asyncio.CancelledError:  # the arena is stopping
            conn.close()
            raise
        finally:
            self._pending -= 1
        link = side.link = _Link(self, bot, peer)
        if self._closed or self.over is not None or side.lost:
            link.close(abort=True)
            return
        self._links.add(link)
        if self._paced:
            link.pause("pace")
        try:
            referee, _ = await loop.create_unix_connection(
                lambda: _RefereeSide(link), self.target_path
            )
        except OSError:  # the referee is stopping
            link.close(abort=True)
            return
        link.referee = referee
        if link.closed:
            referee.abort()
        else:
            link.resume()

    def _charge(self, cost: int) -> bool:
        if not self.bucket.take(cost):
            return False
        self.charged_bytes += cost
        return True

    def _over_limit(self, reason: str) -> None:
        if self.over is None:
            self.over = reason
            if self.on_limit is not None:
                self.on_limit(reason)
        self._stop_listening()
        for link in list(self._links):
            link.close(abort=True)

    def _pass_on(self, link: _Link, data: bytes) -> None:
        frames = link.frames
        calls, continuations = frames.headers, frames.continuations
        frames.feed(data)
        cost = (
            len(data)
            + (frames.headers - calls) * self.budget.call_bytes
            + (frames.continuations - continuations) * self.budget.continuation_bytes
        )
        if not self._charge(cost):
            self._over_limit(
                f"sent the referee more than its budget allows ({self.budget.describe()}; "
                f"{self.sent_bytes / (1 << 20):.1f} MiB passed on, each call it opens "
                f"counting as {self.budget.call_bytes >> 10} KiB)"
            )
            return
        self.sent_bytes += len(data)
        if link.referee is not None:
            link.referee.write(data)
        if not self.reads.take(1) and not self._paced:
            self.paced_reads += 1
            self._pace(self.reads.wait(READS_PER_RESUME))

    def _pace(self, seconds: float) -> None:
        """Read none of the bot's connections for ``seconds``."""
        self._paced = True
        for link in self._links:
            link.pause("pace")
        asyncio.get_running_loop().call_later(seconds, self._unpace)

    def _unpace(self) -> None:
        self._paced = False
        for link in list(self._links):
            link.resume("pace")


@dataclass(eq=False)
class _Link:
    """One connection of a bot and the arena's connection to the referee for it."""

    relay: BotRelay
    bot: asyncio.Transport
    peer_pid: int  # the process that connected, in the arena's pid namespace (0: none)
    referee: asyncio.Transport | None = None
    closed: bool = False
    frames: FrameCounter = field(default_factory=FrameCounter)
    # Why the bot's end is not read now: the referee's end is not connected yet, or
    # cannot take more; the pace of reads. Read again when none is left.
    holds: set[str] = field(default_factory=lambda: {"connecting"})

    def pause(self, why: str) -> None:
        if not self.closed and not self.holds:
            self.bot.pause_reading()
        self.holds.add(why)

    def resume(self, why: str = "connecting") -> None:
        self.holds.discard(why)
        if not self.closed and not self.holds:
            self.bot.resume_reading()

    def close(self, abort: bool = False) -> None:
        """Close both ends: at once with ``abort``, else after what is buffered."""
        if self.closed:
            return
        self.closed = True
        self.relay._links.discard(self)
        for transport in (self.bot, self.referee):
            if transport is not None:
                transport.abort() if abort else transport.close()


class _BotSide(asyncio.Protocol):
    """The bot's end. Not read until its link is made and the referee's end connected."""

    def __init__(self) -> None:
        self.link: _Link | None = None
        self.lost = False  # before its link was made

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.pause_reading()

    def data_received(self, data: bytes) -> None:
        if self.link is not None and not self.link.closed:
            self.link.relay._pass_on(self.link, data)

    def eof_received(self) -> bool:
        if self.link is not None:
            self.link.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.link is not None:
            self.link.close()

    def pause_writing(self) -> None:  # the bot does not read: neither does its referee end
        if self.link is not None and self.link.referee is not None:
            self.link.referee.pause_reading()

    def resume_writing(self) -> None:
        link = self.link
        if link is not None and link.referee is not None and not link.closed:
            link.referee.resume_reading()


class _RefereeSide(asyncio.Protocol):
    def __init__(self, link: _Link) -> None:
        self.link = link

    def data_received(self, data: bytes) -> None:
        if not self.link.closed:
            self.link.bot.write(data)

    def eof_received(self) -> bool:
        self.link.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.link.close()

    def pause_writing(self) -> None:  # the referee does not read: the bot's end waits
        self.link.pause("referee")

    def resume_writing(self) -> None:
        self.link.resume("referee")


def _peer_pid(sock: Any) -> int:
    with contextlib.suppress(OSError):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        return int(_PEERCRED.unpack(raw)[0])
    return 0


def _alive(pid: int) -> bool:
    return pid > 0 and os.path.exists(f"/proc/{pid}")
