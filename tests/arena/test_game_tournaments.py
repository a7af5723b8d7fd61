"""Every game through the whole stack: real bot processes over gRPC, the referee, the
store, ratings and replays, with the table sizes the issues name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from referee.game import game_names
from tests.conftest import add_sample_bot, arena, register_bot, sample_tournament

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable

# case -> (game, seats, entrants as (name, module), quick rules)
TABLES: dict[str, tuple[str, int, list[tuple[str, str]], list[str]]] = {
    "golf_solitaire-duplicate": (
        "golf_solitaire",
        2,
        [("sol_a", "golf_solitaire_strategy"), ("rand_a", "random_bot")],
        ["holes=2", "scoring=match"],
    ),
    "gin_rummy-3p": (
        "gin_rummy",
        3,
        [("gin_a", "gin_strategy"), ("gin_b", "gin_strategy"), ("rand_a", "random_bot")],
        ["players=3", "target_score=50"],
    ),
    "gin_rummy-4p": (
        "gin_rummy",
        4,
        [
            ("gin_a", "gin_strategy"),
            ("gin_b", "gin_strategy"),
            ("rand_a", "random_bot"),
            ("rand_b", "random_bot"),
        ],
        ["players=4", "target_score=60"],
    ),
    "golf": (
        "golf",
        4,
        [
            ("golf_a", "golf_strategy"),
            ("golf_b", "golf_strategy"),
            ("rand_a", "random_bot"),
            ("rand_b", "random_bot"),
        ],
        ["holes=2"],
    ),
    "dingo": (
        "dingo",
        4,
        [
            ("dingo_a", "dingo_strategy"),
            ("dingo_b", "dingo_strategy"),
            ("rand_a", "random_bot"),
            ("rand_b", "random_bot"),
        ],
        ["deals=1"],
    ),
    "goninkan": (
        "goninkan",
        6,
        [
            ("gon_a", "goninkan_strategy"),
            ("gon_b", "goninkan_strategy"),
            ("gon_c", "goninkan_strategy"),
            ("rand_a", "random_bot"),
            ("rand_b", "random_bot"),
            ("rand_c", "random_bot"),
        ],
        ["yaku_count=1"],
    ),
}


def test_every_game_has_a_table() -> None:
    assert {t[0] for t in TABLES.values()} == set(game_names())


@pytest.mark.parametrize("case", list(TABLES))
def test_a_full_table_tournament_through_grpc(tmp_path: Path, case: str) -> None:
    game, seats, entrants, rules = TABLES[case]
    db = tmp_path / "arena.db"
    out = sample_tournament(db, game, entrants, seats, rules)
    # One table, every seat rotation; 4-player gin also every split into partnerships (3).
    matches_played = 3 * seats if case == "gin_rummy-4p" else seats
    assert out["played"] == matches_played and not out["errors"]
    board = out["leaderboard"]
    assert sorted(r["entrant"] for r in board) == sorted(n for n, _ in entrants)
    assert all(r["games"] == matches_played and r["faults"] == 0 for r in board)
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert {m["reason"] for m in matches} == {"finished"} and len({m["seed"] for m in matches}) == 1
    assert all(r["ok"] for r in json.loads(arena(db, "replay", "verify", "--json").stdout))


def test_solitaire_bots_alone_are_ranked_by_score_on_the_same_deals(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, module in [
        ("sol", "golf_solitaire_strategy"),
        ("greedy", "golf_solitaire_greedy"),
        ("rand", "random_bot"),
    ]:
        arena(
            db,
            "bots",
            "add",
            name,
            "--game",
            "golf_solitaire",
            "--",
            PY,
            "-m",
            f"sample_bots.{module}",
        )
    out = json.loads(
        arena(
            db,
            "tournament",
            "run",
            "--game",
            "golf_solitaire",
            "--bots",
            "sol,greedy,rand",
            "--seats",
            "1",
            "--rounds",
            "2",
            "--rules",
            "holes=2",
            "--json",
        ).stdout
    )
    assert out["played"] == 6 and not out["errors"]
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    for rnd in (0, 1):  # every bot played the same deals in a round
        assert len({m["seed"] for m in matches[rnd * 3 : rnd * 3 + 3]}) == 1
    board = {r["entrant"]: r for r in out["leaderboard"]}
    assert board["rand"]["mean_score"] > board["sol"]["mean_score"]
    assert board["sol"]["mu"] > board["rand"]["mu"]  # rated against each other by score
    assert all(r["hindsight_best"] is not None for r in board.values())
    # Wins and ranks are by score among the bots on the same deal (lower is better), not
    # each one-seat match's own rank (always 1).
    wins = dict.fromkeys(board, 0)
    for rnd in (0, 1):
        scores = {
            m["entrants"][0]: m["outcome"]["scores"][0] for m in matches[rnd * 3 : rnd * 3 + 3]
        }
        for name, score in scores.items():
            wins[name] += score == min(scores.values())
    assert {name: r["wins"] for name, r in board.items()} == wins
    assert board["rand"]["mean_rank"] > board["sol"]["mean_rank"]


def test_a_bot_that_crashes_at_once_ranks_last_in_solitaire(tmp_path: Path) -> None:
    # Its one-seat matches stop on 0 strokes, better than any hole played: ranked by that
    # score it was rated the best bot, with a win per deal and a mean score of 0.
    db = tmp_path / "arena.db"
    register_bot(db, "crash", PY, "-c", "pass", games=("golf_solitaire",))
    for name, module in [("greedy", "golf_solitaire_greedy"), ("rand", "random_bot")]:
        add_sample_bot(db, name, module, "golf_solitaire")
    done = arena(
        db, "tournament", "run", "--game", "golf_solitaire", "--bots", "crash,greedy,rand",
        "--rounds", "2", "--rules", "holes=2", "--json",
        check=False,
    )  # fmt: skip
    out = json.loads(done.stdout)
    board = {r["entrant"]: r for r in out["leaderboard"]}
    assert board["crash"]["forfeits"] == 2, board["crash"]
    assert [r["entrant"] for r in out["leaderboard"]][-1] == "crash"
    assert board["crash"]["wins"] == 0 and board["crash"]["mean_score"] is None
    assert board["crash"]["mean_rank"] == 3.0
    text = arena(db, "leaderboard", "--tournament", "1").stdout
    crash_line = next(line for line in text.splitlines() if " crash " in line)
    assert "—" in crash_line and "2 forfeits" in crash_line
