"""Which tournaments a live arena process is playing: one byte-range lock per tournament
in a file beside the database (``<db>-runs``, byte N for tournament N).

Two arenas playing one tournament both played its matches, and the second to store one
failed and marked the tournament interrupted under the other. The kernel drops a
process's locks when it dies, SIGKILL included, so a lock held means an arena is
playing the tournament now, and a tournament stored as "running" whose lock is free was
left by an arena that died.

POSIX record locks belong to the process and all go when it closes any descriptor of the
file, so each file is opened once per process and kept open.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

RUNS_SUFFIX = "-runs"
# A claim waits this long for the lock: another process may be holding it for an instant
# to see whether anyone plays the tournament (``playing``).
CLAIM_SECONDS = 1.0

_lock = threading.Lock()
_descriptors: dict[str, int] = {}  # lock file -> its descriptor, for the process's life
_held: dict[str, set[int]] = {}  # lock file -> tournaments this process plays


class RunClaimed(Exception):
    """Another live arena process is playing the tournament (or its lock file cannot be
    made, so nobody could tell)."""


def runs_file(database: str | os.PathLike[str]) -> str:
    return os.path.abspath(database) + RUNS_SUFFIX


def _descriptor(path: str) -> int | None:
    """The process's descriptor of ``path``; None when it cannot be opened for writing
    (a read-only directory: nobody can be playing there)."""
    with _lock:
        if path not in _descriptors:
            try:
                _descriptors[path] = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError:
                return None
        return _descriptors[path]


@contextmanager
def claim(database: str | os.PathLike[str], tournament_id: int) -> Iterator[None]:
    """Hold tournament ``tournament_id``'s lock while the block runs; RunClaimed when
    another process holds it or the lock file cannot be made."""
    path = runs_file(database)
    fd = _descriptor(path)
    if fd is None:
        try:
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        except OSError as exc:  # why it could not be opened
            raise RunClaimed(f"cannot lock tournament {tournament_id} in {path}: {exc}") from exc
        raise RunClaimed(f"cannot lock tournament {tournament_id} in {path}")
    held = _held.setdefault(path, set())
    if tournament_id in held:
        raise RunClaimed(f"tournament {tournament_id} is being played by this process")
    deadline = time.monotonic() + CLAIM_SECONDS
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, tournament_id)
            break
        except OSError as exc:
            if time.monotonic() > deadline:
                raise RunClaimed(
                    f"tournament {tournament_id} is being played by another arena process "
                    "now: wait for it to end, or stop it (Ctrl-C), before resuming"
                ) from exc
            time.sleep(0.02)
    held.add(tournament_id)
    try:
        yield
    finally:
        held.discard(tournament_id)
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, tournament_id)


def playing(database: str | os.PathLike[str], tournament_id: int) -> bool:
    """Whether a live arena process (this one included) is playing the tournament."""
    path = runs_file(database)
    if tournament_id in _held.get(path, ()):
        return True
    fd = _descriptor(path)
    if fd is None:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, tournament_id)
    except OSError:
        return True
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, tournament_id)
    return False
