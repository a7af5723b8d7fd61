"""Stopping the arena under a bot that left a setsid() helper running: SIGTERM and Ctrl-C
stop a tournament cleanly (no bot process, cgroup or socket directory is left, and it
resumes); an arena killed outright leaves them, and the next arena on the machine removes
them and kills what is still running in them."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import tempfile
from pathlib import Path

import pytest

from tests.security.conftest import (
    LIMIT_SETTINGS,
    add_escaper,
    add_random,
    run_arena,
    start_tournament,
    survivors,
    tournament,
    wait_for,
)


def temp_dirs_of(pid: int, where: Path | None = None) -> list[Path]:
    """The referee socket directories arena process ``pid`` made (arena-NS-PID-*) in
    ``where`` (default: the temporary directory)."""
    return list((where or Path(tempfile.gettempdir())).glob(f"arena-*-{pid}-*"))


def cgroups_of(pid: int) -> set[Path]:
    """The cgroup directories arena process ``pid`` made (card-arena-NS-PID) beside the
    cgroup it ran in (this process's: it inherited it), in every hierarchy."""
    root = Path("/sys/fs/cgroup")
    found: set[Path] = set()
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        tops = [root / n for n in names.split(",")] if names else [root, root / "unified"]
        for top in tops:
            found.update((top / path.lstrip("/")).glob(f"card-arena-*-{pid}"))
    return found


def status(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        (value,) = conn.execute("select status from tournaments").fetchone()
    return str(value)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize(("sandbox", "env"), LIMIT_SETTINGS)
def test_a_stopped_tournament_leaves_nothing_behind_and_resumes(
    tmp_path: Path, sandbox: str, env: dict[str, str], signum: signal.Signals
) -> None:
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "linger", "linger")
    add_random(db)
    proc = start_tournament(db, sandbox, env)
    try:
        assert wait_for(lambda: survivors(marker), 60), "the bot's helper never started"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted: resume with" in err and "tournament resume 1" in err
    assert wait_for(lambda: not survivors(marker), 10), "a bot's helper outlived the arena"
    assert not temp_dirs_of(proc.pid)
    assert not cgroups_of(proc.pid)
    assert status(db) == "interrupted"
    resumed = json.loads(run_arena(db, "tournament", "resume", "1", "--json", env=env).stdout)
    assert resumed["status"] == "finished" and resumed["played"] > 0  # every match stored
    assert wait_for(lambda: not survivors(marker), 10)


def test_what_a_killed_arena_left_is_removed_by_the_next_one(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "linger", "linger")
    add_random(db)
    # Its own TMPDIR, so that no other test's arena removes the socket directory first
    # (short: a socket path must fit in 107 bytes).
    temp = Path(tempfile.mkdtemp(prefix="shutdown-", dir="/tmp"))
    env = {"TMPDIR": str(temp)}
    proc = start_tournament(db, "none", env)
    try:
        assert wait_for(lambda: survivors(marker), 60), "the bot's helper never started"
        in_cgroups = bool(cgroups_of(proc.pid))  # a live arena's are never removed
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    # Killed outright it cleaned nothing up; under --sandbox none its bots' processes run on.
    assert temp_dirs_of(proc.pid, temp)
    try:
        other = tmp_path / "other.db"
        add_random(other, "a", "b")
        summary = tournament(other, "a,b", "--sandbox", "none", env=env)
        assert summary["played"] == 2
        assert not temp_dirs_of(proc.pid, temp)
        assert not cgroups_of(proc.pid)
        if in_cgroups:  # without cgroups nothing finds them (docs/security.md)
            assert wait_for(lambda: not survivors(marker), 10), "the next arena left them"
    finally:
        for pid in survivors(marker):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
