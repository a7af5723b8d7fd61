"""The bots' system-call filter (arena/seccomp.py), with real sandboxed processes: every
call it names is refused inside bwrap while the calls bots need still work, the same
probes get through bwrap without the filter (so they can fail), and the lock channel two
red-team bots used between sandboxes is closed. The spy's tournament checks the filter
on the arena's own launches (tests/security/test_hostile_bots.py)."""

from __future__ import annotations

import json
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.sandbox import (
    Sandbox,
    SandboxError,
    _runtime_paths,
    bwrap_arguments,
    resolve,
    sandbox_env,
)
from tests.security.conftest import BOTS, REFUSED, needs_bwrap, run_sandboxed

pytestmark = [
    needs_bwrap,
    pytest.mark.skipif(
        platform.machine() != "x86_64", reason="the probe makes its calls by x86-64 numbers"
    ),
]
PROBE = ["python", "kernel_probe.py"]
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
    "cachestat",
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
)


def unfiltered(sandbox: Sandbox, command: list[str], cwd: Path = BOTS) -> list[str]:
    """The sandbox's command line with everything but the filter."""
    assert sandbox.bwrap is not None
    return [sandbox.bwrap, *bwrap_arguments(str(cwd), (), (), _runtime_paths()), *command]


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
    assert found["F_GETFL"] == "ok" and found["F_DUPFD_CLOEXEC"] == "ok"


def test_without_the_filter_the_same_probes_get_through() -> None:
    """The probes are sound: under bwrap alone a bot locks shared files, watches them,
    takes leases, adds kernel keys, reads and evicts the page cache's pages of shared
    files and traces its sandbox's init (which kept it alive past the arena)."""
    sandbox = resolve("bwrap")
    done = subprocess.run(
        unfiltered(sandbox, [*PROBE, "calls"]),
        env=sandbox_env(sandbox, {}),
        capture_output=True,
        text=True,
        timeout=120,
    )
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
    argv = unfiltered(sandbox, [*PROBE, *args], cwd)
    env = sandbox_env(sandbox, {})
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def start_probe(sandbox: Sandbox, filtered: bool, *args: str) -> subprocess.Popen[str]:
    """The probe in the background, in the sandbox with or without the filter."""
    if not filtered:
        return start(unfiltered(sandbox, [*PROBE, *args]), sandbox, ())
    with sandbox.launch([*PROBE, *args], str(BOTS)) as launch:
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


@pytest.mark.parametrize("filtered", [True, False], ids=["with the filter", "without"])
def test_the_page_cache_carries_nothing_from_one_sandbox_to_the_next(
    tmp_path: Path, filtered: bool
) -> None:
    """The page cache is shared by every sandbox and outlives processes: one evicts a
    shared file's pages and reads pages 3, 7 and 11; a later one, of another match, asks
    the kernel which pages are resident. Without the filter the three numbers get across
    (pages of a file no one else reads: 16 of them, written here)."""
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
        done = run_probe(sandbox, filtered, step[0], str(pages), *step[1:], cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        said.append(done.stdout.strip())
    if not filtered and said[2] == ",".join(map(str, range(16))):
        pytest.skip("the file system of the test's folder keeps its pages (tmpfs?)")
    expected = ["EPERM", "ok", "EPERM"] if filtered else ["ok", "ok", "3,7,11"]
    assert said == expected


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
