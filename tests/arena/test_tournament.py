"""Tournaments end to end through the CLI: real bot processes, a real referee, real
SQLite files; a tournament killed with SIGKILL resumes without replaying finished
matches and ends with exactly the ratings of an uninterrupted run."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from tests.conftest import (
    arena,
    as_in_a_terminal,
    dies_with_tests,
    file_size_limit,
    register_bot,
)

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena.cli"]
BOT = [sys.executable, "-m", "sample_bots.random_bot"]


def register(db: Path, names: list[str]) -> None:
    for name in names:
        register_bot(db, name, *BOT, games=("gin_rummy",))


def results(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "select m.idx, r.seat, r.entrant, r.score, r.rank from results r join matches m on m.id = r.match_id "
            "order by m.idx, r.seat"
        ).fetchall()


def ratings(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "select entrant, mu, sigma, games from ratings order by entrant"
        ).fetchall()


RUN = [
    "tournament",
    "run",
    "--game",
    "gin_rummy",
    "--bots",
    "a,b,c",
    "--rounds",
    "2",
    "--seed",
    "11",
    "--rules",
    "max_hands=3",
]


def test_bots_add_list_and_bad_input(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    register(db, ["a"])
    listed = json.loads(arena(db, "bots", "list", "--json").stdout)
    assert [b["name"] for b in listed] == ["a"] and listed[0]["command"] == BOT
    again = arena(db, "bots", "add", "a", "--game", "gin_rummy", "--", *BOT, check=False)
    assert again.returncode == 2 and "exists already" in again.stderr
    bad_game = arena(db, "bots", "add", "z", "--game", "chess", "--", *BOT, check=False)
    assert bad_game.returncode == 2 and "unknown game 'chess'" in bad_game.stderr
    bad_rule = arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        "a",
        "--rules",
        "knock=3",
        check=False,
    )
    assert bad_rule.returncode == 2 and "unknown rule option knock" in bad_rule.stderr
    unknown_bot = arena(
        db, "tournament", "run", "--game", "gin_rummy", "--bots", "a,zz", check=False
    )
    assert unknown_bot.returncode == 2 and "no bot named 'zz'" in unknown_bot.stderr


def test_tournament_stores_every_match_and_replays_verify(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    register(db, ["a", "b", "c"])
    out = json.loads(arena(db, *RUN, "--concurrency", "3", "--json").stdout)
    assert out["played"] == 12 and not out["errors"]
    assert sorted(r["entrant"] for r in out["leaderboard"]) == ["a", "b", "c"]
    assert all(r["games"] == 8 for r in out["leaderboard"])
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert len(matches) == 12 and {m["reason"] for m in matches} == {"finished"}
    verify = arena(db, "replay", "verify", "--json")
    assert all(r["ok"] for r in json.loads(verify.stdout))
    exported = tmp_path / "one.jsonl"
    arena(db, "replay", "export", matches[0]["id"], "-o", str(exported))
    assert json.loads(exported.read_text().splitlines()[0])["type"] == "header"
    board = json.loads(arena(db, "leaderboard", "--game", "gin_rummy", "--json").stdout)
    assert board["rules"] == "max_hands=3" and len(board["leaderboard"]) == 3


def test_killed_tournament_resumes_to_the_same_results_and_ratings(tmp_path: Path) -> None:
    whole, killed = tmp_path / "whole.db", tmp_path / "killed.db"
    for db in (whole, killed):
        register(db, ["a", "b", "c"])
    arena(whole, *RUN, "--concurrency", "2")

    proc = subprocess.Popen(
        [*dies_with_tests(), *ARENA, *RUN, "--concurrency", "1", "--db", str(killed)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        try:
            stored = len(results(killed)) // 2
        except sqlite3.OperationalError:
            continue
        if stored >= 3:
            break
    if proc.poll() is not None:
        pytest.fail("the tournament finished before it could be killed")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = results(killed)
    assert 0 < len(before) // 2 < 12
    status = json.loads(arena(killed, "tournament", "list", "--json").stdout)[0]
    # stored as running, but no live arena plays it: interrupted, to resume
    assert status["status"] == "interrupted" and status["matches_done"] == len(before) // 2
    assert "secret" not in status
    # No run rated the stored matches: the all-time leaderboard rates them itself, as the
    # tournament's own does, where it showed every entrant unrated (mu 25, sigma 8.33).
    all_time = json.loads(arena(killed, "leaderboard", "--game", "gin_rummy", "--json").stdout)
    own = json.loads(arena(killed, "leaderboard", "--tournament", "1", "--json").stdout)
    assert [(r["entrant"], r["mu"], r["sigma"]) for r in all_time["leaderboard"]] == [
        (r["entrant"], r["mu"], r["sigma"]) for r in own["leaderboard"]
    ]
    assert all(r["sigma"] < 8.3 for r in all_time["leaderboard"])

    out = json.loads(arena(killed, "tournament", "resume", "1", "--json").stdout)
    assert out["played"] == 12 - len(before) // 2
    after = results(killed)
    assert after[: len(before)] == before  # finished matches were not played again
    assert after == results(whole)
    assert ratings(killed) == ratings(whole)
    resumed = json.loads(arena(killed, "leaderboard", "--game", "gin_rummy", "--json").stdout)
    assert [(r["mu"], r["sigma"]) for r in resumed["leaderboard"]] == [
        (mu, sigma)
        for _, mu, sigma, _ in sorted(ratings(whole), key=lambda r: r[1] - 3 * r[2], reverse=True)
    ]
    assert (
        json.loads(arena(killed, "tournament", "list", "--json").stdout)[0]["status"] == "finished"
    )


def _arena_started(db: Path, *args: str) -> subprocess.Popen[str]:
    """`arena ARGS --db DB` in a process of its own, its stderr piped, its stop signals
    as in a terminal."""
    return subprocess.Popen(
        [*dies_with_tests(), *ARENA, *args, "--db", str(db)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_in_a_terminal,
    )


def _running_with_a_result(db: Path) -> subprocess.Popen[str]:
    """RUN on ``db`` in a process of its own (stderr piped), once it has stored a match
    and while it still plays."""
    proc = _arena_started(db, *RUN, "--concurrency", "1")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        with contextlib.suppress(sqlite3.OperationalError):
            if results(db):
                break
    assert proc.poll() is None, "the tournament finished before its first match was seen"
    return proc


def test_a_tournament_is_played_by_one_arena_at_a_time(tmp_path: Path) -> None:
    """A resume while another arena plays the tournament played the same matches; the
    second to store one crashed and marked the tournament interrupted under the first.
    Now it is refused, the first plays on to the end, and each match is stored once."""
    db = tmp_path / "arena.db"
    register(db, ["a", "b", "c"])
    proc = _running_with_a_result(db)
    second = arena(db, "tournament", "resume", "1", check=False)
    listed = json.loads(arena(db, "tournament", "list", "--json").stdout)[0]
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert second.returncode == 2
    # one line, the error: no empty progress bar drawn before it
    [line] = second.stderr.strip().splitlines()
    assert line.startswith("error: ") and "being played by another arena process" in line
    assert listed["status"] == "running"
    final = json.loads(arena(db, "tournament", "list", "--json").stdout)[0]
    assert final["status"] == "finished" and final["matches_done"] == 12
    assert len(results(db)) == 24  # 12 matches of 2 seats, each once


@pytest.mark.parametrize("change", ["moved in", "removed"])
def test_a_database_replaced_or_removed_mid_run_stops_the_tournament(
    tmp_path: Path, change: str
) -> None:
    """Another arena's database moved into the file's place, or the file removed, while
    a tournament ran: it went on to 'finished', exit 0, storing its matches in a file
    nobody could open again, and its write-ahead log, left at the path, was replayed
    into the other arena's database by the next command that opened it."""
    db, other = tmp_path / "arena.db", tmp_path / "other.db"
    register(db, ["a", "b", "c"])
    register(other, ["x"])
    proc = _running_with_a_result(db)
    if change == "moved in":
        shutil.copy(other, tmp_path / "moving.db")
        os.replace(tmp_path / "moving.db", db)
    else:
        db.unlink()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, err
    assert "was removed or replaced while this command used it" in err, err
    assert "Traceback" not in err
    if change == "moved in":
        with sqlite3.connect(db) as conn:  # the other arena's data, untouched by the run
            assert conn.execute("select name from entrants").fetchall() == [("x",)]
            assert conn.execute("select count(*) from tournaments").fetchone() == (0,)


def test_a_database_that_cannot_grow_stops_the_run_and_resume_finishes_it(
    tmp_path: Path,
) -> None:
    whole, full = tmp_path / "whole.db", tmp_path / "full.db"
    for db in (whole, full):
        register(db, ["a", "b", "c"])
    arena(whole, *RUN, "--concurrency", "1")
    command = [*ARENA, *RUN, "--concurrency", "1", "--sandbox", "none", "--db", str(full)]
    done = subprocess.run(
        [*dies_with_tests(), *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: file_size_limit(256 * 1024),
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "tournament 1 stopped (free space or mend the file, then resume it:" in done.stderr
    stored = len(results(full)) // 2
    assert 0 < stored < 12, stored
    with sqlite3.connect(full) as conn:
        assert conn.execute("pragma integrity_check").fetchone() == ("ok",)
    arena(full, "tournament", "resume", "1")
    assert results(full) == results(whole)
    assert ratings(full) == ratings(whole)


# A bot that stays on after its stream ends, until the arena stops it after its grace:
# the arena is closing for that long once the last match is stored.
LINGERING_BOT = [
    sys.executable,
    "-c",
    "import runpy, time; runpy.run_module('sample_bots.random_bot', run_name='__main__'); "
    "time.sleep(60)",
]


STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _closing(db: Path) -> subprocess.Popen[str]:
    """A two-bot gin tournament on ``db`` in its own process, once its last match is
    stored and while it closes its bots, which linger after their streams end."""
    for name in ("a", "b"):
        register_bot(db, name, *LINGERING_BOT, games=("gin_rummy",))
    run = ["tournament", "run", "--game", "gin_rummy", "--bots", "a,b", "--rounds", "1"]
    proc = _arena_started(db, *run, "--rules", "max_hands=1")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        with contextlib.suppress(sqlite3.OperationalError):
            with sqlite3.connect(db) as conn:
                (stored, total) = conn.execute(
                    "select count(*), max(t.total_matches) from matches m "
                    "join tournaments t on t.id = m.tournament_id"
                ).fetchone()
            if stored and stored == total:
                break
    assert proc.poll() is None, "the arena closed before it could be stopped"
    return proc


@pytest.mark.parametrize("signum", STOPS, ids=[s.name for s in STOPS])
def test_a_run_stopped_as_it_closes_says_how_to_resume_and_nothing_more(
    tmp_path: Path, signum: int
) -> None:
    """Ctrl-C or SIGTERM after the last match was stored, while the arena stopped its bots
    and its referee, cut that closing short: "Event loop is closed" tracebacks from the
    bots' pipes and the gRPC server (8 of 8 tries in an audit)."""
    db = tmp_path / "arena.db"
    proc = _closing(db)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    lines = [line for line in stderr.splitlines() if "━" not in line and line.strip()]
    assert lines[-1].startswith("interrupted: resume with "), stderr
    assert lines[-1].endswith(f" tournament resume 1 --db {db}"), stderr
    assert not [line for line in lines if "resume" not in line and "note:" not in line], stderr
    out = json.loads(arena(db, "tournament", "resume", "1", "--json").stdout)
    assert out["played"] == 0 and out["status"] == "finished"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_second_stop_kills_at_once_and_the_next_arena_finishes_the_run(
    tmp_path: Path, signum: int
) -> None:
    """A second Ctrl-C while the arena closed its bots raised inside that closing: a wall
    of "Event loop is closed" tracebacks. It now kills the arena at once, as SIGKILL
    would, and the next arena removes what it left and resumes the tournament."""
    db = tmp_path / "arena.db"
    proc = _closing(db)
    proc.send_signal(signum)
    time.sleep(0.5)  # closing: its bots linger for their grace
    assert proc.poll() is None, "the arena closed before the second stop"
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == -signum, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    out = json.loads(arena(db, "tournament", "resume", "1", "--json").stdout)
    assert out["played"] == 0 and out["status"] == "finished"


def _in_a_terminal_of_its_own() -> None:
    """A new session whose controlling terminal is the pty on stdin."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    as_in_a_terminal()


def _ignoring_hangups() -> None:
    """As `nohup` or `trap '' HUP` leave it, in a terminal of its own."""
    _in_a_terminal_of_its_own()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def _terminal_gone_after_a_match(
    db: Path, preexec: Callable[[], None], stderr: IO[str] | None = None
) -> subprocess.Popen[bytes]:
    """RUN on ``db`` in a pty (stderr there too, unless given), whose terminal is closed
    once a match is stored: the kernel sends SIGHUP to the session."""
    terminal, its_end = pty.openpty()
    proc = subprocess.Popen(
        [*ARENA, *RUN, "--concurrency", "1", "--db", str(db)],
        cwd=ROOT,
        stdin=its_end,
        stdout=its_end,
        stderr=stderr or its_end,
        preexec_fn=preexec,
    )
    os.close(its_end)
    deadline = time.monotonic() + 120
    while proc.poll() is None and not results(db):  # read as drawn: its buffer never fills
        assert time.monotonic() < deadline, "no match was played"
        if select.select([terminal], [], [], 0.05)[0]:
            with contextlib.suppress(OSError):
                os.read(terminal, 65536)
    assert proc.poll() is None, "the tournament finished before the hangup"
    os.close(terminal)
    return proc


def test_a_run_whose_terminal_hangs_up_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    """A real hangup (the terminal window closed, an ssh session dropped): the arena got
    SIGHUP and stopped, but its last words (the progress bar, the resume line) went to a
    terminal that was gone, failed with EIO, and the run ended with exit 1. It now exits
    130 as for any stop, its tournament interrupted and resumable."""
    db = tmp_path / "arena.db"
    register(db, ["a", "b", "c"])
    proc = _terminal_gone_after_a_match(db, _in_a_terminal_of_its_own)
    assert proc.wait(60) == 130
    [listed] = json.loads(arena(db, "tournament", "list", "--json").stdout)
    assert listed["status"] == "interrupted"
    assert json.loads(arena(db, "tournament", "resume", "1", "--json").stdout)["status"] == (
        "finished"
    )


def test_a_run_ignoring_hangups_plays_on_and_says_its_terminal_is_gone(tmp_path: Path) -> None:
    """Under `nohup` or `trap '' HUP` the run plays on when its terminal goes, as it
    should; then its result, printed to the terminal that was gone, failed with EIO and a
    traceback (exit 1). It now ends as for any output it cannot write: one line (here
    on a stderr kept in a file), exit 2, the tournament finished."""
    db = tmp_path / "arena.db"
    register(db, ["a", "b", "c"])
    with (tmp_path / "stderr").open("w+") as stderr:
        proc = _terminal_gone_after_a_match(db, _ignoring_hangups, stderr)
        assert proc.wait(120) == 2
        stderr.seek(0)
        said = stderr.read()
    assert "error: cannot write the output: Input/output error" in said
    assert "Traceback" not in said, said
    [listed] = json.loads(arena(db, "tournament", "list", "--json").stdout)
    assert listed["status"] == "finished"
