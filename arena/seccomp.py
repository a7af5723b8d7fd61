"""The system-call filter every bot runs under in the bwrap sandbox (``bwrap --seccomp FD``).

The namespaces keep a bot's files, network and processes apart, but not everything the
kernel shares. Processes of different sandboxes open the same inodes (the read-only
runtime, the SDK), so a file lock, a lease or a change notification on one is a signal
from one sandbox to another: a red-team bot passed its opponent's hand to its own process
at the other table of the deal with ``flock``. Kernel keys and the page cache are shared
too: a key's name carried text from one sandbox to another, and which pages of a shared
file are cached carried it to a later process, after the first had exited. And a bot's
processes share its user id
with its sandbox's init, so ``ptrace`` let a red-team bot clear the signal that kills the
sandbox when the arena dies. A card-game bot needs none of these calls, nor the kernel
interfaces below that sandboxes commonly refuse; each is answered EPERM ("Operation not
permitted"), and so is creating a user namespace, in which a bot would hold every
capability. A system call of another architecture than the machine's own (32-bit x86's
on x86-64) kills the thread that makes it. docs/security.md lists them for bot authors.

The filter is built with libseccomp (through ``pyseccomp``) once per process.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Each refused call, and why a bot must not have it.
DENIED_CALLS: dict[str, str] = {
    "ptrace": "tracing its sandbox's init undid --die-with-parent",
    "process_vm_readv": "reads another process's memory",
    "process_vm_writev": "writes another process's memory",
    "pidfd_getfd": "takes a file from another process",
    "flock": "a lock on a shared read-only file signals to other sandboxes",
    "inotify_init": "watching shared files for access signals to other sandboxes",
    "inotify_init1": "watching shared files for access signals to other sandboxes",
    "fanotify_init": "watching shared files for access signals to other sandboxes",
    "perf_event_open": "hardware counters: a side channel into other processes",
    "userfaultfd": "a tool of kernel exploits, not of bots",
    "io_uring_setup": "a large kernel interface, refused by most sandboxes",
    "io_uring_enter": "a large kernel interface, refused by most sandboxes",
    "io_uring_register": "a large kernel interface, refused by most sandboxes",
    "bpf": "kernel programs",
    "keyctl": "kernel keyrings are shared by user id",
    "add_key": "kernel keyrings are shared by user id",
    "request_key": "kernel keyrings are shared by user id",
    "syslog": "the kernel's log",
    "open_by_handle_at": "opens files by handle, around the mounts",
    # The page cache is shared by every sandbox and outlives processes: a bot evicted
    # the pages of a shared file, touched some, and a later process, of another match,
    # read which were resident.
    "mincore": "tells which pages of a shared file are in the page cache",
    "cachestat": "tells how much of a shared file is in the page cache",
    "fadvise64": "evicts a shared file's pages from the page cache",
    "process_madvise": "evicts pages of another process's files",
    # The sandbox's /dev holds the host's own device files, which a bot run by a root
    # arena owns: it set /dev/full's times to 16 bytes of its choice, read back by a
    # later sandbox, and could chmod /dev/null to 000 for the whole machine.
    "chmod": "changes the host's device files",
    "fchmod": "changes the host's device files",
    "fchmodat": "changes the host's device files",
    "fchmodat2": "changes the host's device files",
    "utime": "writes chosen times on the host's device files",
    "utimes": "writes chosen times on the host's device files",
    "utimensat": "writes chosen times on the host's device files",
    "futimesat": "writes chosen times on the host's device files",
    # POSIX message queues count against a per-user limit, which every sandbox of an
    # arena not run by root shares (each is the arena's user outside): the bytes one
    # queued, another read exactly.
    "mq_open": "the per-user message queue limit signals to other sandboxes",
    "mq_unlink": "the per-user message queue limit signals to other sandboxes",
    "mq_timedsend": "the per-user message queue limit signals to other sandboxes",
    "mq_timedreceive": "the per-user message queue limit signals to other sandboxes",
    "mq_notify": "the per-user message queue limit signals to other sandboxes",
    "mq_getsetattr": "the per-user message queue limit signals to other sandboxes",
}
# fcntl commands refused: record locks (classic and open-file-description), leases and
# directory notifications, each a signal through a shared inode like flock; and pipe sizes.
DENIED_FCNTL: dict[str, int] = {
    "F_GETLK": fcntl.F_GETLK,
    "F_SETLK": fcntl.F_SETLK,
    "F_SETLKW": fcntl.F_SETLKW,
    "F_OFD_GETLK": fcntl.F_OFD_GETLK,
    "F_OFD_SETLK": fcntl.F_OFD_SETLK,
    "F_OFD_SETLKW": fcntl.F_OFD_SETLKW,
    "F_SETLEASE": fcntl.F_SETLEASE,
    "F_GETLEASE": fcntl.F_GETLEASE,
    "F_NOTIFY": fcntl.F_NOTIFY,
    # Pipe buffers count against a per-user limit too: the pages one sandbox's enlarged
    # pipes took, another saw as lost headroom.
    "F_SETPIPE_SZ": fcntl.F_SETPIPE_SZ,
}
# madvise advice refused: evicting a mapped shared file's pages from the page cache.
# (Allocators' advice, such as MADV_DONTNEED and MADV_FREE, works.)
DENIED_MADVISE: dict[str, int] = {"MADV_COLD": 20, "MADV_PAGEOUT": 21}
# Socket families refused. A virtual machine's vsock ports are one space for the whole
# machine, not per network namespace: a red-team bot bound a port per card of its hand
# and a later process of its bot, in another sandbox, read the hand off the ports taken
# (and the hypervisor's host is reachable through it).
DENIED_FAMILIES: dict[str, int] = {"AF_VSOCK": socket.AF_VSOCK}
# Calls refused for some values of one argument: names, the argument's index, the values.
DENIED_VALUES: tuple[tuple[tuple[str, ...], int, dict[str, int]], ...] = (
    (("fcntl",), 1, DENIED_FCNTL),
    (("madvise",), 2, DENIED_MADVISE),
    (("socket", "socketpair"), 0, DENIED_FAMILIES),
)
# Calls refused when one flag is set in an argument. A new user namespace would give the
# bot every capability in it (bwrap's --disable-userns, which refuses that too, cannot
# be had with a user namespace made for the bot's own user: arena/bot_users.py).
CLONE_NEWUSER = 0x1000_0000
# What is refused -> the call, the argument's index, the flag.
DENIED_FLAGS: dict[str, tuple[str, int, int]] = {
    "unshare(CLONE_NEWUSER)": ("unshare", 0, CLONE_NEWUSER),
    "clone(CLONE_NEWUSER)": ("clone", 0, CLONE_NEWUSER),
}
# clone3 passes its flags in memory, which a filter cannot read: it is answered ENOSYS,
# the answer of a kernel without it, on which the C library falls back to clone.
UNREADABLE_FLAGS = ("clone3",)
INSTALL_FIX = "install libseccomp (apt-get install libseccomp2)"


class SeccompUnavailable(RuntimeError):
    """libseccomp cannot be loaded or cannot build the filter; the message says why."""


@functools.cache
def program() -> bytes:
    """The filter as the BPF program bubblewrap loads, built once per process. Raises
    SeccompUnavailable."""
    rules = _rules()
    try:
        with os.fdopen(os.memfd_create("arena-seccomp-build"), "w+b") as out:
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp cannot write the bots' filter ({exc})") from exc


def _rules() -> Any:
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError, RuntimeError) as exc:  # pyseccomp: "Unable to find libseccomp"
        raise SeccompUnavailable(f"libseccomp cannot be loaded ({exc}): {INSTALL_FIX}") from exc
    refuse = seccomp.ERRNO(errno.EPERM)
    try:
        # The native architecture only: a system call through another entry point
        # (32-bit x86's int 0x80, x32) kills the thread that makes it. Listing those
        # architectures too left their own calls open (fcntl64's F_SETLK64 took locks).
        rules = seccomp.SyscallFilter(seccomp.ALLOW)
        for name in DENIED_CALLS:
            rules.add_rule(refuse, name)
        for names, index, values in DENIED_VALUES:
            for value in values.values():
                # Masked: the kernel reads these arguments as 32 bits, so a plain 64-bit
                # comparison is passed by the same value with high bits set.
                low = seccomp.Arg(index, seccomp.MASKED_EQ, 0xFFFF_FFFF, value)
                for name in names:
                    rules.add_rule(refuse, name, low)
        for name, index, flag in DENIED_FLAGS.values():
            rules.add_rule(refuse, name, seccomp.Arg(index, seccomp.MASKED_EQ, flag, flag))
        for name in UNREADABLE_FLAGS:
            rules.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
    except (OSError, ValueError) as exc:
        raise SeccompUnavailable(f"libseccomp cannot build the bots' filter ({exc})") from exc
    return rules


@contextmanager
def filter_file() -> Iterator[int]:
    """A file descriptor holding ``program()`` from its start, for ``bwrap --seccomp``;
    closed on leaving (the child that bubblewrap runs in keeps its own copy)."""
    data = program()
    fd = os.memfd_create("arena-seccomp")  # close-on-exec: passed on with pass_fds
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)
