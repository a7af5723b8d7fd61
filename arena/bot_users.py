"""A user id of its own, outside its namespace, for every sandboxed bot of a root arena.

bwrap maps the bot's user (uid 65534 inside) to the user who runs it. When that is root,
the kernel sees the bot as root wherever it checks the uid rather than capabilities:
procfs let a red-team bot write /proc/sys/kernel/core_pattern and run a program as root
on the host; it owned the host's device files; and every sandbox shared root's per-user
counters (queued signals, pipe buffers, message queues), channels between two tables.

So a root arena runs each sandbox as a fresh uid, drawn at random from UID_RANGE, that
no account and no other sandbox of this process has (sandboxes of two processes, Dask
workers of one machine, draw apart by chance: 1 in about 2**28 for two at once):
``setpriv`` switches to it before bwrap starts, and bwrap joins a user namespace made for
it here, whose maps this module (root) writes:

- the bot's uid and gid inside map to the fresh uid outside;
- ids 0 to 65533 map to themselves, so that bwrap, with the namespace's capabilities
  while it builds the view, can reach a runtime under a folder only root may enter (a
  Python installed in root's home). The bot holds none of them but CAP_DAC_READ_SEARCH
  (see ``bwrap_arguments``), which reads what it is shown whichever of those ids owns
  it, and never becomes any of them (no capability to change its ids; every mount is
  nosuid).

A bot so keeps reading every file it is shown, as when it was root outside; running a
program takes the execute bit for others (arena/bots.py says so before it starts one).
bwrap leaves the namespace's descriptor open in the bot, which can do nothing with it:
it is in that namespace already, and may not ask the kernel about its parent.

An arena run by an ordinary user gives its bots that user's uid, as before (no uid of
another can be taken without root). The tools are util-linux's, on every Linux system.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

# Where systemd allocates no uid (systemd.io/UIDS-GIDS: containers end below
# 0x7000_0000, its "foreign" range starts at 0x7FFE_0000), below 2**31, which some tools
# read as negative. A uid with an account (through NSS, such as a directory service's)
# or in a sandbox of this process is drawn again.
UID_RANGE = range(0x7000_0000, 0x7FFE_0000)
# Host ids 0 to 65533 map to themselves in a bot's namespace, so that the capability its
# bot keeps reads what it is shown whoever owns it (a bot's folder of another group).
SAME_IDS = 65534
_in_use: set[int] = set()


class BotUserError(RuntimeError):
    """The user namespace for a bot could not be made; the message says why."""


@dataclass(frozen=True, slots=True)
class BotUser:
    uid: int  # outside the namespace; the bot's gid outside is the same number
    namespace_fd: int  # the user namespace, for ``bwrap --userns``

    def switch_command(self) -> list[str]:
        return _switch_to(self.uid)


def _switch_to(uid: int) -> list[str]:
    """Run what follows as ``uid`` (and gid), with no supplementary groups (root's would
    otherwise follow the bot into the sandbox)."""
    return [_tool("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def needed() -> bool:
    """Whether bots need a user of their own: the arena runs as root."""
    return os.geteuid() == 0


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BotUserError(
            f"the arena runs as root and needs {name} (util-linux) to give each bot a user "
            "of its own; install util-linux, or run the arena as an ordinary user"
        )
    return found


@contextmanager
def bot_user(inside_id: int) -> Iterator[BotUser]:
    """A fresh uid and a user namespace owned by it, in which ``inside_id`` (uid and gid,
    at least SAME_IDS) is that uid outside and the ids below SAME_IDS are themselves;
    valid inside the ``with``. The namespace outlives the short process that made it
    through the descriptor, which bwrap joins (its owner, the fresh uid, holds every
    capability in it, so bwrap needs no privilege of its own)."""
    assert inside_id >= SAME_IDS, "the bot's id would be one of the host's"
    uid = _fresh_uid()
    # The holder makes the namespace as the fresh uid, says so, and waits for a line.
    holder = subprocess.Popen(
        [*_switch_to(uid), _tool("unshare"), "--user", "--", "/bin/sh", "-c", "echo; read _"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert holder.stdin is not None and holder.stdout is not None and holder.stderr is not None
    try:
        if holder.stdout.readline() != b"\n":
            holder.stdin.close()
            reason = holder.stderr.read().decode(errors="replace").strip()
            raise BotUserError(
                f"cannot make a user namespace for a bot: {reason or 'no reason given'}"
            )
        maps = f"0 0 {SAME_IDS}\n{inside_id} {uid} 1\n"
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{holder.pid}/{name}", "w") as out:
                out.write(maps)
        namespace_fd = os.open(f"/proc/{holder.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise BotUserError(f"cannot map a bot's user namespace ({exc})") from exc
    finally:
        for stream in (holder.stdin, holder.stdout, holder.stderr):
            stream.close()
        holder.wait()
    _in_use.add(uid)
    try:
        yield BotUser(uid, namespace_fd)
    finally:
        _in_use.discard(uid)
        os.close(namespace_fd)


def _fresh_uid() -> int:
    while True:
        uid = UID_RANGE.start + secrets.randbelow(len(UID_RANGE))
        if uid in _in_use:
            continue
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
