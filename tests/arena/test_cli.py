"""The CLI says what happened: every --rules value is applied and stray words are errors;
tournaments that play nothing or stop incomplete exit non-zero with the reason; a bot that
forfeited everything is named at the top; read-only commands refuse a missing database;
bad names are refused; tournament files with flags over them; the export's rows match the
stored matches; the demo shows its own tournament with hints that work as printed. Real
processes and real SQLite files throughout."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shlex
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import arena, as_in_a_terminal

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
BOT = [PY, "-m", "sample_bots.random_bot"]


def register(db: Path, *names: str, command: list[str] = BOT) -> None:
    for name in names:
        arena(db, "bots", "add", name, "--game", "*", "--", *command)


def stored_rules(db: Path, tournament: int = 1) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        row = conn.execute("select rules from tournaments where id = ?", [tournament]).fetchone()
    rules: dict[str, object] = json.loads(row[0])
    return rules


def test_no_help_shows_a_value_for_a_flag() -> None:
    """Typer 0.29 showed every on/off flag as taking a value (`--json <bool>`, even
    `--help <bool>`), and `--json true` is an error: a new user typed it."""
    from typer.main import get_command
    from typer.testing import CliRunner

    from arena.cli import app

    def paths(command: Any, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        found = [path]
        for name, sub in getattr(command, "commands", {}).items():  # a group's
            found += paths(sub, (*path, name))
        return found

    every = paths(get_command(app), ())
    assert len(every) > 30
    runner = CliRunner()
    for path in every:
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert shown.exit_code == 0, (path, shown.output)
        assert "<bool>" not in shown.output, (path, shown.output)


def test_every_rules_value_is_applied_and_stray_words_are_errors(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "a", "b")
    run = ["tournament", "run", "--game", "gin_rummy", "--bots", "a,b", "--json"]
    arena(db, *run, "--rules", "max_hands=1", "knock_limit=7")
    rules = stored_rules(db)
    assert rules["max_hands"] == 1 and rules["knock_limit"] == 7
    db2 = tmp_path / "b.db"
    register(db2, "a", "b", "c")
    arena(
        db2,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        "a,b,c",
        "--rules",
        "players=3",
        "preset=pagat_classic",
        "max_hands=1",
        "--json",
    )
    three = stored_rules(db2)
    assert three["players"] == 3 and three["max_hands"] == 1
    assert three["gin_bonus"] != stored_rules(db)["gin_bonus"]  # the preset was applied
    stray = arena(db, *run, "--rules", "max_hands=1", "oops", check=False)
    assert stray.returncode == 2 and "unexpected argument(s) oops" in stray.stderr
    bare = arena(db, *run, "max_hands=1", check=False)
    assert bare.returncode == 2 and "give rule options after --rules" in bare.stderr
    assert len(json.loads(arena(db, "tournament", "list", "--json").stdout)) == 1


def test_one_bot_does_not_play_itself(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "a")
    out = arena(db, "tournament", "run", "--game", "gin_rummy", "--bots", "a", check=False)
    assert out.returncode == 2 and "would only play itself" in out.stderr


READ_ONLY_COMMANDS = (
    ["bots", "list"],
    ["matches", "list"],
    ["matches", "export"],
    ["leaderboard", "--game", "gin_rummy"],
    ["tournament", "list"],
    ["replay", "verify"],
    ["replay", "show", "t1-00000"],
)


def test_read_only_commands_refuse_a_missing_database(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    for args in READ_ONLY_COMMANDS:
        out = arena(missing, *args, check=False)
        assert out.returncode == 2 and f"no database at {missing}" in out.stderr, args
    assert not missing.exists()


def test_read_only_commands_leave_an_empty_file_empty(tmp_path: Path) -> None:
    """SQLite takes an empty file as an empty database: `tournament list` made it one."""
    empty = tmp_path / "empty.db"
    empty.touch()
    for args in READ_ONLY_COMMANDS:
        out = arena(empty, *args, check=False)
        assert out.returncode == 2, args
        assert f"{empty} is an empty file, not an arena database yet" in out.stderr, args
    assert empty.stat().st_size == 0


def test_bad_names_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "a", "b")
    arena(db, "tournament", "run", "--game", "golf", "--bots", "a,b", "--rules", "holes=1")
    nosuch = arena(db, "replay", "verify", "nosuch", check=False)
    assert nosuch.returncode == 2 and "'nosuch'" in nosuch.stderr and "ok" not in nosuch.stdout
    for args, words in (
        (["--game", "chess"], "unknown game 'chess'"),
        (["--bot", "zz"], "no bot named 'zz'"),
        (["--tournament", "9"], "no tournament 9"),
    ):
        out = arena(db, "matches", "list", *args, check=False)
        assert out.returncode == 2 and words in out.stderr
    missing = arena(db, "bots", "add", "m", "--game", "*", "--", "/no/such/program", check=False)
    assert (
        missing.returncode == 2 and "cannot find the command '/no/such/program'" in missing.stderr
    )
    unknown = arena(db, "bots", "add", "m", "--game", "*", "--", "no-such-program-x", check=False)
    assert unknown.returncode == 2 and "cannot find the command" in unknown.stderr
    nodir = arena(
        db,
        "bots",
        "add",
        "m",
        "--game",
        "*",
        "--cwd",
        str(tmp_path / "nodir"),
        "--",
        *BOT,
        check=False,
    )
    assert nodir.returncode == 2 and "no such directory" in nodir.stderr
    names = [b["name"] for b in json.loads(arena(db, "bots", "list", "--json").stdout)]
    assert names == ["a", "b"]


def test_a_bot_that_cannot_start_fails_the_tournament_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    script = tmp_path / "gone.sh"
    script.write_text("#!/bin/sh\nexec python3 -m sample_bots.random_bot\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    register(db, "a")
    register(db, "gone", command=[str(script)])
    script.unlink()  # removed after registration: the process cannot be launched
    run = ["tournament", "run", "--game", "golf", "--bots", "a,gone", "--rules", "holes=1"]
    out = arena(db, *run, check=False)
    assert out.returncode == 1
    assert "no match was played" in out.stderr and "gone" in out.stderr
    check = arena(db, "bots", "check", "gone", "--game", "golf", check=False)
    assert check.returncode == 1 and "cannot start bot" in check.stdout


def test_a_bot_that_forfeits_everything_is_named_first(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "a")
    register(db, "dead", command=[PY, "-c", "import sys; sys.exit(3)"])
    out = arena(db, "tournament", "run", "--game", "golf", "--bots", "a,dead", "--rules", "holes=1")
    first = out.stdout.splitlines()[0]
    assert first == "warning: dead forfeited every one of its 2 matches"
    data = json.loads(
        arena(db, "tournament", "run", "--game", "golf", "--bots", "a,dead", "--json").stdout
    )
    assert data["warnings"] == ["dead forfeited every one of its 2 matches"]


@pytest.mark.parametrize("fmt", ["round robin", "sprt"])
def test_a_tournament_in_which_no_bot_ever_moved_is_a_failure(tmp_path: Path, fmt: str) -> None:
    """Two bots that both crash when first asked: each match is won by whoever was not
    asked first. That ran as a finished tournament, exit 0, ratings, and for an SPRT a
    verdict, with no warning (neither bot forfeited every match)."""
    db = tmp_path / "a.db"
    for name in ("dead", "dead2"):
        register(db, name, command=[PY, "-c", "import sys; sys.exit(3)"])
    if fmt == "sprt":
        run = ["tournament", "sprt", "--game", "gin_rummy", "--bots", "dead,dead2",
               "--elo0", "0", "--elo1", "100", "--max-matches", "20"]  # fmt: skip
    else:
        run = ["tournament", "run", "--game", "gin_rummy", "--bots", "dead,dead2"]
    out = arena(db, *run, "--json", check=False)
    assert out.returncode == 1, out.stderr
    summary = json.loads(out.stdout)
    kept = summary["played"] - summary["discarded"]  # an SPRT keeps none beyond its verdict
    assert kept >= 2
    problem = f"no bot made a move in any of the {kept} matches"
    assert problem in json.loads(out.stdout)["problem"]
    assert f"error: {problem}" in out.stderr and "replay show t" in out.stderr


def test_a_leaderboard_of_rules_never_played_names_those_played(tmp_path: Path) -> None:
    """It printed an empty table and exit 0, where a game never played is an error."""
    db = tmp_path / "a.db"
    register(db, "a", "b")
    arena(db, "tournament", "run", "--game", "golf", "--bots", "a,b", "--rules", "holes=1")
    out = arena(db, "leaderboard", "--game", "golf", "--rules", "holes=2", check=False)
    assert out.returncode == 2, out.stdout
    assert "no golf matches with rules holes=2" in out.stderr
    assert "rule sets played: holes=1" in out.stderr
    board = json.loads(
        arena(db, "leaderboard", "--game", "golf", "--rules", "holes=1", "--json").stdout
    )
    assert sorted(r["entrant"] for r in board["leaderboard"]) == ["a", "b"]


def test_tournament_file_with_flags_over_it(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "a", "b", "c")
    file = tmp_path / "cup.toml"
    file.write_text(
        'game = "golf"\nbots = ["a", "b"]\nrounds = 2\nseed = 77\nmove_seconds = 4.0\n'
        'fault_policy = "default"\nmax_strikes = 2\n[rules]\nholes = 1\n'
    )
    out = json.loads(arena(db, "tournament", "run", str(file), "--bots", "a,b,c", "--json").stdout)
    assert out["status"] == "finished" and len(out["leaderboard"]) == 3
    record = json.loads(arena(db, "tournament", "list", "--json").stdout)[0]
    settings = record["settings"]
    assert record["bots"] == ["a", "b", "c"] and record["rounds"] == 2 and record["seed"] == 77
    assert settings["move_seconds"] == 4.0 and settings["fault_policy"] == "default"
    assert settings["max_strikes"] == 2 and settings["rules"] == {"holes": "1"}
    assert stored_rules(db)["holes"] == 1
    shown = arena(db, "tournament", "show", "1").stdout  # the settings, without --json too
    for setting, value in [("rounds", "2"), ("seed", "77"), ("move_seconds", "4.0"),
                           ("max_strikes", "2"), ("rules", '{"holes": "1"}')]:  # fmt: skip
        assert re.search(rf"│ {setting} +│ {re.escape(value)} +│", shown), (setting, shown)
    arena(db, "tournament", "run", str(file), "--rounds", "1", "--rules", "holes=2", "--json")
    second = json.loads(arena(db, "tournament", "list", "--json").stdout)[1]
    assert second["rounds"] == 1 and stored_rules(db, 2)["holes"] == 2 and second["seed"] == 77
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "golf"\nbots = ["a", "b"]\nmove_secs = 3\n')
    out2 = arena(db, "tournament", "run", str(bad), check=False)
    assert out2.returncode == 2 and "unknown setting(s) move_secs" in out2.stderr


def test_gauntlet_and_pairs(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "x", "a", "b")
    out = json.loads(
        arena(
            db,
            "tournament",
            "run",
            "--game",
            "golf",
            "--format",
            "gauntlet",
            "--challengers",
            "x",
            "--bots",
            "a,b",
            "--rules",
            "holes=1",
            "--json",
        ).stdout
    )
    assert out["format"] == "gauntlet" and out["played"] == 4
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert all("x" in m["entrants"] for m in matches)
    board = json.loads(arena(db, "leaderboard", "--tournament", "1", "--pairs", "--json").stdout)
    pairs = {(p["a"], p["b"]): p for p in board["pairs"]}
    assert set(pairs) == {("a", "x"), ("x", "a"), ("b", "x"), ("x", "b")}
    for p in board["pairs"]:
        assert p["games"] == 2 and p["wins"] + p["draws"] + p["losses"] == 2
    text = arena(db, "leaderboard", "--tournament", "1", "--pairs").stdout
    assert "head to head" in text and "LOS" in text
    arena(db, "report", "1", "-o", str(tmp_path / "report"))
    page = (tmp_path / "report" / "index.html").read_text()
    assert "<h2>Head to head</h2>" in page and "LOS" in page


def test_export_rows_are_the_stored_matches(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    register(db, "a", "b", "c")
    arena(db, "tournament", "run", "--game", "golf", "--bots", "a,b,c", "--rules", "holes=1")
    rows = list(csv.DictReader(io.StringIO(arena(db, "matches", "export").stdout)))
    lines = arena(db, "matches", "export", "--format", "jsonl").stdout.splitlines()
    jsonl = [json.loads(line) for line in lines]
    with sqlite3.connect(db) as conn:
        stored = conn.execute(
            "select m.id, m.seed, r.seat, r.entrant, r.score, r.rank, r.faults "
            "from results r join matches m on m.id = r.match_id order by m.idx, r.seat"
        ).fetchall()
    assert len(rows) == len(jsonl) == len(stored) == 12
    for row, line, (mid, seed, seat, entrant, score, rank, faults) in zip(
        rows, jsonl, stored, strict=True
    ):
        assert (line["match"], line["seed"], line["seat"], line["bot"]) == (
            mid,
            seed,
            seat,
            entrant,
        )
        assert (line["score"], line["rank"], line["faults"]) == (score, rank, faults)
        assert line["game_version"] >= 1 and line["tournament"] == 1
        assert (row["match"], int(row["seed"]), row["bot"], float(row["score"])) == (
            mid,
            seed,
            entrant,
            score,
        )
    only = arena(db, "matches", "export", "--bot", "a", "--format", "jsonl").stdout
    assert len(only.splitlines()) == 2 * 2 * 2  # a's four matches, two seats each


def test_demo_shows_its_own_tournament_and_hints_that_work(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    env = {k: v for k, v in os.environ.items() if k != "ARENA_DB"}
    env["PATH"] = "/usr/bin:/bin"  # `arena` is not on PATH, as for a new user
    wrapper = ROOT / ".venv" / "bin" / "arena"
    outputs = []
    for _ in range(2):
        done = subprocess.run(
            [
                str(wrapper),
                "demo",
                "--rounds",
                "1",
                "--db",
                str(db),
                "--replays",
                str(tmp_path / "r"),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert "tournament 2 · gin_rummy" in outputs[1] and "tournament 1" not in outputs[1]
    assert "games" in outputs[1] and "│ 2     │" in outputs[1]  # one round: two matches each
    hints = [
        line.split(": ", 1)[1]
        for line in outputs[1].splitlines()
        if line.startswith(("watch one:", "check them:"))
    ]
    assert hints and all(
        h.startswith(".venv/bin/arena ") or h.startswith("scripts/arena ") for h in hints
    )
    for hint in hints:
        words = shlex.split(hint)
        if words[1:3] == ["replay", "show"]:
            words.append("--no-step")
        done = subprocess.run(words, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
        assert done.returncode == 0, (hint, done.stderr)
    verify = subprocess.run(
        shlex.split(hints[1]), capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert "2 of 2 replays verified" in verify.stdout


SLOW_ONCE = """
import sys, time
sys.path.insert(0, {root!r})
from referee.client import run_bot
calls = []
def choose(observation, legal):
    calls.append(1)
    if len(calls) == 1:
        time.sleep(3)  # past the deadline: the SDK answers legal[0] for the bot
    return legal[-1]
run_bot(choose, name="slow-once")
"""


def test_bots_check_reports_answers_the_sdk_made_up(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    script = tmp_path / "slow_once.py"
    script.write_text(SLOW_ONCE.format(root=str(ROOT)))
    arena(
        db, "bots", "add", "slow", "--game", "golf", "--cwd", str(tmp_path), "--", PY, str(script)
    )
    out = arena(db, "bots", "check", "slow", "--move-seconds", "1", "--json", check=False)
    assert out.returncode == 1
    (report,) = json.loads(out.stdout)
    assert not report["ok"]
    assert any(
        "let the SDK answer for it" in p and "missed its deadline" in p for p in report["problems"]
    )
    assert not any("did not answer in time" in p for p in report["problems"])  # no referee fault


def test_json_output_has_no_infinity(capsys: pytest.CaptureFixture[str]) -> None:
    """A bot with one scored match has an infinite score interval: `leaderboard --json`
    printed `Infinity`, which JSON does not have (JavaScript's JSON.parse, Python's with
    parse_constant, refuse the whole document). Every infinite or NaN number is null."""
    from arena.cli.common import print_json
    from arena.leaderboard import Row

    row = Row(1, "a", 25.0, 8.3, 0.1, 1, 1, 81.0, math.inf, 1.0, 0, 0)
    print_json({"leaderboard": [row.to_json()], "low": -math.inf, "nan": [math.nan, 2.5]})

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON")

    out = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert out["leaderboard"][0]["score_ci95"] is None and out["leaderboard"][0]["mean_score"] == 81
    assert (out["low"], out["nan"]) == (None, [None, 2.5])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_as_the_command_starts_ends_it_without_a_traceback(
    tmp_path: Path, signum: int
) -> None:
    """Ctrl-C in the first half second, while the command's modules loaded, printed a
    KeyboardInterrupt traceback from deep in an import (or in typer, building the
    commands). The `arena` command's entry point (arena/entry.py) is small: a stop there
    ends it quietly with exit 130. One that comes while Python itself starts, before any
    of the arena's code, is Python's ("Fatal Python error: init_import_site")."""
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")  # makes the database
    command = Path(sys.executable).parent / "arena"  # the installed command
    stopped_quietly = 0
    for step in range(12):
        proc = subprocess.Popen(
            [str(command), "tournament", "list", "--db", str(db)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_in_a_terminal,
        )
        time.sleep(0.02 + 0.04 * step)  # from interpreter start-up to the command's end
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=60)
        if "init_import_site" in stderr or proc.returncode == -signum:
            continue  # Python was still starting
        assert proc.returncode in (0, 130), stderr
        assert "Traceback" not in stderr, stderr
        stopped_quietly += proc.returncode == 130
    assert stopped_quietly >= 3  # most stops land in the arena's start, not Python's
