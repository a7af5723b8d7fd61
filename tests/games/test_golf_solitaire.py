"""Rule clauses of golf solitaire (docs/games/golf_solitaire.md), each on a scripted deal
driven through the real engine, plus the duplicate guarantees and PySolFC deal numbers."""

from __future__ import annotations

import random

import pytest

from referee.cards import card, cards
from referee.game import IllegalAction, InvalidAction, RulesError, get_game, parse_rules
from referee.games.golf_solitaire import GAME
from referee.games.golf_solitaire.board import format_board_text
from referee.games.golf_solitaire.deals import Deal, pysol_deal, pysol_deal_order
from referee.games.golf_solitaire.engine import GolfSolitaireState
from referee.games.golf_solitaire.holes import hole_deal
from referee.games.golf_solitaire.rules import GolfSolitaireRules
from referee.games.golf_solitaire.solver import can_clear


def rules(**options: object) -> GolfSolitaireRules:
    return parse_rules(GolfSolitaireRules, {k: str(v) for k, v in options.items()})


def deal(columns: list[str], foundation: str | None, stock: str = "") -> Deal:
    """A scripted deal: 7 columns (bottom to top; missing columns are empty)."""
    cols = [cards(c) for c in columns] + [()] * (7 - len(columns))
    return Deal(tuple(cols), None if foundation is None else card(foundation), cards(stock))


def start(d: Deal | list[Deal], seats: int = 1, **options: object) -> GolfSolitaireState:
    deals = d if isinstance(d, list) else [d]
    r = rules(holes=len(deals), **options)
    return GAME.state_from_deals(r, seats, 0, tuple(deals))


def play(s: GolfSolitaireState, *codes: str, seat: int = 0) -> GolfSolitaireState:
    for code in codes:
        s = GAME.apply(s, seat, GAME.decode(code))
    return s


def legal(s: GolfSolitaireState, seat: int = 0) -> tuple[str, ...]:
    return GAME.legal_actions(s, seat)


# ---- Deal -----------------------------------------------------------------------------


def test_deal_35_face_up_in_7_columns_of_5_then_foundation_then_16_stock() -> None:
    s = GAME.initial_state(rules(), 1, 12345)
    view = GAME.observation(s, 0)
    assert [len(col) for col in view.tableau] == [5] * 7
    assert len(view.foundation) == 1
    assert view.stock_count == 16
    everything = [c for col in view.tableau for c in col] + list(view.foundation)
    everything += list(view.unseen)
    assert len(set(everything)) == 52


def test_foundation_starts_empty_puts_17_in_the_stock_and_first_move_is_a_tableau_card() -> None:
    s = GAME.initial_state(rules(foundation_starts_empty=True), 1, 7)
    view = GAME.observation(s, 0)
    assert view.foundation == () and view.stock_count == 17
    assert legal(s) == tuple(f"play {c}" for c in range(7))  # any card starts it; no stock
    with pytest.raises(IllegalAction):
        play(s, "stock")
    s = play(s, "play 3")
    assert GAME.observation(s, 0).foundation == (view.tableau[3][-1],)
    assert "stock" in legal(s)


def test_jokers_are_added_to_the_deck() -> None:
    for jokers in (1, 2):
        d = hole_deal(rules(jokers=jokers), 99, 0)
        assert len(d.cards()) == 52 + jokers
        assert sum(c.is_joker for c in d.cards()) == jokers
        assert len(d.stock) == 16 + jokers


# ---- Play -----------------------------------------------------------------------------


def test_a_card_one_rank_above_or_below_plays_suit_ignored() -> None:
    s = start(deal(["4H", "6D", "7C", "5C", "3S"], "5S", "9C"))
    assert legal(s) == ("play 0", "play 1", "stock")
    s = play(s, "play 1")
    assert GAME.observation(s, 0).foundation == cards("5S 6D")
    assert legal(s) == ("play 2", "play 3", "stock")


def test_only_the_last_card_of_a_column_is_available() -> None:
    s = start(deal(["6H 9C"], "5S", "2C"))
    assert legal(s) == ("stock",)  # the 6H is covered by the 9C
    with pytest.raises(IllegalAction):
        play(s, "play 0")


def test_strict_nothing_on_a_king() -> None:
    s = start(deal(["QH", "AD", "KC"], "KS", "2C"))
    assert legal(s) == ("stock",)


def test_strict_only_a_two_on_an_ace() -> None:
    s = start(deal(["KH", "2D", "QC"], "AS", "9C"))
    assert legal(s) == ("play 1", "stock")


def test_strict_a_king_may_go_on_a_queen() -> None:
    s = start(deal(["KH"], "QS", "9C"))
    assert legal(s) == ("play 0", "stock")


def test_queen_on_king_option_allows_only_the_queen() -> None:
    s = start(deal(["QH", "AD", "JC"], "KS", "2C"), queen_on_king=True)
    assert legal(s) == ("play 0", "stock")


def test_wrap_king_and_ace_adjacent_both_ways_and_queen_on_king() -> None:
    s = start(deal(["QH", "AD", "JC", "2S"], "KS", "2C"), wrap=True)
    assert legal(s) == ("play 0", "play 1", "stock")  # Q and A on K
    s = start(deal(["KH", "2D", "QC"], "AS", "9C"), wrap=True)
    assert legal(s) == ("play 0", "play 1", "stock")  # K and 2 on A


def test_joker_goes_on_any_card_and_any_card_goes_on_a_joker() -> None:
    s = start(deal(["JK", "9C"], "KS", "2C 5D"), jokers=1)
    assert legal(s) == ("play 0", "stock")  # a joker even on a King (strict)
    s = play(s, "play 0")
    assert legal(s) == ("play 1", "stock")  # and a 9 on the joker
    s = start(deal(["9C"], "KS", "JK 5D"), jokers=1)
    s = play(s, "stock")
    assert GAME.observation(s, 0).foundation[-1].is_joker
    assert legal(s) == ("play 0", "stock")


def test_stock_may_be_turned_at_any_time() -> None:
    s = start(deal(["4H", "6D"], "5S", "9C 8C"))
    assert "stock" in legal(s)
    s = play(s, "stock")
    view = GAME.observation(s, 0)
    assert view.foundation == cards("5S 9C") and view.stock_count == 1
    assert view.unseen == cards("8C")


def test_stock_only_when_blocked_option() -> None:
    s = start(deal(["4H", "KD"], "5S", "9C 8C"), stock_only_when_blocked=True)
    assert legal(s) == ("play 0",)
    with pytest.raises(IllegalAction):
        play(s, "stock")
    s = play(s, "play 0")  # 4H: now nothing fits
    assert legal(s) == ("stock",)


def test_no_redeal_hole_ends_when_stock_is_out_and_nothing_plays() -> None:
    s = start(deal(["KD QC", "8H"], "5S", "9C"))
    s = play(s, "stock", "play 1")  # 9C, 8H; the Q and K stay
    assert s.over and GAME.outcome(s) is not None
    assert GAME.outcome(s).details["hole_scores"] == [[2]]  # type: ignore[union-attr]


def test_a_hole_over_at_its_deal_is_scored_at_once() -> None:
    # "The hole ends when the tableau is empty, or when the stock is empty and no card can
    # be played": a scripted hole dealt that way is over before any move, not a seat to act
    # with no legal action.
    stuck = deal(["KD QC", "2H"], "5S")  # no stock, nothing fits on the 5S
    s = start(stuck)
    assert s.over and GAME.to_act(s) == ()
    out = GAME.outcome(s)
    assert out is not None and out.details["hole_scores"] == [[3]]
    cleared = deal([], "5S", "9C 8C")  # nothing in the tableau: -1 per stock card
    s = start([deal(["4H"], "5S", "9C"), cleared, stuck], seats=2)
    s = play(play(s, "play 0", seat=0), "play 0", seat=1)  # hole 1; holes 2 and 3 score alone
    out = GAME.outcome(s)
    assert s.over and out is not None
    assert out.details["hole_scores"] == [[-1, -1], [-2, -2], [3, 3]]
    assert out.details["cleared"] == [[True, True], [True, True], [False, False]]
    kinds = [e.kind for e in GAME.events(s)]
    dead_hole = ["deal", "finish", "finish", "hole_over"]  # dealt, over at once for both
    assert kinds == ["move", "finish", "hole_over", *dead_hole, *dead_hole, "match_over"]


# ---- Scoring --------------------------------------------------------------------------


def test_not_cleared_scores_one_per_tableau_card_left() -> None:
    s = start(deal(["KD QC 2H", "8H"], "5S", "9C"))
    s = play(s, "stock", "play 1")
    assert GAME.outcome(s).scores == (3.0,)  # type: ignore[union-attr]


def test_cleared_scores_minus_the_stock_cards_left_and_ends_the_hole_at_once() -> None:
    s = start(deal(["7C", "6D"], "5S", "9C 8C JH"))
    s = play(s, "play 1", "play 0")  # cleared with 3 stock cards left
    out = GAME.outcome(s)
    assert out is not None and out.scores == (-3.0,)
    assert out.details["cleared"] == [[True]]


def test_match_is_nine_holes_by_default_par_45() -> None:
    assert GolfSolitaireRules().holes == 9
    s = GAME.initial_state(rules(), 1, 5)
    s = _finish_match(s)
    out = GAME.outcome(s)
    assert out is not None and len(out.details["hole_scores"]) == 9
    assert out.details["par"] == 45
    assert out.scores[0] == sum(h[0] for h in out.details["hole_scores"])


def test_multiplayer_form_eighteen_holes() -> None:
    s = GAME.initial_state(rules(holes=18), 2, 5)
    out = GAME.outcome(_finish_match(s))
    assert out is not None and len(out.details["hole_scores"]) == 18


def _finish_match(s: GolfSolitaireState) -> GolfSolitaireState:
    """Every seat plays its first legal move until the match ends."""
    while to_act := GAME.to_act(s):
        for seat in to_act:
            if seat in GAME.to_act(s):
                s = GAME.apply(s, seat, legal(s, seat)[0])
    return s


def test_stroke_scoring_lowest_total_ranks_first_ties_share() -> None:
    s = start(deal(["7C", "6D"], "5S", "9C"), seats=3)
    s = play(s, "play 1", "play 0", seat=0)  # cleared, 1 stock card left: -1
    s = play(s, "stock", seat=1)  # 9C fits neither 7C nor 6D: stuck with 2
    s = play(s, "play 1", "play 0", seat=2)  # -1
    out = GAME.outcome(s)
    assert out is not None
    assert out.scores == (-1.0, 2.0, -1.0)
    assert out.ranks == (1, 3, 1)
    assert out.details["result"] == "seat 0 -1, seat 1 +2, seat 2 -1"


def test_match_scoring_holes_won_by_lower_score_result_in_holes_up() -> None:
    easy = deal(["7C", "6D"], "5S", "9C 8C")
    holes = [easy, easy, easy]
    s = start(holes, seats=2, scoring="match")
    # Hole 1: seat 0 clears with 2 left, seat 1 turns the stock first (1 left).
    s = play(s, "play 1", "play 0", seat=0)
    s = play(s, "stock", "stock", "play 0", "play 1", seat=1)  # 9C 8C 7C 6D: 0 left
    # Hole 2: both clear with 2 left: halved.
    s = play(s, "play 1", "play 0", seat=0)
    s = play(s, "play 1", "play 0", seat=1)
    # Hole 3: seat 0 clears, seat 1 wastes the stock.
    s = play(s, "play 1", "play 0", seat=0)
    s = play(s, "stock", "stock", "play 0", "play 1", seat=1)
    out = GAME.outcome(s)
    assert out is not None
    assert out.details["holes_won"] == [2, 0]
    assert out.details["holes_up"] == [2, -2]
    assert out.details["result"] == "seat 0 2 up"
    assert out.scores == (2.0, -2.0) and out.ranks == (1, 2)


def test_match_scoring_takes_exactly_two_seats() -> None:
    r = rules(scoring="match")
    assert GAME.seats(r) == range(2, 3)
    with pytest.raises(RulesError, match="2 to 2 seats"):
        GAME.initial_state(r, 3, 1)


def test_stroke_allows_one_to_eight_seats() -> None:
    assert GAME.seats(rules()) == range(1, 9)
    with pytest.raises(RulesError):
        GAME.initial_state(rules(), 9, 1)


def test_one_seat_is_plain_solitaire_still_ranked() -> None:
    out = GAME.outcome(_finish_match(GAME.initial_state(rules(holes=2), 1, 3)))
    assert out is not None and out.ranks == (1,) and len(out.scores) == 1


# ---- Several players (duplicate) ------------------------------------------------------


def test_every_seat_plays_its_own_copy_of_the_same_deal() -> None:
    s = GAME.initial_state(rules(holes=3), 4, 2024)
    for hole in range(3):
        views = [GAME.observation(s, seat) for seat in range(4)]
        assert all(v.tableau == views[0].tableau for v in views)
        assert all(v.foundation == views[0].foundation for v in views)
        assert all(v.unseen == views[0].unseen for v in views)
        assert s.deal == hole_deal(s.rules, 2024, hole)  # a function of rules, seed, hole
        s = _finish_hole(s)


def _finish_hole(s: GolfSolitaireState) -> GolfSolitaireState:
    hole = s.hole
    while s.hole == hole and not s.over:
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, legal(s, seat)[-1])
    return s


def test_all_seats_act_at_once_and_a_finished_seat_waits() -> None:
    s = start([deal(["7C", "6D"], "5S", "9C 8C"), deal(["4C"], "5S", "9C")], seats=3)
    assert GAME.to_act(s) == (0, 1, 2)
    s = play(s, "play 1", "play 0", seat=1)  # seat 1 clears
    assert GAME.to_act(s) == (0, 2)
    assert legal(s, 1) == ()
    with pytest.raises(IllegalAction, match="wait for the other seats"):
        play(s, "stock", seat=1)
    s = play(s, "play 1", "play 0", seat=0)
    s = play(s, "play 1", "play 0", seat=2)
    assert s.hole == 1 and GAME.to_act(s) == (0, 1, 2)  # next hole, everyone again


def test_no_seat_sees_another_seats_play_during_a_hole() -> None:
    s = start([deal(["7C", "6D", "KH"], "5S", "9C 8C")], seats=2)
    before = GAME.observation(s, 1)
    s2 = play(s, "play 1", "stock", seat=0)
    assert GAME.observation(s2, 1) == before
    assert GAME.public_view(s2) == GAME.public_view(s)
    for e in GAME.events(s2):
        assert "6D" not in e.text and "9C" not in e.text  # public text names no card
        assert e.visible_to == frozenset({0})


def test_hole_scores_become_public_when_every_seat_has_finished() -> None:
    s = start([deal(["7C", "6D"], "5S", "9C 8C"), deal(["4C"], "5S", "9C")], seats=2)
    s = play(s, "play 1", "play 0", seat=0)
    assert GAME.observation(s, 1).results == ()
    finish = [e for e in GAME.events(s) if e.kind == "finish"]
    assert finish and "-2" not in finish[0].text and "-2" in (finish[0].private_text or "")
    s = play(s, "stock", "stock", "play 0", "play 1", seat=1)
    view = GAME.observation(s, 1)
    assert len(view.results) == 1 and view.results[0].scores[0] == -2
    hole_over = [e for e in GAME.events(s) if e.kind == "hole_over"]
    assert hole_over and "seat 0 -2" in hole_over[0].text and not hole_over[0].visible_to


def test_the_stock_order_is_never_in_an_observation() -> None:
    d = deal(["7C", "6D"], "5S", "9C 8C JH 2D")
    shuffled = Deal(d.tableau, d.foundation, cards("2D JH 8C 9C"))
    a, b = start(d, seats=2), start(shuffled, seats=2)
    assert GAME.observation(a, 0) == GAME.observation(b, 0)
    assert GAME.observation(a, 0).unseen == tuple(sorted(d.stock))
    assert GAME.public_view(a) == GAME.public_view(b)


# ---- Deal numbers ---------------------------------------------------------------------

# PySolFC Golf deals, as published by black-hole-solver's test boards and solutions
# (deals 1, 2, 12, 906): stock in turning order, foundation, columns bottom to top.
KNOWN_DEALS = {
    1: (
        "8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H",
        "TH",
        [
            "JD 5H KH AS 4H",
            "2D KD 3H AH AC",
            "9H KC 2S 3C 4D",
            "JC 9S KS 4C 7S",
            "5D 5S 9D 5C 3S",
            "7H AD QD TS TD",
            "7C QC JS QH 4S",
        ],
    ),
    2: (
        "3S TS 9H 2H 3H AD 7H 3D 5H 8D KH 7D AS 5S TH JH",
        "2S",
        [
            "QD 5C 2D 4S 6S",
            "QC 4D 9C 5D 4H",
            "KC JD TD QH AC",
            "3C JS JC 7S 8H",
            "4C 6H 8C 9D AH",
            "2C QS 6C KS 9S",
            "KD 6D 8S 7C TC",
        ],
    ),
    12: (
        "3C 2S 7C 4H 9D 8S AH 6C TS 5S AC TC 8C JC 6S 4S",
        "TH",
        [
            "7D AD TD 2D 5D",
            "5H 4D 7S 8H 4C",
            "9C 3S QD AS 7H",
            "QC 2C QS 8D 9H",
            "6H JH 3D JS 9S",
            "KH KS QH KC JD",
            "6D 2H 3H 5C KD",
        ],
    ),
    906: (
        "6D KC KS AH AC KD 4S 8D 8H JD TC AD QH 4C JS 2C",
        "5S",
        [
            "9D TS 5C 7D 7H",
            "3S 6S 5D QC 7S",
            "9S 6C 3H JC 9H",
            "QD 7C 5H 3C QS",
            "AS KH 2H TH TD",
            "4H 8C 6H 2D 2S",
            "9C 4D 8S JH 3D",
        ],
    ),
}


@pytest.mark.parametrize("number", sorted(KNOWN_DEALS))
def test_pysolfc_deal_numbers_match_published_golf_boards(number: int) -> None:
    stock, foundation, columns = KNOWN_DEALS[number]
    d = pysol_deal(number)
    assert d.stock == cards(stock)
    assert d.foundation == card(foundation)
    assert d.tableau == tuple(cards(col) for col in columns)
    assert d.number == number


def test_pysolfc_large_deal_numbers_use_the_mersenne_twister() -> None:
    # Black Hole deal 26464608654870335080 as black-hole-solver shows it: its 52 cards
    # dealt in PySolFC order less the Ace of spades (its foundation), 17 columns of 3.
    order = [c for c in pysol_deal_order(26464608654870335080) if c != card("AS")]
    columns = [order[k::17] for k in range(17)]
    assert columns[0] == list(cards("KD JH JS"))
    assert columns[4] == list(cards("AH 3S 6H"))
    assert columns[16] == list(cards("9H 2S 2D"))
    assert len(pysol_deal(26464608654870335080).stock) == 16


def _pysol_cards_golf_board(number: int) -> list[str]:
    """PySolFC Golf deal ``number`` as the pysol_cards package (PySolFC's generator) lays
    it out: black-hole-solver's board text, one line per row, spaces normalised."""
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    text = Game("golf", number, RandomBase.DEALS_PYSOLFC).calc_deal_string(
        number, CardRenderer(True)
    )
    return _board_lines(text)


def _board_lines(text: str) -> list[str]:
    """A board text's rows, spaces and the optional leading ':' normalised, comments out."""
    return [
        " ".join(line.replace(":", "").split())
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    ]


def test_pysolfc_deals_match_pysolfc_own_generator() -> None:
    # Every Microsoft-shuffle deal up to 2,000, both sides of the switch to the Mersenne
    # twister at 32,000 (32000 itself is the next test's), and large numbers up to the
    # option's bound of 10**20.
    rng = random.Random(20)
    numbers = [
        *range(1, 2001),
        *range(31990, 32000),
        *range(32001, 32011),
        *(rng.randint(32001, 10**20) for _ in range(300)),
        2**32,
        2**64 + 1,
        10**20,
    ]
    for number in numbers:
        ours = _board_lines(format_board_text(pysol_deal(number)))
        assert ours == _pysol_cards_golf_board(number), number


def test_deal_32000_is_pysolfc_own_a_mersenne_twister_deal() -> None:
    # PySolFC's constructRandom gives the Microsoft generator the numbers below 32000
    # ("0 <= seed < 32000"); the pysol_cards package gives it 32000 as well, so there the
    # two disagree and PySolFC, whose numbering the option promises, is followed.
    from pysol_cards.cards import CardRenderer, createCards
    from pysol_cards.random import MTRandom

    def twister_order(number: int) -> list[str]:
        shuffler = MTRandom()
        shuffler.setSeed(number)
        deck = list(createCards(1))
        shuffler.shuffle(deck)
        render = CardRenderer(True)
        return [render.to_s(c) for c in reversed(deck)]

    for number in (32000, 32001):
        assert [c.code for c in pysol_deal_order(number)] == twister_order(number), number
    assert _board_lines(format_board_text(pysol_deal(32000))) != _pysol_cards_golf_board(32000)


def test_deal_numbers_option_plays_those_deals_and_shows_them_after_the_match() -> None:
    r = rules(holes=2, deal_numbers="2,906")
    s = GAME.initial_state(r, 1, 0)
    assert GAME.observation(s, 0).tableau == pysol_deal(2).tableau
    s = _finish_hole(s)
    view = GAME.observation(s, 0)
    assert view.tableau == pysol_deal(906).tableau
    # not while the match goes on: the next number (and so the next stock) could be guessed
    assert view.results[0].deal_number == ""
    s = _finish_hole(s)
    assert [h.deal_number for h in GAME.observation(s, 0).results] == ["2", "906"]


def test_deal_numbers_stay_out_of_the_events_until_the_match_is_over() -> None:
    # "What a seat sees ... Never the order of the stock": the numbers run in sequence, so
    # a finished hole's number in an event would give the next holes' stocks away.
    s = GAME.initial_state(rules(holes=2, deal_numbers="2,3"), 2, 0)
    texts: list[str] = []
    while not s.over:
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, legal(s, seat)[-1])
        if not s.over:
            texts += [e.text_for(v) for e in GAME.events(s) for v in (0, 1, None)]
    assert any("hole 1" in t for t in texts) and not any("PySolFC" in t for t in texts)
    assert "(PySolFC deal 3)" in next(e.text for e in GAME.events(s) if e.kind == "hole_over")


def test_deal_numbers_are_a_secret_option_for_players() -> None:
    from referee.rules import rules_to_strings

    assert (
        rules_to_strings(rules(holes=2, deal_numbers="2,906"), for_players=True)["deal_numbers"]
        == "hidden"
    )
    assert rules_to_strings(rules(holes=2), for_players=True)["deal_numbers"] == "none"


def test_winnable_only_skips_a_deal_the_solver_cannot_clear() -> None:
    strict = rules()
    assert not can_clear(pysol_deal(1), strict)  # deal 1 is lost even with the stock known
    assert can_clear(pysol_deal(2), strict)
    assert hole_deal(rules(holes=1, deal_numbers=1, winnable_only=True), 0, 0).number == 2
    # From the seed: a seed whose first deal is lost gets a reshuffle, the same every time.
    seed = next(n for n in range(100) if not can_clear(hole_deal(rules(), n, 0), strict))
    chosen = hole_deal(rules(winnable_only=True), seed, 0)
    assert can_clear(chosen, strict)
    assert chosen != hole_deal(rules(), seed, 0)
    assert chosen == hole_deal(rules(winnable_only=True), seed, 0)


def test_winnable_only_never_plays_a_deal_twice_in_a_match() -> None:
    # Skipping to the next number made holes 1-9 play deals 2, 2, 5, 5, 5, 12, 12, 12, 12:
    # from its second time on a seat knows the deal's stock order. A skip now passes over
    # every number listed for a hole and every number an earlier hole moved to.
    listed = tuple(range(1, 10))
    r = rules(holes=9, deal_numbers="1-9", winnable_only=True)
    played = [hole_deal(r, 0, h).number or 0 for h in range(9)]
    assert len(set(played)) == 9, played
    strict = rules()
    for number, wanted in zip(played, listed, strict=True):
        assert can_clear(pysol_deal(number), strict)
        if can_clear(pysol_deal(wanted), strict):
            assert number == wanted
        else:
            assert number > wanted and number not in listed
    # A match plays them: the engine asks for each hole's deal as the hole starts.
    s = GAME.initial_state(r, 1, 0)
    for number in played:
        assert GAME.observation(s, 0).tableau == pysol_deal(number).tableau
        s = _finish_hole(s)


def test_a_deal_number_listed_twice_is_refused() -> None:
    with pytest.raises(RulesError, match="repeats 5: each deal may be played once"):
        parse_rules(GolfSolitaireRules, {"holes": "2", "deal_numbers": "5,5"})
    # 36 holes, 18 numbers repeated: the error names a few.
    with pytest.raises(RulesError, match=r"repeats 1, 2, 3, 4, 5 and 13 more: ") as refused:
        parse_rules(GolfSolitaireRules, {"holes": "36", "deal_numbers": "1-18,1-18"})
    assert len(str(refused.value)) < 100


def test_winnable_only_past_the_last_deal_number_is_a_rules_error() -> None:
    last = 10**20
    assert not can_clear(pysol_deal(last), rules())
    with pytest.raises(RulesError, match="no clearable deal for hole 1 from PySolFC deal"):
        GAME.initial_state(rules(holes=1, deal_numbers=last, winnable_only=True), 1, 0)


def test_winnable_only_past_the_last_deal_number_is_refused_before_the_first_hole() -> None:
    # "`winnable_only`: ... a deal that cannot be cleared ... is skipped for the next one";
    # past PySolFC's last number there is none, and the contract rejects "inconsistent
    # options ... with a clear error": at the start, not from apply() when hole 1 ends.
    r = rules(holes=2, deal_numbers=f"2,{10**20}", winnable_only=True)
    with pytest.raises(RulesError, match="no clearable deal for hole 2 from PySolFC deal"):
        GAME.initial_state(r, 1, 0)


# ---- Options, codes and errors --------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"holes": "0"}, "holes"),
        ({"jokers": "3"}, "jokers"),
        ({"holes": "3", "deal_numbers": "1,2"}, "one PySolFC deal number per hole"),
        ({"holes": "1", "deal_numbers": "0"}, "PySolFC deals run"),
        ({"holes": "1", "deal_numbers": "5", "jokers": "1"}, "jokers=0"),
        ({"scoring": "skins"}, "stroke, match"),
    ],
)
def test_inconsistent_options_are_rejected(options: dict[str, str], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_rules(GolfSolitaireRules, options)


def test_defaults_follow_the_spec() -> None:
    r = GolfSolitaireRules()
    assert (r.holes, r.queen_on_king, r.wrap, r.jokers) == (9, False, False, 0)
    assert not (r.foundation_starts_empty or r.stock_only_when_blocked or r.winnable_only)
    assert r.scoring == "stroke" and r.deal_numbers is None


@pytest.mark.parametrize("code", ["play 7", "play", "Stock", "play -1", "draw", "play 01"])
def test_malformed_codes_are_invalid(code: str) -> None:
    with pytest.raises(InvalidAction):
        GAME.decode(code)


def test_illegal_moves_are_refused_with_the_legal_ones_named() -> None:
    s = start(deal(["4H", "KD"], "5S", ""))
    with pytest.raises(IllegalAction, match="legal: play 0"):
        play(s, "play 1")
    with pytest.raises(IllegalAction):
        play(s, "stock")  # the stock is empty
    with pytest.raises(IllegalAction):
        GAME.apply(s, 1, "play 0")  # no such seat


def test_events_tell_the_deal_and_each_seat_its_own_moves() -> None:
    s = start(deal(["4H"], "5S", "9C"), seats=1)
    (dealt,) = GAME.events(s)
    assert dealt.kind == "deal" and "[4H]" in dealt.text and "foundation 5S" in dealt.text
    s = play(s, "play 0")
    kinds = [e.kind for e in GAME.events(s)]
    assert kinds == ["move", "finish", "hole_over", "match_over"]
    move = GAME.events(s)[0]
    assert move.text_for(0) == "seat 0 played 4H from column 0 onto 5S"
    assert move.text_for(None) == "seat 0 moved"


def test_every_decision_moves_a_card_so_the_bound_holds() -> None:
    r = rules(holes=2, jokers=2)
    assert GAME.max_decisions(r, 3) == 2 * 3 * 54
    s = _finish_match(GAME.initial_state(r, 3, 11))
    assert s.over


def test_registered_under_its_name() -> None:
    assert get_game("golf_solitaire") is GAME
    assert len(set(pysol_deal(5).cards())) == 52
