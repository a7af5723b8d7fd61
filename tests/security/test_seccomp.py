"""The bots' system-call filter (arena/seccomp.py), with real sandboxed processes: every
call it names is refused inside bwrap while the calls bots need still work, the same
probes get through bwrap without the filter (so they can fail), and the lock channel two
red-team bots used between sandboxes is closed. The spy's tournament checks the filter
on the arena's own launches (tests/security/test_hostile_bots.py)."""

from __future__ import annotations

import functools
import json
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from arena import bot_users
from arena.sandbox import (
    Launch,
    Sandbox,
    SandboxError,
    bwrap_launch,
    resolve,
    sandbox_env,
)
from tests.security.conftest import BOTS, REFUSED, needs_bwrap, run_launched, run_sandboxed

pytestmark = [
    needs_bwrap,
    pytest.mark.skipif(
        platform.machine() != "x86_64", reason="the probe makes its calls by x86-64 numbers"
    ),
]
PROBE = ["python", "kernel_probe.py"]
own_users = pytest.mark.skipif(
    not bot_users.needed(), reason="only a root arena gives bots users of their own"
)
# Calls bwrap alone lets through (the probe's arguments make them succeed there).
OPEN_WITHOUT_THE_FILTER = (
    "ptrace",
    "flock",
    "inotify_init",
    "inotify_init1",
    "F_GETLK",
    "F_SETLK",
    "F_SETLKW",
    "F_OFD_GETLK",
    "F_OFD_SETLK",
    "F_OFD_SETLKW",
    "F_SETLEASE",
    "F_GETLEASE",
    "F_NOTIFY",
    "F_SETLK high bits",
    "process_vm_readv",
    "add_key",
    "keyctl",
    "mincore",
    "fadvise64",
    "MADV_COLD",
    "MADV_PAGEOUT",
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "mq_open",
    "mq_unlink",
    "F_SETPIPE_SZ",
    # bwrap's --disable-userns refuses these too, but cannot be had where the arena runs
    # as root and the bot joins the namespace of a user of its own (arena/bot_users.py).
    *(("unshare(CLONE_NEWUSER)", "clone(CLONE_NEWUSER)") if bot_users.needed() else ()),
    # The kernel gives cachestat only to a file's owner or writer: no longer to a bot
    # with a user of its own, which owns nothing it is shown.
    *(() if bot_users.needed() else ("cachestat",)),
)


@contextmanager
def unfiltered(sandbox: Sandbox, command: list[str], cwd: Path | str = BOTS) -> Iterator[Launch]:
    """The sandbox's launch with everything but the filter."""
    assert sandbox.bwrap is not None
    with bwrap_launch(sandbox.bwrap, command, str(cwd)) as launch:
        yield launch


def start(argv: list[str], sandbox: Sandbox, pass_fds: tuple[int, ...]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv,
        env=sandbox_env(sandbox, {}),
        pass_fds=pass_fds,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_every_call_the_filter_names_is_refused_and_ordinary_ones_work() -> None:
    done = run_sandboxed(resolve("bwrap"), [*PROBE, "calls"], str(BOTS))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert set(REFUSED) <= found.keys(), "a call added to the filter needs a probe"
    checked = sorted({*REFUSED, "F_SETLK high bits"})
    assert {name: found[name] for name in checked} == dict.fromkeys(checked, "EPERM")
    assert found["clone3"] == "ENOSYS"  # which the C library answers by using clone
    ordinary = ("F_GETFL", "F_DUPFD_CLOEXEC", "fork", "posix_spawn", "thread")
    assert {name: found[name] for name in ordinary} == dict.fromkeys(ordinary, "ok")


def test_without_the_filter_the_same_probes_get_through() -> None:
    """The probes are sound: under bwrap alone a bot locks shared files, watches them,
    takes leases, adds kernel keys, reads and evicts the page cache's pages of shared
    files and traces its sandbox's init (which kept it alive past the arena)."""
    done = run_probe(resolve("bwrap"), False, "calls")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert {n: found[n] for n in OPEN_WITHOUT_THE_FILTER} == dict.fromkeys(
        OPEN_WITHOUT_THE_FILTER, "ok"
    )


def run_probe(
    sandbox: Sandbox, filtered: bool, *args: str, cwd: Path = BOTS
) -> subprocess.CompletedProcess[str]:
    if filtered:
        return run_sandboxed(sandbox, [*PROBE, *args], str(cwd))
    with unfiltered(sandbox, [*PROBE, *args], cwd) as launch:
        return run_launched(sandbox, launch)


def start_probe(sandbox: Sandbox, filtered: bool, *args: str) -> subprocess.Popen[str]:
    """The probe in the background, in the sandbox with or without the filter."""
    launching = sandbox.launch if filtered else functools.partial(unfiltered, sandbox)
    with launching([*PROBE, *args], str(BOTS)) as launch:
        return start(launch.argv, sandbox, launch.pass_fds)


def while_running(sender: subprocess.Popen[str], receive: Callable[[], str]) -> tuple[str, str]:
    """What ``sender`` printed first, and what ``receive`` got while it ran on."""
    try:
        assert sender.stdout is not None
        sent = sender.stdout.readline().strip()
        return sent, receive()
    finally:
        sender.kill()
        sender.communicate()


def received(sandbox: Sandbox, filtered: bool, *args: str) -> str:
    done = run_probe(sandbox, filtered, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("filtered", [True, False], ids=["with the filter", "without"])
def test_two_sandboxes_cannot_signal_through_a_lock(filtered: bool) -> None:
    """One sandbox holds a lock on a file both see (read-only, as the runtime is); the
    other asks whether it could take it: one bit per question, the channel a red-team bot
    passed its opponent's hand over. Without the filter the bit gets across."""
    sandbox = resolve("bwrap")
    holder = start_probe(sandbox, filtered, "hold")
    outcome = while_running(holder, lambda: received(sandbox, filtered, "watch"))
    assert outcome == (("EPERM", "EPERM") if filtered else ("ok", "locked"))


@contextmanager
def as_the_arenas_user(command: list[str], cwd: str) -> Iterator[Launch]:
    """The launch of an arena run by an ordinary user, whose bots are all that user
    outside their namespaces (here root's, as a root arena's were before they had users
    of their own); everything else as bots have it, the filter too."""
    with (
        mock.patch.object(bot_users, "needed", return_value=False),
        resolve("bwrap").launch(command, cwd) as launch,
    ):
        yield launch


def outside_uid(launching: Callable[..., Any]) -> subprocess.Popen[str]:
    """A sandboxed process that prints the uid outside its namespace that its own is
    mapped to, then waits."""
    show = "import time; print(open('/proc/self/uid_map').read().split()[-2], flush=True); time.sleep(5)"
    with launching(["python", "-c", show], str(BOTS)) as launch:
        return start(launch.argv, resolve("bwrap"), launch.pass_fds)


@own_users
def test_a_root_arenas_bots_are_each_a_user_of_their_own() -> None:
    """Each sandbox of a root arena runs as a fresh uid outside its namespace, never root
    (whose bots wrote /proc/sys and owned the host's device files) and never another
    sandbox's."""
    sandbox = resolve("bwrap")
    first, second = outside_uid(sandbox.launch), outside_uid(sandbox.launch)
    uids = [while_running(first, lambda: "")[0], while_running(second, lambda: "")[0]]
    assert all(int(uid) in bot_users.UID_RANGE for uid in uids) and uids[0] != uids[1]
    control = outside_uid(as_the_arenas_user)
    assert while_running(control, lambda: "")[0] == "0"


@own_users
@pytest.mark.parametrize(
    ("owner", "group", "mode"),
    [(0, 0, 0o700), (0, 50, 0o750), (1000, 0, 0o750), (1000, 1000, 0o700)],
    ids=["root's alone", "root and another group", "another's, root's group", "another's alone"],
)
def test_a_bot_of_its_own_user_reads_its_folder_whoever_owns_it(
    tmp_path: Path, owner: int, group: int, mode: int
) -> None:
    """A bot is shown its folder read-only, and reads it whoever owns it (as it did when it
    was root outside, and more): it is not the owner, but keeps the capability to read
    what it is shown, and the host's ids map to themselves in its namespace."""
    folder = tmp_path / "bot"
    folder.mkdir()
    secret = folder / "weights.txt"
    secret.write_text("the bot's own\n")
    for path in (secret, folder):
        os.chown(path, owner, group)
    secret.chmod(0o600)
    folder.chmod(mode)
    listing = "import os; print(os.listdir('.'), open('weights.txt').read().strip())"
    done = run_sandboxed(resolve("bwrap"), ["python", "-c", listing], str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['weights.txt'] the bot's own"


@own_users
@pytest.mark.parametrize("users", ["their own", "the arena's"])
def test_two_sandboxes_cannot_signal_through_the_queued_signal_count(users: str) -> None:
    """The kernel counts queued signals per user: while one sandbox keeps its user's
    count at the limit, another of the same user cannot queue a signal, one bit per
    question (a red-team helper's finding). Bots of users of their own count apart."""
    sandbox = resolve("bwrap")
    launching = sandbox.launch if users == "their own" else as_the_arenas_user
    with launching([*PROBE, "fill"], str(BOTS)) as launch:
        filler = start(launch.argv, sandbox, launch.pass_fds)

    def ask() -> str:
        with launching([*PROBE, "room"], str(BOTS)) as launch:
            done = run_launched(sandbox, launch)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    filled, asked = while_running(filler, ask)
    assert filled.startswith("queued ") and int(filled.split()[1]) > 0
    assert asked == ("room" if users == "their own" else "full")


@pytest.mark.parametrize("filtered", [True, False], ids=["with the filter", "without"])
def test_two_sandboxes_cannot_pass_text_through_a_kernel_key(filtered: bool) -> None:
    """/proc/keys lists every key a user id may view, from any sandbox: while one
    sandbox held a key, its name carried text (a hand) to another. Closed twice: the
    filter refuses keys, and the sandbox's /proc shows no key list (arena/sandbox.py)."""
    sandbox = resolve("bwrap")
    text = f"QS7H2C{secrets.token_hex(4)}"
    poster = start_probe(sandbox, filtered, "post", text)
    posted, read = while_running(poster, lambda: received(sandbox, filtered, "read"))
    assert (posted, read) == ("EPERM" if filtered else "ok", "EACCES")


@pytest.mark.parametrize("where", ["with the filter", "without", "outside any sandbox"])
def test_the_page_cache_carries_nothing_from_one_sandbox_to_the_next(
    tmp_path: Path, where: str
) -> None:
    """The page cache is shared by every sandbox and outlives processes: one evicts a
    shared file's pages and reads pages 3, 7 and 11; a later one, of another match, asks
    the kernel which pages are resident (pages of a file no one else reads: 16 of them,
    written here). The filter refuses it. Without the filter the three numbers got
    across from a bot that was root outside; a bot with a user of its own, which cannot
    write the file, is told every page is resident (the kernel's own rule). Outside any
    sandbox, as the file's owner, the probe reads the numbers: it is sound."""
    shutil.copy(BOTS / "kernel_probe.py", tmp_path / "kernel_probe.py")
    pages = tmp_path / "pages.bin"
    with pages.open("wb") as out:
        out.write(secrets.token_bytes(16 * 4096))
        out.flush()
        os.fsync(out.fileno())  # clean pages: eviction drops only those
    sandbox = resolve("bwrap")
    steps = [("evict",), ("touch", "3,7,11"), ("resident",)]
    said = []
    for step in steps:
        args = (step[0], str(pages), *step[1:])
        if where == "outside any sandbox":
            probe = [sys.executable, "kernel_probe.py", *args]
            done = subprocess.run(probe, cwd=tmp_path, capture_output=True, text=True)
        else:
            done = run_probe(sandbox, where == "with the filter", *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        said.append(done.stdout.strip())
    every_page = ",".join(map(str, range(16)))
    if where == "outside any sandbox" and said[2] == every_page:
        pytest.skip("the file system of the test's folder keeps its pages (tmpfs?)")
    expected = {
        "with the filter": ["EPERM", "ok", "EPERM"],
        "without": ["ok", "ok", every_page if bot_users.needed() else "3,7,11"],
        "outside any sandbox": ["ok", "ok", "3,7,11"],
    }
    assert said == expected[where]


DEVICE_PROBE = """
import os
st = os.stat("/dev/full")
for name, change in (
    ("chmod", lambda: os.chmod("/dev/full", st.st_mode & 0o7777)),
    ("utime", lambda: os.utime("/dev/full", ns=(st.st_atime_ns, st.st_mtime_ns))),
):
    try:
        change()
        print(name, "changed")
    except OSError as exc:
        print(name, exc.strerror)
"""


def test_the_hosts_device_files_cannot_be_changed() -> None:
    """The sandbox's /dev holds the host's own device files, and a bot run by a root
    arena owns them: a red-team bot wrote 16 bytes of its choice into /dev/full's times
    (read back by a later sandbox) and could have made /dev/null unusable on the whole
    machine. Here the bot writes back the values they have, so nothing changes either way."""
    before = os.stat("/dev/full")
    done = run_sandboxed(resolve("bwrap"), ["python", "-c", DEVICE_PROBE], str(BOTS))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [
        "chmod Operation not permitted",
        "utime Operation not permitted",
    ]
    after = os.stat("/dev/full")
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)


@pytest.mark.parametrize("entry", ["int80", "x32"])
def test_a_system_call_of_another_architecture_kills_the_bot(entry: str) -> None:
    """Through 32-bit x86's entry point (int 0x80) or x32's, the same calls have other
    numbers and other commands (fcntl64's F_SETLK64 took a lock a red-team bot's other
    sandbox saw): the filter lists the machine's own architecture only, and a call from
    another kills the thread. Without the filter, 32-bit getpid answers."""
    sandbox = resolve("bwrap")
    killed = run_probe(sandbox, True, entry)
    assert killed.returncode == 128 + signal.SIGSYS and killed.stdout == "", killed.stdout
    if entry == "int80":
        answered = run_probe(sandbox, False, entry)
        assert answered.returncode == 0 and answered.stdout.startswith("pid "), answered.stderr


def test_without_libseccomp_the_sandbox_refuses_and_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No bot runs under bwrap without its filter: a machine without libseccomp gets the
    cause and the fixes, as for a missing bubblewrap."""
    import ctypes.util

    from arena import seccomp

    sandbox = resolve("bwrap")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    monkeypatch.delitem(sys.modules, "pyseccomp", raising=False)
    seccomp.program.cache_clear()
    try:
        with pytest.raises(SandboxError) as caught, sandbox.launch(["true"], str(BOTS)):
            pass
    finally:
        seccomp.program.cache_clear()
    text = str(caught.value)
    assert "libseccomp cannot be loaded" in text and "apt-get install libseccomp2" in text
    assert "--sandbox none" in text
