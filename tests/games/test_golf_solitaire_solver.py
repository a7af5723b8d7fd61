"""The golf solitaire solver: hand-made deals with known answers, the fast search against
the reference depth-first search, move lists replayed through the engine, cross-checks
with black-hole-solver's published results, and deal parsing."""

from __future__ import annotations

import json
import random

import pytest

from referee.cards import STANDARD_DECK, card, cards
from referee.game import parse_rules
from referee.games.golf_solitaire import GAME
from referee.games.golf_solitaire.board import (
    BoardError,
    format_board_text,
    format_deal_json,
    parse_deal_text,
    solve_file_text,
)
from referee.games.golf_solitaire.deals import Deal, pysol_deal
from referee.games.golf_solitaire.holes import hindsight_best_scores, hole_deal
from referee.games.golf_solitaire.rules import EMPTY, GolfSolitaireRules, adjacency
from referee.games.golf_solitaire.solver import (
    DepthFirstSearch,
    best_score,
    can_clear,
    deal_best_score,
    solve,
)


def rules(**options: object) -> GolfSolitaireRules:
    return parse_rules(GolfSolitaireRules, {k: str(v) for k, v in options.items()})


def deal(columns: list[str], foundation: str | None, stock: str = "") -> Deal:
    cols = [cards(c) for c in columns] + [()] * (7 - len(columns))
    return Deal(tuple(cols), None if foundation is None else card(foundation), cards(stock))


def replay_score(d: Deal, moves: tuple[str, ...], r: GolfSolitaireRules) -> float:
    """Play the moves through the real engine (which refuses any illegal one)."""
    s = GAME.state_from_deals(
        parse_rules(GolfSolitaireRules, {**_opts(r), "holes": "1"}), 1, 0, (d,)
    )
    for code in moves:
        s = GAME.apply(s, 0, code)
    out = GAME.outcome(s)
    assert out is not None, "the line ends the hole"
    return out.scores[0]


def _opts(r: GolfSolitaireRules) -> dict[str, str]:
    return {
        "queen_on_king": str(r.queen_on_king),
        "wrap": str(r.wrap),
        "jokers": str(r.jokers),
        "stock_only_when_blocked": str(r.stock_only_when_blocked),
    }


# ---- hand-made deals ------------------------------------------------------------------


def test_a_run_clears_at_once_keeping_the_whole_stock() -> None:
    d = deal(["6H", "7C", "8D", "9S", "TH", "JC", "QD"], "5S", "2C 3C")
    res = solve(d, rules())
    assert (res.best_score, res.clearable) == (-2, True)
    assert res.moves == tuple(f"play {c}" for c in range(7))
    assert res.steps[0] == "play 0: 6H onto 5S"


def test_the_stock_is_turned_when_nothing_goes_on_a_king() -> None:
    res = solve(deal(["JD"], "KS", "QH 2C"), rules())
    assert (res.best_score, res.moves) == (-1, ("stock", "play 0"))


def test_a_king_under_a_card_without_queens_stays() -> None:
    res = solve(deal(["KD 4C"], "5S", "9C"), rules())
    assert (res.best_score, res.clearable) == (1, False)


def test_the_order_of_plays_decides_a_clear() -> None:
    # 6D then 7H strands 5C 4C; 4C 5C 6D 7H clears.
    res = solve(deal(["7H 6D", "5C 4C"], "5S"), rules())
    assert res.best_score == 0 and res.moves[0] == "play 1"


def test_depth_first_search_values_every_move() -> None:
    columns = [[7, 6], [5, 4], [], [], [], [], []]  # 7H 6D / 5C 4C on a 5
    search = DepthFirstSearch(columns, [], adjacency(False, False), False)
    assert search.move_values([2, 2, 0, 0, 0, 0, 0], 0, 5) == {0: 2, 1: 0}


def test_stock_only_when_blocked_can_cost_a_clear() -> None:
    # Turning the 8C before playing the TH lets 9D, TH, JC follow; forced to play the TH
    # first, the JC is stranded.
    d = deal(["TH", "JC 9D"], "9S", "8C")
    assert solve(d, rules()).best_score == 0
    assert solve(d, rules()).moves[0] == "stock"
    assert solve(d, rules(stock_only_when_blocked=True)).best_score == 1


def test_queen_on_king_and_wrap_each_save_a_card() -> None:
    d = deal(["2C AD", "QH"], "KS")
    assert solve(d, rules()).best_score == 3
    assert solve(d, rules(queen_on_king=True)).best_score == 2
    assert solve(d, rules(wrap=True)).best_score == 1


def test_a_joker_bridges_a_king() -> None:
    res = solve(deal(["9C JK"], "KS"), rules(jokers=1))
    assert (res.best_score, res.moves) == (0, ("play 0", "play 0"))


def test_an_empty_foundation_starts_with_a_tableau_card_not_the_stock() -> None:
    res = solve(deal(["5C", "4D", "6S"], None, "9H"), rules(foundation_starts_empty=True))
    assert res.best_score == -1 and res.moves[0] != "stock"


# ---- the fast search against the reference ---------------------------------------------


def _random_position(rng: random.Random, jokers: int) -> tuple[list[list[int]], int, list[int]]:
    ranks = [c.rank for c in STANDARD_DECK] + [0] * jokers
    rng.shuffle(ranks)
    columns = [[ranks.pop() for _ in range(rng.randint(0, 5))] for _ in range(7)]
    stock = [ranks.pop() for _ in range(rng.randint(0, 12))]
    top = EMPTY if rng.random() < 0.1 else ranks.pop()
    return columns, top, stock


@pytest.mark.parametrize("variant", range(8))
def test_bitset_search_agrees_with_depth_first_search(variant: int) -> None:
    qok, wrap, blocked = bool(variant & 1), bool(variant & 2), bool(variant & 4)
    adj = adjacency(qok, wrap)
    rng = random.Random(variant)
    for i in range(40):
        columns, top, stock = _random_position(rng, jokers=i % 3)
        if not any(columns):
            continue
        reference = DepthFirstSearch(columns, stock, adj, blocked)
        expected = reference.value([len(c) for c in columns], 0, top)
        assert best_score(columns, top, stock, adj, blocked) == expected, (columns, top, stock)


@pytest.mark.parametrize(
    "options",
    [{}, {"queen_on_king": True}, {"wrap": True}, {"stock_only_when_blocked": True}],
    ids=["strict", "queen_on_king", "wrap", "blocked"],
)
def test_move_lists_replay_through_the_engine_to_the_best_score(options: dict[str, bool]) -> None:
    r = rules(**options)
    for number in range(1, 13):
        d = pysol_deal(number)
        res = solve(d, r)
        assert replay_score(d, res.moves, r) == res.best_score
        assert res.clearable == (res.best_score <= 0) == can_clear(d, r)


def test_move_lists_replay_with_jokers_and_an_empty_start() -> None:
    r = rules(jokers=2, foundation_starts_empty=True)
    for seed in range(6):
        d = hole_deal(r, seed, 0)
        res = solve(d, r)
        assert replay_score(d, res.moves, r) == res.best_score


def test_agrees_with_black_hole_solver_published_results() -> None:
    # black-hole-solver's tests: deal 2 solved under the strict rules, deals 10, 12 and 906
    # solved with --wrap-ranks, deal 11 "Unsolved!" with --wrap-ranks.
    assert can_clear(pysol_deal(2), rules())
    for number in (10, 12, 906):
        assert can_clear(pysol_deal(number), rules(wrap=True))
    assert not can_clear(pysol_deal(11), rules(wrap=True))


# ---- hindsight for the leaderboard ----------------------------------------------------


def test_hindsight_best_scores_per_hole() -> None:
    r = rules(holes=3, deal_numbers="1,2,906")
    assert hindsight_best_scores(r, 0) == (6, 0, 1)
    seeded = rules(holes=2)
    assert hindsight_best_scores(seeded, 77) == tuple(
        deal_best_score(hole_deal(seeded, 77, h), seeded) for h in range(2)
    )
    assert hindsight_best_scores({"holes": "2"}, 77) == hindsight_best_scores(seeded, 77)
    assert GAME.hindsight_best(r, 0) == (6, 0, 1)


# ---- reading deals ----------------------------------------------------------------------


def test_board_text_round_trips_and_is_what_black_hole_solver_reads() -> None:
    d = pysol_deal(2)
    text = format_board_text(d)
    assert text.splitlines()[:3] == [
        "Talon: " + " ".join(c.code for c in d.stock),
        "Foundations: 2S",
        "QD 5C 2D 4S 6S",
    ]
    back = parse_deal_text(text)
    assert (back.tableau, back.foundation, back.stock) == (d.tableau, d.foundation, d.stock)


def test_board_text_accepts_display_board_columns_and_a_position_in_play() -> None:
    text = "Foundations: 7D\nTalon: AC 5C\n: 5S JH 3S\n: 5H KD\n:\n:\n: 5D 2D 6C 7H\n: 4D\n: 2H\n"
    d = parse_deal_text(text)
    assert d.foundation == card("7D") and d.stock == cards("AC 5C")
    assert [len(c) for c in d.tableau] == [3, 2, 0, 0, 4, 1, 1]


def test_json_deal_round_trips_and_solves_like_the_text() -> None:
    d = pysol_deal(906)
    as_json = format_deal_json(d)
    assert json.loads(as_json)["foundation"] == "5S"
    assert parse_deal_text(as_json).tableau == d.tableau
    a = solve_file_text(as_json, {"wrap": "true"})
    b = solve_file_text(format_board_text(d), rules(wrap=True))
    assert a == b and a.best_score == solve(d, rules(wrap=True)).best_score


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Foundations: 2S\n" + "AS\n" * 7, "Talon"),
        ("Talon: 3S\nFoundations: 2S\nAH\n", "expected 7 column lines"),
        ("Talon: 3S\nFoundations: 2S\n" + "AH\n" + "\n".join(["4C"] * 6), "more than once"),
        ("Talon: 3S ZZ\nFoundations: 2S\n" + "\n".join(["4C"] * 7), "not a card code"),
        ("Talon:\nFoundations: 2S 3S\n", "one foundation card"),
        ('{"tableau": [["AS"]], "stock": []}', "7 columns"),
        ('{"tableau": [], "stock": [], "extra": 1}', "unknown keys"),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_deal_texts_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        parse_deal_text(text)
