"""Opens connections to the referee's unix socket ($ARENA_TARGET) until one is refused or
``most`` are open, and holds them. The escaper bot calls ``hold_connections`` in the middle
of a match; ``python connect.py MARKER`` waits for the file ``$TMPDIR/MARKER.go`` (the bot
makes it once it has said how many it holds itself), then does the same and sleeps
(MARKER also marks the process for the test's look for survivors)."""

from __future__ import annotations

import os
import socket
import sys
import time

held: list[socket.socket] = []  # open for the process's life


def hold_connections(most: int = 5000) -> str:
    path = os.environ["ARENA_TARGET"].removeprefix("unix:")
    stopped = f"the {most} it wanted"
    try:
        while len(held) < most:
            conn = socket.socket(socket.AF_UNIX)
            held.append(conn)
            conn.connect(path)
    except OSError as exc:
        held.pop().close()
        stopped = exc.strerror or type(exc).__name__
    return f"HELD {len(held)}, stopped by {stopped}"


def go_file(marker: str) -> str:
    return os.path.join(os.environ.get("TMPDIR", "/tmp"), f"{marker}.go")


if __name__ == "__main__":
    while not os.path.exists(go_file(sys.argv[1])):
        time.sleep(0.01)
    hold_connections()
    time.sleep(300)
