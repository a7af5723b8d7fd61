"""arena/lifecycle.py: SIGTERM stops the work as Ctrl-C does, with its clean-up run; what
a dead arena left is removed, a live one's (in this pid namespace or another) never."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from arena.lifecycle import REFEREE_SOCKET, run_stoppable
from referee.owned_dirs import UNIX_SOCKET_PATH_MAX, owner_is_dead, owner_tag, tagged_temp_dir
from tests.conftest import ROOT, add_sample_bot, arena


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
    other_kind = tmp_path / f"arena-check-{namespace}-{gone}-jkl"
    for path in (dead, live, elsewhere, other_kind):
        (path / "sub").mkdir(parents=True)
        (path / "sub" / "referee.sock").write_text("")
    with tagged_temp_dir("arena") as made:
        assert Path(made).name.startswith(f"arena-{owner_tag()}-")
        assert not dead.exists()
        assert live.exists() and elsewhere.exists() and other_kind.exists()
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
