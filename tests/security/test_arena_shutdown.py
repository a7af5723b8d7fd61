"""Stopping the arena under a bot that left a setsid() helper running: SIGTERM and Ctrl-C
stop a tournament cleanly (no bot process, cgroup or socket directory is left, and it
resumes); an arena killed outright leaves them, and the next arena on the machine removes
them and kills what is still running in them."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import tempfile
import uuid
from pathlib import Path

import pytest

from arena.bots import BotPool
from arena.sandbox import resolve
from arena.store import Entrant
from referee.aio import awaited_to_the_end
from referee.service import RefereeCore, start_server
from tests.conftest import cgroups_of, temp_dirs_of
from tests.security.conftest import (
    BOTS,
    LIMIT_SETTINGS,
    add_escaper,
    add_random,
    needs_bwrap,
    run_arena,
    start_tournament,
    survivors,
    tournament,
    wait_for,
)


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


@pytest.mark.parametrize("next_arena", ["plays", "has nothing to play"])
def test_what_a_killed_arena_left_is_removed_by_the_next_one(
    tmp_path: Path, next_arena: str
) -> None:
    """The next arena removes the folders and cgroups a killed one left, and kills what
    still runs in them, whether it plays or not: a resume with nothing left to play
    started no bot and left the dead arena's cgroups (and bots) as they were."""
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "linger", "linger")
    add_random(db)
    # Its own TMPDIR, so that no other test's arena removes the socket directory first
    # (short: a socket path must fit in 107 bytes).
    temp = Path(tempfile.mkdtemp(prefix="shutdown-", dir="/tmp"))
    env = {"TMPDIR": str(temp)}
    other = tmp_path / "other.db"
    add_random(other, "a", "b")
    if next_arena == "has nothing to play":
        tournament(other, "a,b", "--sandbox", "none", env=env)  # finished before the kill
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
        if next_arena == "plays":
            summary = tournament(other, "a,b", "--sandbox", "none", env=env)
            assert summary["played"] == 2
        else:
            resumed = run_arena(other, "tournament", "resume", "1", "--json", env=env)
            assert json.loads(resumed.stdout)["played"] == 0
        assert not temp_dirs_of(proc.pid, temp)
        assert not cgroups_of(proc.pid)
        if in_cgroups:  # without cgroups nothing finds them (docs/security.md)
            assert wait_for(lambda: not survivors(marker), 10), "the next arena left them"
    finally:
        for pid in survivors(marker):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.parametrize("loop_turns", range(5))
def test_a_start_that_ends_as_it_is_cancelled_is_still_handed_back(loop_turns: int) -> None:
    """A bot started just as the arena stops is the pool's to stop: when the start ended
    while its cancellation was on its way, the process was dropped (no one stopped it,
    and asyncio warned of its transport when the loop was gone)."""

    async def cancel_a_start() -> tuple[str, bool]:
        started = asyncio.Event()

        async def start() -> str:
            await started.wait()
            return "the process"

        launch = asyncio.ensure_future(awaited_to_the_end(start()))
        await asyncio.sleep(0)  # the launch waits for its start
        started.set()
        for _ in range(loop_turns):
            await asyncio.sleep(0)
        launch.cancel()
        return await launch

    result, cancelled = asyncio.run(cancel_a_start())
    assert result == "the process"
    if loop_turns == 0:  # cancelled before the start could run on: the launch saw it
        assert cancelled


@needs_bwrap
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_bot_launch_cancelled_midway_leaves_nothing_and_close_returns() -> None:
    """Stopping the arena while a bot is being started: asyncio's own clean-up killed
    only the process it had started (bwrap), then waited for that process's pipes to
    close; bwrap's init, killed before it had asked to die with its parent, lived on with
    the bot and held the pipe, and the arena hung (a SIGINT'd tournament did not end in a
    minute). Each launch here is cancelled at another moment of its start. A process the
    pool lost shows as asyncio's warning of its unclosed transport, an error here."""
    marker = f"linger-{uuid.uuid4().hex}"
    bot = Entrant("linger", ("*",), ("python", "escaper.py", "linger", marker), str(BOTS), "")

    async def cancel_a_launch(after: float) -> None:
        core = RefereeCore()
        folder = tempfile.mkdtemp(prefix="cancel-")
        address = f"unix:{folder}/referee.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1", sandbox=resolve("bwrap"))
        try:
            launch = asyncio.ensure_future(pool.acquire(bot))
            await asyncio.sleep(after)
            launch.cancel()
            await asyncio.wait_for(asyncio.gather(launch, return_exceptions=True), 30)
            await asyncio.wait_for(pool.close(), 30)
        finally:
            await server.stop(0)
            shutil.rmtree(folder, ignore_errors=True)

    for step in range(80):  # every quarter of a millisecond over the first 20
        asyncio.run(cancel_a_launch(step / 4000))
        assert wait_for(lambda: not survivors(marker), 10), f"left running at {step / 4} ms"
