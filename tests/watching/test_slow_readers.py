"""A client reading a page a few bytes at a time is cut off by a deadline that grows with
the page's size: the idle time counts only silence, so such a client held its
connection, and a server thread, for as long as the page lasted at its pace."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import threading
import time
import urllib.request
from typing import Any

from arena.web.server import make_server

PIECE = 2048  # bytes the slow client takes at a time
PAUSE = 0.25  # seconds between its pieces: never silent for the idle time (1 s)
SEND_SECONDS, SEND_RATE = 2.0, 1e6  # the server's answer budget: 2 s plus 1 s per MB


def slow_read(port: int, path: str) -> tuple[int, int]:
    """(Content-Length, body bytes received before the server closed the connection),
    read PIECE bytes every PAUSE seconds through small socket buffers."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting
    with sock:
        sock.settimeout(30)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n".encode())
        received = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(PIECE):
                received += chunk
                time.sleep(PAUSE)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return length, len(body)


def test_a_client_reading_a_page_slowly_is_cut_off_and_others_are_served(
    tournament: Any,
) -> None:
    db, _ = tournament("gin_rummy")
    with contextlib.closing(sqlite3.connect(db)) as con:
        (match_id,) = con.execute(  # the longest match: the largest replay page
            "select match_id from replays order by length(jsonl_z) desc limit 1"
        ).fetchone()
    # A 2 s answer budget and 1 MB/s: about 2.1 s for a replay page of 100 KB or so,
    # where the slow client would take 10 s or so.
    server = make_server(
        db, port=0, idle_seconds=1.0, send_seconds=SEND_SECONDS, send_rate=SEND_RATE
    )
    # Small buffers on the server's side too, so the page cannot sit in them whole.
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/match/{match_id}", timeout=30
        ) as page:
            whole = len(page.read())
        # The slow client could not finish within the budget: it takes a piece per pause,
        # and two small socket buffers (the kernel doubles the 4096 asked) hold the rest.
        budget = SEND_SECONDS + whole / SEND_RATE
        assert whole > (budget / PAUSE + 1) * PIECE + 2 * 2 * 4096, whole
        result: list[tuple[int, int]] = []
        reader = threading.Thread(
            target=lambda: result.append(slow_read(port, f"/match/{match_id}"))
        )
        reader.start()
        time.sleep(0.5)  # the slow client holds its connection
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as home:
            assert home.status == 200  # others are served meanwhile
        reader.join(60)
        assert result, "the slow client was never cut off"
        length, received = result[0]
        assert length == whole
        assert received < whole  # cut off midway
    finally:
        server.shutdown()
