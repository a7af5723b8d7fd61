"""Writes a directory full (by default the scratch directory $TMPDIR: under bwrap a
RAM-backed tmpfs), up to a size, and says how far it got: ``python fill.py MIB NAME
[DIRECTORY]`` prints "FILLED <MiB> MiB, stopped by <why>". The escaper bot calls it in the
middle of a match."""

from __future__ import annotations

import os
import sys


def fill_scratch(most_mib: int, name: str, directory: str | None = None) -> str:
    written, stopped = 0, f"the {most_mib} MiB it wanted"
    chunk = b"x" * (1 << 20)
    try:
        where = directory or os.environ.get("TMPDIR", "/tmp")
        with open(os.path.join(where, name), "wb") as out:
            while written < most_mib << 20:
                out.write(chunk)
                out.flush()
                written += len(chunk)
    except OSError as exc:
        stopped = exc.strerror or type(exc).__name__
    return f"FILLED {written >> 20} MiB, stopped by {stopped}"


if __name__ == "__main__":
    print(fill_scratch(int(sys.argv[1]), sys.argv[2], *sys.argv[3:4]))
