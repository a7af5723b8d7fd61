"""Opens connections to the referee's unix socket ($ARENA_TARGET) until one is refused or
``most`` are open, and holds them: ``python connect.py MARKER`` does it and sleeps (MARKER
marks the process for the test's look for survivors). The escaper bot calls
``hold_connections`` in the middle of a match."""

from __future__ import annotations

import os
import socket
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


if __name__ == "__main__":
    hold_connections()
    time.sleep(300)
