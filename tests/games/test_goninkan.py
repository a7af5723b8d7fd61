"""Goninkan rules, clause by clause, on scripted deals (docs/games/goninkan.md).

Layouts below are hands for seats 0..5 with seat 0 dealing (its hand empty) unless a test
permutes them. Tricks are written as the five cards in play order; "JK:H" leads the
joker naming hearts. Expected scores come from the spec's table, not from the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from referee.cards import card
from referee.game import Event, IllegalAction, InvalidAction, RulesError, get_game, parse_rules
from referee.games.goninkan import (
    DECK,
    GAME,
    GoninkanRules,
    State,
    draw_key,
    new_match,
)
from referee.views import observation_message

# --- Layouts --------------------------------------------------------------------------------

# A: the kankei (seat 1: AC and the club/diamond honours; seat 3: the joker and the
# heart/spade honours) hold all 16 honours; the mukankei hold only low cards.
LAYOUT_A = (
    "",
    "AC KC QC JC AD KD QD JD 9C TC",
    "3C 4C 3D 4D 5D 3H 4H 5H 2S 3S",
    "JK AH KH QH JH AS KS QS JS TS",
    "5C 6C 6D 7D 8D 6H 7H 4S 5S 6S",
    "7C 8C 9D TD 8H 9H TH 7S 8S 9S",
)


def _swap(layout: Sequence[str], a: str, sa: int, b: str, sb: int) -> tuple[str, ...]:
    """The layout with card a (in seat sa) and card b (in seat sb) exchanged."""
    hands = [h.split() for h in layout]
    hands[sa][hands[sa].index(a)] = b
    hands[sb][hands[sb].index(b)] = a
    return tuple(" ".join(h) for h in hands)


# A1: as A, but seat 5 holds TS and seat 3 the 9S, so a mukankei can win a spade trick.
LAYOUT_A1 = _swap(LAYOUT_A, "TS", 3, "9S", 5)
# A3: as A1, and seat 5 holds TC while seat 1 holds 8C.
LAYOUT_A3 = _swap(LAYOUT_A1, "TC", 1, "8C", 5)

# M: deal-1 layout where the mukankei hold every honour but the club ace (seat 1) and the
# kankei hold only the club ace and the joker (seat 3).
LAYOUT_M = (
    "",
    "AC 3C 4C 3D 4D 3H 4H 2S 3S 4S",
    "KC QC JC 6C 7C AD KD 7D 8D 9S",
    "JK 5C 5D 6D 5H 6H 5S 6S 7S 8S",
    "QD JD 9D TD 8C 9C AH KH 7H TS",
    "QH JH 8H 9H TH TC AS KS QS JS",
)

# M2: for deals 2 and 3: the mukankei hold all 16 honours and the joker.
LAYOUT_M2 = (
    "",
    "3C 4C 5C 3D 4D 3H 4H 2S 3S 4S",
    "AC KC QC JC AD KD 8C 9C 7D 8D",
    "6C 7C 5D 6D 5H 6H 5S 6S 7S 8S",
    "QD JD AH KH TC 9D TD 7H 9S JK",
    "QH JH AS KS QS JS 8H 9H TH TS",
)

# --- Scripts (tricks in play order) --------------------------------------------------------

# Deal 1 on A, seat 1 leads: the kankei reach 10 honours in trick 5, the mukankei none.
A_SKUNK_DEAL1 = [
    "AC 3C AH 5C 7C",
    "KC 4C KH 6C 8C",
    "QC 3D QH 6D 9D",
    "JC 4D JH 7D TD",
    "AD 5D AS 8D 8H",
]
# Deal 1 on A1, seat 3 leads: the mukankei win JD in trick 1; the kankei reach 10 in trick 6.
A1_WIN_DEAL1 = [
    "9S 4S TS JD 3S",
    "7C AC 3C AH 5C",
    "KC 4C KH 6C 8C",
    "QC 3D QH 6D 9D",
    "JC 4D JH 7D TD",
    "AD 5D AS 8D 8H",
]
# Deal 2 on A1 with clubs trump, seat 3 leads: the same, reaching 8 in trick 5.
A1_WIN_DEAL2 = A1_WIN_DEAL1[:5]
# Deal 3 on A3 with clubs trump, seat 1 leads: the mukankei win AH in trick 1; kankei 10.
A3_WIN_DEAL3 = [
    "8C 3C AH 5C TC",
    "7C AC 4C KH 6C",
    "KC 3D QH 6D 9D",
    "QC 4D JH 7D TD",
    "JC 5D AS 8D 8H",
    "AD 3H KS 6H 9H",
]
# Deal 2 on A with hearts trump, seat 3 leads: a skunk (8-0) in trick 4 ...
A_SKUNK_DEAL2 = [
    "AH 6H 8H AD 3H",
    "KH 7H 9H KD 4H",
    "QH 4S TH QD 5H",
    "JH 5S 7S JD 2S",
]
# ... then, after "sixteen", all 16 honours by trick 8.
A_SIXTEEN_MADE = [
    "AS 6S 8S AC 3S",
    "KS 5C 9S KC 3C",
    "QS 6C 7C QC 4C",
    "JS 6D 8C JC 3D",
]
# Deal 2 on A with hearts trump: a skunk in trick 4 where seat 2 keeps two trumps ...
A_SKUNK_DEAL2_KEEP = [
    "AH 6H 8H AD 3H",
    "AS 4S 7S KD 2S",
    "KS 5S 8S QD 3S",
    "QS 6S 9S JD 3D",
]
# ... then, after "sixteen", seat 2 trumps JS and AC: the sixteen is missed.
A_SIXTEEN_MISSED = ["JS 5C 7C AC 4H"]

# Deal 1 on M, seat 1 leads: the mukankei reach 9 in trick 4, the kankei none.
M_REVERSE_SKUNK_DEAL1 = [
    "3D AD 5D QD AS",
    "KD 6D JD KS 4D",
    "KC 5C 8C TC 3C",
    "QC 5H 9C QS 4C",
]
# Deal 1 on M: seat 3's joker takes 3 honours, the mukankei still reach 9 (a loss).
M_LOSE_DEAL1 = [
    "3D AD 5D QD AS",
    "KD JK JD KS 4D",
    "6D 9D QH 3H 7D",
    "AH 8H 4H KC 5H",
    "QC 5C 8C TC 3C",
    "JC 6H 9C JH 4C",
]
# On M2 with diamonds trump, seat 3 leads (deal 2): a reverse skunk (10-0) in trick 4 ...
M2_REVERSE_SKUNK_DEAL2 = [
    "6C TC AS 3C AC",
    "KC 7C AH KS 4C",
    "QC 5H KH QS 5C",
    "JC 6H 9S JS 3H",
]
# ... then, after "sixteen", the mukankei take the last 6 honours.
M2_REVERSE_SIXTEEN_MADE = [
    "AD 5D QD QH 3D",
    "KD 6D JD JH 4D",
]
# On M2 with diamonds trump, seat 1 leads (deal 3): a reverse skunk (8-0) in trick 3 ...
M2_REVERSE_SKUNK_DEAL3 = [
    "3C AC 6C TC AS",
    "KC 7C AH KS 4C",
    "QC 5S KH QS 5C",
]
# ... then, after "sixteen", seat 3 trumps JC and JS: the reverse sixteen is missed.
M2_REVERSE_SIXTEEN_MISSED = ["JC 5D 9S JS 3D"]
# On M2 with diamonds trump, seat 3 leads (deal 2): the kankei trump one trick, but lose.
M2_LOSE_DEAL2 = [
    "6C TC AS 3C AC",
    "KC 7C AH KS 4C",
    "QC 5D KH QS 5C",
    "5H 7H 8H 3H 7D",
    "JC 6H 9S JS 4H",
    "AD 6D QD QH 3D",
]
# The same from deal 3's lead (seat 1 names diamonds and leads 3C).
M2_LOSE_DEAL3 = ["3C AC 6C TC AS", *M2_LOSE_DEAL2[1:]]

# --- Helpers --------------------------------------------------------------------------------


def match(*deals: Sequence[str], yaku_count: int = 1, dealer: int = 0, seed: int = 0) -> State:
    return new_match(GoninkanRules(yaku_count=yaku_count), seed, first_dealer=dealer, deals=deals)


def act(s: State, code: str, seat: int | None = None) -> State:
    return GAME.apply(s, s.actor if seat is None else seat, GAME.decode(code))


def play_tricks(s: State, tricks: Sequence[str]) -> State:
    for trick in tricks:
        for c in trick.split():
            code = f"play JK name {c[3]}" if c.startswith("JK:") else f"play {c}"
            s = act(s, code)
    return s


def kimeyaku(s: State, trump: str) -> State:
    """Deals 2 and 3: the shower shows its first two cards; the chooser names ``trump``."""
    shower_hand = GAME.observation(s, s.actor).hand
    s = act(s, f"show {shower_hand[0].code} {shower_hand[1].code}")
    return act(s, f"trump {trump}")


def expect_scores(s: State, kankei: Sequence[int], points: int) -> None:
    want = tuple(points if i in kankei else -points for i in range(6))
    assert s.scores == want


def events_of_kind(s: State, kind: str) -> list[Event]:
    return [e for e in GAME.events(s) if e.kind == kind]


def random_finish(s: State, rng: random.Random) -> State:
    while GAME.to_act(s):
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, rng.choice(GAME.legal_actions(s, seat)))
    return s


# --- Players, cards, dealer -----------------------------------------------------------------


def test_deck_is_50_cards_without_the_twos_but_spades() -> None:
    codes = {c.code for c in DECK}
    assert len(DECK) == 50 == len(codes)
    assert "JK" in codes and "2S" in codes
    assert not {"2C", "2D", "2H"} & codes
    assert all(f"{r}{s}" in codes for s in "CDHS" for r in "A3456789TJQK")


def test_six_seats_only() -> None:
    rules = GoninkanRules()
    assert GAME.seats(rules) == range(6, 7)
    with pytest.raises(ValueError, match="6 seats"):
        GAME.initial_state(rules, 5, 1)


def test_first_dealer_draw_order_two_lowest_ace_highest_spades_lowest_suit_joker_top() -> None:
    ordered = ["2S", "3S", "3H", "3D", "3C", "TC", "JS", "KC", "AS", "AH", "AD", "AC", "JK"]
    keys = [draw_key(card(c)) for c in ordered]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_first_dealer_is_the_lowest_draw_from_the_seed() -> None:
    rules = GoninkanRules()
    dealers = set()
    for seed in range(40):
        s = GAME.initial_state(rules, 6, seed)
        draw = GAME.public_view(s).first_draw
        assert len(set(draw)) == 6
        lowest = min(range(6), key=lambda i: draw_key(draw[i]))
        assert s.first_dealer == s.dealer == lowest
        dealers.add(lowest)
        assert GAME.initial_state(rules, 6, seed) == s  # reproducible
    assert len(dealers) >= 4


def test_dealer_sits_out_and_the_others_get_ten_cards() -> None:
    s = GAME.initial_state(GoninkanRules(), 6, 3)
    sizes = GAME.public_view(s).hand_sizes
    assert sizes[s.dealer] == 0
    assert sorted(sizes) == [0, 10, 10, 10, 10, 10]
    assert s.dealer not in s.order and sorted(s.order) == sorted(set(range(6)) - {s.dealer})


def test_play_passes_to_the_next_seat_number_skipping_the_dealer() -> None:
    s = match(_rotate(LAYOUT_A, 2), dealer=2)  # kankei seats 3 (AC) and 5 (JK), dealer 2
    assert s.order == (3, 4, 5, 0, 1)
    s = act(s, "lead")
    seen = []
    for c in ["AC", "3C", "AH", "5C", "7C"]:
        seen.append(s.actor)
        s = act(s, f"play {c}")
    assert seen == [3, 4, 5, 0, 1]


def _rotate(layout: Sequence[str], k: int) -> tuple[str, ...]:
    """The layout moved k seats on (seat i's hand goes to seat i + k)."""
    return tuple(layout[(i - k) % 6] for i in range(6))


# --- Trump rounds -----------------------------------------------------------------------------


def test_trump_rounds_cycle_clubs_diamonds_hearts_and_the_dealer_moves_right() -> None:
    rng = random.Random(5)
    for seed in range(6):
        s = random_finish(GAME.initial_state(GoninkanRules(), 6, seed), rng)
        assert [r.trump for r in s.rounds] == list("CDHCDH")
        assert [r.dealer for r in s.rounds] == [(s.first_dealer + k) % 6 for k in range(6)]
        assert all(r.dealer in r.kankei and len(r.kankei) == 3 for r in s.rounds)


def test_yaku_count_sets_the_number_of_trump_rounds() -> None:
    rng = random.Random(1)
    for n in (1, 2, 7):
        s = random_finish(GAME.initial_state(GoninkanRules(yaku_count=n), 6, n), rng)
        assert len(s.rounds) == n
        # Deal 1: a lead choice and 50 cards; deals 2, 3: show, trump, 50 cards, sixteen.
        bound = n * ((1 + 50) + 2 * (2 + 50 + 1))
        assert GAME.max_decisions(GoninkanRules(yaku_count=n), 6) == bound


def test_a_round_goes_on_only_while_the_kankei_win_and_has_at_most_three_deals() -> None:
    rng = random.Random(2)
    lengths = set()
    for seed in range(60):
        s = random_finish(GAME.initial_state(GoninkanRules(yaku_count=3), 6, seed), rng)
        for r in s.rounds:
            assert 1 <= len(r.results) <= 3
            lengths.add(len(r.results))
            for res in r.results[:-1]:
                assert res in ("win", "skunk", "reverse sixteen missed")
            if len(r.results) < 3:
                assert r.results[-1] not in ("win", "skunk", "reverse sixteen missed")
    assert lengths == {1, 2, 3}


def test_deal_targets_are_9_8_9_for_the_kankei_and_8_9_8_for_the_mukankei() -> None:
    s = match(LAYOUT_A1, LAYOUT_A1, LAYOUT_A3)
    seen = []
    for script, trump in ((A1_WIN_DEAL1, ""), (A1_WIN_DEAL2, "C"), (A3_WIN_DEAL3, "C")):
        v = GAME.public_view(s)
        seen.append((v.deal, v.kankei_target, v.mukankei_target))
        s = act(s, "partner leads") if not trump else kimeyaku(s, trump)
        s = play_tricks(s, script)
    assert seen == [(1, 9, 8), (2, 8, 9), (3, 9, 8)]


# --- Teams ------------------------------------------------------------------------------------


def test_kankei_are_the_trump_ace_holder_the_joker_holder_and_the_dealer() -> None:
    s = match(LAYOUT_A)
    v = GAME.public_view(s)
    assert v.kankei == (0, 1, 3)
    assert (v.ace_holder, v.joker_holder, v.double_kankei) == (1, 3, False)
    assert v.trump == "C" and v.phase == "lead choice" and v.to_act == 1
    assert "seat 1 holds AC, seat 3 holds the joker" in events_of_kind(s, "team")[0].text


def test_trump_ace_is_the_ace_of_the_rounds_trump_suit() -> None:
    # Round 2 is diamonds, dealt by seat 1: seat 2 holds AD, seat 3 AC, seat 4 the joker.
    round2 = _swap(_rotate(LAYOUT_A, 1), "AC", 2, "3C", 3)
    s = match(LAYOUT_M, round2, yaku_count=2)
    s = play_tricks(act(s, "lead"), M_REVERSE_SKUNK_DEAL1)
    v = GAME.public_view(s)
    assert (v.yaku, v.dealer, v.trump) == (2, 1, "D")
    assert (v.ace_holder, v.joker_holder, v.kankei) == (2, 4, (1, 2, 4))


def test_seat_swap_when_the_two_playing_kankei_sit_side_by_side() -> None:
    # Seat 2 holds AC, seat 3 the joker: seat 3 (on the right) swaps with seat 4.
    layout = list(LAYOUT_A)
    layout[1], layout[2] = layout[2], layout[1]
    s = match(layout)
    assert s.order == (1, 2, 4, 3, 5)
    assert events_of_kind(s, "swap")
    between = _between(s.order, 2, 3)
    assert sorted(between) == [1, 2]


def test_seat_swap_across_the_dealer() -> None:
    # Seat 5 holds AC, seat 1 the joker: seat 1 is on seat 5's right (the dealer is skipped).
    layout = [LAYOUT_A[0], LAYOUT_A[3], LAYOUT_A[2], LAYOUT_A[5], LAYOUT_A[4], LAYOUT_A[1]]
    s = match(layout)
    assert s.order == (2, 1, 3, 4, 5)
    assert sorted(_between(s.order, 5, 1)) == [1, 2]


def test_seat_swap_with_the_player_across_the_dealer() -> None:
    # Spec: "the one on the right swaps seats with the player on their right (skipping the
    # dealer)". Seat 4 holds AC, seat 5 the joker: seat 5 swaps with seat 1, past dealer 0.
    layout = [LAYOUT_A[0], LAYOUT_A[2], LAYOUT_A[4], LAYOUT_A[5], LAYOUT_A[1], LAYOUT_A[3]]
    s = match(layout)
    assert s.order == (5, 2, 3, 4, 1)
    assert "seats 5 and 1 swap places" in events_of_kind(s, "swap")[0].text
    assert sorted(_between(s.order, 4, 5)) == [1, 2]


def test_no_seat_swap_when_a_mukankei_sits_between() -> None:
    s = match(LAYOUT_A)
    assert s.order == (1, 2, 3, 4, 5) and not events_of_kind(s, "swap")


def _between(order: Sequence[int], a: int, b: int) -> list[int]:
    """How many players sit between a and b going each way round."""
    pa, pb = order.index(a), order.index(b)
    return [(pb - pa) % 5 - 1, (pa - pb) % 5 - 1]


def test_seat_swap_holds_for_the_rest_of_the_trump_round_only() -> None:
    swapped = list(LAYOUT_A1)
    swapped[1], swapped[2] = swapped[2], swapped[1]  # seat 2: AC, seat 3: joker
    rng = random.Random(0)
    deals_seen = set()
    for seed in range(4):
        s = match(swapped, yaku_count=2, seed=seed)
        assert s.order == (1, 2, 4, 3, 5)
        while GAME.public_view(s).yaku == 1:
            assert s.order == (1, 2, 4, 3, 5)  # kept for every deal of the round
            deals_seen.add(GAME.public_view(s).deal)
            s = GAME.apply(s, s.actor, rng.choice(GAME.legal_actions(s, s.actor)))
        (new_round,) = events_of_kind(s, "round")
        assert s.dealer == 1 and "play order 2, 3, 4, 5, 0" in new_round.text
    assert deals_seen >= {1, 2}


def test_double_kankei_partner_is_second_to_the_right_and_gets_one_key_card_blind() -> None:
    layout = _swap(LAYOUT_A, "TC", 1, "JK", 3)  # seat 1 holds AC and the joker
    keys = {card("AC"), card("JK")}
    given = set()
    for seed in range(12):
        s = match(layout, seed=seed)
        v = GAME.public_view(s)
        assert v.double_kankei and (v.ace_holder, v.joker_holder) == (1, 3)
        assert v.kankei == (0, 1, 3) and s.order == (1, 2, 3, 4, 5)  # no swap needed
        holder = set(GAME.observation(s, 1).hand)
        partner = set(GAME.observation(s, 3).hand)
        before_holder = {card(c) for c in layout[1].split()}
        before_partner = {card(c) for c in layout[3].split()}
        went = before_holder - holder
        came = holder - before_holder
        assert len(went) == 1 and went <= keys and went <= partner
        assert len(came) == 1 and came <= before_partner
        assert partner == (before_partner - came) | went
        given |= went
        # Only the two know what moved.
        gave, received = next(iter(went)), next(iter(came))
        o1, o3 = GAME.observation(s, 1), GAME.observation(s, 3)
        assert (o1.exchange_gave, o1.exchange_received) == (gave, received)
        assert (o3.exchange_gave, o3.exchange_received) == (received, gave)
        for other in (0, 2, 4, 5):
            o = GAME.observation(s, other)
            assert o.exchange_gave is None and o.exchange_received is None
        (ex,) = events_of_kind(s, "exchange")
        assert ex.visible_to == frozenset((1, 3))
        assert gave.code not in ex.text and received.code not in ex.text
        assert gave.code in (ex.private_text or "") and received.code in (ex.private_text or "")
    assert given == keys  # either key card can go to the partner


def test_double_kankei_partner_skips_the_dealer() -> None:
    layout = list(_swap(LAYOUT_A, "TC", 1, "JK", 3))
    layout[1], layout[4] = layout[4], layout[1]  # seat 4 holds both key cards
    s = match(layout)
    v = GAME.public_view(s)
    assert (v.ace_holder, v.joker_holder) == (4, 1)  # 4 -> 5 -> (dealer 0) -> 1


def test_double_kankei_holder_takes_the_ace_holders_part() -> None:
    layout = _swap(LAYOUT_A, "TC", 1, "JK", 3)
    s = match(layout, LAYOUT_A)
    assert s.actor == 1 and GAME.legal_actions(s, 1) == ("lead", "partner leads")


# --- Leading ------------------------------------------------------------------------------------


def test_ace_holder_chooses_to_lead() -> None:
    s = act(match(LAYOUT_A), "lead", seat=1)
    assert s.actor == 1 and GAME.public_view(s).phase == "play"


def test_ace_holder_lets_the_partner_lead() -> None:
    s = act(match(LAYOUT_A), "partner leads", seat=1)
    assert s.actor == 3 and GAME.public_view(s).leader == 3


def test_only_the_ace_holder_chooses_the_lead() -> None:
    s = match(LAYOUT_A)
    assert GAME.to_act(s) == (1,)
    with pytest.raises(IllegalAction, match="not seat 3's turn"):
        GAME.apply(s, 3, "lead")


def _after_deal1(deal2: Sequence[str], deal3: Sequence[str] = LAYOUT_A) -> State:
    s = match(LAYOUT_A1, deal2, deal3)
    s = act(s, "partner leads")
    return play_tricks(s, A1_WIN_DEAL1)


def test_deal2_ace_holder_shows_two_cards_and_joker_holder_names_trump_and_leads() -> None:
    s = _after_deal1(LAYOUT_A)
    v = GAME.public_view(s)
    assert (v.deal, v.phase, v.to_act, v.trump) == (2, "show", 1, "")
    legal = GAME.legal_actions(s, 1)
    assert len(legal) == 45 and "show AC KC" in legal and legal == tuple(sorted(legal))
    s = act(s, "show KC AD")
    assert GAME.observation(s, 3).shown_cards == (card("KC"), card("AD"))
    assert GAME.observation(s, 1).shown_cards == (card("KC"), card("AD"))
    for other in (0, 2, 4, 5, -1):
        view = GAME.public_view(s) if other < 0 else GAME.observation(s, other)
        assert view.shown_cards == ()
    (ev,) = events_of_kind(s, "show")
    assert ev.visible_to == frozenset((1, 3)) and "KC" not in ev.text
    assert GAME.legal_actions(s, 3) == ("trump C", "trump D", "trump H", "trump S")
    s = act(s, "trump S")
    v = GAME.public_view(s)
    assert (v.trump, v.phase, v.to_act, v.leader) == ("S", "play", 3, 3)
    assert len(GAME.observation(s, 1).hand) == 10  # the shown cards went back


def test_deal3_joker_holder_shows_and_ace_holder_names_trump_and_leads() -> None:
    s = _after_deal1(LAYOUT_A1, LAYOUT_A3)
    s = kimeyaku(s, "C")
    s = play_tricks(s, A1_WIN_DEAL2)
    v = GAME.public_view(s)
    assert (v.deal, v.phase, v.to_act) == (3, "show", 3)
    s = act(s, "show AH KH")
    assert GAME.observation(s, 1).shown_cards == (card("AH"), card("KH"))
    assert GAME.observation(s, 2).shown_cards == ()
    assert s.actor == 1
    s = act(s, "trump D")
    assert (s.actor, GAME.public_view(s).trump) == (1, "D")


def test_show_needs_two_of_the_showers_own_cards() -> None:
    s = _after_deal1(LAYOUT_A)
    with pytest.raises(IllegalAction):
        act(s, "show AH KH")  # seat 3's cards, not seat 1's
    assert act(s, "show QC AC") == act(s, "show AC QC")  # order does not matter


# --- Tricks ----------------------------------------------------------------------------------


def _played(s: State) -> State:
    return act(s, "lead")


def test_following_players_must_follow_the_suit_led() -> None:
    s = act(_played(match(LAYOUT_A)), "play AC")
    assert GAME.legal_actions(s, 2) == ("play 3C", "play 4C")
    with pytest.raises(IllegalAction, match="not legal"):
        act(s, "play 3D")


def test_a_player_void_in_the_suit_led_may_play_any_card_but_not_the_joker_in_trick_one() -> None:
    s = play_tricks(_played(match(LAYOUT_A)), ["AC 3C"])
    legal = GAME.legal_actions(s, 3)  # seat 3 has no clubs
    assert "play JK" not in legal and "play AH" in legal and len(legal) == 9


def test_the_joker_cannot_be_led_in_trick_one() -> None:
    s = act(match(LAYOUT_A), "partner leads")
    legal = GAME.legal_actions(s, 3)
    assert not any("JK" in c for c in legal) and len(legal) == 9


def test_the_joker_may_be_played_in_trick_two_even_when_following_suit_is_possible() -> None:
    s = play_tricks(act(match(LAYOUT_M), "lead"), ["3D AD 5D QD AS", "KD"])
    legal = GAME.legal_actions(s, 3)
    assert legal == ("play 6D", "play JK")


def test_the_joker_beats_every_card_including_the_trump_ace() -> None:
    s = play_tricks(act(match(LAYOUT_M), "lead"), ["3D AD 5D QD AS", "KD JK JD KS 4D"])
    assert s.tricks[-1].winner == 3 and s.tricks[-1].honours == 3 and s.tricks[-1].kankei_won
    assert s.honours == (3, 3)


def test_leading_the_joker_names_the_suit_to_follow() -> None:
    s = play_tricks(act(match(LAYOUT_A), "partner leads"), ["TS 4S 7S JD 2S"])
    assert s.actor == 3  # TS won trick 1; in trick 2 seat 3 may lead the joker
    legal = GAME.legal_actions(s, 3)
    assert {"play JK name C", "play JK name D", "play JK name H", "play JK name S"} <= set(legal)
    assert "play JK" not in legal
    s = act(s, "play JK name D")
    assert GAME.public_view(s).led_suit == "D"
    assert GAME.legal_actions(s, 4) == ("play 6D", "play 7D", "play 8D")
    s = play_tricks(s, ["8D 9D KD 3D"])
    t = s.tricks[-1]
    assert (t.winner, t.named_suit, t.honours) == (3, "D", 1)


def test_following_with_the_joker_takes_no_name() -> None:
    s = play_tricks(act(match(LAYOUT_M), "lead"), ["3D AD 5D QD AS", "KD"])
    with pytest.raises(IllegalAction):
        act(s, "play JK name D")
    s2 = act(match(LAYOUT_A), "partner leads")
    s2 = play_tricks(s2, ["TS 4S 7S JD 2S"])
    with pytest.raises(IllegalAction):
        act(s2, "play JK")  # a led joker must name a suit


def test_highest_trump_wins_when_trumps_are_played() -> None:
    s = play_tricks(act(match(LAYOUT_A), "partner leads"), ["TS 4S 7S 9C 2S"])
    assert s.tricks[-1].winner == 1  # 9C trumps the spade lead


def test_off_suit_cards_cannot_win_the_highest_card_of_the_suit_led_wins() -> None:
    s = play_tricks(act(match(LAYOUT_A1), "partner leads"), ["9S 4S TS JD 3S"])
    t = s.tricks[-1]
    assert t.winner == 5 and not t.kankei_won and t.honours == 1  # JD (off suit) lost
    assert s.honours == (0, 1) and s.actor == 5  # the winner leads


def test_joker_must_be_played_in_trick_nine_if_still_held() -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(300):
        s = GAME.initial_state(GoninkanRules(yaku_count=1), 6, seed)
        while GAME.to_act(s):
            seat = s.actor
            legal = GAME.legal_actions(s, seat)
            view = GAME.observation(s, seat)
            if view.phase == "play" and view.trick_number == 9 and card("JK") in view.hand:
                assert all("JK" in c for c in legal)
                checked += 1
            if view.phase == "play" and view.trick_number in (1, 10):
                assert not any("JK" in c for c in legal)
            s = GAME.apply(s, seat, rng.choice(legal))
    assert checked >= 5


# L: seat 1 (AC) wins tricks 1-8 with 7 honours in all, each trick in one suit; seat 3
# keeps the joker and KD for trick 9.
LAYOUT_LATE_JOKER = (
    "",
    "7C 7D 7H 6S QC QD QH JS AD AC",
    "3C 3D 3H 2S 8C 8D 8H 7S KC QS",
    "4C 4D 4H 3S 9C 9D 9H 8S JK KD",
    "5C 5D 5H 4S TC TD TH 9S AH KS",
    "6C 6D 6H 5S JC JD JH TS KH AS",
)
LATE_JOKER_TRICKS_1_8 = [
    "7C 3C 4C 5C 6C",
    "7D 3D 4D 5D 6D",
    "7H 3H 4H 5H 6H",
    "6S 2S 3S 4S 5S",
    "QC 8C 9C TC JC",
    "QD 8D 9D TD JD",
    "QH 8H 9H TH JH",
    "JS 7S 8S 9S TS",
]


def test_joker_held_at_trick_nine_must_be_played_even_when_able_to_follow_suit() -> None:
    """Spec, Tricks: "a player still holding it when trick 9 begins must play it then"."""
    s = play_tricks(_played(match(LAYOUT_LATE_JOKER)), LATE_JOKER_TRICKS_1_8)
    assert (s.trick_no, s.honours, s.actor) == (9, (7, 0), 1)
    s = play_tricks(s, ["AD KC"])
    assert GAME.legal_actions(s, 3) == ("play JK",)  # KD would follow suit
    with pytest.raises(IllegalAction):
        act(s, "play KD")


# --- Winning a deal, skunks, sixteen ------------------------------------------------------------


def test_deal_ends_as_soon_as_a_side_reaches_its_number() -> None:
    s = play_tricks(_played(match(LAYOUT_A, LAYOUT_A)), A_SKUNK_DEAL1[:4])
    assert GAME.public_view(s).deal == 1 and s.honours == (8, 0)
    s = play_tricks(s, A_SKUNK_DEAL1[4:])
    kinds = [e.kind for e in GAME.events(s)]
    assert kinds.index("trick") < kinds.index("deal_over") < kinds.index("deal")
    v = GAME.public_view(s)
    assert (v.deal, v.phase) == (2, "show")  # trick 5 ended deal 1
    assert v.deals[0].kankei_honours == 10 and v.deals[0].result == "skunk"


def test_deal1_win_scores_plus_one_and_loss_minus_one() -> None:
    s = play_tricks(act(match(LAYOUT_A1), "partner leads"), A1_WIN_DEAL1[:5])
    assert GAME.outcome(s) is None
    s = play_tricks(s, A1_WIN_DEAL1[5:])
    assert GAME.public_view(s).round_points == 1 and s.deal_records[-1].result == "win"
    s = play_tricks(act(match(LAYOUT_M), "lead"), M_LOSE_DEAL1)
    assert s.rounds[0].results == ("lose",)
    expect_scores(s, (0, 1, 3), -1)


def test_deal1_skunk_scores_one_more() -> None:
    s = play_tricks(_played(match(LAYOUT_A, LAYOUT_M2)), A_SKUNK_DEAL1)
    assert GAME.public_view(s).round_points == 2
    # Deal 2 lost with a plain loss: the table's 0 plus deal 1's skunk bonus.
    s = play_tricks(kimeyaku(s, "D"), M2_LOSE_DEAL2)
    assert s.rounds[0].results == ("skunk", "lose")
    expect_scores(s, (0, 1, 3), 1)


def test_no_sixteen_in_deal1() -> None:
    s = play_tricks(_played(match(LAYOUT_A, LAYOUT_A)), A_SKUNK_DEAL1)
    assert GAME.public_view(s).phase == "show" and not events_of_kind(s, "offer")


def test_deal1_reverse_skunk_scores_minus_ten_and_ends_the_round() -> None:
    s = play_tricks(act(match(LAYOUT_M), "lead"), M_REVERSE_SKUNK_DEAL1)
    assert s.rounds[0].results == ("reverse skunk",)
    expect_scores(s, (0, 1, 3), -10)
    assert GAME.to_act(s) == ()


def _deal2(layout2: Sequence[str], layout3: Sequence[str] = LAYOUT_A, trump: str = "H") -> State:
    """Deal 1 won plainly on A1; deal 2 dealt from layout2, trump named."""
    return kimeyaku(_after_deal1(layout2, layout3), trump)


def test_deal2_win_makes_the_round_plus_two() -> None:
    s = play_tricks(_deal2(LAYOUT_A1, LAYOUT_M2, "C"), A1_WIN_DEAL2)
    assert GAME.public_view(s).round_points == 2 and GAME.public_view(s).deal == 3


def test_deal2_loss_makes_the_round_zero() -> None:
    s = play_tricks(_deal2(LAYOUT_M2, trump="D"), M2_LOSE_DEAL2)
    assert s.rounds[0].results == ("win", "lose")
    expect_scores(s, (0, 1, 3), 0)


def test_deal3_win_makes_the_round_plus_four() -> None:
    s = play_tricks(_deal2(LAYOUT_A1, LAYOUT_A3, "C"), A1_WIN_DEAL2)
    s = play_tricks(kimeyaku(s, "C"), A3_WIN_DEAL3)
    assert s.rounds[0].results == ("win", "win", "win")
    expect_scores(s, (0, 1, 3), 4)


def test_a_trump_round_ends_after_the_third_deal() -> None:
    s = match(LAYOUT_A1, LAYOUT_A1, LAYOUT_A3, _rotate(LAYOUT_A, 1), yaku_count=2)
    s = play_tricks(act(s, "partner leads"), A1_WIN_DEAL1)
    s = play_tricks(kimeyaku(s, "C"), A1_WIN_DEAL2)
    s = play_tricks(kimeyaku(s, "C"), A3_WIN_DEAL3)
    v = GAME.public_view(s)
    assert (v.yaku, v.deal, v.dealer) == (2, 1, 1)
    assert v.rounds[0].points == 4


def test_deal3_loss_makes_the_round_plus_one() -> None:
    s = play_tricks(_deal2(LAYOUT_A1, LAYOUT_M2, "C"), A1_WIN_DEAL2)
    s = play_tricks(kimeyaku(s, "D"), M2_LOSE_DEAL3)
    assert s.rounds[0].results == ("win", "win", "lose")
    expect_scores(s, (0, 1, 3), 1)


def test_skunk_in_deal2_offers_sixteen_to_the_winner_of_the_deciding_trick() -> None:
    s = play_tricks(_deal2(LAYOUT_A), A_SKUNK_DEAL2)
    v = GAME.public_view(s)
    assert (v.phase, v.to_act, v.kankei_honours, v.mukankei_honours) == ("sixteen", 3, 8, 0)
    assert GAME.legal_actions(s, 3) == ("no sixteen", "sixteen")


def test_declining_sixteen_scores_the_skunk() -> None:
    s = play_tricks(_deal2(LAYOUT_A, LAYOUT_M2), A_SKUNK_DEAL2)
    s = act(s, "no sixteen")
    v = GAME.public_view(s)
    assert v.deal == 3 and v.round_points == 2 + 1
    assert v.deals[-1].result == "skunk"


def test_worked_example_win_then_skunk_with_sixteen_is_13() -> None:
    s = play_tricks(_deal2(LAYOUT_A), A_SKUNK_DEAL2)
    s = act(s, "sixteen")
    assert GAME.public_view(s).declared == "sixteen" and s.actor == 3
    s = play_tricks(s, A_SIXTEEN_MADE[:3])
    assert GAME.outcome(s) is None and s.honours == (14, 0)
    s = play_tricks(s, A_SIXTEEN_MADE[3:])
    assert s.rounds[0].results == ("win", "sixteen made")
    expect_scores(s, (0, 1, 3), 4 + 1 + 8)
    out = GAME.outcome(s)
    assert out is not None and out.ranks == (1, 1, 4, 1, 4, 4) and out.teams is None


def test_sixteen_made_ends_the_round_even_in_deal2() -> None:
    s = match(LAYOUT_A1, LAYOUT_A, _rotate(LAYOUT_A, 1), yaku_count=2)
    s = play_tricks(act(s, "partner leads"), A1_WIN_DEAL1)
    s = act(play_tricks(kimeyaku(s, "H"), A_SKUNK_DEAL2), "sixteen")
    s = play_tricks(s, A_SIXTEEN_MADE)
    v = GAME.public_view(s)
    assert (v.yaku, v.deal) == (2, 1)


def test_sixteen_missed_scores_minus_sixteen_for_that_deal() -> None:
    s = play_tricks(_deal2(LAYOUT_A), A_SKUNK_DEAL2_KEEP)
    assert GAME.public_view(s).phase == "sixteen"
    s = play_tricks(act(s, "sixteen"), A_SIXTEEN_MISSED)
    assert s.rounds[0].results == ("win", "sixteen missed")
    expect_scores(s, (0, 1, 3), 1 - 16)


def test_deal2_reverse_skunk_cancels_the_round_and_scores_minus_three() -> None:
    s = match(LAYOUT_A, LAYOUT_M2)
    s = play_tricks(act(s, "lead"), A_SKUNK_DEAL1)  # +2 so far
    s = play_tricks(kimeyaku(s, "D"), M2_REVERSE_SKUNK_DEAL2)
    v = GAME.public_view(s)
    assert (v.phase, v.to_act) == ("sixteen", 2)  # seat 2 won the deciding trick
    s = act(s, "no sixteen")
    assert s.rounds[0].results == ("skunk", "reverse skunk")
    expect_scores(s, (0, 1, 3), -3)


def test_deal3_reverse_skunk_cancels_skunks_and_wins_and_scores_minus_three() -> None:
    """Spec, Scoring: "Reverse skunk: ... in deals 2 and 3 the round's earlier points are
    cancelled and the kankei get −3"."""
    s = match(LAYOUT_A, LAYOUT_A, LAYOUT_M2)
    s = play_tricks(act(s, "lead"), A_SKUNK_DEAL1)
    s = act(play_tricks(kimeyaku(s, "H"), A_SKUNK_DEAL2), "no sixteen")
    assert GAME.public_view(s).round_points == 2 + 1 + 1
    s = act(play_tricks(kimeyaku(s, "D"), M2_REVERSE_SKUNK_DEAL3), "no sixteen")
    assert s.rounds[0].results == ("skunk", "skunk", "reverse skunk")
    expect_scores(s, (0, 1, 3), -3)


def test_deal3_skunk_offers_sixteen_and_declining_scores_four_plus_one() -> None:
    """Spec: "Sixteen: in deals 2 and 3, when the kankei make a skunk, the kankei player who
    won the deciding trick may declare sixteen"; "Skunk: +1 more for that deal"."""
    s = play_tricks(_deal2(LAYOUT_A1, LAYOUT_A, "C"), A1_WIN_DEAL2)
    s = play_tricks(kimeyaku(s, "C"), A_SKUNK_DEAL1)  # seat 1 names clubs, leads, takes 10-0
    assert (GAME.public_view(s).phase, s.actor) == ("sixteen", 1)
    s = act(s, "no sixteen")
    assert s.rounds[0].results == ("win", "win", "skunk")
    expect_scores(s, (0, 1, 3), 4 + 1)


def test_reverse_sixteen_made_cancels_the_round_and_scores_minus_sixteen() -> None:
    s = match(LAYOUT_A, LAYOUT_M2)
    s = play_tricks(act(s, "lead"), A_SKUNK_DEAL1)
    s = play_tricks(kimeyaku(s, "D"), M2_REVERSE_SKUNK_DEAL2)
    s = act(s, "sixteen")
    assert GAME.public_view(s).declared == "reverse sixteen" and s.actor == 2
    s = play_tricks(s, M2_REVERSE_SIXTEEN_MADE)
    assert s.rounds[0].results == ("skunk", "reverse sixteen made")
    expect_scores(s, (0, 1, 3), -16)


def test_worked_example_skunk_skunk_then_missed_reverse_sixteen_is_38() -> None:
    s = match(LAYOUT_A, LAYOUT_A, LAYOUT_M2)
    s = play_tricks(act(s, "lead"), A_SKUNK_DEAL1)
    s = play_tricks(kimeyaku(s, "H"), A_SKUNK_DEAL2)
    s = act(s, "no sixteen")
    assert GAME.public_view(s).round_points == 2 + 1 + 1
    s = play_tricks(kimeyaku(s, "D"), M2_REVERSE_SKUNK_DEAL3)
    assert (GAME.public_view(s).phase, s.actor) == ("sixteen", 2)
    s = play_tricks(act(s, "sixteen"), M2_REVERSE_SIXTEEN_MISSED)
    assert s.rounds[0].results == ("skunk", "skunk", "reverse sixteen missed")
    expect_scores(s, (0, 1, 3), 4 + 1 + 1 + 32)
    out = GAME.outcome(s)
    assert out is not None and out.scores == (38, 38, -38, 38, -38, -38)


def test_missed_reverse_sixteen_in_deal2_counts_as_a_kankei_win_and_play_goes_on() -> None:
    s = play_tricks(_deal2(LAYOUT_M2, LAYOUT_A, "D"), M2_REVERSE_SKUNK_DEAL2)
    s = act(s, "sixteen")
    # Seat 2 leads 8C; seat 3, void in clubs, trumps and takes seat 5's QH.
    s = play_tricks(s, ["8C 5D 7H QH 2S"])
    v = GAME.public_view(s)
    assert v.deal == 3 and v.deals[-1].result == "reverse sixteen missed"
    assert v.round_points == 2 + 32  # a won deal 2 (the table's +2), plus 32


# --- What seats see; the dealer -----------------------------------------------------------------


def test_the_dealer_is_never_asked_to_act_but_sees_the_game_and_scores() -> None:
    rng = random.Random(4)
    s = GAME.initial_state(GoninkanRules(yaku_count=2), 6, 21)
    while GAME.to_act(s):
        assert s.dealer not in GAME.to_act(s)
        assert GAME.legal_actions(s, s.dealer) == ()
        view = GAME.observation(s, s.dealer)
        assert view.hand == () and s.dealer in view.kankei
        s = GAME.apply(s, s.actor, rng.choice(GAME.legal_actions(s, s.actor)))
    for r in s.rounds:
        assert r.dealer in r.kankei
    assert sum(s.scores) == 0  # three kankei against three mukankei


def test_observation_shows_own_hand_only_and_public_view_no_hand() -> None:
    s = match(LAYOUT_A)
    assert GAME.observation(s, 2).hand == tuple(sorted(card(c) for c in LAYOUT_A[2].split()))
    assert GAME.public_view(s).hand == () and GAME.public_view(s).seat == -1
    msg = observation_message("goninkan", GAME.observation(s, 2))
    assert [c.code for c in msg.goninkan.hand] == sorted(LAYOUT_A[2].split(), key=card)


def test_hand_events_are_private_to_their_seat() -> None:
    s = match(LAYOUT_A)
    hands = events_of_kind(s, "hand")
    assert len(hands) == 5
    for e in hands:
        assert e.seat is not None and e.visible_to == frozenset((e.seat,))
        assert "AC" not in e.text and "JK" not in e.text


def test_standings_count_finished_rounds_only_and_ties_share_ranks() -> None:
    s = match(LAYOUT_A1)
    st = GAME.standings(s)
    assert st.scores == (0,) * 6 and st.ranks == (1,) * 6


# --- Codes, rules ----------------------------------------------------------------------------


def test_codes_decode_loosely_written_and_reject_garbage() -> None:
    assert GAME.decode("play 10h") == "play TH"
    assert GAME.decode("Show QS 7C") == "show 7C QS"
    assert GAME.decode("play jk name h") == "play JK name H"
    assert GAME.decode(" partner   leads ") == "partner leads"
    for junk in ("", "play 2C", "play ZZ", "trump X", "show AC AC", "lead now", "\x00", "x" * 99):
        with pytest.raises(InvalidAction):
            GAME.decode(junk)


def test_illegal_actions_are_refused_with_a_reason() -> None:
    s = match(LAYOUT_A)
    with pytest.raises(IllegalAction, match="legal: lead, partner leads"):
        GAME.apply(s, 1, "trump H")
    s = act(s, "lead")
    with pytest.raises(IllegalAction, match="not a goninkan action code"):
        GAME.apply(s, 1, "play 2C")
    with pytest.raises(IllegalAction):
        GAME.apply(s, 1, "play 3C")  # not in seat 1's hand
    end = play_tricks(act(match(LAYOUT_M), "lead"), M_REVERSE_SKUNK_DEAL1)
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(end, 1, "lead")


def test_rules_reject_inconsistent_yaku_count() -> None:
    game = get_game("goninkan")
    assert parse_rules(game.Rules, {}).yaku_count == 6
    assert parse_rules(game.Rules, {"yaku_count": "3"}).yaku_count == 3
    for bad in ("0", "-2", "61"):
        with pytest.raises(RulesError, match="yaku_count"):
            parse_rules(game.Rules, {"yaku_count": bad})
    with pytest.raises(RulesError):
        parse_rules(game.Rules, {"yaku_count": "six"})


def test_scripted_deals_must_be_whole() -> None:
    with pytest.raises(ValueError):
        match(LAYOUT_A[:5])
    duplicated = list(LAYOUT_A)
    duplicated[1] = duplicated[1].replace("TC", "3C")
    with pytest.raises(ValueError, match="exactly once"):
        match(duplicated)
    with pytest.raises(ValueError, match="dealer"):
        match(_rotate(LAYOUT_A, 1))  # seat 0 deals but gets cards


def test_many_random_matches_keep_the_invariants() -> None:
    """Thousands of random decisions: cards stay 50, the bound holds, scores are zero-sum per
    round (3 kankei vs 3 mukankei), and seat 5 never acts while it deals."""
    rng = random.Random(99)
    rules = GoninkanRules(yaku_count=2)
    bound = GAME.max_decisions(rules, 6)
    for seed in range(150):
        s = GAME.initial_state(rules, 6, seed)
        n = 0
        while GAME.to_act(s):
            legal = GAME.legal_actions(s, s.actor)
            assert legal and all(GAME.legal_actions(s, o) == () for o in range(6) if o != s.actor)
            total = sum(h.bit_count() for h in s.hands) + 5 * len(s.tricks) + len(s.trick)
            assert total == 50
            s = GAME.apply(s, s.actor, rng.choice(legal))
            n += 1
        assert n <= bound and sum(s.scores) == 0
