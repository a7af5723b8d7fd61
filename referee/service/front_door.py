"""A server's TCP ports, in front of gRPC: each remote client's connections counted.

``start_server`` listens on TCP addresses here, not in gRPC, and gRPC on a Unix socket in
a folder the door makes, private to this process's user and named after it, and removes
when it closes. Each connection is passed on there by the relay of
referee/service/relay.py, in an ``Account`` per client, a client being an address as
``peers.client_group`` counts it (an IPv6 client by its /64): at most
CONNECTIONS_PER_CLIENT connections at once (the next is closed, and charged), a budget of
what they cost (CLIENT_BUDGET) and a pace of reads. Without it a client with no token
could send a header block without end, which gRPC reads to its end: one connection took
a bare referee to a core and 1 GB. A client over its budget has its connections closed
and every new one refused for BAR_SECONDS; the server logs it once.

The relay's connection to gRPC is bound to a name of its own in the private folder, which
gRPC gives as the call's peer ("unix:FOLDER/c17"); ``peers.peer_address`` looks it up in
``peers.FORWARDED``, so the per-address caps of the servicer still count the remote
address. The server holds at most ``max_connections`` at once in all (each takes three
descriptors of this process: the client's, the relay's and gRPC's); at that cap, the
client holding most gives up its newest connection to one holding fewer (``_take``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import itertools
import logging
import os
import socket
import tempfile
import time
from collections.abc import Callable
from typing import Any

from referee.owned_dirs import tagged_temp_dir
from referee.service.errors import RefereeError
from referee.service.peers import FORWARDED, client_group, host_and_port
from referee.service.relay import (
    ACCEPTS_PER_WAKE,
    CLOSE_GRACE_SECONDS,
    Account,
    Budget,
    Link,
    accept_one,
)

log = logging.getLogger("referee")

CONNECTIONS_PER_CLIENT = 64
BAR_SECONDS = 30.0
# Calls and CONTINUATION frames are what must stay rare; bytes may come fast (an upload
# of a bot is up to 50 MiB), so each counts as a 16th: 128 MiB at once, 16 MiB a second.
# Calls: 512 at once, 64 a second. Frames, 64 bytes each: 16,384 a second, where a bot
# sends one or two a decision (not counting them, 16 MiB a second of empty SETTINGS
# frames would be 1.9 million a second for gRPC to parse and acknowledge). Reads: one
# address may carry many bots, each needing about one read a decision; a read costs the
# relay about 15 microseconds of CPU (half the 29 more a round trip took through the door
# in `scripts/bench --front-door`), so the pace costs at most a 13th of a core an address.
CLIENT_BUDGET = Budget(
    burst_bytes=8 << 20,
    bytes_per_second=1 << 20,
    byte_cost=1 / 16,
    frame_bytes=64,
    reads_per_second=5000,
    read_burst=1000,
)
_names = itertools.count(1)  # of the relay's ends: c1, c2, ...
_LONGEST_NAME = f"c{'0' * 12}"  # what the folder must hold a socket of: ends and grpc.sock
_NO_IPV6 = (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT)


class FrontDoor:
    """TCP listening sockets whose connections are relayed to ``inner_path``, the Unix
    socket the server is to listen on, in ``inner_dir`` (where the relay's own ends are
    named too): ``folder`` if given, else a private temporary folder of its own, removed
    by ``close`` (and, if this process is killed outright, by the next front door made
    on the machine: referee/owned_dirs.py)."""

    def __init__(
        self,
        max_connections: int,
        folder: str | None = None,
        budget: Budget = CLIENT_BUDGET,
        per_client: int = CONNECTIONS_PER_CLIENT,
        bar_seconds: float = BAR_SECONDS,
    ) -> None:
        self._own_folder: tempfile.TemporaryDirectory[str] | None = None
        if folder is None:
            self._own_folder = tagged_temp_dir("referee", _LONGEST_NAME)
            folder = self._own_folder.name
        self.inner_dir = folder
        self.inner_path = os.path.join(self.inner_dir, "grpc.sock")
        self.max_connections = max(1, max_connections)
        self.budget = budget
        self.per_client = per_client
        self.bar_seconds = bar_seconds
        self.accounts: dict[str, Account] = {}
        self.barred: dict[str, float] = {}  # client -> when it may connect again
        self.counts = HeldCounts()  # connections accepted and not yet closed, per client
        self._listeners: list[socket.socket] = []
        self._accepting = False
        self._forgetting: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    def bind(self, address: str) -> str:
        """Listen on ``address`` ("host:port", port 0 for any free one; "[::]" listens on
        IPv4 too, as gRPC does); the address with the port bound. RefereeError (one line)
        when it cannot be listened on."""
        host, _, port_text = address.rpartition(":")
        if not port_text.isdigit():
            raise RefereeError(f"cannot listen on {address} (not a valid address)")
        bare = host.strip("[]")
        try:
            infos = socket.getaddrinfo(
                bare or None, int(port_text), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )
        except (OSError, UnicodeError) as exc:
            raise RefereeError(f"cannot listen on {address}: {exc}") from exc
        port = int(port_text)
        made: list[socket.socket] = []
        # "[::]" takes IPv4 too (dual-stack), unless IPv4's own wildcard is listed as well.
        dual_stack = not any(info[0] == socket.AF_INET for info in infos)
        try:
            for family, _, _, _, sockaddr in infos:
                if family not in (socket.AF_INET, socket.AF_INET6):
                    continue
                if any(s.family == family and s.getsockname()[0] == sockaddr[0] for s in made):
                    continue
                v6_only = not (dual_stack and sockaddr[0] == "::")
                try:
                    listener = _bound_socket(family, (sockaddr[0], port, *sockaddr[2:]), v6_only)
                except OSError as exc:
                    # A machine without IPv6 still serves the host's IPv4 addresses.
                    if family == socket.AF_INET6 and not dual_stack and exc.errno in _NO_IPV6:
                        continue
                    raise
                made.append(listener)
                port = listener.getsockname()[1]
        except OSError as exc:
            for listener in made:
                listener.close()
            raise RefereeError(f"cannot listen on {address}: {exc.strerror or exc}") from exc
        if not made:
            raise RefereeError(f"cannot listen on {address} (no IPv4 or IPv6 address)")
        self._listeners.extend(made)
        return host_and_port(host, port)

    @property
    def listeners(self) -> tuple[socket.socket, ...]:
        return tuple(self._listeners)

    @property
    def held(self) -> int:
        """Connections accepted and not yet closed, in all."""
        return self.counts.total

    def start(self) -> None:
        """Take connections from now on."""
        self._accept(True)

    def stop_accepting(self) -> None:
        """Take no more connections (those open go on)."""
        self._closed = True
        self._accept(False)

    def close(self) -> None:
        """Stop listening and close every connection; its own folder goes too."""
        self._closed = True
        self._accept(False)
        for listener in self._listeners:
            listener.close()
        self._listeners.clear()
        for account in self.accounts.values():
            account.close()
        for task in self._tasks:
            task.cancel()
        ours = f"unix:{self.inner_dir}/"
        for name in [name for name in FORWARDED if name.startswith(ours)]:
            del FORWARDED[name]
        if self._own_folder is not None:
            self._own_folder.cleanup()

    def _accept(self, on: bool) -> None:
        """Whether the listeners are read; off at the cap of connections, and for good
        once closed."""
        on = on and not self._closed
        if on == self._accepting:
            return
        loop = asyncio.get_running_loop()
        for listener in self._listeners:
            if on:
                loop.add_reader(listener.fileno(), self._take, listener)
            else:
                loop.remove_reader(listener.fileno())
        self._accepting = on

    def _take(self, listener: socket.socket) -> None:
        """A few of the queued connections, then back to the loop. At the cap of
        connections in all, a new one is taken only when some client holds two or more:
        the one holding most gives up its newest, if it holds more than one above the
        newcomer's client (else the newcomer is closed). When none holds two, the kernel
        queues the rest until one closes. Without this, 54 addresses holding 64
        connections each (calls begun and never finished, so never idle) kept every other
        client out for as long as they liked."""
        for _ in range(ACCEPTS_PER_WAKE):
            full = self.held >= self.max_connections
            if full and self.counts.most < 2:
                self._accept(False)  # the kernel queues the rest; taken when one closes
                return
            taken = accept_one(
                listener,
                functools.partial(self._accept, False),
                functools.partial(self._accept, True),
            )
            if taken is None:
                return
            conn, peer = taken
            client = client_group(str(peer[0]))
            account = self._account(client)
            room = self._room_for(client) if full and account is not None else None
            if account is None or (full and room is None) or not account.admit():
                conn.close()
                continue
            if room is not None:
                room.close(abort=True)
            self.counts.add(client, 1)
            name = os.path.join(self.inner_dir, f"c{next(_names)}")
            task = asyncio.get_running_loop().create_task(
                account.serve(
                    conn,
                    0,
                    functools.partial(self._connect, name, client),
                    on_close=functools.partial(self._closed_one, name, client),
                )
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _room_for(self, newcomer: str) -> Link | None:
        """The connection to cut for ``newcomer``'s at the cap: the newest of the client
        holding most, if it holds more than one above the newcomer's client."""
        holder = self.counts.top()
        if holder is None or self.counts.held(holder) <= self.counts.held(newcomer) + 1:
            return None
        account = self.accounts.get(holder)
        return account.newest() if account is not None else None  # None: all being made

    def _account(self, client: str) -> Account | None:
        """The client's account; None while it is barred."""
        until = self.barred.get(client)
        if until is not None:
            if time.monotonic() < until:
                return None
            del self.barred[client]
            self.accounts.pop(client, None)
        account = self.accounts.get(client)
        if account is None:
            account = self.accounts[client] = Account(
                self.budget,
                self.per_client,
                holder="a client address may hold at once",
                cap_is_limit=False,
                on_limit=functools.partial(self._bar, client),
            )
        return account

    def _bar(self, client: str, reason: str) -> None:
        self.barred[client] = time.monotonic() + self.bar_seconds
        log.warning(
            "closed the connections of %s and refuse its new ones for %g s: it %s",
            client,
            self.bar_seconds,
            reason,
        )

    async def _connect(
        self, name: str, client: str, protocol: Callable[[], asyncio.Protocol]
    ) -> asyncio.Transport:
        """The relay's end to gRPC, bound to ``name`` so that gRPC names it as the peer."""
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind(name)
            FORWARDED[f"unix:{name}"] = client
            await loop.sock_connect(sock, self.inner_path)
            transport, _ = await loop.create_unix_connection(protocol, sock=sock)
        except BaseException:
            sock.close()
            raise
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)  # gRPC has the name from the connection, not the file
        return transport

    def _closed_one(self, name: str, client: str) -> None:
        # gRPC may still start calls it read before its end closed (within the grace a
        # link has, then it is cut): they must count as the client's, not as "unix".
        loop = asyncio.get_running_loop()
        loop.call_later(CLOSE_GRACE_SECONDS + 1.0, FORWARDED.pop, f"unix:{name}", None)
        self.counts.add(client, -1)
        if not self._closed:
            self._accept(True)
            self._forget_later(client)

    def _forget_later(self, client: str) -> None:
        """Drop an idle client's account once its budget is full again (before, a client
        that reconnected would start with a full one)."""
        if client in self._forgetting:
            return
        account = self.accounts.get(client)
        if account is None or account.connections or account.pending:
            return
        self._forgetting.add(client)
        delay = account.bucket.wait(account.bucket.burst) + 0.1
        asyncio.get_running_loop().call_later(delay, self._forget, client)

    def _forget(self, client: str) -> None:
        self._forgetting.discard(client)
        account = self.accounts.get(client)
        if account is None or account.connections or account.pending:
            return
        until = self.barred.get(client)
        if until is not None and time.monotonic() < until:
            self._forgetting.add(client)
            asyncio.get_running_loop().call_later(
                until - time.monotonic() + 0.1, self._forget, client
            )
            return
        if until is None and not account.bucket.full():
            self._forget_later(client)
            return
        self.barred.pop(client, None)
        del self.accounts[client]


def _bound_socket(family: int, address: tuple[Any, ...], v6_only: bool) -> socket.socket:
    """A non-blocking TCP socket listening on ``address``; OSError (and nothing left
    open) when it cannot."""
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC does
        if family == socket.AF_INET6:
            listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(v6_only))
        listener.bind(address)
        listener.listen(socket.SOMAXCONN)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    return listener


class HeldCounts:
    """How many connections each client holds, their total, and one of those holding
    most (the last to reach that count), each in constant time."""

    def __init__(self) -> None:
        self._held: dict[str, int] = {}
        self._by_count: dict[int, dict[str, None]] = {}
        self.most = 0
        self.total = 0

    def held(self, client: str) -> int:
        return self._held.get(client, 0)

    def add(self, client: str, step: int) -> None:
        was = self._held.get(client, 0)
        now = was + step
        self.total += step
        if was:
            del self._by_count[was][client]
        if now:
            self._held[client] = now
            self._by_count.setdefault(now, {})[client] = None
        else:
            self._held.pop(client, None)
        self.most = max(self.most, now)
        while self.most and not self._by_count.get(self.most):
            self.most -= 1

    def top(self) -> str | None:
        """A client holding most (the last to get there), or None when none holds any."""
        holders = self._by_count.get(self.most)
        return next(reversed(holders)) if holders else None
