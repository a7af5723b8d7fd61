from __future__ import annotations

import itertools
from typing import Any

from arena.leaderboard import RunningWins, rows_from_results
from arena.rating import compute_ratings, conservative
from arena.stats import head_to_head
from referee.game import Outcome, forfeit_outcome


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


def forfeiting(row: dict[str, Any], forfeited: bool = True) -> dict[str, Any]:
    return {**row, "forfeited": int(forfeited)}


def test_a_one_seat_forfeit_ranks_below_every_bot_that_played_the_deal() -> None:
    # A bot that crashed at once stops on 0 strokes, the best golf score there is.
    solo = [
        (f"m{i}", [{"entrant": name, "rank": 1, "team": None, "score": score, "deal": "1/77"}])
        for i, (name, score) in enumerate([("crash", 0.0), ("a", 3.0), ("b", 9.0)])
    ]
    solo[0] = (solo[0][0], [forfeiting(solo[0][1][0])])
    mu = {n: v[0] for n, v in compute_ratings(solo, lower_scores_win=True).current.items()}
    assert mu["a"] > mu["b"] > mu["crash"]


def test_a_forfeit_loses_for_the_whole_team() -> None:
    # The forfeiting seat 0 is ranked last; its partner's rank 1 must not carry the team.
    rows = seats(("crash", 4, 0), ("b", 2, 1), ("c", 1, 0), ("d", 2, 1))
    rows = [forfeiting(r, r["entrant"] == "crash") for r in rows]
    mu = {n: v[0] for n, v in compute_ratings([("m1", rows)]).current.items()}
    assert mu["b"] == mu["d"] > 25 > mu["c"] == mu["crash"]


def test_a_forfeit_in_a_free_for_all_is_no_result_among_the_others() -> None:
    # Stopped at the first move every other seat is tied (a draw a partner may have been
    # losing); stopped later, the leader would keep a lead it had not yet won.
    for others in ((1, 1), (1, 2), (2, 1)):
        rows = [
            forfeiting({"entrant": "crash", "rank": 3, "team": None}),
            forfeiting({"entrant": "a", "rank": others[0], "team": None}, False),
            forfeiting({"entrant": "b", "rank": others[1], "team": None}, False),
        ]
        mu = {n: v[0] for n, v in compute_ratings([("m1", rows)]).current.items()}
        assert mu["a"] == mu["b"] > 25 > mu["crash"], others


def test_forfeit_outcome_ranks_the_forfeiting_team_last() -> None:
    standings = Outcome(scores=(10, 0, 10, 0), ranks=(1, 3, 1, 3), teams=(0, 1, 0, 1))
    outcome = forfeit_outcome(standings, [0])
    assert outcome.ranks == (3, 1, 3, 1)
    assert outcome.details["forfeited"] == [0]
    alone = forfeit_outcome(Outcome(scores=(5, 2, 9), ranks=(2, 1, 3)), [1])
    assert alone.ranks == (1, 3, 2)


def test_running_wins_rank_a_solitaire_deal_among_the_bots_that_played_it() -> None:
    """The progress line's wins. Every solo match ranks its bot first: a deal goes to the
    best score among the bots that have played it so far (golf solitaire: fewest cards
    left), a forfeit wins nothing, and a seat of a several-seat match wins by rank."""
    wins = RunningWins("golf_solitaire")

    def solo(name: str, deal: str, left: int, forfeited: bool = False) -> None:
        wins.add((name,), deal, Outcome(scores=(left,), ranks=(1,)), (0,) if forfeited else ())

    solo("a", "1/10", 9)
    assert wins.wins["a"] == 1  # alone on the deal so far
    solo("b", "1/10", 4)
    solo("crash", "1/10", 0, forfeited=True)  # stopped on 0 cards, at once
    assert (wins.wins["a"], wins.wins["b"], wins.wins["crash"]) == (0, 1, 0)
    solo("a", "1/11", 3)
    solo("b", "1/11", 3)  # a tie: both first
    solo("crash", "1/11", 0, forfeited=True)
    assert (wins.wins["a"], wins.wins["b"], wins.wins["crash"]) == (1, 2, 0)

    gin = RunningWins("gin_rummy")
    gin.add(("a", "b"), "1/5", Outcome(scores=(100, 20), ranks=(1, 2)), ())
    gin.add(("b", "a"), "1/5", Outcome(scores=(0, 0), ranks=(1, 2)), (0,))  # b forfeited
    assert (gin.wins["a"], gin.wins["b"]) == (2, 0)  # a beat it, whatever the order then


def test_running_wins_of_a_resumed_tournament_count_what_was_stored_before() -> None:
    """A resumed tournament's progress line counted only the wins of this run; the
    stored matches, as ``Store.results_in_order`` gives them, count first."""

    def row(entrant: str, deal: str, score: float, rank: int) -> dict[str, Any]:
        return {"entrant": entrant, "deal": deal, "score": score, "rank": rank, "forfeited": 0}

    solo = RunningWins("golf_solitaire")
    solo.add_stored([("t1-0", [row("a", "1/10", 9, 1)]), ("t1-1", [row("b", "1/10", 4, 1)])])
    assert (solo.wins["a"], solo.wins["b"]) == (0, 1)
    solo.add(("a",), "1/10", Outcome(scores=(2,), ranks=(1,)), ())  # the deal's last bot
    assert (solo.wins["a"], solo.wins["b"]) == (1, 0)
    gin = RunningWins("gin_rummy")
    gin.add_stored([("t1-0", [row("a", "1/5", 30, 1), row("b", "1/5", 0, 2)])])
    gin.add(("b", "a"), "1/5", Outcome(scores=(40, 0), ranks=(1, 2)), ())
    assert (gin.wins["a"], gin.wins["b"]) == (1, 1)


def test_a_bot_in_several_seats_wins_a_match_once() -> None:
    """Wins are "the matches it ranked first in" (docs/tournaments.md): a bot partnering
    itself at four-player gin, or first in two seats of a Dingo table, counted a win per
    seat (24 wins in 12 matches, on the leaderboard and the progress line)."""

    def row(entrant: str, rank: int, team: int | None = None) -> dict[str, Any]:
        return {"match_id": "m1", "deal": "1/1", "entrant": entrant, "score": 0.0,
                "rank": rank, "team": team, "faults": 0, "forfeited": 0}  # fmt: skip

    partnered = [row("a", 1, 0), row("b", 3, 1), row("a", 1, 0), row("c", 3, 1)]
    tied_first = [row("a", 1), row("b", 3), row("a", 1), row("b", 4)]
    for match in (partnered, tied_first):
        matches = [("m1", match)]
        board = rows_from_results(matches, compute_ratings(matches).current, False)
        a = next(r for r in board if r.entrant == "a")
        assert (a.games, a.wins) == (2, 1)  # games counts its seats, wins its matches
        stored = RunningWins("dingo")
        stored.add_stored(matches)
        assert stored.wins["a"] == 1
    live = RunningWins("dingo")
    live.add(("a", "b", "a", "b"), "1/1", Outcome(scores=(9, 3, 9, 1), ranks=(1, 3, 1, 4)), ())
    assert live.wins["a"] == 1


def test_a_bot_that_forfeits_every_free_for_all_ranks_below_every_bot_that_played() -> None:
    """A forfeit always loses (docs/tournaments.md). Rated as losing to one side made of
    all the other seats, whose summed strength made its loss all but certain, a bot that
    crashed at once in all nine of its three-seat matches stayed above a bot that played
    every match (mu 21.6 against 15.8). Now each other seat beats it one on one."""
    skill = {"strong": 1, "mid": 2, "weak": 3}
    matches: list[tuple[str, list[dict[str, Any]]]] = []
    for table in itertools.combinations(["strong", "mid", "weak", "crash"], 3):
        for turn in range(3):
            lineup = table[turn:] + table[:turn]
            rows = [
                forfeiting({"entrant": name, "rank": 1 if "crash" in lineup else skill[name],
                            "team": None}, False)
                if name != "crash" else forfeiting({"entrant": name, "rank": 3, "team": None})
                for name in lineup
            ]  # fmt: skip
            matches.append((f"m{len(matches)}", rows))
    current = compute_ratings(matches).current
    order = sorted(current, key=lambda n: conservative(*current[n][:2]), reverse=True)
    assert order == ["strong", "mid", "weak", "crash"]
    assert current["crash"][0] < current["weak"][0] - 5
    assert all(games == 9 for _, _, games in current.values())


def test_a_free_for_all_a_forfeit_stopped_is_a_win_over_the_forfeiter_and_no_more() -> None:
    """A bot that failed to start stopped each of its golf matches at once with every
    other seat tied on 0 strokes: the head-to-head table gave the strategy bot 9 draws
    with the random bot it beat in every real match, and those 0 strokes went into the
    mean scores as the best golf ever played. The ratings already took no order from such
    a match; now no statistic does: each other seat beat the forfeiter, and no more."""

    def row(match: str, entrant: str, strokes: int, rank: int, forfeited: int = 0) -> Any:
        return {"match_id": match, "deal": f"1/{match}", "entrant": entrant, "score": strokes,
                "rank": rank, "team": None, "faults": forfeited, "forfeited": forfeited}  # fmt: skip

    played = ("m1", [row("m1", "strong", 10, 1), row("m1", "random", 30, 2)])
    stopped = ("m2", [row("m2", "crash", 0, 3, 1), row("m2", "strong", 0, 1),
                      row("m2", "random", 0, 1)])  # fmt: skip
    matches = [played, stopped]
    pairs = {(p.a, p.b): (p.games, p.wins, p.draws, p.losses) for p in head_to_head(matches)}
    assert pairs[("strong", "random")] == (1, 1, 0, 0)  # the played match only
    assert pairs[("crash", "strong")] == pairs[("crash", "random")] == (1, 0, 0, 1)
    ratings = compute_ratings(matches, lower_scores_win=True).current
    board = {r.entrant: r for r in rows_from_results(matches, ratings, True)}
    assert (board["strong"].mean_score, board["random"].mean_score) == (10, 30)
    assert board["crash"].mean_score is None
    assert (board["strong"].wins, board["random"].wins, board["crash"].wins) == (2, 1, 0)
    assert (board["random"].mean_rank, board["crash"].mean_rank) == (1.5, 3)
    live = RunningWins("golf")
    live.add(("crash", "strong", "random"), "1/2", Outcome((0, 0, 0), (3, 2, 1)), (0,))
    assert (live.wins["strong"], live.wins["random"], live.wins["crash"]) == (1, 1, 0)
