"""The sandbox every bot process runs in: choosing a mode (``--sandbox auto|bwrap|none``),
checking that bubblewrap works on this machine, and building its command line.

Under ``bwrap`` a bot sees a minimal file system: the runtime it needs read-only (/usr and
the /lib and /bin links, the few /etc files dynamic linking needs, the arena's Python
and its packages, the SDK: the ``referee`` package and the .proto files, Node.js), its own
directory read-only, the referee's socket directory read-only (connecting needs no write
access to the directory) and a private, empty, writable /tmp that is also its HOME (held
in RAM, so no bigger than the bot's memory limit; with a small /dev/shm, the only other
writable place). It gets every namespace of its own (no network at all; its own pid
namespace, so /proc shows only its processes and it can signal nothing else), runs as
``nobody`` in its own user namespace with every capability dropped and no further user
namespaces (under a root arena, a uid of its own outside it: arena/bot_users.py), starts
a new session (no terminal to inject keystrokes into) and dies with the arena. Its /proc
hides what reaches the host (the settings, root-only files, its init), and a seccomp
filter (arena/seccomp.py) refuses the system calls that reach across sandboxes anyway:
tracing, file locks and notifications, kernel keys, the page cache's state, per-user
limits, the host's device files' modes and times, new user namespaces. Its environment
is exactly what the arena sets. docs/security.md states what each mode guarantees.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena import bot_users, seccomp
from referee.owned_dirs import tagged_temp_dir

SandboxMode = Literal["auto", "bwrap", "none"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "bwrap", "none")
NOBODY = 65534
SCRATCH = "/tmp"  # the bot's private writable directory, also its HOME and TMPDIR
SHM_BYTES = 64 << 20  # the most a bot's /dev/shm holds (never more than its /tmp)
# /etc files the dynamic linker, Python and Node.js read; nothing else of /etc is shown.
_ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/alternatives",
    "/etc/ssl/openssl.cnf",
)
_TOP_LEVEL_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_PROBE_SECONDS = 20.0
INSTALL_FIX = "install it (apt-get install bubblewrap)"
NONE_FIX = "or run the bots without a sandbox with --sandbox none (see docs/security.md)"


class SandboxError(ValueError):
    """The sandbox asked for cannot be used on this machine; the message says why and
    what to do."""


@dataclass(frozen=True)
class Launch:
    """A command line to start a bot with, and the file descriptors it must inherit."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()


@dataclass(frozen=True)
class Sandbox:
    """A resolved sandbox: ``bwrap`` with the path of a working bubblewrap, or ``none``."""

    mode: Literal["bwrap", "none"]
    bwrap: str | None = None
    note: str = ""  # what the operator should be told (unsandboxed bots)

    @property
    def bots_own_users(self) -> bool:
        """Whether each bot runs as a uid of its own (a root arena's bwrap sandbox), so
        that its program must be executable by others."""
        return self.mode == "bwrap" and bot_users.needed()

    @contextlib.contextmanager
    def launch(
        self,
        command: Sequence[str],
        cwd: str,
        visible: Sequence[str] = (),
        hidden: Sequence[str] = (),
        scratch_mb: float | None = None,
    ) -> Iterator[Launch]:
        """How to start ``command`` in ``cwd``, valid inside the ``with``: start it with
        the environment from ``sandbox_env`` (bwrap hands exactly that to the bot, and
        secrets stay out of command lines that ``ps`` shows) and the launch's ``pass_fds``
        (the system-call filter bwrap reads). ``visible``: more directories shown
        read-only (the referee's socket directory); ``hidden``: files blanked out wherever
        they appear (the arena's database); ``scratch_mb``: the most the bot's /tmp holds
        (None: the kernel's default, half the RAM). Raises SandboxError when the filter
        cannot be built."""
        if self.mode == "none":
            yield Launch(list(command))
            return
        assert self.bwrap is not None
        scratch = None
        if scratch_mb is not None and tmpfs_size_supported(self.bwrap):
            scratch = max(1 << 20, int(scratch_mb * (1 << 20)))
        try:
            seccomp.program()  # built once per process; the error is the operator's to fix
        except seccomp.SeccompUnavailable as exc:
            raise SandboxError(f"{exc}, {NONE_FIX}") from exc
        with (
            seccomp.filter_file() as fd,
            bwrap_launch(self.bwrap, command, cwd, visible, hidden, scratch, fd) as launch,
        ):
            yield launch

    def bot_path(self) -> str:
        """PATH inside the sandbox: ``python`` is the arena's interpreter, then the system."""
        return ":".join([*_python_bin_dirs(), "/usr/local/bin", "/usr/bin", "/bin"])


@contextlib.contextmanager
def bwrap_launch(
    bwrap: str,
    command: Sequence[str],
    cwd: str,
    visible: Sequence[str] = (),
    hidden: Sequence[str] = (),
    scratch_bytes: int | None = None,
    seccomp_fd: int | None = None,
) -> Iterator[Launch]:
    """bwrap's launch of ``command`` (see ``bwrap_arguments``); where the arena runs as
    root, as a user of the bot's own (arena/bot_users.py), else as the arena's user."""
    fds = () if seccomp_fd is None else (seccomp_fd,)
    runtime = _runtime_paths()
    with contextlib.ExitStack() as own_user:
        user = None
        if bot_users.needed():
            try:
                user = own_user.enter_context(bot_users.bot_user(NOBODY))
            except bot_users.BotUserError as exc:
                raise SandboxError(f"{exc}, {NONE_FIX}") from exc
        userns_fd = None if user is None else user.namespace_fd
        switch = [] if user is None else user.switch_command()
        arguments = bwrap_arguments(
            cwd, visible, hidden, runtime, scratch_bytes, seccomp_fd, userns_fd
        )
        passed = fds if userns_fd is None else (*fds, userns_fd)
        yield Launch([*switch, bwrap, *arguments, *command], passed)


def _python_bin_dirs() -> list[str]:
    # A venv's bin has `python` (and must be run from there for the venv's packages);
    # otherwise the interpreter's own directory.
    return [os.path.dirname(os.path.abspath(sys.executable))]


def _sdk_package() -> Path:
    import referee

    return Path(referee.__file__).resolve().parent


@functools.cache
def proto_dir() -> str | None:
    """The .proto files' folder (a bot in another language loads them at run time; the
    arena tells it where in ARENA_PROTO_DIR), or None when not installed beside the SDK."""
    proto = _sdk_package().parent / "proto"
    return str(proto) if proto.is_dir() else None


@functools.cache
def _runtime_paths() -> tuple[str, ...]:
    """Directories a bot needs to run Python with the SDK, and Node.js, shown read-only."""
    paths = {os.path.realpath(sys.base_prefix), os.path.abspath(sys.prefix)}
    paths.add(os.path.realpath(sys.prefix))
    paths.add(str(_sdk_package()))  # the SDK (referee.client) and its generated messages
    proto = proto_dir()
    if proto is not None:
        paths.add(proto)
    node = shutil.which("node")
    if node is not None:
        real = Path(node).resolve()
        paths.add(str(real.parent.parent))  # its prefix (lib/node_modules beside bin/)
    covered = ("/usr/", "/bin/", "/lib", "/sbin/")
    return tuple(sorted(p for p in paths if not (p + "/").startswith(covered) and p != "/"))


def bwrap_arguments(
    cwd: str,
    visible: Sequence[str],
    hidden: Sequence[str],
    runtime: Sequence[str],
    scratch_bytes: int | None = None,
    seccomp_fd: int | None = None,
    userns_fd: int | None = None,
) -> list[str]:
    """bubblewrap's options and the ``--`` before the command (the caller appends it).
    ``seccomp_fd``: where bwrap reads the system-call filter (arena/seccomp.py) from;
    ``userns_fd``: the user namespace of the bot's own user (arena/bot_users.py), which
    bwrap joins instead of making one that maps the bot to whoever runs bwrap.

    Only /tmp and /dev/shm are writable. Every tmpfs lives in RAM that the bot's processes
    do not show as theirs, so where no cgroup charges it a bot could park half the
    machine's memory in one: ``scratch_bytes`` caps /tmp, and /dev/shm (POSIX shared
    memory) gets at most SHM_BYTES of it; the root and /dev, tmpfs that bubblewrap builds
    the view in, are remounted read-only once it is built."""
    if userns_fd is None:
        users = [
            "--unshare-all",  # network, pid, ipc, uts, cgroup namespaces
            "--unshare-user",  # also when root: uid 0 outside is never uid 0 inside
            "--disable-userns",
            "--cap-drop",
            "ALL",
        ]
    else:
        # The namespaces --unshare-all makes, in the one made for the bot's own user
        # (--disable-userns cannot be had with it: the seccomp filter refuses more).
        users = [
            *("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"),
            *("--unshare-cgroup-try", "--userns", str(userns_fd), "--cap-drop", "ALL"),
            # Reading what it is shown, all read-only, whoever owns it (its folder may be
            # root's alone), as it could when it was root outside.
            *("--cap-add", "CAP_DAC_READ_SEARCH"),
        ]
    args = [
        *users,
        "--uid",
        str(NOBODY),
        "--gid",
        str(NOBODY),
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "arena-bot",
        "--proc",
        "/proc",
        *_proc_covers(),
        "--dev",
        "/dev",
        # No terminals: the global count of open ones (/proc/sys/kernel/pty/nr, and the
        # pty numbers themselves) was a noise-free channel between sandboxes.
        "--ro-bind",
        "/dev/null",
        "/dev/ptmx",
        *_read_only_tmpfs("/dev/pts"),
        *_sized_tmpfs("/dev/shm", None if scratch_bytes is None else min(scratch_bytes, SHM_BYTES)),
        *_sized_tmpfs(SCRATCH, scratch_bytes),
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for link in _TOP_LEVEL_LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    for name in _ETC_FILES:
        args += ["--ro-bind-try", name, name]
    # Parents before children, so a later bind never hides an earlier one.
    binds = sorted({*runtime, *visible, cwd}, key=lambda p: (p.count("/"), p))
    for path in binds:
        args += ["--ro-bind", path, path]
    for path in hidden:
        if not os.path.exists(path) or not any(_inside(path, b) for b in binds):
            continue
        if os.path.isdir(path):
            # An empty folder over it, read-only, and again what a bot must see in it (a
            # submitted bot's own folder is in the database's .bots folder).
            args += ["--tmpfs", path]
            for bound in binds:
                if bound != path and _inside(bound, path):
                    args += ["--ro-bind", bound, bound]
            args += ["--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", cwd]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return [*args, "--"]


# /proc's folders of system-wide settings and state that no bot needs; its own pid
# namespace's /proc/sysvipc stays (its IPC namespace is its own).
_PROC_KEPT_FOLDERS = ("sysvipc",)
# Files in /proc that list the kernel's keys (and so the keys of other sandboxes).
_PROC_KEY_FILES = ("keys", "key-users")


@functools.cache
def _proc_covers() -> tuple[str, ...]:
    """bubblewrap's options that hide the parts of the bot's /proc that reach the host.

    Where the arena runs as root, a bot is uid 0 to the kernel outside its namespace, and
    procfs checks that uid, not capabilities, for much of itself: a red-team bot wrote
    /proc/sys/kernel/core_pattern (the kernel then ran its program as root on the host),
    read the flags of every physical page (/proc/kpageflags) and rewrote its sandbox's
    init through /proc/1/mem, past the refused ptrace, to outlive the arena. Hidden: the
    sandbox's init (/proc/1), every folder of settings (sys, fs, pressure, ...) behind an
    empty read-only tmpfs, and every file that is not plainly world-readable (root-only
    or writable ones: kpageflags, slabinfo, sysrq-trigger, ...) and the key lists, behind
    /dev/null. The host's /proc tells what the kernel has: the sandbox's is the same."""
    args = [*_read_only_tmpfs("/proc/1")]
    try:
        entries = sorted(os.scandir("/proc"), key=lambda e: e.name)
    except OSError:
        return tuple(args)
    for entry in entries:
        if entry.name.isdigit() or entry.is_symlink():
            continue
        path = f"/proc/{entry.name}"
        with contextlib.suppress(OSError):
            if entry.is_dir():
                if entry.name not in _PROC_KEPT_FOLDERS:
                    args += _read_only_tmpfs(path)
            elif entry.name in _PROC_KEY_FILES or stat.S_IMODE(entry.stat().st_mode) != 0o444:
                args += ["--ro-bind", "/dev/null", path]
    return tuple(args)


def _read_only_tmpfs(path: str) -> list[str]:
    return ["--tmpfs", path, "--remount-ro", path]


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or under it."""
    return (path + "/").startswith(folder.rstrip("/") + "/")


def _sized_tmpfs(path: str, size: int | None) -> list[str]:
    return [*(("--size", str(size)) if size is not None else ()), "--tmpfs", path]


def sandbox_env(sandbox: Sandbox, env: Mapping[str, str]) -> dict[str, str]:
    """The environment a bot gets under ``sandbox``: ``env`` plus PATH (where ``python``
    is the arena's interpreter, so the SDK imports), HOME and TMPDIR."""
    if sandbox.mode == "none":
        base = {k: os.environ[k] for k in ("HOME", "TMPDIR", "LANG", "TZ") if k in os.environ}
        path = [*_python_bin_dirs(), os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")]
        return {**base, "PATH": ":".join(path), **env}
    return {
        "PATH": sandbox.bot_path(),
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "LANG": "C.UTF-8",
        **env,
    }


def _classify(stderr: str) -> str:
    text = stderr.strip().splitlines()[-1] if stderr.strip() else "it failed without a message"
    lowered = stderr.lower()
    if any(
        s in lowered
        for s in ("namespace", "uid map", "operation not permitted", "permission denied")
    ):
        return (
            f"bubblewrap cannot create its namespaces here ({text}): user namespaces are "
            "blocked. Allow them (sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu "
            "23.10+ also kernel.apparmor_restrict_unprivileged_userns=0; in Docker run the "
            f"container with --security-opt seccomp=unconfined --cap-add SYS_ADMIN), {NONE_FIX}"
        )
    return f"bubblewrap does not work here ({text}); fix it, {NONE_FIX}"


@functools.cache
def probe(bwrap: str) -> str | None:
    """None when ``bwrap`` runs a command with the options bots get, else why not."""
    # Named after this process: one a killed arena left is removed by the next.
    with tagged_temp_dir("arena-probe") as tmp:
        sandbox = Sandbox("bwrap", bwrap)
        try:
            with sandbox.launch(["true"], tmp, visible=[tmp]) as launch:
                done = subprocess.run(
                    launch.argv,
                    env=sandbox_env(sandbox, {}),
                    pass_fds=launch.pass_fds,
                    capture_output=True,
                    text=True,
                    timeout=_PROBE_SECONDS,
                    check=False,
                )
        except SandboxError as exc:
            return str(exc)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return _classify(str(exc))
    return None if done.returncode == 0 else _classify(done.stderr)


@functools.cache
def tmpfs_size_supported(bwrap: str) -> bool:
    """Whether this bubblewrap can size a tmpfs: ``--size`` (0.7.0 and later), which a
    setuid bubblewrap refuses."""
    with contextlib.suppress(OSError):
        if os.stat(bwrap).st_mode & stat.S_ISUID:
            return False
    try:
        done = subprocess.run(
            [bwrap, "--help"], capture_output=True, text=True, timeout=_PROBE_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in done.stdout + done.stderr


def find_bwrap() -> str | None:
    """The bubblewrap to use: $ARENA_BWRAP (for operators with a bwrap off PATH), or bwrap."""
    return os.environ.get("ARENA_BWRAP") or shutil.which("bwrap")


def resolve(mode: str, demo: bool = False, bwrap: str | None = None) -> Sandbox:
    """The sandbox for ``mode``. ``auto`` and ``bwrap`` need a working bubblewrap and
    raise SandboxError naming the cause and the fix when there is none; only the demo
    (the project's own sample bots) falls back to running unsandboxed under ``auto``."""
    if mode not in SANDBOX_MODES:
        raise SandboxError(f"unknown sandbox {mode!r}; choose one of {', '.join(SANDBOX_MODES)}")
    if mode == "none":
        return Sandbox("none", note="bots run without a sandbox (--sandbox none)")
    path = bwrap or find_bwrap()
    problem: str | None
    if path is None or not os.access(path, os.X_OK):
        problem = (
            f"bubblewrap (bwrap) is not installed{f' at {path}' if path else ''}: "
            f"{INSTALL_FIX}, {NONE_FIX}"
        )
    else:
        problem = probe(path)
        if problem is None:
            return Sandbox("bwrap", path)
    if demo and mode == "auto":
        return Sandbox("none", note=f"the sample bots run without a sandbox: {problem}")
    raise SandboxError(str(problem))
