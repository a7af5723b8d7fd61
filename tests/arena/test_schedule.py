from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.runner import schedule
from arena.schedule import (
    MAX_COMBINATIONS,
    SCHEDULE_VERSION,
    MatchPlan,
    ScheduleError,
    bot_seed,
    deal_seed,
    fixed_deal,
    gauntlet,
    lineups,
    round_robin,
    sprt_pairs,
    tournament_secret,
)
from arena.settings import TournamentSettings


def test_two_seat_round_robin_plays_every_pair_both_ways_on_the_rounds_deal() -> None:
    plans = round_robin(["a", "b", "c"], seats=2, rounds=2, secret=tournament_secret(9))
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
    plans = round_robin(["a", "b", "c", "d"], seats=3, rounds=1, secret=tournament_secret(1))
    seat_counts = Counter((name, seat) for p in plans for seat, name in enumerate(p.lineup))
    assert len(set(seat_counts.values())) == 1


def test_fewer_entrants_than_seats_repeat_around_the_table() -> None:
    assert lineups(["a", "b"], 6, secret=tournament_secret(1)) == [[("a", "b") * 3]]
    plans = round_robin(["a", "b"], seats=6, rounds=1, secret=tournament_secret(1))
    assert sorted(p.lineup for p in plans) == [("a", "b") * 3, ("b", "a") * 3]


@pytest.mark.parametrize("vary", [True, False])
def test_too_many_combinations_take_a_balanced_subset(vary: bool) -> None:
    names = [f"bot{i}" for i in range(12)]
    by_round = lineups(names, 4, tournament_secret(3), 30, rounds=3, vary=vary)
    for tables in by_round:
        assert len(tables) == 30 and len(set(tables)) == 30
        uses = Counter(n for t in tables for n in t)
        assert max(uses.values()) - min(uses.values()) <= (2 if vary else 1)  # a greedy pick
    played = {t for tables in by_round for t in tables}
    if vary:  # schedule version 3: each round its own subset, tables played least first
        assert len(played) == 90
        met = Counter(p for t in played for p in itertools.combinations(t, 2))
        assert len(met) == 66 and min(met.values()) >= 3  # every pair, more than once
    else:  # versions 1 and 2 (stored tournaments): the same subset every round
        assert len(played) == 30 and by_round[0] == by_round[1] == by_round[2]


@settings(max_examples=60, deadline=None)
@given(bots=st.integers(12, 130), seed=st.integers(0, 10**6))
def test_two_seat_round_robin_meets_every_pair_over_the_rounds_evenly(bots: int, seed: int) -> None:
    """Past 60 pairs each round plays whole turns of the circle method, the next ones each
    round: every bot plays equally often in a round (once fewer with a bye, twice when a
    turn is longer than a round), and every pair meets once before any meets twice."""
    names = [f"b{i}" for i in range(bots)]
    pairs = bots * (bots - 1) // 2
    per_round = len(lineups(names, 2, tournament_secret(seed))[0])
    rounds = -(-pairs // per_round) + 1  # every pair, and then some again
    by_round = lineups(names, 2, tournament_secret(seed), rounds=rounds)
    slack = 0 if bots % 2 == 0 else 1
    if bots > 2 * MAX_COMBINATIONS:
        slack = 2
    else:
        assert per_round > MAX_COMBINATIONS - bots / 2
    for tables in by_round:
        assert len(tables) == len(set(tables)) == per_round <= MAX_COMBINATIONS
        assert all(a != b and names.index(a) < names.index(b) for a, b in tables)
        uses = Counter(n for t in tables for n in t)
        assert max(uses.values()) - min(uses[n] for n in names) <= slack
    met = Counter(t for tables in by_round for t in tables)
    assert len(met) == pairs and max(met.values()) - min(met.values()) <= 1
    for done in range(1, rounds + 1):  # no pair meets twice before every pair met once
        so_far = Counter(t for tables in by_round[:done] for t in tables)
        assert max(so_far.values()) == 1 or len(so_far) == pairs


def test_more_seats_vary_the_tables_and_spread_the_pairs_over_the_rounds() -> None:
    names = [f"b{i}" for i in range(20)]  # 1,140 tables of 3, 190 pairs
    secret = tournament_secret(11)
    by_round = lineups(names, 3, secret, rounds=4)
    fixed = lineups(names, 3, secret, rounds=4, vary=False)  # schedule versions 1 and 2
    for tables in by_round:
        uses = Counter(n for t in tables for n in t)
        assert len(set(tables)) == MAX_COMBINATIONS and max(uses.values()) - min(uses.values()) <= 2
    assert len({t for tables in by_round for t in tables}) > 3 * MAX_COMBINATIONS  # greedy

    def meetings(rounds: list[list[tuple[str, ...]]]) -> Counter[tuple[str, ...]]:
        return Counter(p for tables in rounds for t in tables for p in itertools.combinations(t, 2))

    met, fixed_met = meetings(by_round), meetings(fixed)
    assert len(met) == 190 and max(met.values()) - min(met.values()) <= 2
    assert len(fixed_met) < 190  # one subset of 60 tables cannot seat every pair


def test_one_seat_games_give_every_entrant_the_same_deals() -> None:
    plans = round_robin(["a", "b", "c"], seats=1, rounds=3, secret=tournament_secret(4))
    for name in "abc":
        assert [p.seed for p in plans if p.lineup == (name,)] == [
            p.seed for p in plans if p.lineup == ("a",)
        ]


def test_same_seed_same_schedule_and_bad_input() -> None:
    s5 = tournament_secret(5)
    assert round_robin(["a", "b", "c"], 2, 3, s5) == round_robin(["a", "b", "c"], 2, 3, s5)
    with pytest.raises(ScheduleError):
        round_robin(["a", "a"], 2, 1, s5)
    with pytest.raises(ScheduleError):
        round_robin(["a", "b"], 2, 0, s5)


def test_one_bot_never_plays_itself() -> None:
    s5 = tournament_secret(5)
    with pytest.raises(ScheduleError, match="would only play itself"):
        round_robin(["a"], seats=2, rounds=1, secret=s5)
    assert len(round_robin(["a"], seats=1, rounds=2, secret=s5)) == 2  # solitaire: alone is fine


def test_gauntlet_challengers_play_the_field_not_each_other() -> None:
    s5 = tournament_secret(5)
    plans = gauntlet(["x", "y"], ["a", "b", "c"], seats=2, rounds=2, secret=s5)
    assert len(plans) == 2 * 2 * 3 * 2  # rounds x challengers x opponents x seatings
    for p in plans:
        assert len({"x", "y"} & set(p.lineup)) == 1  # exactly one challenger per match
    pairs = {frozenset(p.lineup) for p in plans}
    assert pairs == {frozenset((c, f)) for c in "xy" for f in "abc"}
    assert {p.seed for p in plans if p.round == 0} != {p.seed for p in plans if p.round == 1}
    three = gauntlet(["x"], ["a", "b", "c"], seats=3, rounds=1, secret=s5)
    assert {frozenset(p.lineup) for p in three} == {
        frozenset(("x", *pair)) for pair in (("a", "b"), ("a", "c"), ("b", "c"))
    }
    assert len(three) == 3 * 3  # three seatings of each table
    with pytest.raises(ScheduleError, match="both a challenger and in the field"):
        gauntlet(["a"], ["a", "b"], seats=2, rounds=1, secret=s5)


def test_sprt_pairs_share_a_deal_with_seats_swapped_or_the_same_seat() -> None:
    s5 = tournament_secret(5)
    two = sprt_pairs("new", "base", [], seats=2, max_matches=6, secret=s5)
    assert [p.lineup for p in two[:2]] == [("new", "base"), ("base", "new")]
    assert len(two) == 6 and all(two[2 * i].seed == two[2 * i + 1].seed for i in range(3))
    assert len({p.seed for p in two}) == 3
    four = sprt_pairs("new", "base", ["f1", "f2", "f3"], seats=4, max_matches=8, secret=s5)
    for i in range(4):
        first, second = four[2 * i].lineup, four[2 * i + 1].lineup
        seat = first.index("new")
        assert seat == i % 4 and second.index("base") == seat
        assert [n for n in first if n != "new"] == [n for n in second if n != "base"]
    with pytest.raises(ScheduleError, match="field of 3"):
        sprt_pairs("new", "base", ["f1"], seats=4, max_matches=8, secret=s5)


def test_deals_derive_from_the_secret_only() -> None:
    """A fresh secret per tournament gives fresh deals; --seed S gives the same deals
    every time; the entrants' seeds are none of the deal seeds."""
    names = ["a", "b", "c"]
    fresh = [round_robin(names, 2, 4, tournament_secret()) for _ in range(2)]
    assert {p.seed for p in fresh[0]}.isdisjoint({p.seed for p in fresh[1]})
    assert round_robin(names, 2, 4, tournament_secret(7)) == round_robin(
        names, 2, 4, tournament_secret(7)
    )
    assert len(tournament_secret()) * 8 >= 128
    secret = tournament_secret(7)
    deals = {p.seed for p in round_robin(names, 2, 4, secret)}
    assert {int(bot_seed(secret, n)) for n in names}.isdisjoint(deals)
    assert deal_seed(secret, 0) != deal_seed(tournament_secret(8), 0)


@settings(max_examples=200, deadline=None)
@given(
    team_of=st.lists(st.sampled_from([None, "t1", "t2", "t3"]), min_size=2, max_size=9),
    seats=st.integers(2, 5),
    seed=st.integers(0, 10**6),
)
def test_bots_of_one_team_never_share_a_table_and_every_other_table_is_played(
    team_of: list[str | None], seats: int, seed: int
) -> None:
    bots = [f"b{i}" for i in range(len(team_of))]
    teams = {b: t for b, t in zip(bots, team_of, strict=True) if t is not None}
    sides = [teams.get(b, b) for b in bots]
    possible = [
        c for c in itertools.combinations(bots, seats) if len({teams.get(b, b) for b in c}) == seats
    ]
    secret = tournament_secret(seed)
    if len(bots) < seats and not teams:
        return  # bots repeat around the table (test above)
    if len(set(sides)) < seats or len(bots) < seats:
        with pytest.raises(ScheduleError, match="teams"):
            round_robin(bots, seats, 1, secret, teams)
        return
    plans = round_robin(bots, seats, 1, secret, teams)
    for plan in plans:
        assert len({teams.get(b, b) for b in plan.lineup}) == seats, plan.lineup
    tables = {frozenset(p.lineup) for p in plans}
    if len(possible) <= MAX_COMBINATIONS:  # all of them; else a balanced subset of them
        assert tables == {frozenset(c) for c in possible}
    else:
        assert len(tables) == MAX_COMBINATIONS and tables <= {frozenset(c) for c in possible}


def test_without_teams_the_schedule_is_as_before() -> None:
    """Stored tournaments recompute their schedule: no teams must change nothing (the
    tables below are what the arena scheduled before teams existed)."""
    secret = tournament_secret(3)
    bots = [f"b{i}" for i in range(12)]  # C(12, 4) = 495: the balanced subset
    assert round_robin(bots, 4, 2, secret) == round_robin(bots, 4, 2, secret, {})
    assert lineups(bots, 4, secret, vary=False)[0][:3] == [
        ("b0", "b1", "b2", "b8"),
        ("b0", "b1", "b3", "b4"),
        ("b0", "b1", "b3", "b5"),
    ]


def test_a_gauntlet_challenger_never_meets_its_own_team() -> None:
    s5 = tournament_secret(5)
    teams = {"x": "acme", "a": "acme"}
    plans = gauntlet(["x", "y"], ["a", "b", "c"], seats=2, rounds=1, secret=s5, teams=teams)
    pairs = {frozenset(p.lineup) for p in plans}
    assert pairs == {
        frozenset(p) for p in [("x", "b"), ("x", "c"), ("y", "a"), ("y", "b"), ("y", "c")]
    }
    with pytest.raises(ScheduleError, match="x would meet only bots of its own team"):
        gauntlet(["x"], ["a"], seats=2, rounds=1, secret=s5, teams=teams)


GIN_4P = (0, 1, 0, 1)  # gin_rummy players=4: seats 0+2 against 1+3


def partnered(plans: list[MatchPlan]) -> Counter[frozenset[str]]:
    """How often each pair of bots played on one team (seats 0+2 or 1+3)."""
    return Counter(frozenset(p.lineup[s::2]) for p in plans for s in (0, 1))


def test_partnerships_vary_so_every_bot_partners_every_other_in_every_seat() -> None:
    bots = ["a", "b", "c", "d"]
    plans = round_robin(bots, 4, 2, tournament_secret(2), partners=GIN_4P)
    for rnd in (0, 1):
        one = [p for p in plans if p.round == rnd]
        assert len(one) == 12 and len({p.lineup for p in one}) == 12  # 3 splits x 4 seats
        assert len({p.seed for p in one}) == 1  # still one deal for the round
        assert partnered(one) == {frozenset(p): 4 for p in itertools.combinations(bots, 2)}
        seats = Counter((name, seat) for p in one for seat, name in enumerate(p.lineup))
        assert set(seats.values()) == {3}  # each bot each seat once per split
        # Every bot sits in every seat with each partner, on the round's one deal.
        placed = {
            (n, seat, p.lineup[(seat + 2) % 4]) for p in one for seat, n in enumerate(p.lineup)
        }
        assert len(placed) == 4 * 4 * 3
    # The table's own seating and its rotations come first: what version 1 played.
    assert [p.lineup for p in plans[:4]] == [
        p.lineup for p in round_robin(bots, 4, 1, tournament_secret(2))
    ]


def test_with_five_bots_every_pair_partners_equally_often() -> None:
    bots = ["a", "b", "c", "d", "e"]
    plans = round_robin(bots, 4, 1, tournament_secret(3), partners=GIN_4P)
    assert len(plans) == 5 * 12  # five tables of four
    assert set(partnered(plans).values()) == {12}  # every pair shares 3 tables, 4 each
    assert len(partnered(plans)) == 10


def test_repeated_bots_stay_on_one_team_when_they_can() -> None:
    """Fewer bots than seats: the table repeats bots, and a split that puts one bot on
    both teams teaches the ratings nothing, so it is not played when another exists."""
    two = round_robin(["a", "b"], 4, 1, tournament_secret(1), partners=GIN_4P)
    assert sorted(p.lineup for p in two) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    three = round_robin(["a", "b", "c"], 4, 1, tournament_secret(1), partners=GIN_4P)
    assert len(three) == 4
    for plan in three:
        sides = [set(plan.lineup[0::2]), set(plan.lineup[1::2])]
        assert not sides[0] & sides[1], plan.lineup
        assert {"a"} in sides, plan.lineup  # a, seated twice, partners itself


def test_a_gauntlet_challenger_partners_each_bot_of_its_table() -> None:
    plans = gauntlet(
        ["x"], ["a", "b", "c"], seats=4, rounds=1, secret=tournament_secret(5), partners=GIN_4P
    )
    assert len(plans) == 12
    together = partnered(plans)
    assert {k: v for k, v in together.items() if "x" in k} == {
        frozenset(("x", o)): 4 for o in "abc"
    }


def test_without_fixed_partnerships_the_schedule_is_unchanged() -> None:
    bots = ["a", "b", "c", "d", "e"]
    secret = tournament_secret(4)
    assert round_robin(bots, 4, 2, secret, partners=None) == round_robin(bots, 4, 2, secret)
    assert len(round_robin(bots, 4, 1, secret)) == 5 * 4


@pytest.mark.parametrize(
    ("fmt", "seats", "challengers"), [("round_robin", 2, ()), ("gauntlet", 3, ("x",))]
)
def test_the_tournaments_schedule_version_decides_whether_rounds_vary(
    fmt: str, seats: int, challengers: tuple[str, ...]
) -> None:
    """A new tournament (version 3) seats every pair of 12 bots in two rounds (a gauntlet
    seats its field in pairs beside the challenger); one stored before (version 2) resumes
    its own schedule, the same 60 pairs every round."""
    bots = tuple(f"b{i}" for i in range(12))
    settings_ = TournamentSettings("golf", bots, format=fmt, rounds=2, challengers=challengers)
    secret = tournament_secret(4)

    def tables(version: int) -> list[set[frozenset[str]]]:
        plans = schedule(settings_, seats, secret, version)
        return [{frozenset(p.lineup) - {"x"} for p in plans if p.round == r} for r in (0, 1)]

    new, old = tables(SCHEDULE_VERSION), tables(2)
    assert SCHEDULE_VERSION == 3 and len(new[0] | new[1]) == 66
    assert old[0] == old[1] and len(old[0]) == 60


def test_only_rules_that_fix_the_cards_make_a_fixed_deal() -> None:
    """A match's deal is its seed unless a secret rule option sets the cards whatever the
    seed (golf solitaire's deal_numbers); then one number stands for the deal, the same
    for every spelling of the same numbers and different for other numbers or games."""
    numbered = fixed_deal("golf_solitaire", {"holes": "3", "deal_numbers": "1-3"})
    assert numbered is not None and 0 <= numbered < 2**63
    assert fixed_deal("golf_solitaire", {"holes": 3, "deal_numbers": "1,2,3"}) == numbered
    assert fixed_deal("golf_solitaire", {"holes": "3", "deal_numbers": "1,2,4"}) != numbered
    assert fixed_deal("golf_solitaire", {"holes": "3"}) is None
    for game in ("gin_rummy", "golf", "dingo", "goninkan"):
        assert fixed_deal(game, {}) is None
