"""Settings that can never work are refused when they are built, before anything is
stored: every numeric setting has bounds (docs/tournaments.md), every key of a tournament
file its type, and the command line its ids and bot names. Each refusal is a one-line
error naming what was wrong, exit 2, never a traceback. Real processes and real SQLite
files, as in test_cli.py."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.settings import SettingsError, TournamentSettings
from referee.game import RulesError, parse_rules
from referee.games.golf import GolfRules
from tests.conftest import add_sample_bot, arena

RUN = ["tournament", "run", "--game", "gin_rummy", "--bots", "a,b", "--sandbox", "none"]
HUGE = "99999999999999999999999"
NOT_TEXT = "n\udcff"  # the argument bytes b"n\xff": not UTF-8


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with bots a and b and no tournament."""
    path = tmp_path_factory.mktemp("settings") / "a.db"
    add_sample_bot(path, "a")
    add_sample_bot(path, "b")
    return path


def refused(db: Path, *args: str, words: str) -> None:
    """``arena ARGS`` exits 2 with a short error containing ``words``, no traceback."""
    out = arena(db, *args, check=False)
    assert out.returncode == 2, out.stderr
    assert words in out.stderr and "Traceback" not in out.stderr, out.stderr


def tournaments(db: Path) -> list[object]:
    found: list[object] = json.loads(arena(db, "tournament", "list", "--json").stdout)
    return found


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--bot-cpu-seconds", "0", "bot_cpu_seconds must be a finite number above 0"),
        (
            "--move-seconds",
            "1e16",
            "move_seconds must be a finite number above 0 and at most 86400",
        ),
        ("--time-bank", "inf", "time_bank_seconds must be a finite number from 0 to 86400"),
        ("--bot-memory-mb", "nan", "bot_memory_mb must be a finite number from 1 to 1048576"),
        ("--bot-memory-mb", "-1", "bot_memory_mb must be"),
        ("--bot-output-kb", "99999999", "bot_output_kb must be a whole number from 0 to 65536"),
        ("--bot-max-processes", "99999999", "bot_max_processes must be"),
        ("--max-strikes", "99999999", "max_strikes must be a whole number from 1 to 1000"),
        ("--seed", str(2**63), "seed must be a whole number"),
        ("--rounds", "1000000000", "rounds must be a whole number from 1 to 1000"),
        ("--concurrency", "0", "concurrency must be a whole number from 1 to 256"),
        ("--seats", HUGE, "seats must be"),
        ("--seats", "3", "not 3 (the rule option players=3 makes it a 3-player game)"),
    ],
)
def test_limits_that_cannot_work_are_refused_and_nothing_is_stored(
    db: Path, flag: str, value: str, words: str
) -> None:
    refused(db, *RUN, flag, value, words=words)
    assert tournaments(db) == []


def test_sprt_bounds_are_checked(db: Path) -> None:
    sprt = ["tournament", "sprt", "--game", "gin_rummy", "--bots", "a,b", "--sandbox", "none"]
    refused(
        db, *sprt, "--elo0", "nan", words="SPRT elo0 must be a finite number from -1000 to 1000"
    )
    refused(db, *sprt, "--max-matches", "100000000", words="SPRT max_matches must be")
    assert tournaments(db) == []


def test_bots_check_refuses_a_move_time_no_match_can_have(db: Path) -> None:
    refused(db, "bots", "check", "a", "--move-seconds", "1e300", words="move_seconds must be")


def test_the_bounds_themselves_are_accepted() -> None:
    settings = TournamentSettings(
        "gin_rummy",
        ("a", "b"),
        rounds=1000,
        seed=-(2**63),
        move_seconds=86400,
        time_bank_seconds=0,
        bot_cpu_seconds=86400.0,
        bot_memory_mb=1024 * 1024,
        bot_max_processes=None,
        concurrency=256,
    )
    assert settings.rounds == 1000
    with pytest.raises(SettingsError, match="rounds"):
        TournamentSettings("gin_rummy", ("a", "b"), rounds=1001)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("rounds = 1.5", "rounds must be a whole number from 1 to 1000, not 1.5"),
        ('rounds = "x"', "rounds must be a whole number from 1 to 1000, not 'x'"),
        ("concurrency = true", "concurrency must be a whole number"),
        ('bot_memory_mb = "lots"', "bot_memory_mb must be a finite number"),
        ('move_seconds = "5"', "move_seconds must be a finite number"),
        ("seed = 1.0", "seed must be a whole number"),
        ('separate_submitters = "yes"', "separate_submitters must be true or false"),
        ("rules = 5", "rules must be a table of option = value"),
        ("teams = { a = 1 }", 'teams must be a table of bot = "team"'),
        ("sprt = 3", "sprt must be a table"),
    ],
)
def test_tournament_file_values_of_the_wrong_type_name_the_key(
    db: Path, tmp_path: Path, line: str, words: str
) -> None:
    file = tmp_path / "t.toml"
    file.write_text(f'game = "gin_rummy"\nbots = ["a", "b"]\nsandbox = "none"\n{line}\n')
    refused(db, "tournament", "run", str(file), words=words)
    assert tournaments(db) == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('game = "gin_rummy"\nbots = 5\n', "bots must be a list of bot names"),
        ('game = "gin_rummy"\nbots = [1, 2]\n', "bots must be a list of bot names"),
        ("game = 5\nbots = ['a', 'b']\n", "game must be a game's name, not 5"),
        (
            'game = "gin_rummy"\nbots = ["a", "b"]\nformat = "sprt"\n[sprt]\nelo0 = "a"\n',
            "SPRT elo0 must be a finite number",
        ),
    ],
)
def test_tournament_file_shapes_are_checked(
    db: Path, tmp_path: Path, text: str, words: str
) -> None:
    file = tmp_path / "t.toml"
    file.write_text(text)
    refused(db, "tournament", "run", str(file), words=words)


def test_a_file_rules_table_of_the_wrong_type_is_refused_with_rules_flags_too(
    db: Path, tmp_path: Path
) -> None:
    file = tmp_path / "t.toml"
    file.write_text('game = "gin_rummy"\nbots = ["a", "b"]\nrules = 5\n')
    refused(db, "tournament", "run", str(file), "--rules", "max_hands=1", words="rules must be")


def test_a_binary_tournament_file_is_not_toml(db: Path, tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    file.write_bytes(b'game = "gin\xff\xfe"\n\x00\x01')
    refused(db, "tournament", "run", str(file), words="is not valid TOML: it is not UTF-8 text")


def test_demo_refuses_bad_settings_before_making_a_database(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    refused(db, "demo", "--rounds", "0", "--db", str(db), words="rounds must be")
    refused(db, "demo", "--concurrency", "0", "--db", str(db), words="concurrency must be")
    assert not db.exists()


def test_demo_refuses_a_replays_folder_it_cannot_make_before_playing(tmp_path: Path) -> None:
    """It played the whole tournament, then failed with a traceback exporting replays."""
    db = tmp_path / "demo.db"
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    replays = blocker / "replays"
    refused(db, "demo", "--db", str(db), "--replays", str(replays), words="cannot make the replays")
    assert not db.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "resume", HUGE],
        ["tournament", "show", HUGE],
        ["matches", "list", "--tournament", HUGE],
        ["matches", "export", "--tournament", HUGE],
        ["matches", "list", "--limit", HUGE],
    ],
)
def test_huge_ids_and_counts_are_refused(db: Path, args: list[str]) -> None:
    refused(db, *args, words="must be a whole number from 0 to 9223372036854775807")


@pytest.mark.parametrize(
    "args",
    [
        ["bots", "show", NOT_TEXT],
        ["bots", "remove", NOT_TEXT],
        ["bots", "check", NOT_TEXT],
        ["matches", "list", "--bot", NOT_TEXT],
        ["tournament", "run", "--game", "gin_rummy", "--bots", f"a,{NOT_TEXT}"],
    ],
)
def test_bot_names_that_are_not_text_are_refused(db: Path, args: list[str]) -> None:
    refused(db, *args, words="bot name 'n\\udcff': not text")


def test_an_export_to_an_unwritable_path_is_an_error(db: Path, tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "folder" / "x.csv"
    refused(db, "matches", "export", "-o", str(target), words=f"cannot write {target}")


def test_golf_holes_are_bounded_by_the_hard_length_bound(db: Path) -> None:
    assert parse_rules(GolfRules, {"holes": "100"}).holes == 100
    with pytest.raises(RulesError, match="holes=101: must be from 1 to 100"):
        parse_rules(GolfRules, {"holes": "101"})
    refused(
        db,
        "tournament",
        "run",
        "--game",
        "golf",
        "--bots",
        "a,b",
        "--rules",
        "holes=99999999999999999999",
        "--sandbox",
        "none",
        words="holes=",
    )
    assert tournaments(db) == []


def test_a_stored_tournament_with_settings_that_cannot_work_is_refused(tmp_path: Path) -> None:
    """One stored by an arena that took them (left interrupted): resume says why."""
    db = tmp_path / "a.db"
    add_sample_bot(db, "a")
    add_sample_bot(db, "b")
    golf = ["--game", "golf", "--bots", "a,b", "--rules", "holes=1", "--sandbox", "none"]
    arena(db, "tournament", "run", *golf)
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("select settings from tournaments").fetchone()
        stored = {**json.loads(text), "bot_memory_mb": "lots"}
        conn.execute(
            "update tournaments set settings = ?, status = 'interrupted'", [json.dumps(stored)]
        )
    refused(db, "tournament", "resume", "1", words="bot_memory_mb must be a finite number")
    refused(db, "tournament", "show", "1", words="bot_memory_mb must be a finite number")
    refused(db, "tournament", "list", words="bot_memory_mb must be a finite number")


def test_a_bot_named_before_the_naming_rule_can_still_be_shown_and_removed(
    tmp_path: Path,
) -> None:
    """Names typed on the command line are refused only when they are no text: one
    outside `bots add`'s rule may be a bot registered before the rule existed."""
    db = tmp_path / "a.db"
    add_sample_bot(db, "a")
    with sqlite3.connect(db) as conn:
        conn.execute("update entrants set name = 'my old bot' where name = 'a'")
    assert "my old bot" in arena(db, "bots", "show", "my old bot").stdout
    arena(db, "bots", "remove", "my old bot")
