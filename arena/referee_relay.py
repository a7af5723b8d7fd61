"""Each bot's own way to the referee: a relay in the arena's event loop.

A bot the arena starts never sees the referee's socket. It is shown a Unix socket of its
own, where the arena accepts its connections and passes their bytes on to the referee and
back, counting them in the bot's ``Account`` (referee/service/relay.py: a cap on
connections at once, a budget for what they cost, a pace of reads). At this end the arena
counts what each bot holds and sends, wherever the bot keeps its end of a connection,
which the bot's own descriptor tables cannot tell (a socket sent over SCM_RIGHTS into a
queue nobody reads is in no process's table, yet stays connected). Here, too:

- only the bot's own processes are served (``admits``, by the pid ``SO_PEERCRED`` names):
  a connection from anyone else is closed and costs the bot nothing;
- the connection past the cap puts the bot over its limit, like an empty budget: its
  connections are closed and its socket stops listening, so the kernel refuses what it
  tries next;
- a connection whose maker has exited is closed (``cut_orphans``): otherwise a bot could
  make connections in children that hand them on and exit, and hold them as no live
  process's.

Connections are taken from the listening socket a few at a time, so a bot connecting as
fast as it can never holds the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
from collections.abc import Callable
from typing import Any

from referee.service.relay import ACCEPTS_PER_WAKE, Account, Budget, OverLimit, accept_one

_PEERCRED = struct.Struct("3i")  # pid, uid, gid
Admits = Callable[[int], bool]


class BotRelay:
    """One bot's Unix socket, ``socket_path``, relayed to the referee's, ``target_path``.
    ``start`` makes the socket; ``serve`` begins taking connections, once it is known
    whose processes to serve (``admits``) and whom to tell (``on_limit``, once, with why
    the bot went over a limit; the reason stays in ``account.over``). What the bot holds
    and has sent is counted in ``account``."""

    def __init__(
        self,
        socket_path: str,
        target_path: str,
        max_connections: int,
        budget: Budget | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.target_path = target_path
        self.account = Account(
            budget or Budget(),
            max_connections,
            holder="a bot may hold in all its processes",
            on_limit=self._over_limit,
        )
        self.admits: Admits = lambda pid: False
        self.on_limit: OverLimit | None = None
        self._listener: socket.socket | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        # Its own accept loop, not asyncio's Server: a connection the kernel had queued
        # when a Server closed was accepted and then dropped without being closed.
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.setblocking(False)
        listener.bind(self.socket_path)
        # A short queue: past it the kernel makes a connecting bot wait, at no cost here.
        listener.listen(self.account.max_connections)
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

    def cut_orphans(self) -> int:
        """Close every connection whose maker has exited; how many were."""
        orphans = [link for link in self.account.links if not _alive(link.peer_pid)]
        for link in orphans:
            link.close(abort=True)
        return len(orphans)

    def close(self) -> None:
        """Stop accepting and close every connection; the socket file goes too."""
        self.account.close()  # one accepted but not yet served is closed when it would be
        self._stop_listening()

    def _over_limit(self, reason: str) -> None:
        self._stop_listening()
        if self.on_limit is not None:
            self.on_limit(reason)

    def _listen(self) -> None:
        account = self.account
        if not account.closed and account.over is None and self._listener is not None:
            asyncio.get_running_loop().add_reader(self._listener.fileno(), self._take)

    def _pause_listening(self) -> None:
        if self._listener is not None:
            asyncio.get_running_loop().remove_reader(self._listener.fileno())

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
        for _ in range(ACCEPTS_PER_WAKE):
            listener = self._listener
            if listener is None:
                return
            taken = accept_one(listener, self._pause_listening, self._listen)
            if taken is None:
                return
            conn = taken[0]
            peer = _peer_pid(conn)
            # Not the bot's: refused, and not charged to it.
            if not self.admits(peer) or not self.account.admit():
                conn.close()
                continue
            task = asyncio.get_running_loop().create_task(
                self.account.serve(conn, peer, self._connect)
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _connect(self, protocol: Callable[[], asyncio.Protocol]) -> asyncio.Transport:
        transport, _ = await asyncio.get_running_loop().create_unix_connection(
            protocol, self.target_path
        )
        return transport


def _peer_pid(sock: Any) -> int:
    with contextlib.suppress(OSError):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        return int(_PEERCRED.unpack(raw)[0])
    return 0


def _alive(pid: int) -> bool:
    return pid > 0 and os.path.exists(f"/proc/{pid}")
