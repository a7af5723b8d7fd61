"""The JavaScript sample bot (sample_bots/js/bot.js) against the real referee: real Node.js
processes speaking gRPC to a real referee, real Python bots, real SQLite files.

- A Gin Rummy tournament through the ``arena`` CLI: the JS gin strategy against the Python
  sample bots; every match finishes, the JS bot commits no fault, the replays verify.
- The random JS bot plays a short match of every registered game, in every seat.
- Many matches per connection: a tournament launches the JS bot once per concurrent slot
  and the referee seats each process in match after match, then closes the stream and the
  bot exits 0. The observable: the bot is registered behind a tiny ``sh`` wrapper that
  appends "start PID" to a log file when a process starts and "exit PID CODE" when it ends
  (the arena reports neither a bot's process count nor its exit codes).

Skipped only when ``node`` is missing or the bot's npm packages are not installed
(``scripts/bootstrap dev`` runs ``npm ci`` in sample_bots/js).
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import add_sample_bot, arena, register_bot

ROOT = Path(__file__).resolve().parents[2]
JS_DIR = ROOT / "sample_bots" / "js"
BOT_JS = JS_DIR / "bot.js"
NODE = shutil.which("node")
PY = sys.executable
ARENA = [PY, "-m", "arena.cli"]

# Rule options that make a match short, applied to the games that have them.
SHORT_RULES = {"max_hands": "2", "holes": "1", "deals": "1", "yaku_count": "1"}


def _skip_reason() -> str | None:
    if NODE is None:
        return "node is not installed (the JavaScript sample bot needs Node.js 18 or later)"
    for package in ("@grpc/grpc-js", "@grpc/proto-loader"):
        if not (JS_DIR / "node_modules" / package).is_dir():
            return (
                f"{package} is not installed in sample_bots/js/node_modules "
                "(run scripts/bootstrap dev, or npm ci in sample_bots/js)"
            )
    return None


_REASON = _skip_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def js_command(strategy: str, log: Path) -> list[str]:
    """``node bot.js --strategy S`` behind a wrapper that logs the process's start and exit."""
    quoted = shlex.quote(str(log))
    script = (
        f'echo "start $$" >> {quoted}; '
        f'{shlex.quote(str(NODE))} {shlex.quote(str(BOT_JS))} "$@"; '
        f'echo "exit $$ $?" >> {quoted}'
    )
    return ["sh", "-c", script, "js-bot", "--strategy", strategy]


def process_log(log: Path) -> tuple[set[str], dict[str, int]]:
    """(pids started, exit code per pid that ended) from a wrapper's log."""
    started: set[str] = set()
    exits: dict[str, int] = {}
    for line in log.read_text().splitlines():
        word, pid, *code = line.split()
        if word == "start":
            started.add(pid)
        else:
            exits[pid] = int(code[0])
    return started, exits


# ---- a Gin Rummy tournament through the CLI -------------------------------------------


GIN_BOTS = ("js", "gin_strategy", "random")
GIN_ROUNDS = 2
GIN_CONCURRENCY = 2


@pytest.fixture(scope="module")
def gin_tournament(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One tournament, shared by the tests below: (JS gin, Python gin, Python random) x 2."""
    tmp = tmp_path_factory.mktemp("js-gin")
    db, log = tmp / "arena.db", tmp / "js-processes.log"
    register_bot(db, "js", *js_command("gin", log), games=("gin_rummy",))
    add_sample_bot(db, "gin_strategy", "gin_strategy", "gin_rummy")
    add_sample_bot(db, "random")
    run = arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        ",".join(GIN_BOTS),
        "--rounds",
        str(GIN_ROUNDS),
        "--concurrency",
        str(GIN_CONCURRENCY),
        "--seed",
        "5",
        "--rules",
        "max_hands=5",
        "--json",
        # The wrapper logs each process to a file outside the bot's folder, which the
        # sandbox would hide; tests/security plays the JS bot inside the sandbox.
        "--sandbox",
        "none",
    )
    return {
        "db": db,
        "log": log,
        "run": json.loads(run.stdout),
        "matches": json.loads(arena(db, "matches", "list", "--json").stdout),
    }


def test_js_gin_bot_plays_a_tournament_without_faults(gin_tournament: dict[str, Any]) -> None:
    run, matches, db = gin_tournament["run"], gin_tournament["matches"], gin_tournament["db"]
    # 3 pairs x 2 seat rotations x 2 rounds, every one finished.
    assert run["played"] == 12 and not run["errors"]
    assert len(matches) == 12 and {m["reason"] for m in matches} == {"finished"}
    board = {row["entrant"]: row for row in run["leaderboard"]}
    assert board["js"]["games"] == 8
    assert board["js"]["faults"] == 0 and board["js"]["forfeits"] == 0
    with sqlite3.connect(db) as conn:
        faults = conn.execute("select kind, reason from faults where entrant = 'js'").fetchall()
    assert faults == []
    # The strategy is not random: it beats the random bot (which almost never knocks).
    against_random = [m for m in matches if set(m["entrants"]) == {"js", "random"}]
    wins = sum(m["outcome"]["ranks"][m["entrants"].index("js")] == 1 for m in against_random)
    assert len(against_random) == 4 and wins >= 3


def test_js_tournament_replays_verify(gin_tournament: dict[str, Any]) -> None:
    report = json.loads(arena(gin_tournament["db"], "replay", "verify", "--json").stdout)
    assert len(report) == 12 and all(r["ok"] for r in report), report


def test_js_bot_processes_play_a_deal_once_and_exit_0(gin_tournament: dict[str, Any]) -> None:
    started, exits = process_log(gin_tournament["log"])
    js_matches = sum("js" in m["entrants"] for m in gin_tournament["matches"])
    # A process never plays two matches on one deal (a round's): each round's 4 matches
    # of js need 4 processes, which may go on into the next round's deal.
    assert js_matches == 8 and 4 <= len(started) <= js_matches
    # When the tournament is over the referee closes the streams: every process exits 0.
    assert exits == dict.fromkeys(started, 0)


# ---- every registered game -----------------------------------------------------------


def short_matches() -> list[tuple[str, int, list[str]]]:
    """(game, fewest seats, short rules as key=value) for every game the CLI lists."""
    games = json.loads(
        subprocess.run(
            [*ARENA, "games", "--json"],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            timeout=60,
        ).stdout
    )
    plans = []
    for game in games:
        options = {o["name"] for o in game["options"]}
        rules = [f"{k}={v}" for k, v in SHORT_RULES.items() if k in options]
        plans.append((game["name"], game["seats"][0], rules))
    return plans


def test_random_js_bot_plays_every_game(tmp_path: Path) -> None:
    """Every game with the JS random bot in every seat: entered twice (js, js2; a bot never
    plays only itself), so two matches per game, one after the other."""
    plans = short_matches()
    assert "gin_rummy" in {game for game, _, _ in plans}
    db, log = tmp_path / "arena.db", tmp_path / "js-processes.log"
    for name in ("js", "js2"):
        register_bot(db, name, *js_command("random", log))
    for game, seats, rules in plans:
        run = json.loads(
            arena(
                db,
                "tournament",
                "run",
                "--game",
                game,
                "--bots",
                "js,js2",
                "--seats",
                str(seats),
                "--concurrency",
                "1",
                *[f"--rules={r}" for r in rules],
                "--json",
                "--sandbox",
                "none",
            ).stdout
        )
        assert run["played"] == 2 and not run["errors"], (game, run)
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert sorted(m["game"] for m in matches) == sorted(2 * [game for game, _, _ in plans])
    for match in matches:
        assert match["reason"] == "finished" and match["decisions"] > 0, match["game"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("select match_id, kind, reason from faults").fetchall() == []
    started, exits = process_log(log)
    # Both matches of a game play one deal: a process per seat of each (a process never
    # plays a deal twice; a one-seat game's two matches are one of each entrant's).
    assert len(started) == sum(2 * seats for _, seats, _ in plans)
    assert exits == dict.fromkeys(started, 0)
