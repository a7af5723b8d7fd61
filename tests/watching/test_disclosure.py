"""A deal still in play at other tables is not shown to spectators: while any scheduled
match on a deal is unplayed, the web server refuses the replays of the matches already
played on it (page and JSON Lines), the tournament page does not link them and a report
written then leaves them out; once the tournament resumes and plays the deal, they open.

The database state "some tables have played the deal, one has not" is made by deleting
one stored match of a finished tournament (the runner stores matches one at a time, so
this is the state a running or killed tournament leaves), then resuming it for real."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import add_sample_bot, arena, sample_tournament
from tests.watching.helpers import arena_web


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, int]]:
    db = tmp_path / "arena.db"
    # Two seats, two bots, one round: two matches (both seat orders) on one deal.
    data = sample_tournament(
        db,
        "golf_solitaire",
        [("rnd", "random_bot"), ("greedy", "golf_solitaire_greedy")],
        2,
        ["holes=1"],
    )
    assert not data["errors"], data["errors"]
    with arena_web(db) as base:
        yield base, db, int(data["tournament"])


def _unplay(db: Path, match_id: str, tournament: int) -> None:
    """Forget one stored match, as if its table had not finished yet."""
    with sqlite3.connect(db) as con:
        for table, key in (("faults", "match_id"), ("results", "match_id")):
            con.execute(f"delete from {table} where {key} = ?", [match_id])
        con.execute("delete from replays where match_id = ?", [match_id])
        con.execute("delete from matches where id = ?", [match_id])
        con.execute("update tournaments set status = 'running' where id = ?", [tournament])


def test_replays_of_a_deal_in_play_are_withheld_until_every_table_has_played_it(
    served: tuple[str, Path, int], tmp_path: Path
) -> None:
    base, db, tid = served
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert len(matches) == 2 and matches[0]["seed"] == matches[1]["seed"]
    played, unplayed = matches[0]["id"], matches[1]["id"]
    assert _get(f"{base}/match/{played}")[0] == 200  # the finished tournament shows all
    _unplay(db, unplayed, tid)

    for url in (f"{base}/match/{played}", f"{base}/match/{played}.jsonl"):
        status, body = _get(url)
        assert status == 403, url
        assert "still being played at other tables" in body
        assert "stock" not in body and "replay-data" not in body
    status, report = _get(f"{base}/tournament/{tid}")
    assert status == 200 and played in report and f'href="/match/{played}"' not in report
    folder = tmp_path / "report"
    arena(db, "report", str(tid), "-o", str(folder))
    assert not list((folder / "matches").glob("*.html"))
    assert "replay when every table has played the deal" in (folder / "index.html").read_text()

    arena(db, "tournament", "resume", str(tid))  # the last table plays the deal
    assert {m["id"] for m in json.loads(arena(db, "matches", "list", "--json").stdout)} == {
        played,
        unplayed,
    }
    for match_id in (played, unplayed):
        status, body = _get(f"{base}/match/{match_id}")
        assert status == 200 and 'id="replay-data"' in body
    status, jsonl = _get(f"{base}/match/{played}.jsonl")
    assert status == 200 and jsonl == arena(db, "replay", "export", played).stdout


def test_a_seed_and_its_deals_stay_hidden_while_any_tournament_of_it_plays(
    tmp_path: Path,
) -> None:
    """Anyone who knows a --seed can rebuild every deal of it, and two tournaments of one
    seed play the same deals: the seed is not shown, on either tournament's page, nor the
    finished one's replays, while the other still has a deal of it to play."""
    db = tmp_path / "arena.db"
    add_sample_bot(db, "rnd", "random_bot", "golf_solitaire")
    add_sample_bot(db, "greedy", "golf_solitaire_greedy", "golf_solitaire")

    def seeded_tournament() -> int:
        args = ("--game", "golf_solitaire", "--bots", "rnd,greedy", "--rules", "holes=1")
        out = arena(db, "tournament", "run", *args, "--seed", "4242", "--json")
        return int(json.loads(out.stdout)["tournament"])

    def matches(tournament: int) -> list[str]:
        listed = arena(db, "matches", "list", "--tournament", str(tournament), "--json")
        return [m["id"] for m in json.loads(listed.stdout)]

    first, second = seeded_tournament(), seeded_tournament()
    with arena_web(db) as base:
        for tournament in (first, second):
            assert "seed 4242" in _get(f"{base}/tournament/{tournament}")[1]
        _unplay(db, matches(second)[1], second)
        for tournament in (first, second):
            status, page = _get(f"{base}/tournament/{tournament}")
            assert status == 200 and "seed 4242" not in page
            assert "deals from a seed, shown once played" in page
        status, body = _get(f"{base}/match/{matches(first)[0]}")  # the first finished
        assert status == 403 and f"other tables of tournament {second}" in body

        arena(db, "tournament", "resume", str(second))
        for tournament in (first, second):
            assert "seed 4242" in _get(f"{base}/tournament/{tournament}")[1]
        assert _get(f"{base}/match/{matches(first)[0]}")[0] == 200


def test_numbered_deals_stay_hidden_while_any_round_or_tournament_of_them_plays(
    tmp_path: Path,
) -> None:
    """Golf solitaire's secret ``deal_numbers`` fixes the cards whatever the seed, so
    every round of the tournament, and every tournament of the game with those numbers,
    plays the same deals: a finished match's replay is withheld while any of them has a
    match to play (the arena compared seeds, and served round 1's replays, stock order
    and all, while round 2 played). The numbers are in no rules a page shows."""
    db = tmp_path / "arena.db"
    add_sample_bot(db, "rnd", "random_bot", "golf_solitaire")
    add_sample_bot(db, "greedy", "golf_solitaire_greedy", "golf_solitaire")

    def numbered_tournament(rounds: int) -> tuple[int, list[str]]:
        args = ("--game", "golf_solitaire", "--bots", "rnd,greedy", "--rounds", str(rounds))
        out = arena(db, "tournament", "run", *args, "--rules", "holes=1 deal_numbers=906")
        assert "deal_numbers" not in out.stdout + out.stderr
        tournament = max(
            t["id"] for t in json.loads(arena(db, "tournament", "list", "--json").stdout)
        )
        listed = arena(db, "matches", "list", "--tournament", str(tournament), "--json")
        return tournament, [m["id"] for m in json.loads(listed.stdout)]

    first, first_matches = numbered_tournament(2)
    _, second_matches = numbered_tournament(1)
    assert len(first_matches) == 4 and len(second_matches) == 2
    with arena_web(db) as base:
        for page in ("/", f"/tournament/{first}", "/matches"):  # a replay shows the deal
            status, body = _get(base + page)
            assert status == 200 and "deal_numbers" not in body
        _unplay(db, first_matches[-1], first)  # round 2 of the first has a table to play
        for match_id in (first_matches[0], second_matches[0]):  # round 1; the other seed
            status, body = _get(f"{base}/match/{match_id}")
            assert status == 403 and f"other tables of tournament {first}" in body
        arena(db, "tournament", "resume", str(first))
        for match_id in (first_matches[0], second_matches[0]):
            assert _get(f"{base}/match/{match_id}")[0] == 200
