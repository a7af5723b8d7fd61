"""How an arena process ends: cleanly when asked, and without litter when it cannot.

``kill PID`` (SIGTERM, what service managers and ``timeout`` send) stops a running
tournament as Ctrl-C does: its matches in play are abandoned, every bot process is killed,
its cgroups and socket directory are removed, and the tournament is left ``interrupted``
to resume. An arena killed outright (SIGKILL, a crash, the machine's power) cleans nothing
up, so what it leaves on the machine is named after it (``owner_tag``: pid namespace and
pid), and the next arena that starts there removes whatever a dead owner left
(``owner_is_dead``). A live arena's is never touched, in this pid namespace or another.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def run_stoppable(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``, where SIGTERM cancels ``work`` and raises KeyboardInterrupt,
    as Ctrl-C does, so its clean-up runs. A second SIGTERM kills at once. Off the main
    thread (a server's request handler) signals are not this code's: plain asyncio.run."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(work)
    stopped = False

    async def main() -> T:
        nonlocal stopped
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()

        def stop() -> None:
            nonlocal stopped
            stopped = True
            loop.remove_signal_handler(signal.SIGTERM)  # back to the default: dies
            if task is not None:
                task.cancel()

        loop.add_signal_handler(signal.SIGTERM, stop)
        try:
            return await work
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if stopped:
            raise KeyboardInterrupt from None
        raise
    finally:
        if previous is not None:  # None: a handler not set from Python, left as is
            signal.signal(signal.SIGTERM, previous)


def _pid_namespace() -> str:
    try:
        link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
    except OSError:
        return "0"
    return link.partition("[")[2].rstrip("]") or "0"


def owner_tag() -> str:
    """This process, as the owner of what it leaves on the machine."""
    return f"{_pid_namespace()}-{os.getpid()}"


def owner_is_dead(tag: str) -> bool:
    """Whether the process that ``tag`` (an ``owner_tag``) names is gone. False when it
    cannot tell: another pid namespace, another user's process, a name not a tag."""
    namespace, _, pid = tag.partition("-")
    if namespace != _pid_namespace() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


REFEREE_SOCKET = "referee.sock"  # the name of a bot-facing referee's socket in its directory
# The longest path a unix socket address holds (sockaddr_un.sun_path, less its NUL).
UNIX_SOCKET_PATH_MAX = 107


def tagged_temp_dir(kind: str, socket_name: str | None = None) -> tempfile.TemporaryDirectory[str]:
    """A private temporary directory named after this process, made after removing the
    ones of this ``kind`` that a dead arena left. With ``socket_name``, one where that
    socket's path fits a unix socket address: in /tmp when $TMPDIR is too long for it."""
    base = Path(tempfile.gettempdir())
    prefix = f"{kind}-{owner_tag()}-"
    if socket_name is not None:
        longest = len(os.fsencode(base / f"{prefix}{'x' * 8}" / socket_name))
        if longest > UNIX_SOCKET_PATH_MAX:
            base = Path("/tmp")
    for path in base.glob(f"{kind}-*-*-*"):
        tag = "-".join(path.name[len(kind) + 1 :].split("-")[:2])
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours
            if owner_is_dead(tag) and path.is_dir() and path.stat().st_uid == os.getuid():
                _remove(path)
    return tempfile.TemporaryDirectory(prefix=prefix, dir=base)


def _remove(path: Path) -> None:
    """Delete a tree, read-only folders too (a submission is unpacked read-only)."""
    for folder, _subfolders, _files in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
    shutil.rmtree(path, ignore_errors=True)
