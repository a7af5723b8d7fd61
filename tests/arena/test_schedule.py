from __future__ import annotations

from collections import Counter

import pytest

from arena.schedule import ScheduleError, lineups, round_robin


def test_two_seat_round_robin_plays_every_pair_both_ways_on_the_rounds_deal() -> None:
    plans = round_robin(["a", "b", "c"], seats=2, rounds=2, seed=9)
    assert len(plans) == 3 * 2 * 2
    assert [p.idx for p in plans] == list(range(12))
    by_deal: dict[int, list[tuple[str, ...]]] = {}
    for p in plans:
        by_deal.setdefault(p.deal, []).append(p.lineup)
    for deal, tables in by_deal.items():
        assert len(tables) == 6 and all(t[::-1] in tables for t in tables), deal
        assert len({p.seed for p in plans if p.deal == deal}) == 1
    assert len({p.seed for p in plans}) == 2  # one deal per round, for every table


def test_every_entrant_plays_every_seat_equally() -> None:
    plans = round_robin(["a", "b", "c", "d"], seats=3, rounds=1, seed=1)
    seat_counts = Counter((name, seat) for p in plans for seat, name in enumerate(p.lineup))
    assert len(set(seat_counts.values())) == 1


def test_fewer_entrants_than_seats_repeat_around_the_table() -> None:
    assert lineups(["a", "b"], 6, seed=1) == [("a", "b", "a", "b", "a", "b")]
    plans = round_robin(["a", "b"], seats=6, rounds=1, seed=1)
    assert sorted(p.lineup for p in plans) == [("a", "b") * 3, ("b", "a") * 3]


def test_too_many_combinations_take_a_balanced_subset() -> None:
    names = [f"bot{i}" for i in range(12)]
    tables = lineups(names, 4, seed=3, max_combinations=30)
    assert len(tables) == 30 and len(set(tables)) == 30
    uses = Counter(n for t in tables for n in t)
    assert max(uses.values()) - min(uses.values()) <= 1


def test_one_seat_games_give_every_entrant_the_same_deals() -> None:
    plans = round_robin(["a", "b", "c"], seats=1, rounds=3, seed=4)
    for name in "abc":
        assert [p.seed for p in plans if p.lineup == (name,)] == [
            p.seed for p in plans if p.lineup == ("a",)
        ]


def test_same_seed_same_schedule_and_bad_input() -> None:
    assert round_robin(["a", "b", "c"], 2, 3, 5) == round_robin(["a", "b", "c"], 2, 3, 5)
    with pytest.raises(ScheduleError):
        round_robin(["a", "a"], 2, 1, 1)
    with pytest.raises(ScheduleError):
        round_robin(["a", "b"], 2, 0, 1)
