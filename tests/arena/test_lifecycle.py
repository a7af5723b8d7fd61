"""arena/lifecycle.py: SIGTERM stops the work as Ctrl-C does, with its clean-up run; what
a dead arena left is removed, a live one's (in this pid namespace or another) never."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.lifecycle import REFEREE_SOCKET, run_stoppable, stops_held
from referee.aio import to_the_end
from referee.owned_dirs import UNIX_SOCKET_PATH_MAX, owner_is_dead, owner_tag, tagged_temp_dir
from tests.conftest import ROOT, add_sample_bot, arena, as_in_a_terminal, left_behind
from tests.security.conftest import needs_bwrap


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_sigterm_cancels_the_work_runs_its_clean_up_and_raises_keyboard_interrupt() -> None:
    cleaned = []

    async def work() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        finally:
            await asyncio.sleep(0)  # clean-up may await
            cleaned.append(True)

    with pytest.raises(KeyboardInterrupt):
        run_stoppable(work())
    assert cleaned == [True]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_work_that_ends_returns_its_value_and_leaves_sigterm_as_it_was() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    def mine(signum: int, frame: object) -> None:
        pass

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        assert run_stoppable(work()) == 7
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_off_the_main_thread_it_runs_the_work_and_leaves_signals_alone() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    results: list[int] = []
    thread = threading.Thread(target=lambda: results.append(run_stoppable(work())))
    thread.start()
    thread.join(30)
    assert results == [7]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_cancellation_not_from_sigterm_is_not_turned_into_an_interrupt() -> None:
    async def work() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        run_stoppable(work())


def test_owner_tags_tell_dead_arenas_from_live_ones_and_others() -> None:
    namespace, pid = owner_tag().split("-")
    assert pid == str(os.getpid())
    assert not owner_is_dead(owner_tag())
    assert owner_is_dead(f"{namespace}-{dead_pid()}")
    assert not owner_is_dead(f"1{namespace}-{dead_pid()}")  # another pid namespace
    assert not owner_is_dead(f"{dead_pid()}")  # a name from before tags: not ours to judge
    assert not owner_is_dead("probe")


def test_a_new_temp_dir_removes_only_what_dead_arenas_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    namespace = owner_tag().split("-")[0]
    gone = dead_pid()
    dead = tmp_path / f"arena-{namespace}-{gone}-abc"
    live = tmp_path / f"arena-{owner_tag()}-def"
    elsewhere = tmp_path / f"arena-1{namespace}-{gone}-ghi"
    other_kind = tmp_path / f"arena-dask-{namespace}-{gone}-jkl"  # a kind made elsewhere
    not_ours = tmp_path / f"other-{namespace}-{gone}-mno"  # another program's
    for path in (dead, live, elsewhere, other_kind, not_ours):
        (path / "sub").mkdir(parents=True)
        (path / "sub" / "referee.sock").write_text("")
    with tagged_temp_dir("arena") as made:
        assert Path(made).name.startswith(f"arena-{owner_tag()}-")
        assert not dead.exists() and not other_kind.exists()
        assert live.exists() and elsewhere.exists() and not_ours.exists()
    assert not Path(made).exists()


def test_a_dead_arenas_read_only_folders_are_removed_too(tmp_path: Path) -> None:
    """A submission is unpacked read-only; its folder goes all the same (run without
    root's power to ignore permissions, which would hide the problem)."""
    namespace = owner_tag().split("-")[0]
    dead = tmp_path / f"arena-check-{namespace}-{dead_pid()}-abc"
    (dead / "bot").mkdir(parents=True)
    (dead / "bot" / "bot.py").write_text("")
    (dead / "bot").chmod(0o555)
    prefix: list[str] = []
    if os.getuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("as root, setpriv (util-linux) is needed to drop capabilities")
        prefix = [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"]
    code = (
        "import sys, tempfile; tempfile.tempdir = sys.argv[1]; "
        "from referee.owned_dirs import tagged_temp_dir; tagged_temp_dir('arena-check').cleanup()"
    )
    subprocess.run([*prefix, sys.executable, "-c", code, str(tmp_path)], check=True, cwd=ROOT)
    assert not dead.exists()


def test_a_socket_directory_fits_a_unix_socket_address_whatever_tmpdir_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = tmp_path / ("x" * 100)
    long.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    with tagged_temp_dir("arena", REFEREE_SOCKET) as made:
        assert Path(made).parent == Path("/tmp")
        assert len(os.fsencode(f"{made}/{REFEREE_SOCKET}")) <= UNIX_SOCKET_PATH_MAX
    with tagged_temp_dir("arena") as made:  # no socket in it: $TMPDIR as asked
        assert Path(made).parent == long


def test_a_tournament_plays_with_a_tmpdir_too_long_for_a_socket(tmp_path: Path) -> None:
    long = tmp_path / ("x" * 100)
    long.mkdir()
    db = tmp_path / "arena.db"
    add_sample_bot(db, "a")
    add_sample_bot(db, "b")
    args = ["--game", "gin_rummy", "--bots", "a,b", "--rules", "max_hands=1", "--json"]
    done = arena(db, "tournament", "run", *args, env={"TMPDIR": str(long)})
    assert json.loads(done.stdout)["played"] == 2


def test_a_clean_up_runs_to_its_end_though_its_task_is_cancelled_meanwhile() -> None:
    """A second cancel (SIGTERM or Ctrl-C while a run closes) used to cut the closing of
    bots and of the referee short, leaving them to the closed loop."""
    steps = []

    async def close() -> None:
        steps.append("closing")
        await asyncio.sleep(0.05)
        steps.append("closed")

    async def work() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            await to_the_end(close())

    async def scenario() -> bool:
        task = asyncio.get_running_loop().create_task(work())
        await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0.01)  # now closing
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return task.cancelled()

    assert asyncio.run(scenario())  # the cancel is passed on once the clean-up ends
    assert steps == ["closing", "closed"]


@pytest.fixture
def stop_signals_at_their_defaults() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP as in a terminal, whatever this test run was started
    with (a background job ignores SIGINT, nohup SIGHUP); restored after."""
    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
        signal.SIGTERM: signal.signal(signal.SIGTERM, signal.SIG_DFL),
        signal.SIGHUP: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    }
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


@pytest.mark.usefixtures("stop_signals_at_their_defaults")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_before_the_work_runs_is_held_and_cancels_it_as_it_starts(signum: int) -> None:
    """Ctrl-C or SIGTERM just after a tournament is stored, or while asyncio sets up its
    loop, raised inside that setup (the work never awaited, a traceback) or left the
    tournament stored with nothing said. Now it waits for the work, which it stops."""
    steps = []

    async def work() -> None:
        steps.append("started")
        try:
            await asyncio.sleep(30)
        finally:
            steps.append("cleaned up")

    with pytest.raises(KeyboardInterrupt), stops_held():
        os.kill(os.getpid(), signum)
        time.sleep(0.05)  # delivered here, and held: no KeyboardInterrupt yet
        steps.append("stored")
        run_stoppable(work())
    assert steps == ["stored", "started", "cleaned up"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.getsignal(signal.SIGHUP) == signal.SIG_DFL


@pytest.mark.usefixtures("stop_signals_at_their_defaults")
def test_a_stop_held_to_the_end_of_its_block_raises_there() -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt), stops_held():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        steps.append("finished the step")
    assert steps == ["finished the step"]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_second_stop_while_one_is_held_kills_at_once() -> None:
    """Held through a step (a sandbox probe), a second Ctrl-C or SIGTERM was only held
    too: the user's "stop now" waited for the step. It kills at once, as in a run."""
    holding = (
        "import os, signal, time\n"
        "from arena.lifecycle import stops_held\n"
        "with stops_held():\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(30)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", holding], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == -signal.SIGTERM, done.stderr


def test_a_sigint_its_launcher_ignores_stays_ignored() -> None:
    """A shell starts a background job with SIGINT ignored: Ctrl-C meant for the shell
    must not stop it."""

    async def work() -> int:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(0.05)
        return 3

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert run_stoppable(work()) == 3
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


@needs_bwrap
def test_a_sandbox_probe_folder_a_killed_arena_left_is_removed_by_the_next(
    tmp_path: Path,
) -> None:
    """The bubblewrap probe's folder had no owner in its name: one left by an arena killed
    while probing (`bots submit --check`) stayed for good."""
    namespace = owner_tag().split("-")[0]
    left = tmp_path / f"arena-probe-{namespace}-{dead_pid()}-abc"
    left.mkdir()
    probing = "import shutil; from arena.sandbox import probe; print(probe(shutil.which('bwrap')))"
    done = subprocess.run(
        [sys.executable, "-c", probing],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "None", done.stderr  # bubblewrap works here
    assert list(tmp_path.iterdir()) == []  # the dead one's removed, its own too


SLOW_FIRST_BWRAP = """#!/bin/sh
# The real bubblewrap, but its first run (the arena's probe) takes 3 s longer.
if mkdir "$0.ran" 2>/dev/null; then sleep 3; fi
exec {bwrap} "$@"
"""


@needs_bwrap
@pytest.mark.parametrize(
    ("command", "signum", "said"),
    [
        ("run", signal.SIGTERM, "interrupted: nothing was stored"),
        ("run", signal.SIGHUP, "interrupted: nothing was stored"),
        ("resume", signal.SIGINT, "interrupted: resume with "),
        ("check", signal.SIGTERM, "interrupted: the check of a stopped"),
        ("demo", signal.SIGINT, "interrupted: nothing was stored"),
    ],
    ids=["run-SIGTERM", "run-SIGHUP", "resume-SIGINT", "check-SIGTERM", "demo-SIGINT"],
)
def test_a_stop_during_the_sandbox_probe_waits_for_it_and_says_what_it_stopped(
    tmp_path: Path, request: pytest.FixtureRequest, command: str, signum: int, said: str
) -> None:
    """The bubblewrap probe runs before a run's stop handling takes over: SIGTERM and
    SIGHUP killed the arena there by default (leaving the probe's folder), and Ctrl-C
    stopped `resume` without saying how to resume. The probe now ends first, then the
    command stops saying what it stopped, with exit 130 and nothing left behind."""
    db = tmp_path / "arena.db"
    add_sample_bot(db, "a")
    add_sample_bot(db, "b")
    run = ["tournament", "run", "--game", "golf", "--bots", "a,b", "--rules", "holes=1"]
    if command == "resume":
        arena(db, *run)  # a tournament to resume (nothing left to play)
    # Where the bots' user (arena/bot_users.py), which runs bubblewrap, can read and write.
    shared = Path(tempfile.mkdtemp(prefix="slow-bwrap-"))
    shared.chmod(0o777)
    wrapper = shared / "bwrap"
    wrapper.write_text(SLOW_FIRST_BWRAP.format(bwrap=shutil.which("bwrap")))
    wrapper.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(shared, ignore_errors=True))
    args = {
        "run": run,
        "resume": ["tournament", "resume", "1"],
        "check": ["bots", "check", "a", "--game", "golf"],
        "demo": ["demo", "--replays", str(tmp_path / "replays")],
    }[command]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args, "--db", str(db)],
        cwd=ROOT,
        env={**os.environ, "ARENA_BWRAP": str(wrapper)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_in_a_terminal,
    )
    deadline = time.monotonic() + 60
    while not Path(f"{wrapper}.ran").exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "the probe never began"
        time.sleep(0.02)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert said in stderr and "Traceback" not in stderr, stderr
    assert left_behind(proc.pid) == []
    tournaments = json.loads(arena(db, "tournament", "list", "--json").stdout)
    assert len(tournaments) == (1 if command == "resume" else 0)
