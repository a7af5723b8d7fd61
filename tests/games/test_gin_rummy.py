"""Rule-clause tests for gin_rummy (docs/games/gin_rummy.md), one per clause, on scripted deals.

Deals are stacked with ``stack_deck(first_hand, dealer_hand, upcard, stock)``; unless a
test says otherwise seat 1 deals, so seat 0 is the first player (the non-dealer).
Every test drives the real engine through ``apply``.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from referee.cards import STANDARD_DECK, Card, card, cards, cards_of, mask_of
from referee.game import IllegalAction, InvalidAction, RulesError, chance_rng, get_game, parse_rules
from referee.games.gin_rummy import (
    GAME,
    GinRummyRules,
    GinRummyState,
    new_match,
    stack_deck,
)
from referee.games.gin_rummy import melds as M
from referee.views import observation_message, to_jsonable
from tests.conformance.cases_gin_rummy import all_cards, resample_hidden


def rules(**options: Any) -> GinRummyRules:
    return parse_rules(GinRummyRules, options)


def start(
    first: str,
    dealer_hand: str,
    upcard: str,
    stock: str = "",
    *,
    dealer: int = 1,
    more: Sequence[Sequence[Any]] = (),
    **options: Any,
) -> GinRummyState:
    extra = {k: options.pop(k) for k in ("scores", "hands_won", "hand_number") if k in options}
    deck = stack_deck(first, dealer_hand, upcard, stock)
    return new_match(rules(**options), seed=5, dealer=dealer, decks=[deck, *more], **extra)


def play(s: GinRummyState, *moves: tuple[int, str]) -> GinRummyState:
    for seat, code in moves:
        s = GAME.apply(s, seat, code)
    return s


def hand_codes(s: GinRummyState, seat: int) -> set[str]:
    return {c.code for c in GAME.observation(s, seat).hand}


def both_pass(s: GinRummyState) -> GinRummyState:
    """Non-dealer and dealer pass the upcard: the non-dealer then holds the stock's top card."""
    t = s.tables[0]
    return play(s, (t.seats[0], "pass"), (t.seats[1], "pass"))


def knock_hand(first: str, dealer_hand: str, drawn: str, code: str, **options: Any) -> Any:
    """Seat 0 (first player) draws ``drawn`` from the stock after both pass, then plays
    ``code``; returns the showdown result of that hand."""
    s = start(
        first,
        dealer_hand,
        "QH" if "QH" not in first + dealer_hand + drawn else "QC",
        drawn,
        **options,
    )
    s = both_pass(s)
    s = play(s, (0, code))
    assert s.last_hand, "the hand ended"
    return s, s.last_hand[0]


# --------------------------------------------------------------------------- cards, melds


def test_card_values_ace_one_two_to_ten_face_value_court_cards_ten() -> None:
    values = [M.VALUE[c.index] for c in cards("AS 2S 9S TS JS QS KS")]
    assert values == [1, 2, 9, 10, 10, 10, 10]
    # Through a showdown: the defender's unmatched ace, 7, queen and king count 1+7+10+10.
    _, res = knock_hand(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S TS", "AD 7H QD KH 3S 5D 9H JC 6C 2H", "KC", "gin KC"
    )
    assert res.defender_deadwood == 1 + 7 + 10 + 10 + 3 + 5 + 9 + 10 + 6 + 2


def test_deck_is_52_cards_without_jokers() -> None:
    s = GAME.initial_state(rules(), 2, seed=3)
    got = all_cards(s)
    assert len(got) == 52 and set(got) == set(STANDARD_DECK)


def test_sets_of_three_or_four_and_runs_of_three_or_more_are_melds() -> None:
    # The source's examples: 10D 10S 10C is a set, JD QD KD a run.
    assert M.deadwood(mask_of(cards("TD TS TC"))) == 0
    assert M.deadwood(mask_of(cards("JD QD KD"))) == 0
    assert M.deadwood(mask_of(cards("7C 7D 7H"))) == 0
    assert M.deadwood(mask_of(cards("7C 7D 7H 7S"))) == 0
    assert M.deadwood(mask_of(cards("4H 5H 6H 7H 8H"))) == 0
    assert M.deadwood(mask_of(cards("7C 7D"))) == 14
    assert M.deadwood(mask_of(cards("4H 5H 6D"))) == 15  # a run is one suit


def test_ace_is_low_a23_is_a_run_qka_is_not_and_runs_do_not_wrap() -> None:
    assert M.deadwood(mask_of(cards("AC 2C 3C"))) == 0
    assert M.deadwood(mask_of(cards("QC KC AC"))) == 21
    assert M.deadwood(mask_of(cards("KC AC 2C"))) == 13
    # In play: with Q-K-A of clubs the hand cannot knock; with A-2-3 it can.
    s = start("QC KC AC 4D 5D 6D 7H 8H 9H 2S", "3S 5S 7S 9S JD KD 2H 4C 6C 8C", "JH", "TD")
    s = both_pass(s)
    assert not [a for a in GAME.legal_actions(s, 0) if a.startswith(("knock", "gin"))]
    s = start("AC 2C 3C 4D 5D 6D 7H 8H 9H 2S", "3S 5S 7S 9S JD KD 2H 4C 6C 8C", "JH", "TD")
    s = both_pass(s)
    assert "knock TD" in GAME.legal_actions(s, 0) and "gin 2S" not in GAME.legal_actions(s, 0)


def test_a_card_belongs_to_at_most_one_meld_and_deadwood_is_the_least_arrangement() -> None:
    # 7H can serve the set or the run, not both: best is the run 5H-7H plus 7C 7D (14)
    # or the set 7C 7D 7H plus 5H 6H (11): 11.
    assert M.deadwood(mask_of(cards("7C 7D 7H 5H 6H"))) == 11
    # With 8H too, 5H-8H as a run and 7C 7D left (14) vs the set and 5H 6H 8H (19): 14.
    assert M.deadwood(mask_of(cards("7C 7D 7H 5H 6H 8H"))) == 14


def test_meld_search_matches_brute_force_on_meld_rich_hands() -> None:
    rng = random.Random(11)
    small = [c for c in STANDARD_DECK if c.rank <= 6]  # 24 cards: many melds per hand

    def brute(hand: list[Card]) -> int:
        best = sum(M.VALUE[c.index] for c in hand)
        groups = [g for n in (3, 4, 5, 6) for g in itertools.combinations(hand, n) if _is_meld(g)]

        def go(i: int, used: frozenset[Card], left: int) -> None:
            nonlocal best
            best = min(best, left)
            for j in range(i, len(groups)):
                if not used & set(groups[j]):
                    melded = sum(M.VALUE[c.index] for c in groups[j])
                    go(j + 1, used | set(groups[j]), left - melded)

        go(0, frozenset(), best)
        return best

    for _ in range(150):
        hand = rng.sample(small, 10)
        assert M.deadwood(mask_of(hand)) == brute(hand), hand
        eleven = rng.sample(small, 11)
        for idx, dead in M.discard_deadwoods(mask_of(eleven)):
            rest = [c for c in eleven if c.index != idx]
            assert dead == brute(rest)


def _brute_arrangements(hand: Sequence[Card]) -> list[list[tuple[Card, ...]]]:
    groups = [
        g for n in range(3, len(hand) + 1) for g in itertools.combinations(hand, n) if _is_meld(g)
    ]
    out: list[list[tuple[Card, ...]]] = []

    def go(i: int, used: frozenset[Card], chosen: list[tuple[Card, ...]]) -> None:
        out.append(list(chosen))
        for j in range(i, len(groups)):
            if not used & set(groups[j]):
                go(j + 1, used | set(groups[j]), [*chosen, groups[j]])

    go(0, frozenset(), [])
    return out


def _brute_layoff_value(melds: list[tuple[Card, ...]], rest: Sequence[Card]) -> int:
    """The most value of ``rest`` that can be laid off, trying every subset and assignment."""

    def fits(c: Card, m: tuple[Card, ...]) -> bool:
        if len({x.rank for x in m}) == 1:
            return len(m) == 3 and c.rank == m[0].rank
        return c.suit == m[0].suit

    options = [(c, [i for i, m in enumerate(melds) if fits(c, m)]) for c in rest]
    options = [(c, ms) for c, ms in options if ms]
    best = 0
    for n in range(1, len(options) + 1):
        for subset in itertools.combinations(options, n):
            for choice in itertools.product(*(ms for _, ms in subset)):
                extended = [list(m) for m in melds]
                for (c, _), i in zip(subset, choice, strict=True):
                    extended[i].append(c)
                if all(_is_meld(tuple(m)) for m in extended):
                    best = max(best, sum(M.VALUE[c.index] for c, _ in subset))
    return best


def value(cs: Sequence[Card]) -> int:
    return sum(M.VALUE[c.index] for c in cs)


def test_showdown_matches_brute_force_on_meld_rich_deals() -> None:
    rng = random.Random(5)
    small = [c for c in STANDARD_DECK if c.rank <= 8]
    for _ in range(25):
        deal = rng.sample(small, 20)
        knocker, defender = deal[:10], deal[10:]
        k_arr = _brute_arrangements(knocker)
        k_dead = min(value(knocker) - sum(value(m) for m in a) for a in k_arr)
        best_d = -1
        for a in k_arr:
            if value(knocker) - sum(value(m) for m in a) != k_dead:
                continue
            d = min(
                value(defender)
                - sum(value(m) for m in own)
                - _brute_layoff_value(a, [c for c in defender if not any(c in m for m in own)])
                for own in _brute_arrangements(defender)
            )
            best_d = max(best_d, d)
        sd = M.showdown(mask_of(knocker), mask_of(defender), True)
        assert M.mask_value(sd.knocker_deadwood) == k_dead
        assert M.mask_value(sd.defender_deadwood) == best_d
        # What was laid down is consistent: melds are melds, layoffs extend them validly.
        for m, lay in zip(sd.knocker_melds, sd.layoffs, strict=True):
            assert _is_meld(cards_of(m | lay))
        for m in sd.defender_melds:
            assert _is_meld(cards_of(m))


def _is_meld(group: Sequence[Card]) -> bool:
    if len({c.rank for c in group}) == 1:
        return len(group) in (3, 4)
    if len({c.suit for c in group}) != 1:
        return False
    ranks = sorted(c.rank for c in group)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


# --------------------------------------------------------------------------- dealer and deal


def test_first_dealer_drawn_from_seed_lower_card_deals_equal_values_draw_again() -> None:
    dealers = set()
    redraw_seen = False
    for seed in range(40):
        s = GAME.initial_state(rules(), 2, seed)
        ev = next(e for e in GAME.events(s) if e.kind == "first_dealer")
        rounds = re.findall(r"seat 0 (\w\w), seat 1 (\w\w)", ev.text)
        *early, (c0, c1) = rounds
        for a, b in early:
            assert M.VALUE[card(a).index] == M.VALUE[card(b).index]
        redraw_seen = redraw_seen or bool(early)
        v0, v1 = M.VALUE[card(c0).index], M.VALUE[card(c1).index]
        assert v0 != v1
        dealer = 0 if v0 < v1 else 1
        assert s.tables[0].seats == (1 - dealer, dealer)
        dealers.add(dealer)
        # The same seed always gives the same first dealer.
        assert GAME.initial_state(rules(), 2, seed).tables[0].seats == s.tables[0].seats
    assert dealers == {0, 1} and redraw_seen


def test_deal_ten_each_one_at_a_time_non_dealer_first_then_upcard_then_stock() -> None:
    deck = list(STANDARD_DECK)
    s = new_match(rules(), seed=1, dealer=1, decks=[deck])
    assert hand_codes(s, 0) == {deck[i].code for i in range(0, 20, 2)}
    assert hand_codes(s, 1) == {deck[i].code for i in range(1, 20, 2)}
    view = GAME.observation(s, 0)
    assert view.tables[0].discard_pile == (deck[20],)
    assert view.tables[0].stock_count == 31
    s = both_pass(s)
    assert deck[21].code in hand_codes(s, 0)  # the stock's top card


def test_dealer_zero_deals_to_seat_one_first() -> None:
    deck = list(STANDARD_DECK)
    s = new_match(rules(), seed=1, dealer=0, decks=[deck])
    assert hand_codes(s, 1) == {deck[i].code for i in range(0, 20, 2)}
    assert GAME.to_act(s) == (1,)


def test_loser_of_the_hand_deals_the_next_hand() -> None:
    # Seat 0 knocks and wins: seat 1 (the loser) deals again; then seat 0 knocks and is
    # undercut by seat 1: seat 0 (the loser) deals.
    win = stack_deck("4H 5H 6H 7H 8H 9C 9D 9S 2C 2D", "TC TD TH 4S 5S 6S 7S 8S QC QD", "KD", "KH")
    s = new_match(rules(), seed=2, dealer=1, decks=[win])
    s = play(both_pass(s), (0, "knock KH"))
    assert s.last_hand[0].winner == 0
    assert s.tables[0].seats == (0, 1)  # seat 1 deals hand 2
    lose = stack_deck("6H 7H 8H 9H TH JC JD JS 4C 5D", "5H AC AD 2S 3S 4S 5S KC KD KH", "QC", "QD")
    s = new_match(rules(), seed=2, dealer=1, decks=[lose])
    s = play(both_pass(s), (0, "knock QD"))
    assert s.last_hand[0].result == "undercut" and s.last_hand[0].winner == 1
    assert s.tables[0].seats == (1, 0)  # seat 0 deals hand 2


def test_void_hand_when_stock_reaches_floor_nobody_scores_same_dealer_redeals() -> None:
    s = new_match(rules(), seed=9, dealer=1, decks=[list(STANDARD_DECK)])
    s = both_pass(s)
    # Each player discards what it drew until the stock is down to 2 cards.
    while s.hand_number == 1:
        t = s.tables[0]
        seat = t.seats[t.turn]
        drawn = STANDARD_DECK[t.stock[t.stock_pos - 1]].code
        s = play(s, (seat, f"discard {drawn}"))
        if s.hand_number == 1:
            s = play(s, (1 - seat, "draw stock"))
    last = s.last_hand[0]
    assert last.result == "void" and last.winner == -1
    assert s.scores == (0, 0) and s.wins == (0, 0)
    assert s.tables[0].seats == (0, 1)  # seat 1 deals again
    void_ev = next(e for e in GAME.events(s) if e.kind == "void")
    assert "stock holds 2 cards" in void_ev.text
    assert last.hands == ()  # nothing is laid down in a void hand


def test_knock_with_stock_at_the_floor_is_not_void() -> None:
    # stock_floor=29: the first stock draw leaves 30 cards; the next leaves 29 (the floor).
    s = start(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S 2D",
        "AD 7H QD KH 3S 5D 9H JC 6C 2H",
        "QC",
        "KC JS",
        stock_floor=29,
    )
    s = play(both_pass(s), (0, "discard KC"), (1, "draw discard"), (1, "discard AD"))
    s = play(s, (0, "draw stock"))
    assert s.tables[0].stock_count == 29
    s = play(s, (0, "knock JS"))
    assert s.last_hand[0].result == "knock" and s.scores[0] > 0


def test_stock_floor_option_voids_earlier() -> None:
    s = start(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S 2D",
        "AD 7H QD KH 3S 5D 9H JC 6C 2H",
        "QC",
        "KC JS",
        stock_floor=29,
    )
    s = play(both_pass(s), (0, "discard KC"), (1, "draw stock"), (1, "discard JS"))
    assert s.hand_number == 2 and s.last_hand[0].result == "void"
    assert s.tables[0].seats == (0, 1)


# --------------------------------------------------------------------------- play


UP_FIRST = "AC 2C 3C 4D 4H 4S 7S 8S 9S 2D"
UP_DEALER = "AD 7H QD KH 3S 5D 9H JC 6C 2H"
DEALER2 = "2S 5S TS JD 8D 6D 7C JC 5C 3D"


def test_upcard_offer_non_dealer_first_may_take_or_pass() -> None:
    s = start(UP_FIRST, UP_DEALER, "5S", "KC")
    assert GAME.to_act(s) == (0,)
    assert GAME.legal_actions(s, 0) == ("pass", "take upcard")
    assert GAME.legal_actions(s, 1) == ()
    assert GAME.observation(s, 0).phase == "upcard_offer"


def test_upcard_taken_by_non_dealer_then_discard_then_dealer_turn() -> None:
    s = play(start(UP_FIRST, UP_DEALER, "5S", "KC"), (0, "take upcard"))
    assert "5S" in hand_codes(s, 0) and len(hand_codes(s, 0)) == 11
    assert GAME.observation(s, 0).phase == "discard"
    s = play(s, (0, "discard 2D"))
    assert GAME.to_act(s) == (1,)
    assert GAME.legal_actions(s, 1) == ("draw discard", "draw stock")


def test_dealer_offered_upcard_after_non_dealer_passes_then_non_dealer_plays() -> None:
    s = play(start(UP_FIRST, UP_DEALER, "5S", "KC"), (0, "pass"))
    assert GAME.to_act(s) == (1,)
    assert GAME.legal_actions(s, 1) == ("pass", "take upcard")
    s = play(s, (1, "take upcard"), (1, "discard QD"))
    assert GAME.to_act(s) == (0,) and GAME.legal_actions(s, 0) == ("draw discard", "draw stock")


def test_both_pass_non_dealer_draws_from_stock_and_plays_on() -> None:
    s = both_pass(start(UP_FIRST, UP_DEALER, "5S", "KC"))
    assert GAME.to_act(s) == (0,)
    assert "KC" in hand_codes(s, 0)
    assert GAME.observation(s, 0).phase == "discard"
    assert GAME.observation(s, 0).tables[0].discard_pile == (card("5S"),)
    draw = next(e for e in GAME.events(s) if e.kind == "draw")
    assert "KC" not in draw.text and draw.text_for(0) == "you draw KC from the stock"
    assert draw.text_for(1) == draw.text


def test_a_turn_is_draw_stock_or_discard_pile_then_discard() -> None:
    s = play(both_pass(start(UP_FIRST, UP_DEALER, "5S", "KC")), (0, "discard KC"))
    assert GAME.legal_actions(s, 1) == ("draw discard", "draw stock")
    s = play(s, (1, "draw discard"))
    assert "KC" in hand_codes(s, 1)
    assert GAME.observation(s, 1).tables[0].discard_pile == (card("5S"),)
    with pytest.raises(IllegalAction, match="only after the draw"):
        GAME.apply(play(s, (1, "discard AD")), 0, "discard 2D")


def test_card_taken_from_discard_pile_may_not_be_discarded_same_turn() -> None:
    s = play(start(UP_FIRST, UP_DEALER, "5S", "KC"), (0, "take upcard"))
    assert "discard 5S" not in GAME.legal_actions(s, 0)
    assert GAME.observation(s, 0).cannot_discard == card("5S")
    with pytest.raises(IllegalAction, match="took 5S from the discard pile"):
        GAME.apply(s, 0, "discard 5S")


def test_card_taken_from_discard_pile_may_be_discarded_on_a_later_turn() -> None:
    s = play(
        start(UP_FIRST, UP_DEALER, "5S", "KC"),
        (0, "take upcard"),
        (0, "discard 2D"),
        (1, "draw stock"),
        (1, "discard KC"),
        (0, "draw stock"),
    )
    assert "discard 5S" in GAME.legal_actions(s, 0)
    s = play(s, (0, "discard 5S"))
    assert GAME.observation(s, 1).tables[0].discard_pile[-1] == card("5S")


def test_card_taken_from_discard_pile_may_not_be_knocked_with() -> None:
    # After taking 5C, the hand could go gin by "discarding" 5C: that is refused; knocking
    # with another card stays legal.
    s = start("AC 2C 3C 4D 4H 4S 7S 8S 9S TS", UP_DEALER, "5C", "KC")
    s = play(s, (0, "take upcard"))
    legal = GAME.legal_actions(s, 0)
    assert "gin 5C" not in legal and "knock 5C" not in legal
    with pytest.raises(IllegalAction, match="nor knock with it"):
        GAME.apply(s, 0, "gin 5C")
    assert "knock TS" in legal  # 5C left as deadwood (5); 7S-9S stays a run


def test_every_turn_ends_with_ten_cards() -> None:
    s = GAME.initial_state(rules(), 2, seed=4)
    rng = random.Random(4)
    for _ in range(200):
        if not GAME.to_act(s):
            break
        seat = GAME.to_act(s)[0]
        before = GAME.observation(s, seat).phase
        s = GAME.apply(s, seat, rng.choice(GAME.legal_actions(s, seat)))
        for t in s.tables:
            if t.phase in (0, 1, 2):  # a turn just ended (or a fresh deal)
                assert t.hands[0].bit_count() == t.hands[1].bit_count() == 10, before


# --------------------------------------------------------------------------- knocking and gin


def test_knock_allowed_when_deadwood_at_most_knock_limit() -> None:
    s = both_pass(start("AC 2C 3C 4D 4H 4S 7S 8S 9S 2D", UP_DEALER, "QC", "KD"))
    legal = GAME.legal_actions(s, 0)
    assert "knock KD" in legal  # deadwood 2 (2D)
    assert "knock 2D" in legal  # deadwood 10 (KD): the limit itself is allowed
    assert "knock AC" not in legal and "gin KD" not in legal
    s = play(s, (0, "knock KD"))
    assert s.last_hand[0].knocker == 0 and s.last_hand[0].knocker_deadwood == 2


def test_knock_refused_when_deadwood_above_knock_limit_source_example() -> None:
    # Source: a 3-4-5-6 run, 9-9-9-9 and an ace and a king: deadwood 11, no knock.
    s = both_pass(start("3H 4H 5H 6H 9C 9D 9H 9S AC KC", DEALER2, "QC", "QD"))
    assert not [a for a in GAME.legal_actions(s, 0) if a.startswith("knock")]
    with pytest.raises(IllegalAction, match="without QD it is 11"):
        GAME.apply(s, 0, "knock QD")


def test_knock_limit_option() -> None:
    s = both_pass(start("3H 4H 5H 6H 9C 9D 9H 9S AC KC", DEALER2, "QC", "QD", knock_limit=11))
    assert "knock QD" in GAME.legal_actions(s, 0)
    s = both_pass(start("AC 2C 3C 4D 4H 4S 7S 8S 9S 2D", UP_DEALER, "QC", "KD", knock_limit=1))
    assert "knock KD" not in GAME.legal_actions(s, 0)


def test_gin_is_deadwood_zero_after_the_face_down_discard() -> None:
    s = both_pass(start("AC 2C 3C 4D 4H 4S 7S 8S 9S TS", UP_DEALER, "QC", "KD"))
    legal = GAME.legal_actions(s, 0)
    assert "gin KD" in legal and "knock KD" not in legal
    with pytest.raises(IllegalAction, match="that is gin"):
        GAME.apply(s, 0, "knock KD")


def test_big_gin_off_by_default() -> None:
    s = both_pass(start("AC 2C 3C 4D 4H 4S 7S 8S 9S TS", UP_DEALER, "QC", "JS"))
    assert "big gin" not in GAME.legal_actions(s, 0)
    with pytest.raises(IllegalAction, match="big gin is off"):
        GAME.apply(s, 0, "big gin")


def test_big_gin_all_eleven_melded_scores_big_gin_bonus() -> None:
    s = both_pass(start("AC 2C 3C 4D 4H 4S 7S 8S 9S TS", UP_DEALER, "QC", "JS", big_gin_bonus=31))
    assert GAME.legal_actions(s, 0)[0] == "big gin"
    s = play(s, (0, "big gin"))
    res = s.last_hand[0]
    assert res.result == "big_gin" and res.knock_card is None
    assert len(res.hands[0]) == 11 and res.knocker_deadwood == 0
    assert res.points == res.defender_deadwood + 31 and s.scores == (res.points, 0)
    assert res.defender_deadwood == 63 and all(not g for g in res.layoffs)


def test_knock_card_is_face_down_until_the_showdown() -> None:
    s = both_pass(start("AC 2C 3C 4D 4H 4S 7S 8S 9S 2D", UP_DEALER, "QC", "KD"))
    s = play(s, (0, "knock KD"))
    knock_ev = next(e for e in GAME.events(s) if e.kind == "knock")
    assert "KD" not in knock_ev.text and knock_ev.private_text is None
    res = s.last_hand[0]
    assert res.knock_card == card("KD")
    assert card("KD") not in res.hands[0]
    showdown = next(e for e in GAME.events(s) if e.kind == "showdown")
    assert "knock card KD" in showdown.text


# --------------------------------------------------------------------------- showdown


def test_knocker_melds_laid_in_least_deadwood_arrangement() -> None:
    # 7H can go to the 7-set or the 5H-8H run; least deadwood: run 5H-8H + set 7C 7D 7S.
    _, res = knock_hand(
        "5H 6H 7H 8H 7C 7D 7S 2C 3D AS", "KC QS JD 9C 6S 4C 8D 2H TH 5C", "KD", "knock KD"
    )
    assert res.knocker_deadwood == 6
    assert set(res.knocker_melds) == {cards("5H 6H 7H 8H"), cards("7C 7D 7S")}
    assert res.knocker_deadwood_cards == cards("2C 3D AS")


def test_knocker_arrangement_tie_prefers_fewest_layoff_points_for_defender() -> None:
    # Run A-2-3H (deadwood 2C 2D) or set 2C 2D 2H (deadwood AH 3H): both 4.
    knocker = "AH 2H 3H 2C 2D 9S TS JS QS KS"
    # Defender holds 4H 5H: the run would take them, so the knocker shows the set.
    _, res = knock_hand(knocker, "4H 5H 7C 9C JD KD 6S 3S 8D QC", "7D", "knock 7D")
    assert res.knocker_melds == (cards("2C 2D 2H"), cards("9S TS JS QS KS"))
    assert res.defender_deadwood == 72 and res.points == 68
    # Defender holds 2S: the set would take it, so the knocker shows the run.
    _, res = knock_hand(knocker, "2S 4C 7C 9C JD KD 6S 3S 8D QC", "7D", "knock 7D")
    assert res.knocker_melds == (cards("AH 2H 3H"), cards("9S TS JS QS KS"))
    assert res.defender_deadwood == 69


def test_defender_lays_off_on_runs_at_either_end_chaining_layoffs() -> None:
    # Knocker run 5H 6H 7H; defender 3H 4H (below) and 8H 9H (above, 9H on 8H).
    _, res = knock_hand(
        "5H 6H 7H JC JD JS 2C 2D AS AD", "3H 4H 8H 9H KC QD 6S 4C 7D TS", "KD", "knock KD"
    )
    i = res.knocker_melds.index(cards("5H 6H 7H"))
    assert res.layoffs[i] == cards("3H 4H 8H 9H")
    assert res.defender_deadwood == 10 + 10 + 6 + 4 + 7 + 10


def test_defender_completes_a_set_of_three_to_four() -> None:
    _, res = knock_hand(
        "7C 7D 7H JC JD JS 2C 2D AS AD", "7S KC QD 6S 4C 9D TS 3H 8H 5D", "KD", "knock KD"
    )
    i = res.knocker_melds.index(cards("7C 7D 7H"))
    assert res.layoffs[i] == cards("7S")
    assert card("7S") not in res.defender_deadwood_cards


def test_defender_melds_own_cards_when_that_beats_laying_off() -> None:
    # 7S could complete the knocker's 7-set, but 7S 8S 9S as the defender's own run is better.
    _, res = knock_hand(
        "7C 7D 7H JC JD JS 2C 2D AS AD", "7S 8S 9S KC QD 6D 4C 3H 8H 5D", "KD", "knock KD"
    )
    assert cards("7S 8S 9S") in res.defender_melds
    assert all(not g for g in res.layoffs)
    assert res.defender_deadwood == 10 + 10 + 6 + 4 + 3 + 8 + 5


def test_deadwood_cannot_be_laid_off_on_the_knockers_deadwood() -> None:
    # Source: the knocker's two 3s are deadwood; the defender's 3 makes no meld with them.
    _, res = knock_hand(
        "4H 5H 6H 7H 8H 9C 9D 9S 3C 3D", "TC TD TH KC KD KS 2S 2H QC 3S", "KH", "knock KH"
    )
    assert res.knocker_deadwood_cards == cards("3C 3D")
    assert card("3S") in res.defender_deadwood_cards
    assert res.defender_deadwood == 2 + 2 + 10 + 3 and res.points == 17 - 6


SOURCE_DEFENDER = "5S KC QD 9H 8D 7C 6H 4C TD 9C"  # no melds, 78 points


@pytest.mark.parametrize(
    ("knocker", "meld"),
    [
        ("5C 5D 5H JC JD JS 2C 2D AH AD", "5C 5D 5H"),
        ("6S 7S 8S JC JD JS 2C 2D AH AD", "6S 7S 8S"),
        ("2S 3S 4S JC JD JH 3C AC AH AD", "2S 3S 4S"),
    ],
)
def test_source_layoff_example_a_five_onto_three_fives_or_onto_6_7_8_or_2_3_4(
    knocker: str, meld: str
) -> None:
    _, res = knock_hand(knocker, SOURCE_DEFENDER, "KH", "knock KH")
    assert res.layoffs[res.knocker_melds.index(cards(meld))] == cards("5S")
    assert res.defender_deadwood == 78 - 5


def test_no_layoffs_against_gin() -> None:
    # The defender's JS would extend 7S-TS and 4C the clubs run, but gin allows no layoffs.
    _, res = knock_hand(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S TS", "JS 4C KH QD 6C 9D 3H 8H 5D 2S", "KD", "gin KD"
    )
    assert res.result == "gin" and all(not g for g in res.layoffs)
    assert card("JS") in res.defender_deadwood_cards and card("4C") in res.defender_deadwood_cards


def test_no_layoffs_against_big_gin() -> None:
    """Spec: "No layoffs against gin." Big gin is gin with all 11 cards melded: the
    defender's QS (onto 7S-JS) and 4C (onto AC-3C or the 4s) stay deadwood."""
    _, res = knock_hand(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S TS",
        "QS 4C KH QD 6C 9D 3H 8H 5D 2H",
        "JS",
        "big gin",
        big_gin_bonus=31,
    )
    assert res.result == "big_gin" and all(not g for g in res.layoffs)
    assert card("QS") in res.defender_deadwood_cards and card("4C") in res.defender_deadwood_cards
    assert res.defender_deadwood == 67 and res.points == 67 + 31


# --------------------------------------------------------------------------- hand scoring


def test_gin_scores_defender_deadwood_plus_gin_bonus() -> None:
    s, res = knock_hand(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S TS", "JS 4C KH QD 6C 9D 3H 8H 5D 2S", "KD", "gin KD"
    )
    assert res.defender_deadwood == 10 + 4 + 10 + 10 + 6 + 9 + 3 + 8 + 5 + 2
    assert res.points == res.defender_deadwood + 25 and s.scores == (res.points, 0)


def test_gin_is_not_undercut_when_the_defender_has_no_deadwood() -> None:
    """Spec: "Gin: knocker scores D + gin_bonus (25)." With D = 0 = K the undercut clause
    ("if D <= K ... the defender scores") does not apply: gin is never undercut."""
    s, res = knock_hand(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S TS", "5H 6H 7H 8H TC TD TH JC JD JH", "KD", "gin KD"
    )
    assert (res.result, res.defender_deadwood, res.winner, res.points) == ("gin", 0, 0, 25)
    assert s.scores == (25, 0) and s.wins == (1, 0)


def test_knocker_scores_the_difference_source_example() -> None:
    # Source: after layoffs the defender holds two queens (20), the knocker two 2s (4): 16.
    s, res = knock_hand(
        "4H 5H 6H 7H 8H 9C 9D 9S 2C 2D", "TC TD TH 4S 5S 6S 7S 8S QC QD", "KH", "knock KH"
    )
    assert (res.result, res.knocker_deadwood, res.defender_deadwood) == ("knock", 4, 20)
    assert res.points == 16 and s.scores == (16, 0) and s.wins == (1, 0)


def test_undercut_when_defender_deadwood_lower_source_example() -> None:
    # Source: the knocker has 9, the defender 2 after laying off: 7 + 25 = 32.
    s, res = knock_hand(
        "6H 7H 8H 9H TH JC JD JS 4C 5D", "5H AC AD 2S 3S 4S 5S KC KD KH", "QD", "knock QD"
    )
    assert (res.result, res.knocker_deadwood, res.defender_deadwood) == ("undercut", 9, 2)
    assert res.layoffs[res.knocker_melds.index(cards("6H 7H 8H 9H TH"))] == cards("5H")
    assert res.winner == 1 and res.points == 32 and s.scores == (0, 32) and s.wins == (0, 1)


TIE_KNOCKER = "6H 7H 8H 9H TH JC JD JS 4C 5D"  # deadwood 9
TIE_DEFENDER = "AC 8D 2S 3S 4S 5S 6S KC KD KH"  # deadwood 1 + 8 = 9; nothing to lay off


def test_undercut_when_deadwood_equal_by_default() -> None:
    _, res = knock_hand(TIE_KNOCKER, TIE_DEFENDER, "QD", "knock QD")
    assert (res.knocker_deadwood, res.defender_deadwood) == (9, 9)
    assert res.result == "undercut" and res.winner == 1 and res.points == 25


def test_equal_deadwood_is_the_knockers_hand_when_undercut_on_tie_is_off() -> None:
    s, res = knock_hand(TIE_KNOCKER, TIE_DEFENDER, "QD", "knock QD", undercut_on_tie=False)
    assert res.result == "knock" and res.winner == 0 and res.points == 0
    assert s.wins == (1, 0) and s.tables[0].seats == (0, 1)  # the loser, seat 1, deals


def test_bonus_options_change_hand_scores() -> None:
    _, res = knock_hand(
        "AC 2C 3C 4D 4H 4S 7S 8S 9S TS",
        "JS 4C KH QD 6C 9D 3H 8H 5D 2S",
        "KD",
        "gin KD",
        gin_bonus=7,
    )
    assert res.points == res.defender_deadwood + 7
    _, res = knock_hand(
        "6H 7H 8H 9H TH JC JD JS 4C 5D",
        "5H AC AD 2S 3S 4S 5S KC KD KH",
        "QD",
        "knock QD",
        undercut_bonus=3,
    )
    assert res.points == 7 + 3


# --------------------------------------------------------------------------- the match


WIN16 = ("4H 5H 6H 7H 8H 9C 9D 9S 2C 2D", "TC TD TH 4S 5S 6S 7S 8S QC QD", "KS", "KH")


def finish_with_knock(**options: Any) -> GinRummyState:
    s = start(*WIN16, **options)
    return play(both_pass(s), (0, "knock KH"))  # seat 0 wins 16


def test_match_ends_at_target_with_game_bonus_and_line_bonuses() -> None:
    s = finish_with_knock(scores=(90, 40), hands_won=(3, 2))
    assert s.over and GAME.to_act(s) == ()
    out = GAME.outcome(s)
    assert out is not None
    assert out.details["running"] == [106, 40]
    assert out.scores == (106 + 100 + 25 * 4, 40 + 25 * 2)
    assert out.ranks == (1, 2) and out.details["reason"] == "target_score"
    assert GAME.observation(s, 1).final_scores == (306, 90)


def test_match_continues_below_target() -> None:
    s = finish_with_knock(scores=(80, 40), hands_won=(3, 2))
    assert not s.over and s.hand_number == 2 and s.scores == (96, 40)
    assert GAME.outcome(s) is None
    assert GAME.standings(s).ranks == (1, 2)


def test_shutout_bonus_when_loser_won_no_hand() -> None:
    s = finish_with_knock(scores=(90, 0), hands_won=(3, 0))
    out = GAME.outcome(s)
    assert out is not None and out.scores == (106 + 100 + 25 * 4 + 100, 0)


def test_target_score_and_bonus_options() -> None:
    s = finish_with_knock(target_score=16, game_bonus=50, line_bonus=5, shutout_bonus=7)
    out = GAME.outcome(s)
    assert out is not None and out.scores == (16 + 50 + 5 + 7, 0)


def test_pagat_classic_preset_gin_20_undercut_10_line_20_shutout_doubles() -> None:
    r = rules(preset="pagat_classic")
    assert (r.gin_bonus, r.undercut_bonus, r.line_bonus, r.shutout) == (20, 10, 20, "double")
    s = finish_with_knock(preset="pagat_classic", scores=(90, 0), hands_won=(3, 0))
    out = GAME.outcome(s)
    assert out is not None and out.scores == (2 * (106 + 100 + 20 * 4), 0)
    s = finish_with_knock(preset="pagat_classic", scores=(90, 30), hands_won=(3, 1))
    out = GAME.outcome(s)
    assert out is not None and out.scores == (106 + 100 + 80, 30 + 20)
    _, res = knock_hand(
        "6H 7H 8H 9H TH JC JD JS 4C 5D",
        "5H AC AD 2S 3S 4S 5S KC KD KH",
        "QD",
        "knock QD",
        preset="pagat_classic",
    )
    assert res.points == 7 + 10


def test_max_hands_bound_counts_void_hands() -> None:
    # stock_floor=30: every hand is void on its first turn.
    s = new_match(rules(stock_floor=30, max_hands=3), seed=3)
    hands = 0
    while GAME.to_act(s):
        seat = GAME.to_act(s)[0]
        legal = GAME.legal_actions(s, seat)
        s = GAME.apply(s, seat, "pass" if "pass" in legal else legal[0])
        hands = max(hands, s.hand_number)
    out = GAME.outcome(s)
    assert out is not None and out.details["reason"] == "max_hands"
    assert out.details["hands_played"] == 3 and out.scores == (0, 0) and out.ranks == (1, 1)


def test_max_hands_bound_leader_gets_bonuses() -> None:
    s = finish_with_knock(scores=(10, 40), hands_won=(1, 2), max_hands=5, hand_number=5)
    out = GAME.outcome(s)
    assert out is not None and out.details["reason"] == "max_hands"
    assert out.details["running"] == [26, 40]
    assert out.scores == (26 + 25 * 2, 40 + 100 + 25 * 2) and out.ranks == (2, 1)


def test_max_turns_voids_a_stalled_hand() -> None:
    s = start(UP_FIRST, UP_DEALER, "5S", "KC", max_turns=3)
    s = play(
        s,
        (0, "take upcard"),
        (0, "discard 2D"),
        (1, "draw discard"),
        (1, "discard QD"),
        (0, "draw discard"),
    )
    assert s.hand_number == 1
    s = play(s, (0, "discard 5S"))
    assert s.hand_number == 2 and s.last_hand[0].result == "void"
    assert "max_turns=3" in next(e for e in GAME.events(s) if e.kind == "void").text


def test_max_decisions_bounds_a_match() -> None:
    r = rules(max_hands=2, max_turns=5)
    assert GAME.max_decisions(r, 2) == 2 * (2 * 5 + 1)
    rng = random.Random(1)
    for seed in range(30):
        s, n = GAME.initial_state(r, 2, seed), 0
        while GAME.to_act(s):
            seat = GAME.to_act(s)[0]
            s = GAME.apply(s, seat, rng.choice(GAME.legal_actions(s, seat)))
            n += 1
        assert n <= GAME.max_decisions(r, 2)


# --------------------------------------------------------------------------- options, codes


@pytest.mark.parametrize(
    "options",
    [
        {"knock_limit": -1},
        {"knock_limit": 10001},
        {"players": 5},
        {"stock_floor": 31},
        {"stock_floor": -1},
        {"max_hands": 0},
        {"max_turns": 0},
        {"target_score": 0},
        {"gin_bonus": -5},
        {"shutout": "triple"},
        {"preset": "nope"},
        {"undercut_on_tie": "maybe"},
    ],
)
def test_inconsistent_rule_options_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        rules(**options)


def test_defaults_are_the_specs() -> None:
    r = rules()
    assert (
        r.knock_limit,
        r.gin_bonus,
        r.undercut_bonus,
        r.undercut_on_tie,
        r.big_gin_bonus,
        r.target,
        r.game_bonus,
        r.line_bonus,
        r.shutout_bonus,
        r.stock_floor,
        r.max_hands,
        r.players,
        r.shutout,
    ) == (10, 25, 25, True, 0, 100, 100, 25, 100, 2, 200, 2, "bonus")
    assert rules(players=3).target == 100 and rules(players=4).target == 125
    assert rules(players=4, target_score=80).target == 80


def test_seat_count_must_match_players_option() -> None:
    assert GAME.seats(rules()) == range(2, 3)
    assert GAME.seats(rules(players=4)) == range(4, 5)
    with pytest.raises(RulesError, match="needs 2 seats"):
        GAME.initial_state(rules(), 3, 1)


def test_illegal_actions_are_refused_with_a_reason() -> None:
    s = start(UP_FIRST, UP_DEALER, "5S", "KC")
    with pytest.raises(IllegalAction, match="not to act"):
        GAME.apply(s, 1, "pass")
    with pytest.raises(IllegalAction, match="only for the draw"):
        GAME.apply(s, 0, "draw stock")
    with pytest.raises(IllegalAction, match="not a gin_rummy action"):
        GAME.apply(s, 0, "fold")
    s = both_pass(s)
    with pytest.raises(IllegalAction, match="do not hold QS"):
        GAME.apply(s, 0, "discard QS")


def test_codes_decode_and_garbage_is_refused() -> None:
    assert GAME.decode("discard QS") == "discard QS"
    assert GAME.decode("  Knock   10h ") == "knock TH"
    assert GAME.decode("Take Upcard") == "take upcard"
    for junk in ("", "discard", "discard ZZ", "knock JK", "gin 1X", "\x00", "x" * 5000):
        with pytest.raises(InvalidAction):
            GAME.decode(junk)
    s = GAME.initial_state(rules(), 2, 1)
    for seat in GAME.to_act(s):
        for a in GAME.legal_actions(s, seat):
            assert GAME.decode(GAME.encode(a)) == a
        assert list(GAME.legal_actions(s, seat)) == sorted(GAME.legal_actions(s, seat))


def test_legal_actions_are_sorted_after_the_draw() -> None:
    s = both_pass(
        start(
            "AC 2C 3C 4D 4H 4S 7S 8S 9S 2D", UP_DEALER, "QC", "KD", big_gin_bonus=5, knock_limit=30
        )
    )
    legal = GAME.legal_actions(s, 0)
    assert list(legal) == sorted(legal) and len(set(legal)) == len(legal)


# --------------------------------------------------------------------------- what a seat sees


def test_observation_holds_what_the_seat_knows() -> None:
    s = play(
        start(UP_FIRST, UP_DEALER, "5S", "KC"),
        (0, "take upcard"),
        (0, "discard 2D"),
        (1, "draw stock"),
    )
    v = GAME.observation(s, 1)
    assert {c.code for c in v.hand} == set(UP_DEALER.split()) | {"KC"}
    t = v.tables[v.table]
    assert t.discard_pile == (card("2D"),) and t.stock_count == 30
    assert t.hand_sizes == (10, 11) and t.taken == (cards("5S"), ())
    assert (v.phase, v.opponent, v.dealer, v.hand_number) == ("discard", 0, 1, 1)
    assert v.scores == (0, 0) and v.hands_won == (0, 0) and v.to_act == (1,)
    # Nothing of seat 0's hand but the taken 5S appears in seat 1's view, and seat 1's
    # stock draw KC does not appear in seat 0's.
    assert not _shown(v) & (set(UP_FIRST.split()) - {"2D"})
    assert "KC" not in _shown(GAME.observation(s, 0))
    observation_message("gin_rummy", v)


def _shown(view: Any) -> set[str]:
    out: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for y in x.values():
                walk(y)
        elif isinstance(x, list):
            for y in x:
                walk(y)
        elif isinstance(x, str) and len(x) == 2:
            out.add(x)

    walk(to_jsonable(view))
    return out


def test_observation_unchanged_when_unseen_cards_are_redealt() -> None:
    s = play(start(UP_FIRST, UP_DEALER, "5S", "KC"), (0, "take upcard"), (0, "discard 2D"))
    rng = random.Random(3)
    for seat in (0, 1, None):
        other = resample_hidden(s, seat, rng)
        assert Counter(all_cards(other)) == Counter(all_cards(s))
        if seat is None:
            assert GAME.public_view(other) == GAME.public_view(s)
        else:
            assert GAME.observation(other, seat) == GAME.observation(s, seat)
    # ... while the opponent's view of its own hand does change.
    assert any(
        resample_hidden(s, 0, rng).tables[0].hands[1] != s.tables[0].hands[1] for _ in range(5)
    )


def test_public_result_of_last_hand_after_showdown() -> None:
    s = finish_with_knock()
    for seat in (0, 1, -1):
        v = GAME.observation(s, seat) if seat >= 0 else GAME.public_view(s)
        (res,) = v.last_hand
        assert res.hands == (
            tuple(sorted(cards("2C 2D 4H 5H 6H 7H 8H 9C 9D 9S"))),
            tuple(sorted(cards("QC TC QD TD TH 4S 5S 6S 7S 8S"))),
        )
        assert res.knock_card == card("KH") and res.points == 16
        assert v.last_hand_points == (16, 0) and v.scores == (16, 0)


def test_public_view_has_no_hand() -> None:
    v = GAME.public_view(start(UP_FIRST, UP_DEALER, "5S", "KC"))
    assert v.seat == -1 and v.hand == () and v.table == -1 and v.cannot_discard is None


# --------------------------------------------------------------------------- three players


def test_three_players_dealer_sits_out_and_the_seat_rotates_each_hand() -> None:
    s = start(*WIN16, players=3, dealer=0)
    assert s.tables[0].seats == (1, 2)
    assert GAME.to_act(s) == (1,) and GAME.legal_actions(s, 0) == ()
    v = GAME.observation(s, 0)
    assert v.phase == "sitting_out" and v.hand == () and v.table == -1 and v.dealer == 0
    assert v.tables[0].dealer == 0
    s = play(s, (1, "pass"), (2, "pass"), (1, "knock KH"))  # seat 1 wins 16
    assert s.scores == (0, 16, 0) and s.wins == (0, 1, 0)
    assert s.tables[0].seats == (2, 0)  # seat 1 sits out and deals hand 2
    with pytest.raises(IllegalAction, match="not to act"):
        GAME.apply(s, 1, "pass")


def test_three_players_void_hand_same_dealer_sits_out_again() -> None:
    s = start(UP_FIRST, UP_DEALER, "QC", "KC JS", players=3, dealer=2, stock_floor=30)
    assert s.tables[0].seats == (0, 1)
    s = play(s, (0, "pass"), (1, "pass"), (0, "discard KC"))
    assert s.last_hand[0].result == "void" and s.tables[0].seats == (0, 1)


def test_three_players_match_end_bonuses_and_shutout_need_every_other_player_winless() -> None:
    s = start(*WIN16, players=3, dealer=0, scores=(0, 90, 0), hands_won=(0, 3, 0))
    s = play(s, (1, "pass"), (2, "pass"), (1, "knock KH"))
    out = GAME.outcome(s)
    assert out is not None and out.scores == (0, 106 + 100 + 100 + 100, 0)
    assert out.ranks == (2, 1, 2) and out.teams is None
    s = start(*WIN16, players=3, dealer=0, scores=(5, 90, 0), hands_won=(1, 3, 0))
    s = play(s, (1, "pass"), (2, "pass"), (1, "knock KH"))
    out = GAME.outcome(s)
    assert out is not None and out.scores == (5 + 25, 106 + 100 + 100, 0)
    assert out.ranks == (2, 1, 3)


def test_three_players_first_dealer_from_seed() -> None:
    seen = set()
    for seed in range(30):
        s = GAME.initial_state(rules(players=3), 3, seed)
        ev = next(e for e in GAME.events(s) if e.kind == "first_dealer")
        last = re.findall(r"seat (\d) ([2-9TJQKA][CDHS])", ev.text)[-3:]
        values = {int(seat): M.VALUE[card(c).index] for seat, c in last}
        low = min(values.values())
        assert [k for k, v in values.items() if v == low] == [s.dealer]
        seen.add(s.dealer)
    assert seen == {0, 1, 2}


# --------------------------------------------------------------------------- four players


def _decks4(a: tuple[str, ...], b: tuple[str, ...]) -> list[Any]:
    return [stack_deck(*a), stack_deck(*b)]


LOSE_UNDERCUT = ("6H 7H 8H 9H TH JC JD JS 4C 5D", "5H AC AD 2S 3S 4S 5S KC KD KH", "QC", "QD")


def test_four_players_two_tables_partners_swap_opponents_every_hand() -> None:
    r = rules(players=4, stock_floor=30)
    s = new_match(r, seed=4, dealer=0)
    assert [t.seats for t in s.tables] == [(1, 0), (3, 2)]
    assert GAME.to_act(s) == (1, 3)
    # Both tables void on their first turn (stock_floor=30): same dealing team, new pairs.
    for seat in (1, 3):
        s = play(s, (seat, "pass"), (seat - 1, "pass"))
        t = next(t for t in s.tables if seat in t.seats)
        s = play(s, (seat, f"discard {STANDARD_DECK[t.stock[0]].code}"))
        if seat == 1:
            assert GAME.to_act(s) == (3,) and s.tables[0].phase == 4
    assert s.hand_number == 2
    assert [t.seats for t in s.tables] == [(3, 0), (1, 2)]


def test_four_players_team_hand_scores_summed_and_netted() -> None:
    # Table 0: seat 1 (first player, team 1) knocks and wins 16.
    # Table 1: seat 3 (first player, team 1) knocks and is undercut by seat 2: 32 to team 0.
    s = new_match(rules(players=4), seed=4, dealer=0, decks=_decks4(WIN16, LOSE_UNDERCUT))
    s = play(s, (1, "pass"), (0, "pass"), (1, "knock KH"))
    assert s.hand_number == 1 and GAME.to_act(s) == (3,)
    assert GAME.observation(s, 2).tables[0].phase == "hand_over"
    s = play(s, (3, "pass"), (2, "pass"), (3, "knock QD"))
    assert s.hand_number == 2
    assert s.scores == (32 - 16, 0) and s.wins == (1, 0)
    assert GAME.observation(s, 2).scores == (16, 0, 16, 0)
    assert GAME.observation(s, 2).last_hand_points == (16, 0, 16, 0)
    assert [r.points for r in s.last_hand] == [16, 32]
    # The losing team (1) deals: at hand 2 (pairs 0-3 and 2-1) seats 3 and 1 deal.
    assert [t.seats for t in s.tables] == [(0, 3), (2, 1)]


def test_four_players_target_125_by_default_bonuses_per_team_and_outcome_teams() -> None:
    s = new_match(
        rules(players=4),
        seed=4,
        dealer=0,
        decks=_decks4(WIN16, WIN16),
        scores=(0, 100),
        hands_won=(0, 4),
    )
    s = play(
        s, (1, "pass"), (0, "pass"), (1, "knock KH"), (3, "pass"), (2, "pass"), (3, "knock KH")
    )
    assert s.over and s.scores == (0, 132)
    out = GAME.outcome(s)
    assert out is not None and out.teams == (0, 1, 0, 1)
    assert out.scores == (0, 132 + 100 + 25 * 5 + 100) * 2
    assert out.ranks == (3, 1, 3, 1)  # competition ranks over seats; partners share theirs


def test_four_players_seat_sees_nothing_of_the_other_tables_hidden_cards() -> None:
    s = new_match(rules(players=4), seed=4, dealer=0)
    s = play(s, (3, "take upcard"))
    v = GAME.observation(s, 0)
    assert v.table == 0 and v.opponent == 1
    other = v.tables[1]
    assert other.hand_sizes == (11, 10) and other.taken[0] != () and other.to_act == 3
    rng = random.Random(8)
    for _ in range(5):
        redealt = resample_hidden(s, 0, rng)
        assert GAME.observation(redealt, 0) == v
    assert any(resample_hidden(s, 0, rng).tables[1].hands != s.tables[1].hands for _ in range(5))


def test_four_players_first_dealing_team_from_seed() -> None:
    teams = set()
    for seed in range(20):
        s = GAME.initial_state(rules(players=4), 4, seed)
        ev = next(e for e in GAME.events(s) if e.kind == "first_dealer")
        last = re.findall(r"seat (\d) ([2-9TJQKA][CDHS])", ev.text)[-4:]
        values = {int(seat): M.VALUE[card(c).index] for seat, c in last}
        low = min(values.values())
        assert {k % 2 for k, v in values.items() if v == low} == {s.dealer}
        teams.add(s.dealer)
    assert teams == {0, 1}


def test_chance_comes_from_the_seed_only() -> None:
    a = GAME.initial_state(rules(), 2, 77)
    b = GAME.initial_state(rules(), 2, 77)
    assert a == b
    order = list(range(52))
    chance_rng(77, 1, "deal/table0").shuffle(order)
    assert a.tables[0].pile == (order[20],)


def test_four_players_equal_team_totals_score_nothing_and_the_same_team_deals() -> None:
    # Table 0: seat 1 (team 1) knocks and wins 16. Table 1: seat 2 (team 0, the dealer)
    # knocks on its first turn and wins 16 too: the net is 0.
    knocker, defender, _, _ = WIN16
    table1 = (defender, knocker, "KS", "JD KH")
    s = new_match(rules(players=4), seed=4, dealer=0, decks=_decks4(WIN16, table1))
    s = play(s, (1, "pass"), (0, "pass"), (1, "knock KH"))
    s = play(s, (3, "pass"), (2, "pass"), (3, "discard JD"), (2, "draw stock"), (2, "knock KH"))
    assert [r.points for r in s.last_hand] == [16, 16]
    assert [r.winner for r in s.last_hand] == [1, 2]
    assert s.scores == (0, 0) and s.wins == (0, 0) and s.hand_number == 2
    assert [t.seats for t in s.tables] == [(3, 0), (1, 2)]  # team 0 deals again


def test_three_players_final_view_keeps_the_last_hands_dealer() -> None:
    s = start(*WIN16, players=3, dealer=0, scores=(0, 90, 0), hands_won=(0, 3, 0))
    s = play(s, (1, "pass"), (2, "pass"), (1, "knock KH"))
    v = GAME.observation(s, 0)
    assert v.phase == "match_over" and v.dealer == 0 and v.tables[0].dealer == 0
    assert v.tables[0].result is not None and v.tables[0].result.winner == 1


@pytest.mark.parametrize(
    "option", ["game_bonus", "line_bonus", "shutout_bonus", "gin_bonus", "target_score"]
)
def test_scores_are_capped_so_the_totals_fit_the_wire(option: str) -> None:
    """A game_bonus or line_bonus of 2^31 - 1 crashed the match at its end (the final
    totals are int32 on the wire); the bonuses, target and hands are capped at 10,000."""
    game = get_game("gin_rummy")
    with pytest.raises(RulesError, match="must be from"):
        parse_rules(game.Rules, {option: "10001"})
    rules = parse_rules(game.Rules, {option: "10000", "line_bonus": "10000", "max_hands": "3"})
    state = game.initial_state(rules, 2, 3)
    rng = random.Random(3)
    while game.to_act(state):
        seat = game.to_act(state)[0]
        observation_message("gin_rummy", game.observation(state, seat))
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    for seat in range(2):
        observation_message("gin_rummy", game.observation(state, seat))
