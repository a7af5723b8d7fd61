"""Folders and cgroups a process leaves on the machine, named after it.

A process killed outright (SIGKILL, a crash, the machine's power) cleans nothing up, so
what it leaves is named after it (``owner_tag``: pid namespace and pid), and the next
process that makes one of these folders there removes whatever a dead owner left
(``owner_is_dead``). A live owner's is never touched, in this pid namespace or another.
The arena's socket folders and cgroups (arena/lifecycle.py, arena/cgroups.py) and the
referee's front door (referee/service/front_door.py) are made so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


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


# The longest path a unix socket address holds (sockaddr_un.sun_path, less its NUL).
UNIX_SOCKET_PATH_MAX = 107


# The kinds of folder made so: the referee's front door; an arena's referee socket, its
# bots' relays, a bot check, a bubblewrap probe, a local Dask cluster's scratch.
KINDS = frozenset({"referee", "arena", "arena-bots", "arena-check", "arena-probe", "arena-dask"})


def tagged_temp_dir(kind: str, socket_name: str | None = None) -> tempfile.TemporaryDirectory[str]:
    """A private temporary directory of ``kind`` named after this process, made after
    removing every folder of any of the KINDS that a dead owner left there (one kind's
    maker may not come again: a killed run on Dask workers resumed in process). With
    ``socket_name``, one where that socket's path fits a unix socket address: in /tmp
    when $TMPDIR is too long for it."""
    assert kind in KINDS, kind
    base = Path(tempfile.gettempdir())
    prefix = f"{kind}-{owner_tag()}-"
    if socket_name is not None:
        longest = len(os.fsencode(base / f"{prefix}{'x' * 8}" / socket_name))
        if longest > UNIX_SOCKET_PATH_MAX:
            base = Path("/tmp")
    for path in base.glob("*-*-*-*"):
        # KIND-NAMESPACE-PID-RANDOM (tempfile's random part has no dash)
        left_kind, namespace, pid, _ = path.name.rsplit("-", 3)
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours
            if (
                left_kind in KINDS
                and owner_is_dead(f"{namespace}-{pid}")
                and path.is_dir()
                and path.stat().st_uid == os.getuid()
            ):
                _remove(path)
    return tempfile.TemporaryDirectory(prefix=prefix, dir=base)


def _remove(path: Path) -> None:
    """Delete a tree, read-only folders too (a submission is unpacked read-only)."""
    for folder, _subfolders, _files in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
    shutil.rmtree(path, ignore_errors=True)
