"""Four-player gin through the arena: partnerships vary across the schedule, and a
tournament created before they did (schedule version 1) resumes its own schedule."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from itertools import combinations
from pathlib import Path

from arena.runner import create_tournament, schedule
from arena.schedule import SCHEDULE_VERSION, tournament_secret
from arena.settings import TournamentSettings
from arena.store import Store
from tests.arena.test_tournament import register
from tests.conftest import arena

BOTS = ("a", "b", "c", "d")
GIN_4P = TournamentSettings("gin_rummy", BOTS, {"players": "4", "max_hands": "1"}, seed=3)


def partners(lineups: list[tuple[str, ...]]) -> Counter[frozenset[str]]:
    return Counter(frozenset(lineup[s::2]) for lineup in lineups for s in (0, 1))


def test_the_schedule_version_decides_the_partnerships() -> None:
    secret = tournament_secret(3)
    now = [p.lineup for p in schedule(GIN_4P, 4, secret)]
    assert partners(now) == {frozenset(pair): 4 for pair in combinations(BOTS, 2)}
    old = [p.lineup for p in schedule(GIN_4P, 4, secret, version=1)]
    assert old == now[:4] and partners(old) == {frozenset("ac"): 4, frozenset("bd"): 4}
    golf = TournamentSettings("golf", BOTS, seed=3)  # no partnerships: as it always was
    assert schedule(golf, 4, secret) == schedule(golf, 4, secret, version=1)


def lineups_played(db: Path, tournament: int) -> list[tuple[str, ...]]:
    """The lineup of each stored match of the tournament, in schedule order."""
    record = Store(db).tournament(tournament)
    matches = Store(db).results_in_order(record.game, record.rules_key, tournament)
    return [tuple(seat["entrant"] for seat in seats) for _, seats in matches]


def test_a_tournament_from_before_partnerships_varied_resumes_its_own_schedule(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arena.db"
    register(db, list(BOTS))
    record = create_tournament(Store(db), GIN_4P)
    assert record.schedule_version == SCHEDULE_VERSION == 3 and record.total_matches == 12
    # What an arena of schedule version 1 left: no column, and its own match count.
    with sqlite3.connect(db) as conn:
        conn.execute("alter table tournaments drop column schedule_version")
        conn.execute("update tournaments set total_matches = 4")
    assert Store(db).tournament(record.id).schedule_version == 1  # the column comes back as 1

    out = json.loads(arena(db, "tournament", "resume", str(record.id), "--json").stdout)
    assert out["played"] == 4 and not out["errors"]
    played = lineups_played(db, record.id)
    assert played == [
        ("a", "b", "c", "d"),
        ("b", "c", "d", "a"),
        ("c", "d", "a", "b"),
        ("d", "a", "b", "c"),
    ]

    fresh = create_tournament(Store(db), GIN_4P)
    out = json.loads(arena(db, "tournament", "resume", str(fresh.id), "--json").stdout)
    assert out["played"] == 12 and not out["errors"]
    assert partners(lineups_played(db, fresh.id)) == {
        frozenset(p): 4 for p in combinations(BOTS, 2)
    }
