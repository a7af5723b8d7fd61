"""What a hostile bot would ask the kernel for to reach across sandboxes, for the security
tests (x86-64 only: the calls are made by number, as a bot in any language could).

``python kernel_probe.py calls``: makes each call the bots' seccomp filter refuses, once,
with harmless arguments, and prints one JSON object: call -> "ok" or the errno's name.
Locks are taken on this file (shared, read-only, as the runtime is); a lease on a file of
its own in /tmp; ptrace and process_vm_readv aim at pid 1, the sandbox's init.
``python kernel_probe.py hold``: takes an exclusive flock on this file, prints the outcome
and keeps the lock for 5 s. ``python kernel_probe.py watch``: asks, without waiting,
whether it could take that lock, and prints "free", "locked" or the errno's name: the two
ends of the channel a red-team bot used to pass cards between tables.
``python kernel_probe.py evict|touch|resident FILE [PAGES]``: the page cache as a
channel: evicts a shared file's pages, reads the pages listed ("3,7,11"), or prints
which are resident.
``python kernel_probe.py fill|room``: queued signals, counted per user (see
``queued_signals``). ``python kernel_probe.py int80|x32``: getpid through 32-bit x86's or x32's entry point.
``python kernel_probe.py post TEXT``: adds a kernel key named after TEXT, prints the
outcome and keeps the key for 5 s; ``python kernel_probe.py read``: prints the TEXT of any
such key it finds in /proc/keys (which lists every key its user id may view, from any
sandbox), "nothing", or the errno's name if it cannot read it.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NUMBERS = {  # x86-64 system call numbers
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "pidfd_getfd": 438,
    "flock": 73,
    "inotify_init": 253,
    "inotify_init1": 294,
    "fanotify_init": 300,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "bpf": 321,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "syslog": 103,
    "open_by_handle_at": 304,
    "fcntl": 72,
    "mincore": 27,
    "cachestat": 451,
    "fadvise64": 221,
    "madvise": 28,
    "process_madvise": 440,
    "chmod": 90,
    "fchmod": 91,
    "fchmodat": 268,
    "fchmodat2": 452,
    "utime": 132,
    "utimes": 235,
    "utimensat": 280,
    "futimesat": 261,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
    "unshare": 272,
    "clone": 56,
    "clone3": 435,
}
CLONE_NEWUSER = 0x1000_0000
# Seize, unlike attach, does not stop the init, so the sandbox goes on when the probe
# exits (and with it the tracing).
PTRACE_SEIZE = 0x4206
POSIX_FADV_DONTNEED, MADV_COLD, MADV_PAGEOUT, PAGE = 4, 20, 21, 4096
AT_FDCWD = -100
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)
SHARED = os.path.abspath(__file__)
KEY_PREFIX = "arena-probe-"
LOCK = struct.pack("hhqqi", fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0)  # struct flock: all of it


def call(name: str, *args: int | bytes | ctypes.Array[ctypes.c_char] | None) -> str:
    """The call by number: "ok" or the errno's name."""
    ctypes.set_errno(0)
    wrapped = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    if libc.syscall(ctypes.c_long(NUMBERS[name]), *wrapped) == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return "ok"


def each_call() -> dict[str, str]:
    # F_NOTIFY, once it gets through, signals SIGIO whenever anyone reads in the folder
    # watched (other tests do): its default would kill the probe mid-way.
    signal.signal(signal.SIGIO, signal.SIG_IGN)
    shared = os.open(SHARED, os.O_RDONLY)
    folder = os.open(os.path.dirname(SHARED), os.O_RDONLY)
    own_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "lease")
    own = os.open(own_path, os.O_RDONLY | os.O_CREAT, 0o600)
    own_name = own_path.encode()
    pipe_end, _ = os.pipe()
    lock = ctypes.create_string_buffer(LOCK)
    mapped = mapping(shared)
    status = ctypes.create_string_buffer(64)
    whole = ctypes.create_string_buffer(16)  # struct cachestat_range: the whole file
    checks: dict[str, Callable[[], str]] = {
        "ptrace": lambda: call("ptrace", PTRACE_SEIZE, 1, 0, 0),
        "process_vm_readv": lambda: call("process_vm_readv", 1, None, 0, None, 0, 0),
        "process_vm_writev": lambda: call("process_vm_writev", 1, None, 0, None, 0, 0),
        "pidfd_getfd": lambda: call("pidfd_getfd", -1, 0, 0),
        "flock": lambda: call("flock", shared, fcntl.LOCK_SH | fcntl.LOCK_NB),
        "inotify_init": lambda: call("inotify_init"),
        "inotify_init1": lambda: call("inotify_init1", 0),
        "fanotify_init": lambda: call("fanotify_init", 0, 0),
        "perf_event_open": lambda: call("perf_event_open", None, 0, -1, -1, 0),
        "userfaultfd": lambda: call("userfaultfd", 0),
        "io_uring_setup": lambda: call("io_uring_setup", 1, None),
        "io_uring_enter": lambda: call("io_uring_enter", -1, 0, 0, 0, None, 0),
        "io_uring_register": lambda: call("io_uring_register", -1, 0, None, 0),
        "bpf": lambda: call("bpf", 0, None, 0),
        "keyctl": lambda: call("keyctl", 0, -3, 0),  # the session keyring's id
        "add_key": lambda: call("add_key", b"user", b"probe", b"x", 1, -3),
        "request_key": lambda: call("request_key", b"user", b"probe", None, -3),
        "syslog": lambda: call("syslog", 10, None, 0),  # the log buffer's size
        "open_by_handle_at": lambda: call("open_by_handle_at", -1, None, 0),
        "F_GETLK": lambda: call("fcntl", shared, fcntl.F_GETLK, lock),
        "F_SETLK": lambda: call("fcntl", shared, fcntl.F_SETLK, lock),
        "F_SETLKW": lambda: call("fcntl", shared, fcntl.F_SETLKW, lock),
        "F_OFD_GETLK": lambda: call("fcntl", shared, fcntl.F_OFD_GETLK, lock),
        "F_OFD_SETLK": lambda: call("fcntl", shared, fcntl.F_OFD_SETLK, lock),
        "F_OFD_SETLKW": lambda: call("fcntl", shared, fcntl.F_OFD_SETLKW, lock),
        "F_SETLEASE": lambda: call("fcntl", own, fcntl.F_SETLEASE, fcntl.F_RDLCK),
        "F_GETLEASE": lambda: call("fcntl", own, fcntl.F_GETLEASE, 0),
        "F_NOTIFY": lambda: call("fcntl", folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS),
        "mincore": lambda: call("mincore", mapped, PAGE, status),
        "cachestat": lambda: call("cachestat", shared, whole, status, 0),
        "fadvise64": lambda: call("fadvise64", shared, 0, 0, POSIX_FADV_DONTNEED),
        "MADV_COLD": lambda: call("madvise", mapped, PAGE, MADV_COLD),
        "MADV_PAGEOUT": lambda: call("madvise", mapped, PAGE, MADV_PAGEOUT),
        "process_madvise": lambda: call("process_madvise", -1, None, 0, 0, 0),
        # On a file of its own: the host's device files are what the filter protects,
        # and these calls would change them without it.
        "chmod": lambda: call("chmod", own_name, 0o600),
        "fchmod": lambda: call("fchmod", own, 0o600),
        "fchmodat": lambda: call("fchmodat", AT_FDCWD, own_name, 0o600),
        "fchmodat2": lambda: call("fchmodat2", AT_FDCWD, own_name, 0o600, 0),
        "utime": lambda: call("utime", own_name, None),
        "utimes": lambda: call("utimes", own_name, None),
        "utimensat": lambda: call("utimensat", AT_FDCWD, own_name, None, 0),
        "futimesat": lambda: call("futimesat", AT_FDCWD, own_name, None),
        "mq_open": lambda: call("mq_open", b"arena-probe", os.O_CREAT | os.O_RDWR, 0o600, None),
        "mq_unlink": lambda: call("mq_unlink", b"arena-probe"),
        "mq_timedsend": lambda: call("mq_timedsend", -1, None, 0, 0, None),
        "mq_timedreceive": lambda: call("mq_timedreceive", -1, None, 0, None, None),
        "mq_notify": lambda: call("mq_notify", -1, None),
        "mq_getsetattr": lambda: call("mq_getsetattr", -1, None, None),
        "F_SETPIPE_SZ": lambda: call("fcntl", pipe_end, fcntl.F_SETPIPE_SZ, 1 << 17),
        "AF_VSOCK": vsock,
        # The kernel reads fcntl's command as 32 bits: the same command with high bits set.
        "F_SETLK high bits": lambda: call("fcntl", shared, (1 << 32) | fcntl.F_SETLK, lock),
        # A user namespace of its own would give the bot every capability in it.
        "unshare(CLONE_NEWUSER)": lambda: in_a_child("unshare", CLONE_NEWUSER),
        "clone(CLONE_NEWUSER)": lambda: new_process(CLONE_NEWUSER),
        "clone3": lambda: call("clone3", None, 0),  # ENOSYS under the filter
        # What bots do use must still work: file flags, close-on-exec, duplicates,
        # processes and threads (the C library falls back from clone3 to clone).
        "fork": lambda: new_process(0),
        "posix_spawn": spawned,
        "thread": threaded,
        "F_GETFL": lambda: call("fcntl", shared, fcntl.F_GETFL, 0),
        "F_DUPFD_CLOEXEC": lambda: call("fcntl", shared, fcntl.F_DUPFD_CLOEXEC, 0),
    }
    return {name: check() for name, check in checks.items()}


def vsock() -> str:
    """A vsock socket: "ok" or the errno's name (EAFNOSUPPORT on a machine without it)."""
    try:
        socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc.errno))
    return "ok"


def new_process(flags: int) -> str:
    """A child by the raw clone call with ``flags`` (and SIGCHLD), which exits at once:
    "ok" or the errno's name."""
    ctypes.set_errno(0)
    pid = libc.syscall(ctypes.c_long(NUMBERS["clone"]), ctypes.c_long(flags | 17), None, None)
    if pid == 0:
        os._exit(0)
    if pid == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    os.waitpid(pid, 0)
    return "ok"


def in_a_child(name: str, *args: int) -> str:
    """``call`` made by a child process, which it changes (a call such as unshare moves
    its caller into a new namespace, where the calls after it would not be the same)."""
    pid = os.fork()
    if pid == 0:
        outcome = call(name, *args)
        os._exit(0 if outcome == "ok" else getattr(errno, outcome, 255))
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return "ok" if code == 0 else errno.errorcode.get(code, str(code))


def spawned() -> str:
    pid = os.posix_spawn("/bin/true", ["true"], {})
    return "ok" if os.waitpid(pid, 0)[1] == 0 else "failed"


def threaded() -> str:
    ran: list[bool] = []
    worker = threading.Thread(target=lambda: ran.append(True))
    worker.start()
    worker.join()
    return "ok" if ran else "failed"


def queued_signals(mode: str) -> str:
    """The per-user count of queued signals as a channel (RLIMIT_SIGPENDING): ``fill``
    queues real-time signals to itself, blocked, until the kernel refuses one, and prints
    how many it queued; ``room`` asks whether one more can be queued: "room", "full" (the
    count of its user is at the limit) or the errno's name."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
    libc.sigqueue.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_long)
    queued = 0
    while True:
        ctypes.set_errno(0)
        if libc.sigqueue(os.getpid(), signal.SIGRTMIN, 0) == -1:
            code = ctypes.get_errno()
            if code != errno.EAGAIN:
                return errno.errorcode.get(code, str(code))
            return f"queued {queued}" if mode == "fill" else "full"
        queued += 1
        if mode == "room":
            return "room"


def mapping(fd: int) -> int:
    """Where the first page of ``fd`` is mapped, read-only and shared."""
    return int(libc.mmap(None, PAGE, 1, 1, fd, 0))  # PROT_READ, MAP_SHARED


def page_cache(mode: str, path: str, pages: str = "") -> str:
    """``evict``: drops the file's pages from the page cache; ``touch``: reads the pages
    listed; ``resident``: which of its pages are in the page cache (mincore). Each
    prints "ok", the pages or the errno's name."""
    fd = os.open(path, os.O_RDONLY)
    if mode == "evict":
        return call("fadvise64", fd, 0, 0, POSIX_FADV_DONTNEED)
    if mode == "touch":
        for page in pages.split(","):
            os.pread(fd, 1, int(page) * PAGE)
        return "ok"
    size = os.fstat(fd).st_size
    where = int(libc.mmap(None, size, 1, 1, fd, 0))
    status = ctypes.create_string_buffer((size + PAGE - 1) // PAGE)
    outcome = call("mincore", where, size, status)
    if outcome != "ok":
        return outcome
    return ",".join(str(i) for i, flags in enumerate(status.raw) if flags & 1) or "none"


def foreign_call(entry: str) -> str:
    """getpid through another architecture's entry point: ``int80`` (32-bit x86, from
    machine code written here) or ``x32``. "pid N" or the errno's name, if it returns."""
    if entry == "x32":
        return call_number(0x4000_0000 | 39)
    # mov eax, 20 (32-bit getpid); int 0x80; ret
    code = bytes.fromhex("b814000000cd80c3")
    page = int(libc.mmap(None, PAGE, 7, 0x22, -1, 0))  # RWX, MAP_PRIVATE | MAP_ANONYMOUS
    ctypes.memmove(page, code, len(code))
    result = ctypes.CFUNCTYPE(ctypes.c_int)(page)()
    return f"pid {result}" if result > 0 else errno.errorcode.get(-result, str(result))


def call_number(number: int) -> str:
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number))
    if result == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return f"pid {result}"


def main() -> None:
    mode = sys.argv[1]
    if mode == "calls":
        print(json.dumps(each_call()), flush=True)
        return
    if mode in ("int80", "x32"):
        print(foreign_call(mode), flush=True)
        return
    if mode in ("evict", "touch", "resident"):
        print(page_cache(mode, *sys.argv[2:]), flush=True)
        return
    if mode == "post":
        outcome = call("add_key", b"user", (KEY_PREFIX + sys.argv[2]).encode(), b"x", 1, -3)
        print(outcome, flush=True)
        time.sleep(5)  # the key lives as long as this sandbox's keyrings do
        return
    if mode == "read":
        try:
            with open("/proc/keys") as keys:
                lines = [line for line in keys if KEY_PREFIX in line]
        except OSError as exc:
            print(errno.errorcode.get(exc.errno or 0, str(exc)))
            return
        texts = [line.split(KEY_PREFIX, 1)[1].split(":")[0] for line in lines]
        print(" ".join(texts) or "nothing")
        return
    if mode in ("fill", "room"):
        print(queued_signals(mode), flush=True)
        if mode == "fill":
            time.sleep(5)  # the signals stay queued while it lives
        return
    shared = os.open(SHARED, os.O_RDONLY)
    if mode == "hold":
        print(call("flock", shared, fcntl.LOCK_EX | fcntl.LOCK_NB), flush=True)
        time.sleep(5)
    elif mode == "watch":
        outcome = call("flock", shared, fcntl.LOCK_EX | fcntl.LOCK_NB)
        print({"ok": "free", "EAGAIN": "locked"}.get(outcome, outcome), flush=True)


if __name__ == "__main__":
    main()
