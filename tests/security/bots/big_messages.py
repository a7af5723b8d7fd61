"""A hostile bot that makes the referee hold memory for it: on its first turn (within its
move clock) it opens ``STREAMS`` Play streams on one connection to the referee's unix
socket ($ARENA_TARGET), speaking HTTP/2 by hand (no token needed), and starts on each a
gRPC message announced as ``MIB`` MiB. It sends all of each message but its last byte and
holds the streams for ``HOLD`` seconds: the referee's transport reads a message whole (up
to its receive limit, which was 128 MiB) before Play can look at it, so each stream kept
about ``MIB`` MiB of the arena's memory, while the bot itself holds one zeroed MiB. It says
``SENT <MiB>`` on stderr and plays random legal moves while a thread holds the streams.

``python big_messages.py hold STREAMS MIB SECONDS``: as above, held for SECONDS.
``python big_messages.py many CONNECTIONS KIB SECONDS``: opens CONNECTIONS connections with
32 streams each (all the referee allows), each stream an unfinished message of 127 KiB,
just under the transport's limit, of which it sends KIB KiB (at most 120), and holds them
for SECONDS. With KIB 0, it opens no stream: the connections alone.
``python big_messages.py smuggle CONNECTIONS KIB SECONDS``: as ``many``, but each connection,
once loaded, is sent over SCM_RIGHTS into a socket pair nobody reads and closed: in flight,
it is in no process's descriptor table, and stays connected while the bot lives. It says
``HID <n>`` every ten, and takes 0.1 s a move, so that its matches last while it works.
``python big_messages.py handoff CONNECTIONS KIB SECONDS``: as ``smuggle``, but each
connection is made and loaded by a child process that puts it in flight and exits, one
every 0.1 s.
``python big_messages.py headers CONNECTIONS MIB SECONDS``: on CONNECTIONS connections at
once, opens a stream with HEADERS that do not end and sends CONTINUATION frames for
SECONDS or until MIB MiB are sent in all: legal HTTP/2 without end, which gRPC parses as
it comes and never refuses. It says ``FLOODED <MiB>`` when it stops, and takes 0.1 s a
move.
"""

from __future__ import annotations

import array
import contextlib
import os
import random
import select
import socket
import struct
import sys
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.security.bots.http2_frames import PREFACE, flood_header_block, frame, header_block
else:  # run from its own folder, as the sandbox runs it
    from http2_frames import PREFACE, flood_header_block, frame, header_block

MODE, STREAMS, MIB, HOLD = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
PATH = "/referee.v1.Referee/Play"


class Http2:
    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.sock.sendall(PREFACE + frame(4, 0, 0))
        self.conn_window, self.initial_window, self.max_frame = 65535, 65535, 16384
        self.windows: dict[int, int] = {}
        self.ended: set[int] = set()
        self.buf = b""

    def pump(self, timeout: float) -> None:
        """Read what the server sent: settings, window updates, pings, stream ends."""
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if not ready:
            return
        data = self.sock.recv(1 << 16)
        if not data:
            raise EOFError
        self.buf += data
        while len(self.buf) >= 9:
            size = int.from_bytes(self.buf[:3], "big")
            if len(self.buf) < 9 + size:
                return
            kind, flags = self.buf[3], self.buf[4]
            stream = int.from_bytes(self.buf[5:9], "big") & 0x7FFFFFFF
            payload, self.buf = self.buf[9 : 9 + size], self.buf[9 + size :]
            if kind == 4 and not flags & 1:  # SETTINGS
                for i in range(0, len(payload), 6):
                    key, value = struct.unpack(">HI", payload[i : i + 6])
                    if key == 4:
                        for s in self.windows:
                            self.windows[s] += value - self.initial_window
                        self.initial_window = value
                    elif key == 5:
                        self.max_frame = value
                self.sock.sendall(frame(4, 1, 0))
            elif kind == 8:  # WINDOW_UPDATE
                increment = struct.unpack(">I", payload)[0] & 0x7FFFFFFF
                if stream == 0:
                    self.conn_window += increment
                elif stream in self.windows:
                    self.windows[stream] += increment
            elif kind == 6 and not flags & 1:  # PING
                self.sock.sendall(frame(6, 1, 0, payload))
            elif kind == 3 or (kind in (0, 1) and flags & 1):  # RST_STREAM, END_STREAM
                self.ended.add(stream)

    def open(self, stream: int) -> None:
        self.sock.sendall(frame(1, 4, stream, header_block(PATH)))
        self.windows[stream] = self.initial_window

    def send(self, stream: int, data: bytes) -> int:
        """As much of ``data`` as the flow-control windows allow now; the bytes sent."""
        sent = 0
        while sent < len(data):
            n = min(len(data) - sent, self.max_frame, self.conn_window, self.windows[stream])
            if n <= 0:
                break
            self.sock.sendall(frame(0, 0, stream, data[sent : sent + n]))
            sent, self.conn_window, self.windows[stream] = (
                sent + n,
                self.conn_window - n,
                self.windows[stream] - n,
            )
        return sent


def send_big_messages() -> Http2:
    conn = Http2(os.environ["ARENA_TARGET"].removeprefix("unix:"))
    conn.pump(0.5)
    size = MIB << 20
    left = {}
    for i in range(STREAMS):
        stream = 1 + 2 * i
        conn.open(stream)
        conn.send(stream, b"\x00" + struct.pack(">I", size))  # the gRPC length prefix
        left[stream] = size - 1  # all but the last byte
    chunk = bytes(1 << 20)
    deadline = time.monotonic() + 60
    while any(n > 0 and s not in conn.ended for s, n in left.items()):
        if time.monotonic() > deadline:
            break
        moved = 0
        for stream, n in left.items():
            if n > 0 and stream not in conn.ended:
                sent = conn.send(stream, chunk[: min(n, len(chunk))])
                left[stream] -= sent
                moved += sent
        conn.pump(0 if moved else 0.05)
    sent_mib = sum(size - 1 - n for n in left.values()) >> 20
    print(f"SENT {sent_mib} MiB on {STREAMS} streams", file=sys.stderr, flush=True)
    return conn


def loaded_connection() -> tuple[Http2, int]:
    """A connection of 32 streams, each with MIB (here: KiB, at most 120) KiB of a 127 KiB
    message; bytes sent."""
    conn = Http2(os.environ["ARENA_TARGET"].removeprefix("unix:"))
    conn.pump(0.05)
    sent = 0
    for i in range(32 if MIB else 0):
        conn.open(1 + 2 * i)
        conn.send(1 + 2 * i, b"\x00" + struct.pack(">I", 127 << 10))
        sent += conn.send(1 + 2 * i, bytes(min(MIB, 120) << 10))
    conn.pump(0)
    return conn, sent


def open_many() -> list[Http2]:
    """CONNECTIONS loaded connections (loaded_connection)."""
    conns, sent = [], 0
    with contextlib.suppress(OSError, EOFError):
        for _ in range(STREAMS):
            conn, n = loaded_connection()
            conns.append(conn)
            sent += n
    print(f"SENT {sent >> 20} MiB on {len(conns)} connections", file=sys.stderr, flush=True)
    return conns


def put_in_flight(conn: Http2, queue: socket.socket) -> None:
    fds = array.array("i", [conn.sock.fileno()])
    queue.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    conn.sock.close()


def smuggle(by_children: bool) -> None:
    """CONNECTIONS loaded connections put in flight, by this process or each by a child
    that exits; a socket pair carries at most 200 (its queue's length)."""
    queues: list[tuple[socket.socket, socket.socket]] = []
    hidden, sent = 0, 0
    with contextlib.suppress(OSError, EOFError):
        for k in range(STREAMS):
            if k % 200 == 0:
                queues.append(socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
            if by_children:
                child = os.fork()
                if child == 0:
                    with contextlib.suppress(BaseException):
                        put_in_flight(loaded_connection()[0], queues[-1][0])
                    os._exit(0)
                os.waitpid(child, 0)
                time.sleep(0.1)
            else:
                conn, n = loaded_connection()
                put_in_flight(conn, queues[-1][0])
                sent += n
            hidden += 1
            if hidden % 10 == 0:
                print(f"HID {hidden} connections in flight", file=sys.stderr, flush=True)
    time.sleep(HOLD)  # the queues, and the connections in them, live as long as this


def hold_many(conns: list[Http2]) -> None:
    until = time.monotonic() + HOLD
    while time.monotonic() < until:
        for conn in conns:
            with contextlib.suppress(OSError, EOFError):
                conn.pump(0)
        time.sleep(0.05)


def hold(conn: Http2) -> None:
    until = time.monotonic() + HOLD
    while time.monotonic() < until:
        try:
            conn.pump(0.1)
        except (EOFError, OSError):
            break
    conn.sock.close()


def flood_headers() -> None:
    """A header block without end on each of STREAMS connections, until HOLD seconds or MIB
    MiB have passed in all."""
    conns: list[Http2] = []
    sent = 0
    with contextlib.suppress(OSError, EOFError):
        for _ in range(STREAMS):
            conn = Http2(os.environ["ARENA_TARGET"].removeprefix("unix:"))
            conn.sock.sendall(frame(1, 0, 1, header_block(PATH)))  # no END_HEADERS
            conns.append(conn)
        sent = flood_header_block([conn.sock for conn in conns], MIB, HOLD)
    print(f"FLOODED {sent >> 20} MiB", file=sys.stderr, flush=True)


started = False


def choose(observation: Any, legal: Sequence[str]) -> str:
    global started
    if not started:  # on its first turn, so that the match's stderr has what it sent
        started = True
        if MODE == "hold":
            threading.Thread(target=hold, args=(send_big_messages(),), daemon=True).start()
        elif MODE == "many":
            threading.Thread(target=hold_many, args=(open_many(),), daemon=True).start()
        elif MODE in ("smuggle", "handoff"):
            threading.Thread(target=smuggle, args=(MODE == "handoff",), daemon=True).start()
        else:
            threading.Thread(target=flood_headers, daemon=True).start()
    if MODE in ("smuggle", "handoff", "headers"):
        time.sleep(0.1)  # its matches last while it works
    return random.choice(list(legal))


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(choose, name="big-messages")
