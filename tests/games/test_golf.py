"""Golf rules, one test per clause and option of docs/games/golf.md, on scripted deals.

Deals are built with :func:`referee.games.golf.scripted_state` (layouts row-major,
the upcard, the stock top first) and driven through ``GAME.apply`` with action
codes. :func:`card_points` scores chosen layouts through the real engine: with
``max_turns=1`` every player makes the opening moves, draws from the stock and
discards it, and the hole ends (by the turn limit) with the layouts as dealt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from referee.cards import Card, card, cards
from referee.game import IllegalAction, InvalidAction, RulesError, parse_rules
from referee.games.golf import (
    GAME,
    GolfRules,
    GolfState,
    GolfView,
    card_value,
    scripted_state,
)
from tests.conformance.cases_golf import all_cards

FILLER = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2H 3H 4H 5H 6H"


def rules(**opts: Any) -> GolfRules:
    return parse_rules(GolfRules, opts)


def deal(
    layouts: Sequence[str],
    upcard: str = "KS",
    stock: str = FILLER,
    *,
    hole: int = 0,
    totals: Sequence[int] | None = None,
    seed: int = 0,
    **opts: Any,
) -> GolfState:
    return scripted_state(
        rules(**opts),
        len(layouts),
        [cards(lay) for lay in layouts],
        card(upcard),
        cards(stock),
        seed=seed,
        hole=hole,
        totals=totals,
    )


def actor(s: GolfState) -> int:
    (seat,) = GAME.to_act(s)
    return seat


def legal(s: GolfState, seat: int | None = None) -> list[str]:
    return [GAME.encode(a) for a in GAME.legal_actions(s, actor(s) if seat is None else seat)]


def play(s: GolfState, *codes: str) -> GolfState:
    """The seat to act plays each code in turn."""
    for code in codes:
        s = GAME.apply(s, actor(s), GAME.decode(code))
    return s


def opening(s: GolfState) -> GolfState:
    """Every seat makes the first legal opening flips or peeks."""
    while s.phase in ("flip", "peek"):
        s = play(s, legal(s)[0])
    return s


def pass_turns(s: GolfState, n: int) -> GolfState:
    """``n`` turns of drawing from the stock and discarding it."""
    for _ in range(n):
        s = play(s, "draw stock", "discard")
    return s


def card_points(layouts: Sequence[str], **opts: Any) -> tuple[int, ...]:
    s = opening(deal(layouts, max_turns=1, holes=1, **opts))
    s = pass_turns(s, len(layouts))
    assert s.phase == "over" and s.results[-1].end == "max_turns"
    return s.results[-1].card_points


def view(s: GolfState, seat: int = -1) -> GolfView:
    v: GolfView = GAME.public_view(s) if seat < 0 else GAME.observation(s, seat)
    return v


def slot(s: GolfState, owner: int, pos: int, viewer: int = -1) -> tuple[str, str | None]:
    sl = view(s, viewer).layouts[owner].slots[pos]
    return sl.state, None if sl.card is None else sl.card.code


# ----------------------------------------------------------------------------- players, cards


def test_two_to_twelve_players() -> None:
    assert GAME.seats(GolfRules()) == range(2, 13)
    for n in (1, 13):
        with pytest.raises(RulesError, match="2 to 12 players"):
            GAME.initial_state(GolfRules(), n, 0)


@pytest.mark.parametrize(
    ("variant", "seats", "decks"),
    [
        ("six", 2, 1), ("six", 3, 1), ("six", 4, 2), ("eight", 7, 2), ("ten", 8, 3),
        ("nine", 12, 3), ("four_face_down", 2, 1), ("four_face_down", 7, 1),
        ("four_in_hand", 8, 2), ("four_face_down", 12, 2),
    ],
)  # fmt: skip
def test_deck_count_follows_player_count(variant: str, seats: int, decks: int) -> None:
    s = GAME.initial_state(rules(variant=variant), seats, 1)
    counts = Counter(all_cards(s))
    assert sum(counts.values()) == 52 * decks
    assert set(counts.values()) == {decks}
    assert view(s).rules.decks == decks


def test_decks_option_overrides_the_table() -> None:
    s = GAME.initial_state(rules(decks=3), 2, 1)
    assert sum(1 for _ in all_cards(s)) == 156


def test_deal_needing_more_cards_than_the_decks_hold_is_rejected() -> None:
    one = rules(decks=1)  # six cards each: 8 players need 8*6 + 2 = 50 <= 52; 9 need 56
    assert GAME.seats(one) == range(2, 9)
    GAME.initial_state(one, 8, 0)
    with pytest.raises(RulesError, match=r"9 players of six need 56 cards .* 1 deck\(s\) hold 52"):
        GAME.initial_state(one, 9, 0)


def test_jokers_two_per_deck_worth_minus_two() -> None:
    s = GAME.initial_state(rules(jokers=2), 5, 3)  # 2 decks for 5 players
    assert Counter(c.code for c in all_cards(s))["JK"] == 4
    assert card_value(card("JK")) == -2
    assert card_points(["JK 5C 6C 9D 7D 8D", FILLER[:17]], jokers=2)[0] == -2 + 5 + 6 + 9 + 7 + 8


def test_joker_pair_cancels_like_any_pair() -> None:
    # The source: a pair of jokers cancels, -4 becomes 0.
    assert card_points(["JK 5C 6C JK 7D 8D", FILLER[:17]], jokers=2)[0] == 5 + 6 + 7 + 8


def test_jokers_per_deck_must_be_zero_or_two() -> None:
    with pytest.raises(RulesError, match="0 or 2"):
        rules(jokers=1)


def test_bonus_rank_two_every_two_is_minus_two_and_pairs_cancel() -> None:
    assert card_points(["2C 5C 6C 9D 7D 8D", FILLER[:17]], bonus_rank="2")[0] == 33
    assert card_points(["2C 5C 6C 2D 7D 8D", FILLER[:17]], bonus_rank="2")[0] == 26
    assert card_points(["2C 5C 6C 9D 7D 8D", FILLER[:17]])[0] == 37  # without the option


def test_bonus_one_eyed_jacks_are_minus_two() -> None:
    pts = card_points(["JH JS JD 9D 7D 8D", FILLER[:17]], bonus_rank="one_eyed_jacks")
    assert pts[0] == -2 - 2 + 10 + 9 + 7 + 8
    assert card_value(card("JC"), bonus_rank="one_eyed_jacks") == 10


def test_jokers_and_bonus_cards_together_are_rejected() -> None:
    with pytest.raises(RulesError, match="not both"):
        rules(jokers=2, bonus_rank="2")


# ----------------------------------------------------------------------------- scoring guides


def test_basic_scoring_guide() -> None:
    assert card_points(["JC QD KH AC 2D 3S", "4C 5D 6H 7S 8D 9S", "TC TD 9C TH 4H 5H"]) == (
        10 + 10 + 0 + 1 + 2 + 3,
        4 + 5 + 6 + 7 + 8 + 9,
        0 + 10 + 4 + 9 + 5,  # the tens in column 0 cancel
    )


def test_hard_scoring_guide() -> None:
    pts = card_points(["JC QD KH AC 2D 3S", "KC KD 9C 3H 4H 5H"], scoring="hard")
    assert pts == (11 + 12 + 13 + 1 + 2 + 3, 13 + 13 + 9 + 3 + 4 + 5)


def test_cancelled_cards_score_zero_even_kings_in_hard() -> None:
    pts = card_points(["KC QD 9C KH QS 9H", FILLER[:17]], scoring="hard")
    assert pts[0] == 0


# ----------------------------------------------------------------------------- deal and turn


def test_deal_upcard_starts_discard_pile_and_rest_is_stock() -> None:
    s = deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], upcard="9H", stock="7S 8S")
    v = view(s)
    assert [c.code for c in v.discard] == ["9H"]
    assert v.stock_count == 2
    assert all(sl.state == "unknown" for lay in v.layouts for sl in lay.slots)


def test_dealer_rotates_and_player_left_of_dealer_starts() -> None:
    s = GAME.initial_state(rules(max_turns=1), 3, 5)
    assert (s.dealer, actor(s)) == (0, 1)
    s = pass_turns(opening(s), 3)
    assert len(s.results) == 1
    assert (s.dealer, actor(s), view(s).hole) == (1, 2, 2)
    s = pass_turns(opening(s), 3)
    assert (s.dealer, actor(s), view(s).hole) == (2, 0, 3)


def test_draw_from_stock_then_discard_it_face_up() -> None:
    s = opening(deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], stock="QH 8S"))
    assert legal(s) == ["draw discard", "draw stock"]
    s = play(s, "draw stock")
    assert s.holding == card("QH") and legal(s)[0] == "discard"
    s = play(s, "discard")
    assert s.discard[-1] == card("QH") and actor(s) == 0


def test_swap_puts_drawn_card_in_place_and_old_card_face_up_on_pile() -> None:
    s = opening(deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], stock="QH 8S"))
    s = play(s, "draw stock", "swap 4")
    assert s.cells[1][4] == card("QH")
    assert s.discard[-1] == card("5D")
    assert slot(s, 1, 4) == ("face_up", "QH")


def test_card_from_discard_pile_must_be_swapped_in() -> None:
    s = opening(deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], upcard="9H"))
    s = play(s, "draw discard")
    assert "discard" not in legal(s)
    with pytest.raises(IllegalAction, match="must be swapped in"):
        play(s, "discard")
    s = play(s, "swap 5")
    assert s.cells[1][5] == card("9H") and s.discard == (card("6D"),)


def test_empty_stock_is_rebuilt_from_discard_pile_except_top_card() -> None:
    base = opening(deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], upcard="9H", stock="QH"))
    s = play(base, "draw discard", "swap 3", "draw discard", "swap 3")  # pile: 4C
    s = play(s, "draw discard", "swap 4")  # pile: 5D
    s = play(s, "draw stock", "discard")  # the stock is empty; pile 5D QH
    assert s.reshuffles == 1
    assert s.discard == (card("QH"),) and s.stock == (card("5D"),)
    assert [e.kind for e in GAME.events(s)][-1] == "reshuffle"


def test_rebuilt_stock_comes_from_the_seeded_stream() -> None:
    layouts = ["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"]

    def rebuilt(seed: int) -> tuple[Card, ...]:
        s = opening(deal(layouts, upcard="9H", stock="QH QS QD QC KH", seed=seed))
        s = pass_turns(s, 5)
        assert s.reshuffles == 1 and sorted(s.stock) == sorted(cards("9H QH QS QD QC"))
        return s.stock

    assert rebuilt(1) == rebuilt(1)
    assert len({rebuilt(seed) for seed in range(6)}) > 1


def test_max_reshuffles_bounds_the_hole() -> None:
    s = opening(deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], stock="QH", max_reshuffles=1))
    s = pass_turns(s, 1)  # stock empty: rebuilt from the pile (one card)
    assert s.reshuffles == 1 and len(s.stock) == 1
    s = pass_turns(s, 1)  # empty again, no rebuild left: scored as it lies
    assert s.results[-1].end == "max_reshuffles" and s.results[-1].ended_by == -1
    assert any(e.kind == "bound" and "the hole ends" in e.text for e in GAME.events(s))


def test_max_turns_bounds_the_hole() -> None:
    s = opening(deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], max_turns=3, holes=1))
    s = pass_turns(s, 5)
    assert s.phase != "over"
    s = pass_turns(s, 1)
    assert s.phase == "over" and s.results[-1].end == "max_turns"
    # The layouts are scored as they lie, face-down cards included.
    assert s.results[-1].card_points == (1 + 2 + 3 + 4 + 5 + 6,) * 2


def test_max_decisions_is_an_upper_bound() -> None:
    r = rules(max_turns=2, holes=2)
    s = GAME.initial_state(r, 3, 9)
    decisions = 0
    while GAME.to_act(s):
        s = play(s, legal(s)[0])
        decisions += 1
    assert decisions <= GAME.max_decisions(r, 3) == 2 * 3 * (2 + 2 * 2)


# ----------------------------------------------------------------------------- six


SIX = ["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D", "AH 2H 3H 4H 5H 6H"]


def test_six_opening_flips_one_at_a_time_all_players_in_turn_order() -> None:
    s = deal(SIX)
    order = []
    s = play(s, "flip 0")
    # The second flip is chosen after seeing the first.
    assert slot(s, 1, 0, viewer=1) == ("face_up", "AD") and actor(s) == 1
    assert "flip 0" not in legal(s)
    order.append(1)
    while s.phase == "flip":
        order.append(actor(s))
        s = play(s, legal(s)[-1])
    assert order == [1, 1, 2, 2, 0, 0]
    assert s.phase == "draw" and actor(s) == 1
    assert [bin(m).count("1") for m in s.face_up] == [2, 2, 2]


def test_six_swapped_in_card_lies_face_up() -> None:
    s = opening(deal(SIX, stock="9S"))
    s = play(s, "draw stock", "swap 5")
    assert slot(s, 1, 5, viewer=0) == ("face_up", "9S")


def test_six_equal_ranks_in_a_column_cancel_not_in_a_row() -> None:
    assert card_points(["7C 7D 3C 2H 5C 6C", FILLER[:17]])[0] == 7 + 7 + 3 + 2 + 5 + 6
    assert card_points(["7C 2D 3C 7H 5C 6C", FILLER[:17]])[0] == 2 + 3 + 5 + 6


def test_six_hole_ends_after_last_card_up_and_one_more_turn_each() -> None:
    s = opening(deal(SIX, stock="9S 9H 9D 8S 8H 8D 7S 7H 7D 6S 6H 6D"))  # all flip 0 and 1
    for pos in (2, 3, 4):  # seat 1 fills its layout; seats 2 and 0 discard
        s = play(s, "draw stock", f"swap {pos}", *("draw stock", "discard") * 2)
        assert s.ender == -1
    s = play(s, "draw stock", "swap 5")  # seat 1's layout is all face up
    v = view(s)
    assert (v.ended_by, v.knocked, v.final_turns_left, v.to_act) == (1, False, 2, 2)
    s = play(s, "draw stock", "discard")
    assert actor(s) == 0 and s.final_left == 1
    s = play(s, "draw stock", "discard")  # seat 1 takes no further turn
    assert len(s.results) == 1 and s.results[0].end == "out" and s.results[0].ended_by == 1
    # Columns (AD, 8S), (2D, 7S), (9S, 6S).
    assert s.results[0].card_points[1] == 1 + 8 + 2 + 7 + 9 + 6


def test_eight_is_four_by_two_with_column_pairs() -> None:
    s = deal(["AC 2C 3C 4C 5C 6C 7C 8C", FILLER[:23]], variant="eight")
    assert (view(s).rows, view(s).columns, len(s.cells[0])) == (2, 4, 8)
    # Column 3 is positions 3 and 7: the nines cancel.
    assert card_points(["AC 2C 3C 9C 5C 6C 7C 9D", FILLER[:23]], variant="eight")[0] == 24


def test_ten_is_five_by_two_with_column_pairs() -> None:
    layout = "AC 2C 3C 4C QC 5C 6C 7C 8C QD"
    assert card_points([layout, FILLER[:29]], variant="ten")[0] == 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8
    assert view(deal([layout, FILLER[:29]], variant="ten")).columns == 5


# ----------------------------------------------------------------------------- nine


def test_nine_three_opening_flips() -> None:
    s = deal(["AC 2C 3C 4C 5C 6C 7C 8C 9C", FILLER[:26]], variant="nine")
    s = play(s, "flip 0", "flip 4")
    assert actor(s) == 1 and s.opening_left == 1
    s = play(s, "flip 8")
    assert actor(s) == 0 and s.opening_left == 3


def test_nine_only_a_line_of_three_cancels() -> None:
    row = "4C 4D 4H 2C 3C 5C 6C 7C 8C"
    column = "4C 2C 3C 4D 5C 6C 4H 7C 8C"
    pair = "4C 4D 2H 2C 3C 5C 6C 7C 8C"
    other = FILLER[:26]
    assert card_points([row, other], variant="nine")[0] == 2 + 3 + 5 + 6 + 7 + 8
    assert card_points([column, other], variant="nine")[0] == 2 + 3 + 5 + 6 + 7 + 8
    assert card_points([pair, other], variant="nine")[0] == 4 + 4 + 2 + 2 + 3 + 5 + 6 + 7 + 8


def test_pairs_anywhere_in_nine_cancels_pairs_besides_lines_of_three() -> None:
    """golf.md pairs_anywhere (six family, "6, 8, 9, 10 cards"): "any two equal cards
    in the layout cancel"; a line of three still cancels whole."""
    pair = "4C 2C 3C 5C 6C 4D 7C 8C 9C"  # the fours share no row or column
    row = "4C 4D 4H 2C 3C 5C 6C 7C 8C"
    other = FILLER[:26]
    assert (
        card_points([pair, other], variant="nine", pairs_anywhere=True)[0]
        == 2 + 3 + 5 + 6 + 7 + 8 + 9
    )
    assert card_points([pair, other], variant="nine")[0] == 4 + 4 + 2 + 3 + 5 + 6 + 7 + 8 + 9
    assert (
        card_points([row, other], variant="nine", pairs_anywhere=True)[0] == 2 + 3 + 5 + 6 + 7 + 8
    )


def test_nine_a_cross_of_five_equal_cards_cancels_one_line() -> None:
    """A card cancels once (docs/games/golf.md): row 1 and column 1 are both lines of
    fours, sharing the centre, so one line cancels and the other two fours count."""
    cross = "AC 4C 2C 4D 4H 4S 3C 4C 5C"  # two decks: 4C twice
    assert card_points([cross, FILLER[:26]], variant="nine", decks=2)[0] == 1 + 2 + 3 + 5 + 4 + 4


# ----------------------------------------------------------------------------- four face down

FFD: dict[str, Any] = {"variant": "four_face_down"}


def test_four_face_down_peek_two_privately_then_play() -> None:
    s = deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], **FFD)
    assert s.phase == "peek" and legal(s) == ["peek 0", "peek 1", "peek 2", "peek 3"]
    s = play(s, "peek 2")
    ev = GAME.events(s)[0]
    assert ev.text_for(1) == "seat 1 peeks at position 2: 3D"
    assert ev.text_for(0) == ev.text_for(None) == "seat 1 peeks at position 2"
    s = play(s, "peek 3", "peek 0", "peek 1")
    assert s.phase == "draw" and actor(s) == 1
    assert slot(s, 1, 2, viewer=1) == ("known", "3D")
    assert slot(s, 1, 2, viewer=0) == ("unknown", None)
    assert slot(s, 1, 2) == ("unknown", None)


def test_four_face_down_no_peeking_after_the_opening() -> None:
    """golf.md four_face_down: "Each player peeks at 2 cards of their choice ... no
    peeking afterwards"."""
    s = opening(deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], **FFD))
    assert legal(s) == ["draw discard", "draw stock", "knock"]
    with pytest.raises(IllegalAction):
        play(s, "peek 0")


def test_four_face_down_own_unpeeked_cards_stay_unknown_to_owner() -> None:
    s = play(deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], **FFD), "peek 2", "peek 3")
    assert [slot(s, 1, p, viewer=1)[0] for p in range(4)] == [
        "unknown",
        "unknown",
        "known",
        "known",
    ]


def test_peek_near_only_allows_only_the_bottom_row() -> None:
    s = deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], peek_near_only=True, **FFD)
    assert legal(s) == ["peek 2", "peek 3"]
    with pytest.raises(IllegalAction):
        play(s, "peek 0")


def test_four_face_down_swapped_in_cards_lie_face_down() -> None:
    s = opening(deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], stock="9S", **FFD))
    s = play(s, "draw stock", "swap 0")
    assert s.face_up[1] == 0
    assert slot(s, 1, 0, viewer=1) == ("known", "9S")
    assert s.discard[-1] == card("AD")  # the replaced card goes face up on the pile


def test_card_from_stock_placed_face_down_is_known_only_to_its_owner() -> None:
    s = opening(deal(["AC 2C 3C 4C", "AD 2D 3D 4D", "AH 2H 3H 4H"], stock="9S", **FFD))
    s = play(s, "draw stock")
    assert view(s, 1).drawn == card("9S") and view(s, 0).drawn is None
    assert view(s, 0).drawn_from == "stock" and view(s).drawn is None
    draw = GAME.events(s)[0]
    assert "9S" not in draw.text and draw.text_for(1).endswith("draws 9S from the stock")
    s = play(s, "swap 1")
    assert slot(s, 1, 1, viewer=1) == ("known", "9S")
    assert slot(s, 1, 1, viewer=0) == slot(s, 1, 1, viewer=2) == slot(s, 1, 1) == ("unknown", None)
    assert "9S" not in GAME.events(s)[0].text


def test_card_from_discard_placed_face_down_is_known_to_everyone() -> None:
    s = opening(deal(["AC 2C 3C 4C", "AD 2D 3D 4D", "AH 2H 3H 4H"], upcard="KS", **FFD))
    s = play(s, "draw discard")
    assert view(s, 2).drawn == card("KS") and view(s).drawn == card("KS")
    s = play(s, "swap 3")
    for viewer in (-1, 0, 1, 2):
        assert slot(s, 1, 3, viewer) == ("public", "KS")
    assert s.discard[-1] == card("4D")


def test_public_card_replaced_from_stock_is_unknown_again() -> None:
    s = opening(deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], upcard="KS", stock="9S QS", **FFD))
    s = play(s, "draw discard", "swap 3", "draw stock", "discard", "draw stock", "swap 3")
    assert slot(s, 1, 3, viewer=0) == ("unknown", None)
    assert slot(s, 1, 3, viewer=1) == ("known", "QS")


def test_four_face_down_three_equal_cards_only_two_cancel() -> None:
    assert card_points(["7C 7D 7H 2S", "AD 3D 5D 9D"], **FFD)[0] == 7 + 2


def test_four_face_down_four_equal_cards_all_score_zero() -> None:
    assert card_points(["7C 7D 7H 7S", "AD 3D 5D 9D"], **FFD)[0] == 0


def test_four_face_down_pairs_in_row_or_column_not_diagonal() -> None:
    assert card_points(["7C 7D 2H 3S", "AD 3D 5D 9D"], **FFD)[0] == 5
    assert card_points(["7C 2D 7H 3S", "AD 3D 5D 9D"], **FFD)[0] == 5
    assert card_points(["7C 2D 3H 7S", "AD 3D 5D 9D"], **FFD)[0] == 19


def test_four_face_down_cancellation_removes_the_most_points() -> None:
    # JC pairs with JH along the row (removes 10 - 2) or with JD down the column
    # (removes 20): the column pairing is used, leaving JH (-2) and 5S.
    pts = card_points(["JC JH JD 5S", "AD 3D 5D 9D"], bonus_rank="one_eyed_jacks", **FFD)
    assert pts[0] == -2 + 5


def test_knock_instead_of_a_turn_then_one_more_turn_each() -> None:
    s = opening(deal(["AC 2C 3C 4C", "AD 2D 3D 4D", "AH 2H 3H 4H"], **FFD))
    assert "knock" in legal(s)
    s = play(s, "knock")
    v = view(s)
    assert (v.ended_by, v.knocked, v.final_turns_left, v.to_act) == (1, True, 2, 2)
    assert "knock" not in legal(s)  # nobody knocks twice
    s = play(s, "draw stock", "discard")
    assert actor(s) == 0 and "knock" not in legal(s)
    s = play(s, "draw stock", "discard")
    assert s.results[0].end == "knock" and s.results[0].ended_by == 1
    assert s.results[0].card_points == (10, 10, 10)


def test_knocking_is_only_for_the_four_card_variants() -> None:
    s = opening(deal(SIX))
    assert "knock" not in legal(s)
    with pytest.raises(IllegalAction):
        play(s, "knock")


def test_diagonal_pairs_option() -> None:
    layouts = ["7C 2D 3H 7S", "AD 3D 5D 9D"]
    assert card_points(layouts, diagonal_pairs=True, **FFD)[0] == 5
    assert card_points(layouts, **FFD)[0] == 19


def test_no_pairs_option() -> None:
    assert card_points(["7C 7D 2H 3S", "AD 3D 5D 9D"], no_pairs=True, **FFD)[0] == 19


# ----------------------------------------------------------------------------- four in hand

HAND: dict[str, Any] = {"variant": "four_in_hand"}


def test_four_in_hand_cards_always_visible_to_owner_only() -> None:
    s = deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], **HAND)
    assert s.phase == "draw" and actor(s) == 1
    picked = [e for e in GAME.events(s) if e.kind == "hand"]
    assert [e.text_for(0) for e in picked] == [
        "seat 0 picks up AC 2C 3C 4C",
        "seat 1 picks up 4 cards",
    ]
    assert [slot(s, 0, p, viewer=0) for p in range(4)] == [
        ("known", c) for c in ("AC", "2C", "3C", "4C")
    ]
    assert slot(s, 0, 0, viewer=1) == slot(s, 0, 0) == ("unknown", None)
    s = play(s, "draw stock", "swap 2")
    assert slot(s, 1, 2, viewer=1) == ("known", "2C")  # FILLER's top card
    assert slot(s, 1, 2, viewer=0) == ("unknown", None)
    s = play(s, "draw discard", "swap 0")  # seat 0 takes 3D
    assert slot(s, 0, 0, viewer=1) == ("public", "3D")


def test_four_in_hand_any_two_equal_cards_cancel() -> None:
    assert card_points(["7C 2D 3H 7S", "AD 3D 5D 9D"], **HAND)[0] == 5
    assert card_points(["7C 7D 7H 7S", "AD 3D 5D 9D"], **HAND)[0] == 0
    assert card_points(["7C 7D 7H 2S", "AD 3D 5D 9D"], **HAND)[0] == 9


def test_four_in_hand_knock() -> None:
    s = play(deal(["AC 2C 3C 4C", "AD 2D 3D 4D"], **HAND), "knock", "draw stock", "discard")
    assert s.results[0].end == "knock"
    assert s.results[0].scores == (10, 10)


# ----------------------------------------------------------------------------- house rules


def test_initial_flips_same_column() -> None:
    s = deal(SIX, initial_flips_same_column=True)
    s = play(s, "flip 1")
    assert legal(s) == ["flip 4"]
    with pytest.raises(IllegalAction):
        play(s, "flip 0")
    n = deal(
        ["AC 2C 3C 4C 5C 6C 7C 8C 9C", FILLER[:26]], variant="nine", initial_flips_same_column=True
    )
    n = play(n, "flip 5")
    assert legal(n) == ["flip 2", "flip 8"]


def test_pairs_anywhere() -> None:
    layouts = ["9C 9D 3C 4H 5C 6C", FILLER[:17]]
    assert card_points(layouts, pairs_anywhere=True)[0] == 3 + 4 + 5 + 6
    assert card_points(layouts)[0] == 9 + 9 + 3 + 4 + 5 + 6
    # Three equal cards anywhere: one pair cancels, the third counts.
    three = ["9C 9D 3C 4H 5C 9S", FILLER[:17]]
    assert card_points(three, pairs_anywhere=True)[0] == 9 + 3 + 4 + 5


def test_four_of_a_kind_bonus_adds_ten_to_every_other_player() -> None:
    layouts = ["8C 8D AC 8H 8S 2C", "AD 2D 3D 4D 5D 6D", "AH 2H 3H 4H 5H 6H"]
    s = deal(layouts, max_turns=1, holes=1, four_of_a_kind_bonus=True)
    s = pass_turns(opening(s), 3)
    r = s.results[0]
    assert r.card_points == (1 + 2, 21, 21)
    assert r.bonus_points == (0, 10, 10)
    assert r.scores == (3, 31, 31)
    plain = pass_turns(opening(deal(layouts, max_turns=1, holes=1)), 3)
    assert plain.results[0].scores == (3, 21, 21)


def test_four_of_a_kind_columns_must_be_adjacent() -> None:
    layouts = ["8C AC 8D 8H 2C 8S", "AD 2D 3D 4D 5D 6D"]
    s = pass_turns(opening(deal(layouts, max_turns=1, holes=1, four_of_a_kind_bonus=True)), 2)
    assert s.results[0].bonus_points == (0, 0)


def test_a_removed_column_pair_still_makes_a_four_of_a_kind_block() -> None:
    # Seat 1's column 0 (5H 5S) is removed as its second card turns up; at the reveal its
    # column 1 (5D 5C) pairs too: the two adjacent columns of fives are a block, though
    # the first pair's cards lie under the discard pile. Its slots show them, so a bot
    # with no memory sees the block coming.
    layouts = ["AD 2D 3D 4D 6D 7D", "5H 5D 3C 5S 5C 6C"]
    opts: dict[str, Any] = {
        "max_turns": 1,
        "holes": 1,
        "four_of_a_kind_bonus": True,
        "remove_cancelled": True,
    }
    s = play(deal(layouts, **opts), "flip 0", "flip 3", "flip 0", "flip 1")
    assert s.cells[1][0] is None and s.cells[1][3] is None
    assert [slot(s, 1, p, 0) for p in (0, 3)] == [("removed", "5H"), ("removed", "5S")]
    r = pass_turns(s, 2).results[0]
    assert r.card_points == (1 + 2 + 3 + 4 + 6 + 7, 3 + 6)
    assert r.bonus_points == (10, 0)
    apart = ["AD 2D 3D 4D 6D 7D", "5H 3C 5D 5S 6C 5C"]  # the pairs in columns 0 and 2
    r = pass_turns(play(deal(apart, **opts), "flip 0", "flip 3", "flip 0", "flip 1"), 2).results[0]
    assert r.bonus_points == (0, 0)


def test_final_turn_stock_only() -> None:
    layouts = ["AC 2C 3C 4C", "AD 2D 3D 4D"]
    s = play(opening(deal(layouts, final_turn_stock_only=True, **FFD)), "knock")
    assert legal(s) == ["draw stock"]
    with pytest.raises(IllegalAction):
        play(s, "draw discard")
    s = play(opening(deal(layouts, **FFD)), "knock")
    assert legal(s) == ["draw discard", "draw stock"]


def test_remove_cancelled_column_goes_under_the_discard_pile() -> None:
    layouts = ["AD 2D 3D 4D 5D 6D", "5H 2C 3C 5S 4C 6C"]
    stock = "KH QH 2H JH 3H TH 4H 9H 5C 8H 7H"
    s = deal(layouts, upcard="KS", stock=stock, remove_cancelled=True)
    s = play(s, "flip 0", "flip 3")
    assert s.cells[1] == (None, *cards("2C 3C"), None, *cards("4C 6C"))
    assert s.discard == (*cards("5H 5S"), card("KS"))
    # Everyone saw the pair: each removed slot shows its card, to every viewer.
    for viewer in (-1, 0, 1):
        assert slot(s, 1, 0, viewer) == ("removed", "5H")
        assert slot(s, 1, 3, viewer) == ("removed", "5S")
    assert view(s).layouts[1].face_down == 4
    assert any(e.kind == "remove" for e in GAME.events(s))
    s = play(s, "flip 0", "flip 1", "draw stock")
    assert legal(s) == ["discard", "swap 1", "swap 2", "swap 4", "swap 5"]
    s = play(s, "discard", "draw stock", "discard")
    for pos in (1, 2, 4):  # seat 1 swaps; seat 0 discards
        s = play(s, "draw stock", f"swap {pos}", "draw stock", "discard")
    s = play(s, "draw stock", "swap 5")
    assert s.ender == 1  # face-down cards are gone: the removed places do not count
    s = play(s, "draw stock", "discard")
    # Seat 1: removed column (0) + columns (2H, 4H) and (3H, 5C).
    assert s.results[0].card_points[1] == 2 + 4 + 3 + 5


def test_remove_cancelled_line_of_three_in_nine() -> None:
    s = deal([FILLER[:26], "7C 7D 7H 2C 3C 4C 5C 6C 8C"], variant="nine", remove_cancelled=True)
    s = play(s, "flip 0", "flip 1")
    assert s.cells[1][0] is not None
    s = play(s, "flip 2")
    assert s.cells[1][:3] == (None, None, None)
    assert s.discard[:3] == cards("7C 7D 7H")


def test_early_end_penalty_plus_ten_unless_lowest() -> None:
    layouts = ["AC 2C 3C 9C", "AD 2D 3D 4D"]  # seat 1 (10 points) knocks, seat 0 has 15
    s = play(opening(deal(layouts, early_end_penalty="plus_ten", **FFD)), "knock")
    s = play(s, "draw stock", "discard")
    assert s.results[0].scores == (15, 10) and s.results[0].penalties == (0, 0)
    layouts = ["AC 2C 3C 4C", "AD 2D 3D 4D"]  # a tie counts as lowest
    s = play(opening(deal(layouts, early_end_penalty="plus_ten", **FFD)), "knock")
    s = play(s, "draw stock", "discard")
    assert s.results[0].scores == (10, 10)
    layouts = ["AC 2C 3C 4C", "AD 2D 3D 9D"]
    s = play(opening(deal(layouts, early_end_penalty="plus_ten", **FFD)), "knock")
    s = play(s, "draw stock", "discard")
    assert s.results[0].scores == (10, 25) and s.results[0].penalties == (0, 10)


def test_early_end_penalty_add_lowest_source_example_17_vs_12_gives_29() -> None:
    # Scrooge (seat 1) knocks with 17; Marley (seat 0) has 12 after the last turn.
    layouts = ["3C 4C 5C KC", "9H 5D 2D AS"]
    s = play(opening(deal(layouts, early_end_penalty="add_lowest", **FFD)), "knock")
    s = play(s, "draw stock", "discard")
    r = s.results[0]
    assert r.card_points == (12, 17)
    assert r.scores == (12, 29)
    assert any(e.kind == "penalty" and "adds 12" in e.text for e in GAME.events(s))


def test_early_end_penalty_add_lowest_adds_a_negative_lowest_score() -> None:
    # golf.md: "they add the lowest score among the other players": a negative one too.
    layouts = ["JK AS KC JK", "9H 5D 2D AS"]  # diagonal jokers do not cancel: -4 + 1 + 0
    s = opening(deal(layouts, jokers=2, early_end_penalty="add_lowest", **FFD))
    s = play(s, "knock", "draw stock", "discard")
    r = s.results[0]
    assert r.card_points == (-3, 17)
    assert r.penalties == (0, -3) and r.scores == (-3, 14)
    assert any(e.kind == "penalty" and "adds -3" in e.text for e in GAME.events(s))


def test_early_end_penalty_applies_to_the_player_who_turned_the_last_card() -> None:
    """golf.md early_end_penalty: "the player who ended the hole by turning the last
    card or knocking adds 10 unless their hole score is the lowest"."""
    s = opening(
        deal(SIX, stock="9S 9H 9D 8S 8H 8D 7S 7H 7D 6S 6H 6D", early_end_penalty="plus_ten")
    )
    for pos in (2, 3, 4, 5):  # seat 1 fills its layout; seats 2 and 0 discard
        s = play(s, "draw stock", f"swap {pos}", *("draw stock", "discard") * 2)
    r = s.results[0]
    assert (r.end, r.ended_by) == ("out", 1)
    assert r.card_points == (21, 1 + 8 + 2 + 7 + 9 + 6, 21)
    assert r.penalties == (0, 10, 0) and r.scores == (21, 43, 21)


def test_no_penalty_when_the_length_bound_ends_the_hole() -> None:
    s = opening(
        deal(["AC 2C 3C 4C", "AD 2D 3D 9D"], max_turns=1, early_end_penalty="plus_ten", **FFD)
    )
    s = pass_turns(s, 2)
    assert s.results[0].penalties == (0, 0) and s.results[0].ended_by == -1


# ----------------------------------------------------------------------------- match


def test_match_of_holes() -> None:
    s = GAME.initial_state(rules(holes=2, max_turns=1), 2, 4)
    s = pass_turns(opening(s), 2)
    assert GAME.outcome(s) is None and len(s.results) == 1
    s = pass_turns(opening(s), 2)
    outcome = GAME.outcome(s)
    assert outcome is not None and [r.dealer for r in s.results] == [0, 1]
    assert outcome.scores == tuple(float(sum(r.scores[p] for r in s.results)) for p in (0, 1))


def test_target_score_ends_match_after_the_hole_it_is_reached() -> None:
    layouts = ["9C 8C 7C 6C 5C 4C", "AD 2D 3D AH 2H 3H"]  # 39 and 0 points
    opts: dict[str, Any] = {"holes": "none", "target_score": 100, "max_turns": 1}
    s = pass_turns(opening(deal(layouts, hole=4, totals=(61, 90), **opts)), 2)
    assert s.phase == "over" and s.totals == (100, 90)  # reached exactly
    s = pass_turns(opening(deal(layouts, hole=4, totals=(60, 90), **opts)), 2)
    assert s.phase != "over" and s.totals == (99, 90) and s.hole == 5


def test_holes_and_target_score_together_whichever_first() -> None:
    layouts = ["9C 8C 7C 6C 5C 4C", "AD 2D 3D AH 2H 3H"]
    s = pass_turns(opening(deal(layouts, holes=9, target_score=30, max_turns=1)), 2)
    assert s.phase == "over" and len(s.results) == 1


def test_holes_none_needs_a_target_score() -> None:
    with pytest.raises(RulesError, match="target_score"):
        rules(holes="none")


def test_lowest_total_ranks_first_and_ties_share_a_rank() -> None:
    layouts = ["9C 8C 7C 6C 5C 4C", "AD 2D 3D 4D 5D 6D", "AH 2H 3H 4H 5H 6H", "KC KD 3S 4S 5S 6S"]
    s = pass_turns(opening(deal(layouts, holes=1, max_turns=1)), 4)
    outcome = GAME.outcome(s)
    assert outcome is not None
    assert outcome.scores == (39.0, 21.0, 21.0, 18.0)
    assert outcome.ranks == (4, 2, 2, 1)
    # At the end every card of the last hole is shown.
    assert {sl.state for lay in view(s).layouts for sl in lay.slots} == {"face_up"}
    assert outcome.details["holes"][0]["scores"] == [39, 21, 21, 18]


def test_standings_before_the_end_use_totals_so_far() -> None:
    s = deal(["AC 2C 3C 4C 5C 6C", "AD 2D 3D 4D 5D 6D"], totals=(30, 12))
    assert GAME.outcome(s) is None
    assert GAME.standings(s).ranks == (2, 1)


def test_view_shows_hole_results_totals_and_dealer() -> None:
    s = GAME.initial_state(rules(holes=3, max_turns=1), 2, 8)
    s = pass_turns(opening(s), 2)
    v = view(s, 0)
    assert (v.hole, v.dealer, v.phase) == (2, 1, "flip")
    assert v.totals == s.results[0].scores and v.results == s.results


# ----------------------------------------------------------------------------- codes, errors


def test_illegal_actions_are_refused_with_a_reason() -> None:
    s = deal(SIX)
    with pytest.raises(IllegalAction, match="seat 1's decision"):
        GAME.apply(s, 0, GAME.decode("flip 0"))
    with pytest.raises(IllegalAction, match="not legal"):
        play(s, "draw stock")
    with pytest.raises(IllegalAction):
        play(s, "flip 7")
    s = play(s, "flip 0")
    with pytest.raises(IllegalAction):
        play(s, "flip 0")


@pytest.mark.parametrize("code", ["", "flip", "flip 10", "swap -1", "draw", "Discard", "x" * 999])
def test_malformed_codes_are_rejected(code: str) -> None:
    with pytest.raises(InvalidAction, match="not a golf action code"):
        GAME.decode(code)


def test_codes_round_trip() -> None:
    for code in ("flip 0", "peek 3", "draw stock", "draw discard", "swap 9", "discard", "knock"):
        assert GAME.encode(GAME.decode(code)) == code


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"peek_near_only": True}, "peek_near_only applies only"),
        ({"variant": "four_in_hand", "initial_flips_same_column": True}, "applies only"),
        ({"variant": "four_face_down", "pairs_anywhere": True}, "applies only"),
        ({"variant": "nine", "four_of_a_kind_bonus": True}, "applies only"),
        ({"diagonal_pairs": True}, "applies only"),
        ({"variant": "four_face_down", "diagonal_pairs": True, "no_pairs": True}, "contradict"),
        ({"variant": "four_in_hand", "remove_cancelled": True}, "applies only"),
        ({"decks": 0}, "decks"),
        ({"holes": 0}, "holes"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_reshuffles": -1}, "max_reshuffles"),
        ({"variant": "seven"}, "variant"),
        ({"early_end_penalty": "double"}, "early_end_penalty"),
    ],
)
def test_inconsistent_or_invalid_options_are_rejected(opts: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        rules(**opts)
