"""Each bot's own way to the referee: a relay in the arena's event loop.

A bot the arena starts never sees the referee's socket. It is shown a Unix socket of its
own, where the arena accepts its connections and passes their bytes on to the referee and
back. At this end the arena counts what each bot holds and sends, wherever the bot keeps
its end of a connection, which the bot's own descriptor tables cannot tell (a socket sent
over SCM_RIGHTS into a queue nobody reads is in no process's table, yet stays connected):

- at most ``max_connections`` connections at once: the one past them is closed at once,
  and the bot is over its limit;
- what it sends comes out of a bucket of ``burst_bytes`` refilled at ``bytes_per_second``,
  and each connection it opens takes CONNECTION_BYTES from it.
  gRPC parses every byte that reaches it, in the arena's process, where every match's
  referee and clock run: a bot that sent HEADERS and then CONTINUATION frames without
  end (legal HTTP/2, no token needed) was parsed at 340 MB/s for 0.6 of a core, and no
  gRPC option bounds it. A bot that empties the bucket is over its limit: nothing more it
  sends is passed on, and its connections are closed;
- a connection whose maker has exited is closed (``SO_PEERCRED`` names the process that
  connected): otherwise a bot could make connections in children that hand them on and
  exit, and hold them as no live process's.

What reaches the bot is passed on as the referee sends it; a bot that stops reading holds
up its own connections only (each direction pauses when the other's buffer is full).
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

# A bot's moves and its gRPC library's own frames come to about 60 bytes a move: a random
# bot playing as fast as the referee answers sends about 28 KB a second.
BURST_BYTES = 8 << 20
BYTES_PER_SECOND = 1 << 20
# What opening a connection takes from the budget: each costs the arena an accept, a
# connection to the referee and gRPC's setting up of HTTP/2, whatever the bot sends on
# it, so a bot that opened and closed connections without end stays under 16 at once.
CONNECTION_BYTES = 64 << 10
_PEERCRED = struct.Struct("3i")  # pid, uid, gid
OverLimit = Callable[[str], None]


@dataclass
class ByteBucket:
    """Bytes that may be sent now: ``burst`` at most, refilled at ``rate`` a second."""

    burst: float
    rate: float
    level: float = field(init=False)
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.level = self.burst

    def take(self, size: int, now: float | None = None) -> bool:
        """Take ``size`` bytes; False (and nothing taken) when there are not as many."""
        now = time.monotonic() if now is None else now
        self.level = min(self.burst, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if size > self.level:
            return False
        self.level -= size
        return True


class BotRelay:
    """One bot's Unix socket, ``socket_path``, relayed to the referee's, ``target_path``.
    ``on_limit`` is told, once, why the bot went over a limit; the reason stays in
    ``over``."""

    def __init__(
        self,
        socket_path: str,
        target_path: str,
        max_connections: int,
        burst_bytes: int = BURST_BYTES,
        bytes_per_second: int = BYTES_PER_SECOND,
        connection_bytes: int = CONNECTION_BYTES,
    ) -> None:
        self.socket_path = socket_path
        self.target_path = target_path
        self.max_connections = max_connections
        self.bucket = ByteBucket(burst_bytes, bytes_per_second)
        self.connection_bytes = connection_bytes
        self.on_limit: OverLimit | None = None
        self.over: str | None = None
        self.sent_bytes = 0  # passed on to the referee
        self._links: set[_Link] = set()
        self._listener: socket.socket | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    async def start(self) -> None:
        # Its own accept loop, not asyncio's Server: a connection the kernel had queued
        # when a Server closed was accepted and then dropped without being closed.
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.setblocking(False)
        listener.bind(self.socket_path)
        listener.listen(64)
        self._listener = listener
        asyncio.get_running_loop().add_reader(listener.fileno(), self._take_connections)
        # Connecting needs write permission on the socket, and a root arena's bots have
        # users of their own (arena/bot_users.py). Its folder stays private to the arena's
        # user: the bot is shown that folder alone, read-only, and passes through it by
        # its namespace's capability to read what root may.
        os.chmod(self.socket_path, 0o666)

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
        self._closed = True  # one accepted but not yet handed over is closed when it is
        if self._listener is not None:
            with contextlib.suppress(RuntimeError):  # its event loop is closed already
                asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._listener.close()  # the kernel resets the connections it still queued
            self._listener = None
        for link in list(self._links):
            link.close(abort=True)
        with contextlib.suppress(OSError):
            os.unlink(self.socket_path)

    def _take_connections(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed and self._listener is not None:
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors: take them again in a moment
                loop.remove_reader(self._listener.fileno())
                loop.call_later(0.1, self._listen_again)
                return
            task = loop.create_task(self._hand_over(conn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _listen_again(self) -> None:
        if not self._closed and self._listener is not None:
            asyncio.get_running_loop().add_reader(self._listener.fileno(), self._take_connections)

    async def _hand_over(self, conn: socket.socket) -> None:
        try:
            await asyncio.get_running_loop().connect_accepted_socket(lambda: _BotSide(self), conn)
        except OSError:  # the bot hung up at once
            conn.close()
        except asyncio.CancelledError:  # the arena is stopping
            conn.close()
            raise

    def _over_limit(self, reason: str) -> None:
        if self.over is None:
            self.over = reason
            if self.on_limit is not None:
                self.on_limit(reason)
        for link in list(self._links):
            link.close(abort=True)

    def _accept(self, transport: asyncio.Transport) -> _Link | None:
        if self.over is not None or self._closed:
            transport.abort()
            return None
        if len(self._links) >= self.max_connections:
            transport.abort()
            self._over_limit(
                f"held {len(self._links) + 1} connections to the referee, over the "
                f"{self.max_connections} a bot may hold in all its processes"
            )
            return None
        if not self.bucket.take(self.connection_bytes):
            transport.abort()
            burst, rate = self._budget_mib()
            self._over_limit(
                "opened connections to the referee faster than it may: each counts as "
                f"{self.connection_bytes >> 10} KiB of the {burst:g} MiB a bot may send at "
                f"once (refilled at {rate:g} MiB a second)"
            )
            return None
        link = _Link(self, transport, _peer_pid(transport))
        self._links.add(link)
        transport.pause_reading()  # until the referee's end is connected
        task = asyncio.get_running_loop().create_task(self._connect(link))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return link

    async def _connect(self, link: _Link) -> None:
        loop = asyncio.get_running_loop()
        try:
            transport, _ = await loop.create_unix_connection(
                lambda: _RefereeSide(link), self.target_path
            )
        except OSError:  # the referee is stopping
            link.close(abort=True)
            return
        link.referee = transport
        if link.closed:
            transport.abort()
        else:
            link.bot.resume_reading()

    def _budget_mib(self) -> tuple[float, float]:
        return self.bucket.burst / (1 << 20), self.bucket.rate / (1 << 20)

    def _pass_on(self, link: _Link, data: bytes) -> None:
        if not self.bucket.take(len(data)):
            burst, rate = self._budget_mib()
            self._over_limit(
                f"sent the referee more than {burst:g} MiB faster than the {rate:g} MiB a "
                f"second a bot may send ({(self.sent_bytes + len(data)) / (1 << 20):.1f} "
                "MiB in all)"
            )
            return
        self.sent_bytes += len(data)
        if link.referee is not None:
            link.referee.write(data)


@dataclass(eq=False)
class _Link:
    """One connection of a bot and the arena's connection to the referee for it."""

    relay: BotRelay
    bot: asyncio.Transport
    peer_pid: int  # the process that connected, in the arena's pid namespace (0: none)
    referee: asyncio.Transport | None = None
    closed: bool = False

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
    def __init__(self, relay: BotRelay) -> None:
        self.relay = relay
        self.link: _Link | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.link = self.relay._accept(transport)

    def data_received(self, data: bytes) -> None:
        if self.link is not None and not self.link.closed:
            self.relay._pass_on(self.link, data)

    def eof_received(self) -> bool:
        if self.link is not None:
            self.link.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self.link is not None:
            self.link.close()

    def pause_writing(self) -> None:  # the bot does not read: neither does its referee end
        if self.link is not None and self.link.referee is not None:
            self.link.referee.pause_reading()

    def resume_writing(self) -> None:
        if self.link is not None and self.link.referee is not None and not self.link.closed:
            self.link.referee.resume_reading()


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
        if not self.link.closed:
            self.link.bot.pause_reading()

    def resume_writing(self) -> None:
        if not self.link.closed:
            self.link.bot.resume_reading()


def _peer_pid(transport: asyncio.Transport) -> int:
    sock: Any = transport.get_extra_info("socket")
    with contextlib.suppress(OSError, AttributeError):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        return int(_PEERCRED.unpack(raw)[0])
    return 0


def _alive(pid: int) -> bool:
    return pid > 0 and os.path.exists(f"/proc/{pid}")
