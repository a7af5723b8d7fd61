"""Output files (replays, pages, exports) written whole or not at all.

Each is written to a temporary file beside it and moved into place when complete, so a
full disk or an error half-way leaves the earlier file of that name as it was (it used
to be cut short, or truncated to nothing, before the error was reported) and no partial
file behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

from arena.lifecycle import stop_signals_deferred

T = TypeVar("T")

# A full disk, a full quota, or a file size limit reached.
OUT_OF_ROOM_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def out_of_room(exc: BaseException) -> bool:
    """Whether ``exc`` says a write found no room: an OSError of a full disk (or quota, or
    file size limit), or SQLite's "database or disk is full"."""
    if isinstance(exc, sqlite3.OperationalError):
        return "full" in str(exc)
    return isinstance(exc, OSError) and exc.errno in OUT_OF_ROOM_ERRNOS


def write_whole(target: Path, write: Callable[[TextIO], T], newline: str | None = None) -> T:
    """Call ``write`` with a text file that becomes ``target`` once it returns; on any
    error (OSError from the disk included) the target is untouched and the error raised."""
    temporary = None
    try:
        # A stop between making the file and noting its name left it behind (a report
        # stopped by SIGTERM, 1 run in CI).
        with stop_signals_deferred():
            fd, temporary = tempfile.mkstemp(
                dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
            )
        with open(fd, "w", encoding="utf-8", newline=newline) as out:
            result = write(out)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    return result


def write_text_whole(target: Path, text: str) -> None:
    write_whole(target, lambda out: out.write(text))


def _umask() -> int:
    """The process's umask, read without setting it (os.umask sets it, for every thread)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


__all__ = ["write_text_whole", "write_whole"]
