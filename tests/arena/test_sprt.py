"""SPRT through the CLI with real bots: a strong bot against a weak one accepts H1 well
before the cap; a bot against its own copy never accepts H1 over a fixed set of seeds; a
test killed with SIGKILL resumes to the verdict, the stored matches and the ratings of
an uninterrupted one, whatever ran at once; more than two
seats play each deal twice with NEW and BASE in the same seat against the same field."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.store import Store
from tests.conftest import add_sample_bot, arena, dies_with_tests, register_bot

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def sprt(db: Path, *args: str) -> dict[str, Any]:
    out = arena(db, "tournament", "sprt", *args, "--json")
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def test_strong_bot_against_a_weak_one_accepts_h1_early(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    add_sample_bot(db, "gin", "gin_strategy", "gin_rummy")
    add_sample_bot(db, "rnd", "random_bot")
    out = sprt(
        db,
        "--game",
        "gin_rummy",
        "--bots",
        "gin,rnd",
        "--elo0",
        "0",
        "--elo1",
        "50",
        "--max-matches",
        "200",
        "--rules",
        "max_hands=1",
        "--bot-memory-mb",
        "400",
        "--bot-max-processes",
        "48",
    )
    result = out["sprt"]
    assert result["verdict"] == "H1" and result["llr"] >= result["upper_bound"]
    # the bot limits given on the command line are the tournament's, stored with it
    with sqlite3.connect(db) as conn:
        (stored,) = conn.execute("select settings from tournaments").fetchone()
    assert json.loads(stored)["bot_memory_mb"] == 400
    assert json.loads(stored)["bot_max_processes"] == 48
    # every pair won: the Elo estimate is infinite (null in JSON), its lower bound is not
    assert result["pairs"] <= 20 and result["los"] > 0.99
    assert result["elo"] is None or result["elo"] > 50
    assert len(json.loads(arena(db, "matches", "list", "--json").stdout)) < 60
    assert sum(result["pair_counts"].values()) == result["pairs"]
    text = arena(db, "tournament", "list").stdout
    assert "sprt" in text and "finished" in text
    board = arena(db, "leaderboard", "--game", "gin_rummy", "--json").stdout

    # Discarding matches leaves no row of theirs behind and marks the stored ratings stale
    # (an arena killed before rating again): the board is then rated from the matches.
    store = Store(db)
    kept = 2 * result["pairs"] - 2
    assert store.discard_matches(1, kept) == 2
    assert store.ratings("gin_rummy", store.tournament(1).rules_key, kept) is None
    with sqlite3.connect(db) as conn:
        for table in ("results", "faults", "replays"):
            orphans = f"select count(*) from {table} where match_id not in (select id from matches)"
            assert conn.execute(orphans).fetchone()[0] == 0, table
    assert arena(db, "leaderboard", "--game", "gin_rummy", "--json").stdout != board


def test_a_bot_against_its_own_copy_never_accepts_h1(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    add_sample_bot(db, "one", "random_bot")
    add_sample_bot(db, "two", "random_bot")
    for seed in ("1", "2"):
        out = sprt(
            db,
            "--game",
            "golf",
            "--bots",
            "one,two",
            "--elo0",
            "0",
            "--elo1",
            "30",
            "--max-matches",
            "40",
            "--rules",
            "holes=1",
            "--seed",
            seed,
        )
        assert out["sprt"]["verdict"] in ("H0", "inconclusive"), out["sprt"]


def test_more_seats_play_new_and_base_in_the_same_seat_against_the_field(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    for name in ("new", "base", "f1", "f2"):
        add_sample_bot(db, name, "random_bot")
    out = sprt(
        db,
        "--game",
        "golf",
        "--seats",
        "3",
        "--rules",
        "holes=1",
        "--bots",
        "new,base",
        "--field",
        "f1,f2",
        "--max-matches",
        "6",
        "--elo1",
        "400",
    )
    # At most three trinomial pairs (1, 1/2 or 0 each): too few for H1 at elo1 = 400 (three
    # won pairs give an LLR of about 2.1 < 2.94); two lost pairs already give H0.
    result = out["sprt"]
    assert result["verdict"] in ("H0", "inconclusive")
    assert result["pairs"] == 3 if result["verdict"] == "inconclusive" else result["pairs"] >= 2
    assert sum(result["pair_counts"].values()) == result["pairs"]
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    pairs: dict[int, list[dict[str, Any]]] = {}
    for m in matches:
        pairs.setdefault(m["idx"] // 2, []).append(m)
    # exactly the pairs the verdict counted are kept, each whole
    assert sorted(pairs) == list(range(result["pairs"]))
    for first, second in pairs.values():
        assert first["seed"] == second["seed"]
        seat = first["entrants"].index("new")
        assert second["entrants"][seat] == "base"
        assert [n for n in first["entrants"] if n != "new"] == [
            n for n in second["entrants"] if n != "base"
        ]


CRASH_MID_MATCH = """
import os
from sample_bots.random_bot import choose as random_choice
from referee.client import run_bot

moves = 0

def choose(observation, legal):
    global moves
    moves += 1
    if moves > 40:  # some holes in
        os._exit(3)
    return random_choice(observation, legal)

run_bot(choose, name="crasher")
"""


def test_a_pair_a_field_bot_stopped_is_a_draw(tmp_path: Path) -> None:
    """A field bot that crashes mid-match stops every match with NEW and BASE ranked by
    where they stood: no result for either, so every pair is a draw, however much stronger
    NEW is (its ranks when stopped made it win the pair)."""
    db = tmp_path / "a.db"
    add_sample_bot(db, "new", "golf_strategy", "golf")
    add_sample_bot(db, "base", "random_bot")
    add_sample_bot(db, "field", "random_bot")
    register_bot(db, "crasher", PY, "-c", CRASH_MID_MATCH)
    args = ["--game", "golf", "--seats", "3", "--rules", "holes=9", "--bots", "new,base"]
    out = sprt(db, *args, "--field", "crasher,field", "--max-matches", "8", "--elo1", "400")
    result = out["sprt"]
    assert result["pair_counts"] == {"0.5": result["pairs"]}, result
    with sqlite3.connect(db) as conn:
        stopped = conn.execute(
            "select count(*) from results where entrant = 'crasher' and forfeited = 1"
        ).fetchone()[0]
    assert stopped == 2 * result["pairs"] > 0


def _stored(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("select count(*) from matches").fetchone()[0])


def _kept(db: Path) -> tuple[list[Any], list[Any]]:
    """The stored matches (index, deal, lineup, outcome) and ratings of a database."""
    with sqlite3.connect(db) as conn:
        matches = conn.execute(
            "select idx, seed, entrants, outcome from matches order by idx"
        ).fetchall()
        ratings = conn.execute(
            "select entrant, mu, sigma, games from ratings order by entrant"
        ).fetchall()
    return matches, ratings


STRONG_AGAINST_WEAK = [
    "--game",
    "golf",
    "--bots",
    "strong,weak",
    "--elo0",
    "0",
    "--elo1",
    "40",
    "--max-matches",
    "120",
    "--rules",
    "holes=1",
    "--seed",
    "5",
]  # golf_strategy against random_bot, one-hole matches


def test_killed_sprt_resumes_to_the_same_verdict(tmp_path: Path) -> None:
    whole, killed = tmp_path / "whole.db", tmp_path / "killed.db"
    args = ["tournament", "sprt", *STRONG_AGAINST_WEAK]
    for db in (whole, killed):
        add_sample_bot(db, "strong", "golf_strategy", "golf")
        add_sample_bot(db, "weak", "random_bot")
    expected = json.loads(arena(whole, *args, "--concurrency", "2", "--json").stdout)["sprt"]
    assert expected["verdict"] == "H1"

    run_killed = [PY, "-m", "arena.cli", *args, "--concurrency", "1", "--db", str(killed)]
    proc = subprocess.Popen(
        [*dies_with_tests(), *run_killed],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            if _stored(killed) >= 3:
                break
        except sqlite3.OperationalError:
            continue
    if proc.poll() is not None:
        pytest.fail("the SPRT finished before it could be killed")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < _stored(killed) < 2 * expected["pairs"]
    resumed = json.loads(arena(killed, "tournament", "resume", "1", "--json").stdout)["sprt"]
    for key in ("verdict", "pairs", "llr", "pair_counts", "elo"):
        assert resumed[key] == expected[key], key
    # Two at once played matches beyond the deciding pair; those are not kept, so the
    # stored test is the one-at-a-time run's, and so are the ratings made from it.
    assert _stored(whole) == 2 * expected["pairs"]
    assert _kept(killed) == _kept(whole)


def test_sprt_on_dask_workers_reaches_the_in_process_verdict(tmp_path: Path) -> None:
    """Two local workers play the pairs out of order; the verdict is read over the pairs in
    schedule order, and the matches still out at the verdict are cancelled."""
    pytest.importorskip("distributed", reason="needs card-arena[dask]")
    here, spread = tmp_path / "here.db", tmp_path / "spread.db"
    for db in (here, spread):
        add_sample_bot(db, "strong", "golf_strategy", "golf")
        add_sample_bot(db, "weak", "random_bot")
    expected = sprt(here, *STRONG_AGAINST_WEAK, "--concurrency", "1")["sprt"]
    run = sprt(spread, *STRONG_AGAINST_WEAK, "--workers", "2", "--matches-per-worker", "1")
    on_workers = run["sprt"]
    assert expected["verdict"] == "H1"
    for key in ("verdict", "pairs", "llr", "pair_counts", "elo"):
        assert on_workers[key] == expected[key], key
    assert _stored(spread) == 2 * expected["pairs"]  # none beyond the verdict is kept
    assert run["played"] - run["discarded"] == _stored(spread)
    # Two workers playing one match each keep four in flight, in schedule order: all sent
    # at once, the pairs' second halves queued behind every first (71 of 120 played).
    assert run["discarded"] <= 8, run
    assert _kept(spread) == _kept(here)
