from __future__ import annotations

from typing import Any

from arena.rating import compute_ratings


def seats(*entries: tuple[str, int] | tuple[str, int, int]) -> list[dict[str, Any]]:
    return [{"entrant": e[0], "rank": e[1], "team": e[2] if len(e) > 2 else None} for e in entries]


def test_winner_gains_and_loser_drops() -> None:
    state = compute_ratings([("m1", seats(("a", 1), ("b", 2)))])
    assert state.current["a"][0] > 25 > state.current["b"][0]
    assert state.current["a"][2] == state.current["b"][2] == 1


def test_free_for_all_orders_by_rank_and_history_is_kept() -> None:
    matches = [(f"m{i}", seats(("a", 1), ("b", 2), ("c", 3))) for i in range(10)]
    state = compute_ratings(matches)
    mu = {n: v[0] for n, v in state.current.items()}
    assert mu["a"] > mu["b"] > mu["c"]
    assert len(state.history) == 30 and state.history[-1][1] == "m9"


def test_ratings_depend_only_on_ordered_results() -> None:
    matches = [("m1", seats(("a", 1), ("b", 2))), ("m2", seats(("b", 1), ("c", 2)))]
    assert compute_ratings(matches) == compute_ratings(list(matches))


def test_teams_are_rated_as_teams() -> None:
    state = compute_ratings([("m1", seats(("a", 1, 0), ("b", 2, 1), ("c", 1, 0), ("d", 2, 1)))])
    assert state.current["a"][0] == state.current["c"][0] > state.current["b"][0]


def test_one_entrant_in_several_seats_counts_once() -> None:
    state = compute_ratings([("m1", seats(("a", 1), ("b", 2), ("a", 3), ("b", 4)))])
    assert state.current["a"][2] == 1 and state.current["a"][0] > state.current["b"][0]
    assert compute_ratings([("m1", seats(("a", 1), ("a", 2)))]).current == {}


def test_one_seat_matches_on_the_same_deal_are_rated_together_by_score() -> None:
    solo = [
        (f"m{i}", [{"entrant": name, "rank": 1, "team": None, "score": score, "deal": "1/77"}])
        for i, (name, score) in enumerate([("a", 3.0), ("b", 9.0), ("c", 5.0)])
    ]
    lower = compute_ratings(solo, lower_scores_win=True).current
    assert lower["a"][0] > lower["c"][0] > lower["b"][0]
    higher = compute_ratings(solo, lower_scores_win=False).current
    assert higher["b"][0] > higher["c"][0] > higher["a"][0]
    other_deal = [*solo[:1], ("m9", [{**solo[1][1][0], "deal": "1/78"}])]
    assert compute_ratings(other_deal).current == {}  # nothing to compare on one deal alone
