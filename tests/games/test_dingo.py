"""Dingo rules, one test per clause of docs/games/dingo.md, on scripted deals.

Most tests build a deal with :func:`scripted`: each seat keeps six chosen cards and
gets four junk cards. :func:`to_hunt` then plays the seven discard and pass steps
so that every seat discards exactly its junk and every pass comes back to its
passer, which leaves the kept cards for the hunt. A heart that nobody keeps is
junk, so it is discarded and its rank is never hunted: only the ranks a test
names take part.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from referee.cards import Card, Suit, card, cards
from referee.game import IllegalAction, InvalidAction, RulesError, parse_rules
from referee.games.dingo import (
    DEALT_CARDS,
    GAME,
    DingoRules,
    DingoState,
    DingoView,
    HuntView,
    state_from_hands,
)

ONE_DEAL = DingoRules(deals=1)
PRE_HUNT = ("discard", "pass_left", "pass_across", "pass_right")


def scripted(
    kept: dict[int, str], dealer: int = 0, rules: DingoRules = ONE_DEAL, seed: int = 0
) -> tuple[DingoState, list[set[Card]]]:
    """A deal where seat i keeps ``kept[i]`` (topped up to six inert cards) plus four junk.

    Aces nobody keeps go to seats 0-3 in the order AC AD AH AS. Top-up cards are
    clubs and spades of ranks whose heart nobody keeps (so they can never hunt).
    """
    hands = {i: list(cards(kept.get(i, ""))) for i in range(4)}
    for i, ace in enumerate(cards("AC AD AH AS")):
        if not any(ace in h for h in hands.values()):
            hands[i].append(ace)
    used = {c for h in hands.values() for c in h}
    live = {c.rank for c in used if c.suit is Suit.HEARTS}
    filler = [
        c
        for c in DEALT_CARDS
        if c not in used and c.suit in (Suit.CLUBS, Suit.SPADES) and c.rank not in live | {1}
    ]
    for h in hands.values():
        assert len(h) <= 6, "keep at most six cards per seat"
        while len(h) < 6:
            h.append(filler.pop(0))
    used = {c for h in hands.values() for c in h}
    junk = [c for c in DEALT_CARDS if c not in used]
    junk_sets = [set(junk[i::4]) for i in range(4)]
    state = state_from_hands(
        [hands[i] + sorted(junk_sets[i]) for i in range(4)], rules, dealer=dealer, seed=seed
    )
    return state, junk_sets


def view(s: DingoState, seat: int = -1) -> DingoView:
    v: DingoView = GAME.public_view(s) if seat < 0 else GAME.observation(s, seat)
    return v


def actor(s: DingoState) -> int:
    (seat,) = GAME.to_act(s)
    return seat


def legal(s: DingoState, seat: int | None = None) -> list[str]:
    return [GAME.encode(a) for a in GAME.legal_actions(s, actor(s) if seat is None else seat)]


def play(s: DingoState, *codes: str) -> DingoState:
    """The actor plays each code in turn."""
    for code in codes:
        s = GAME.apply(s, actor(s), GAME.decode(code))
    return s


def advance(s: DingoState, junk: list[set[Card]], until: str | None = None) -> DingoState:
    """Play the discard and pass steps of this deal neutrally, up to phase ``until``.

    Each seat discards its junk; in a pass, a seat hands on the card it has just
    received in this step, else it passes junk (which then comes back to it).
    """
    deal = s.deal_number
    while view(s).phase in PRE_HUNT and view(s).phase != until and s.deal_number == deal:
        seat = actor(s)
        v = view(s, seat)
        mine = sorted(junk[seat] & set(v.hand))
        if v.phase == "discard":
            s = GAME.apply(s, seat, GAME.decode(f"discard {mine[0]}"))
            continue
        last = v.passes[-1] if v.passes else None
        if last is not None and last.step == v.step and last.to_seat == seat:
            assert last.card is not None
            give = last.card
        else:
            give = mine[0]
        s = GAME.apply(s, seat, GAME.decode(f"pass {give}"))
    return s


def to_hunt(s: DingoState, junk: list[set[Card]]) -> DingoState:
    return advance(s, junk)


def decline_rest(s: DingoState) -> DingoState:
    """Decline every choice until the deal (here: the match) is over."""
    deal = s.deal_number
    while GAME.to_act(s) and s.deal_number == deal:
        s = play(s, "decline")
    return s


def decline_forced(s: DingoState) -> DingoState:
    """The seats to act whose only choice is to decline (they hold no wolf, yet are asked)
    decline, until a seat with a real choice is to act or nobody is."""
    while GAME.to_act(s) and legal(s) == ["decline"]:
        s = play(s, "decline")
    return s


def hunt(s: DingoState, rank: int) -> HuntView:
    (found,) = [h for h in view(s).hunts if h.rank == rank]
    return found


def pile(s: DingoState, seat: int, kind: str = "scoring") -> list[str]:
    v = view(s)
    p = v.scoring_piles[seat] if kind == "scoring" else v.penalty_piles[seat]
    return [c.code for c in p]


def codes(cs: Iterable[Card]) -> list[str]:
    return [c.code for c in cs]


def hand_of(s: DingoState, seat: int) -> list[str]:
    return codes(view(s, seat).hand)


# --- players, cards, deal -----------------------------------------------------------------


def test_exactly_four_seats() -> None:
    assert GAME.seats(DingoRules()) == range(4, 5)
    with pytest.raises(ValueError, match="exactly 4 seats"):
        GAME.initial_state(DingoRules(), 3, 1)


def test_hunt_deck_is_diamonds_two_to_king_face_up_in_order_and_ten_cards_each() -> None:
    s = GAME.initial_state(DingoRules(), 4, 42)
    v = view(s)
    assert codes(v.hunt_deck) == [
        "2D",
        "3D",
        "4D",
        "5D",
        "6D",
        "7D",
        "8D",
        "9D",
        "TD",
        "JD",
        "QD",
        "KD",
    ]
    assert v.hand_sizes == (10, 10, 10, 10)
    dealt = [c for seat in range(4) for c in view(s, seat).hand]
    assert sorted(dealt) == sorted(DEALT_CARDS)
    assert card("AD") in dealt and len(dealt) == 40


def test_first_dealer_is_seat_0_and_the_deal_passes_left() -> None:
    s = GAME.initial_state(DingoRules(), 4, 5)
    assert view(s).dealer == 0 and actor(s) == 0
    while GAME.to_act(s):
        s = GAME.apply(s, actor(s), GAME.legal_actions(s, actor(s))[0])
    out = GAME.outcome(s)
    assert out is not None
    assert out.details["dealers"] == [0, 1, 2, 3]
    assert out.details["deals_played"] == 4


def test_the_shuffle_is_reproducible_from_the_seed() -> None:
    a, b = GAME.initial_state(DingoRules(), 4, 9), GAME.initial_state(DingoRules(), 4, 9)
    assert a == b
    assert a.hands != GAME.initial_state(DingoRules(), 4, 10).hands


# --- discards and passes --------------------------------------------------------------------


def test_discards_start_with_the_dealer_and_go_clockwise() -> None:
    s, junk = scripted({}, dealer=2)
    order = []
    for _ in range(4):
        seat = actor(s)
        order.append(seat)
        mine = sorted(junk[seat])[0]
        s = play(s, f"discard {mine}")
        assert view(s).discards[-1].card == mine and view(s).discards[-1].seat == seat
    assert order == [2, 3, 0, 1]
    assert view(s).phase == "pass_left" and actor(s) == 2


def test_aces_can_never_be_discarded() -> None:
    s, _ = scripted({0: "AC AD AH AS"})
    assert all(not code.startswith("discard A") for code in legal(s))
    with pytest.raises(IllegalAction, match="aces can never be discarded"):
        play(s, "discard AH")


def _to_step(s: DingoState, junk: list[set[Card]], phase: str) -> DingoState:
    return advance(s, junk, until=phase)


def test_pass_left_each_player_sees_the_card_received_before_passing_it_on() -> None:
    s, junk = scripted({}, dealer=1)
    s = _to_step(s, junk, "pass_left")
    assert actor(s) == 1
    s = play(s, "pass AD")  # aces may be passed; the dealer passes to the left first
    assert actor(s) == 2 and "AD" in hand_of(s, 2)
    assert "pass AD" in legal(s)  # the card received may be passed on
    s = play(s, "pass AD")
    assert actor(s) == 3 and "AD" in hand_of(s, 3)
    keep = next(c for c in legal(s) if c != "pass AD")
    s = play(s, keep)
    assert actor(s) == 0 and keep[5:] in hand_of(s, 0)
    s = play(s, f"pass {keep[5:]}")
    assert keep[5:] in hand_of(s, 1)  # the dealer receives last
    assert "AD" in hand_of(s, 3)
    assert view(s).phase == "discard" and view(s).step == 3 and actor(s) == 1
    assert [(p.from_seat, p.to_seat) for p in view(s).passes] == [(1, 2), (2, 3), (3, 0), (0, 1)]


def test_pass_across_dealer_first_then_opposite_then_the_dealers_left_neighbour() -> None:
    s, junk = scripted({}, dealer=0)
    s = _to_step(s, junk, "pass_across")
    steps = []
    for _ in range(4):
        seat = actor(s)
        v = view(s, seat)
        given = sorted(junk[seat] & set(v.hand))[0]
        s = play(s, f"pass {given}")
        last = view(s).passes[-1]
        steps.append((seat, last.to_seat))
        assert given.code in hand_of(s, last.to_seat)  # seen before the recipient passes
    assert steps == [(0, 2), (2, 0), (1, 3), (3, 1)]


def test_pass_right_goes_to_the_right_dealer_first() -> None:
    s, junk = scripted({}, dealer=3)
    s = _to_step(s, junk, "pass_right")
    pairs = []
    for _ in range(4):
        seat = actor(s)
        s = play(s, legal(s)[0])
        pairs.append((seat, view(s).passes[-1].to_seat))
    assert pairs == [(3, 2), (2, 1), (1, 0), (0, 3)]


def test_seven_steps_four_discards_leave_six_cards_each() -> None:
    s, junk = scripted({0: "5H", 1: "5C"})
    sizes = []
    for step in (1, 2, 3, 4, 5, 6, 7):
        assert view(s).step == step
        kind = "discard" if step % 2 else "pass"
        for _ in range(4):
            seat = actor(s)
            v = view(s, seat)
            last = v.passes[-1] if v.passes else None
            if kind == "pass" and last and last.step == step and last.to_seat == seat:
                s = play(s, f"pass {last.card}")
            else:
                s = play(s, f"{kind} {sorted(junk[seat] & set(v.hand))[0]}")
        sizes.append(view(s).hand_sizes)
    assert sizes[:6] == [(9,) * 4, (9,) * 4, (8,) * 4, (8,) * 4, (7,) * 4, (7,) * 4]
    # Step 7 left six each; the dingo 5H was then played by seat 0.
    assert (view(s).phase, view(s).hand_sizes) == ("hunt", (5, 6, 6, 6))
    assert [d.step for d in view(s).discards] == [1] * 4 + [3] * 4 + [5] * 4 + [7] * 4 + [8] * 3


def test_a_seat_sees_the_cards_it_passed_and_received_never_other_passes() -> None:
    s, junk = scripted({})
    s = _to_step(s, junk, "pass_left")
    given = sorted(junk[0] & set(view(s, 0).hand))[0]
    s = play(s, f"pass {given}")
    event = GAME.events(s)[0]
    assert event.kind == "pass" and event.visible_to == frozenset({0, 1})
    assert given.code not in event.text and given.code in (event.private_text or "")
    s = play(s, *(legal(s)[:1]))  # seat 1 passes to seat 2
    assert view(s, 0).passes[1].card is None  # 1 -> 2: seat 0 is not told
    assert view(s, 3).passes[0].card is None
    assert view(s, 1).passes[0].card is not None and view(s, 1).passes[1].card is not None
    assert view(s, 2).passes[1].card is not None
    assert all(p.card is None for p in view(s).passes)  # a spectator sees no passed card
    assert view(s, 0).hand != view(s, 1).hand and view(s).hand == ()


# --- the hunt of ranks 2 to K ----------------------------------------------------------------


def test_discarded_dingo_means_nobody_plays_and_the_rabbit_is_discarded() -> None:
    s, junk = scripted({0: "6C", 1: "6S"})  # 6H is junk: discarded
    s = to_hunt(s, junk)
    h = hunt(s, 6)
    assert (h.result, h.dingo_seat, h.wolves) == ("rabbit discarded", -1, ())
    assert any(d.card == card("6D") and d.seat == -1 for d in view(s).discards)
    assert "6C" in hand_of(s, 0) and "6S" in hand_of(s, 1)
    assert view(s).hunt_rank == 1  # straight on to the ace hunt: nobody was asked


def test_dingo_is_played_automatically_and_every_seat_after_it_is_asked_clockwise() -> None:
    s, junk = scripted({2: "9H", 0: "9C", 1: "9S"})
    s = to_hunt(s, junk)
    v = view(s)
    assert (v.phase, v.hunt_rank, codes(v.table)) == ("hunt", 9, ["9H"])
    assert "9H" not in hand_of(s, 2)
    # Seat 3 holds no wolf and is asked all the same (declining is its only choice): were
    # it passed over, the others would see from the timing who holds wolves.
    assert actor(s) == 3 and legal(s) == ["decline"] and hunt(s, 9).passed == ()
    s = play(s, "decline")
    assert [e.text for e in GAME.events(s)] == ["seat 3 passes"]
    assert hunt(s, 9).passed == (3,)
    assert actor(s) == 0 and legal(s) == ["wolf 9C", "decline"]
    s = play(s, "decline")
    assert actor(s) == 1 and legal(s) == ["wolf 9S", "decline"]
    s = play(s, "wolf 9S", "decline")  # asked about the other wolf too (below)
    assert hunt(s, 9).result == "one wolf" and hunt(s, 9).passed == (3, 0)


def test_no_wolf_puts_the_rabbit_in_the_dingo_players_penalty_pile_and_discards_the_dingo() -> None:
    s, junk = scripted({0: "5H", 1: "5C"})
    s = to_hunt(s, junk)
    assert actor(s) == 1
    s = play(s, "decline")
    assert actor(s) == 2 and legal(s) == ["decline"]
    s = play(s, "decline", "decline")
    h = hunt(s, 5)
    assert (h.result, h.rabbit_seat, h.passed) == ("no wolf", -1, (1, 2, 3))
    assert pile(s, 0, "penalty") == ["5D"] and pile(s, 0) == []
    (dingo,) = [d for d in view(s).discards if d.card == card("5H")]
    assert (dingo.seat, dingo.step) == (0, 8)
    assert view(s).deal_scores[0] == -1


def test_one_wolf_dingo_scores_and_the_wolf_takes_rabbit_and_wolf() -> None:
    s, junk = scripted({0: "5H", 1: "5C"})
    s = play(to_hunt(s, junk), "wolf 5C")
    # Seat 1 is asked about the other wolf, which it does not hold, as a seat holding
    # both would be: were it not, the timing of "ends its turn" would tell them apart.
    assert actor(s) == 1 and legal(s) == ["decline"]
    s = play(s, "decline")
    assert [e.text for e in GAME.events(s)] == ["seat 1 ends its turn"]
    assert hunt(s, 5).result == "" and actor(s) == 2  # the other wolf may still come
    s = play(s, "decline", "decline")
    assert hunt(s, 5).result == "one wolf" and hunt(s, 5).rabbit_seat == 1
    assert pile(s, 0) == ["5H"] and pile(s, 1) == ["5D", "5C"]
    assert view(s).deal_scores[:2] == (1, 2)


def test_two_wolves_first_wolf_to_the_dingo_second_takes_the_rabbit() -> None:
    s, junk = scripted({0: "5H", 1: "5C", 3: "5S"})
    s = play(to_hunt(s, junk), "wolf 5C", "decline")
    assert actor(s) == 2 and legal(s) == ["decline"]  # seat 2 has no wolf
    s = play(s, "decline", "wolf 5S")
    h = hunt(s, 5)
    assert h.result == "two wolves" and [(w.seat, w.card.code) for w in h.wolves] == [
        (1, "5C"),
        (3, "5S"),
    ]
    assert pile(s, 0) == ["5H", "5C"] and pile(s, 3) == ["5D", "5S"]
    assert pile(s, 1) == []  # the first wolf's player scores nothing
    assert view(s).deal_scores[:4] == (2, 0, 0, 2)


def test_one_player_plays_both_wolves_and_is_first_and_second_wolf() -> None:
    s, junk = scripted({0: "5H", 2: "5C 5S"})
    s = play(to_hunt(s, junk), "decline")  # seat 1 holds neither
    assert actor(s) == 2 and legal(s) == ["wolf 5C", "wolf 5S", "decline"]
    s = play(s, "wolf 5S")
    assert actor(s) == 2 and legal(s) == ["wolf 5C", "decline"]  # decides on the other one
    s = play(s, "wolf 5C")
    assert hunt(s, 5).result == "two wolves"
    assert pile(s, 0) == ["5H", "5S"] and pile(s, 2) == ["5D", "5C"]


def test_a_player_holding_both_wolves_may_play_one_and_keep_the_other() -> None:
    s, junk = scripted({0: "5H", 2: "5C 5S"})
    s = play(to_hunt(s, junk), "decline", "wolf 5C", "decline")
    kinds = [e.kind for e in GAME.events(s)]
    assert kinds == ["turn_end"]  # same public event as a one-wolf turn: nothing revealed
    s = play(s, "decline")  # seat 3
    h = hunt(s, 5)
    assert h.result == "one wolf" and h.passed == (1, 3)
    assert pile(s, 2) == ["5D", "5C"] and "5S" in hand_of(s, 2)


def test_the_dingo_player_may_not_play_their_own_wolves() -> None:
    s, junk = scripted({1: "7H 7C 7S"})
    s = to_hunt(s, junk)
    assert [actor(s), legal(s)] == [2, ["decline"]]
    s = play(s, "decline", "decline")
    assert [actor(s), legal(s)] == [0, ["decline"]]
    s = play(s, "decline")
    h = hunt(s, 7)
    assert (h.dingo_seat, h.result, h.passed) == (1, "no wolf", (2, 3, 0))
    assert "7C" in hand_of(s, 1) and "7S" in hand_of(s, 1)
    assert pile(s, 1, "penalty") == ["7D"]


def test_the_hunt_of_a_rank_ends_when_both_wolves_are_out() -> None:
    s, junk = scripted({3: "8H", 0: "8C", 1: "8S"})
    s = play(to_hunt(s, junk), "wolf 8C", "decline", "wolf 8S")
    h = hunt(s, 8)
    assert h.result == "two wolves" and h.passed == ()
    assert view(s).hunt_rank == 1  # on to the ace hunt


def test_ten_to_king_are_worth_two_and_two_to_nine_worth_one() -> None:
    s, junk = scripted({0: "QH 9H", 1: "QS", 2: "9C"})
    s = play(to_hunt(s, junk), "decline", "wolf 9C", "decline", "decline")  # 9: seats 1-3
    s = play(s, "wolf QS", "decline", "decline", "decline")  # Q: seats 1, 2, 3
    assert pile(s, 0) == ["9H", "QH"]
    assert view(s).deal_scores[:3] == (1 + 2, 4, 2)


def test_ranks_are_hunted_in_order_two_to_king() -> None:
    s, junk = scripted({0: "KH 2H 7H", 1: "KC 2C 7C"})
    s = to_hunt(s, junk)
    seen = []
    while view(s).phase == "hunt":
        seen.append(view(s).hunt_rank)
        s = play(s, "decline")
    assert seen == [2] * 3 + [7] * 3 + [13] * 3  # each rank asks seats 1, 2 and 3
    assert [h.rank for h in view(s).hunts][:12] == list(range(2, 14))
    assert pile(s, 0, "penalty") == ["2D", "7D", "KD"]


# --- the ace hunt -------------------------------------------------------------------------


def test_four_aces_in_one_hand_are_shown_at_once_for_19() -> None:
    s, junk = scripted({2: "AC AD AH AS"})
    s = to_hunt(s, junk)
    assert GAME.to_act(s) == ()  # nothing to decide: the deal (and one-deal match) is over
    h = hunt(s, 1)
    assert (h.result, h.dingo_seat, h.rabbit_seat) == ("four aces", 2, 2)
    assert sorted(pile(s, 2)) == ["AC", "AD", "AH", "AS"]
    out = GAME.outcome(s)
    assert out is not None and out.scores == (0, 0, 19, 0) and out.ranks == (2, 2, 1, 2)


def test_source_example_spade_club_and_diamond_aces_in_one_hand_score_16() -> None:
    s, junk = scripted({1: "AC AS AD", 3: "AH"})
    s = to_hunt(s, junk)
    assert (view(s).phase, codes(view(s).table)) == ("ace_hunt", ["AH"])  # A♥ is compulsory
    assert actor(s) == 0 and legal(s) == ["decline"]  # clockwise from the A♥ player
    s = play(s, "decline")
    assert actor(s) == 1 and legal(s) == ["wolf AC", "wolf AS", "decline"]
    s = play(s, "wolf AC", "wolf AS")
    assert view(s).phase == "ace_rabbit" and legal(s) == ["ace rabbit", "decline"]
    s = play(s, "ace rabbit")
    out = GAME.outcome(s)
    assert out is not None and out.scores == (0, 16, 0, 3)
    assert hunt(s, 1).result == "wolf aces" and hunt(s, 1).rabbit_seat == 1


def test_spade_club_and_heart_aces_in_one_hand_score_9_not_16() -> None:
    # The spec's resolution of the source's second example.
    s, junk = scripted({0: "AC AS AH", 1: "AD"})
    s = decline_forced(to_hunt(s, junk))
    assert actor(s) == 0 and hunt(s, 1).passed == (1, 2, 3)
    s = play(s, "wolf AS", "wolf AC")
    out = GAME.outcome(s)
    assert out is not None and out.scores == (9, -3, 0, 0)


def test_no_wolf_ace_puts_the_heart_ace_in_its_players_penalty_pile() -> None:
    s, junk = scripted({0: "AH AD", 1: "AC", 2: "AS"})
    s = to_hunt(s, junk)
    assert actor(s) == 1
    s = play(s, "decline")
    assert actor(s) == 2
    s = play(s, "decline")
    assert actor(s) == 3 and legal(s) == ["decline"]
    s = play(s, "decline")
    assert actor(s) == 0 and legal(s) == ["decline"]  # the A♥ player, holding no wolf ace
    s = play(s, "decline")
    assert GAME.to_act(s) == ()  # seat 0 played no wolf ace: not asked for the ace rabbit
    assert pile(s, 0, "penalty") == ["AH", "AD"]
    assert hunt(s, 1).result == "no wolf ace"
    out = GAME.outcome(s)
    assert out is not None and out.scores == (-6, 0, 0, 0)


def test_wolf_aces_go_clockwise_from_the_next_player_ending_with_the_heart_ace_player() -> None:
    s, junk = scripted({2: "AH AC", 0: "AS", 1: "AD"})
    s = to_hunt(s, junk)
    assert actor(s) == 3 and legal(s) == ["decline"]
    s = play(s, "decline")
    assert actor(s) == 0 and hunt(s, 1).passed == (3,)
    s = play(s, "wolf AS", "decline")
    assert actor(s) == 1 and legal(s) == ["decline"]  # seat 1 holds no wolf ace
    s = play(s, "decline")
    assert actor(s) == 2  # the A♥ player may play its own last
    assert legal(s) == ["wolf AC", "decline"]
    s = play(s, "wolf AC")
    assert GAME.to_act(s) == ()  # seat 1 holds AD but played no wolf ace: not asked
    assert pile(s, 2) == ["AH", "AC"] and pile(s, 0) == ["AS"]
    assert pile(s, 1, "penalty") == ["AD"]
    out = GAME.outcome(s)
    assert out is not None and out.scores == (3, -3, 6, 0)


def test_declining_the_ace_rabbit_puts_it_in_the_penalty_pile() -> None:
    s, junk = scripted({1: "AC AD", 0: "AH", 3: "AS"})
    s = play(to_hunt(s, junk), "wolf AC", "decline", "decline")  # seat 2 holds no wolf ace
    assert actor(s) == 3  # the other wolf ace is still to be decided
    s = play(s, "decline", "decline")  # seats 3 and 0 (the A♥ player)
    assert view(s).phase == "ace_rabbit" and actor(s) == 1
    s = play(s, "decline")
    out = GAME.outcome(s)
    assert out is not None and out.scores == (3, 0, 0, 0)
    assert pile(s, 1, "penalty") == ["AD"] and hunt(s, 1).rabbit_seat == -1


def test_the_ace_rabbit_scores_10_for_a_player_who_played_a_wolf_ace() -> None:
    s, junk = scripted({1: "AC AD", 0: "AH", 3: "AS"})
    s = play(to_hunt(s, junk), "wolf AC", "decline", "decline", "wolf AS", "ace rabbit")
    out = GAME.outcome(s)
    assert out is not None and out.scores == (3, 13, 0, 3)


# --- scoring and the match -------------------------------------------------------------------


def test_deal_score_is_scoring_minus_penalty_and_cards_in_hand_score_nothing() -> None:
    s, junk = scripted({0: "5H", 1: "5C", 2: "KH"})
    s = play(to_hunt(s, junk), "wolf 5C", "decline", "decline", "decline")
    s = play(s, "decline", "decline", "decline")  # K: seats 3, 0 and 1 hold no wolf
    assert hunt(s, 13).result == "no wolf"  # KC and KS were junk
    s = decline_rest(s)  # seats 3 (AS) and 0 (AC) keep their wolf aces: A♥ is a penalty
    out = GAME.outcome(s)
    assert out is not None
    assert out.scores == (1, 2 - 3, -2 - 3, 0)
    assert out.details["deal_scores"] == [[1, -1, -5, 0]]
    assert "AS" in hand_of(s, 3) and "AC" in hand_of(s, 0)


def test_the_match_is_four_deals_by_default_and_the_deals_option() -> None:
    for deals in (4, 2):
        s = GAME.initial_state(DingoRules(deals=deals), 4, 3)
        while GAME.to_act(s):
            s = GAME.apply(s, actor(s), GAME.legal_actions(s, actor(s))[-1])
        out = GAME.outcome(s)
        assert out is not None and out.details["deals_played"] == deals
        assert [sum(d) for d in zip(*out.details["deal_scores"], strict=True)] == list(
            map(int, out.scores)
        )
    assert DingoRules().deals == 4 and DingoRules().target_score is None


def test_target_score_ends_the_match_after_the_deal_in_which_someone_reaches_it() -> None:
    s, junk = scripted({2: "AC AD AH AS"}, rules=DingoRules(deals=4, target_score=19))
    s = to_hunt(s, junk)
    assert GAME.to_act(s) == () and GAME.outcome(s) is not None
    s, junk = scripted({2: "AC AD AH AS"}, rules=DingoRules(deals=4, target_score=20))
    s = to_hunt(s, junk)
    assert GAME.outcome(s) is None and s.deal_number == 2 and view(s).dealer == 1
    assert view(s).totals == (0, 0, 19, 0) and view(s).deal_history[0].scores == (0, 0, 19, 0)
    assert view(s).scoring_piles == ((), (), (), ()) and len(view(s).hunt_deck) == 12


def test_with_target_score_set_the_match_still_ends_after_deals_deals() -> None:
    """Spec: "The match is `deals` deals ... or ends after the deal in which someone
    reaches `target_score` when that is set": whichever comes first."""
    s, junk = scripted({2: "AC AD AH AS"}, rules=DingoRules(deals=1, target_score=50))
    s = to_hunt(s, junk)
    out = GAME.outcome(s)
    assert out is not None and out.scores == (0, 0, 19, 0)  # 19 < 50: ended by `deals`
    assert out.details["deals_played"] == 1


def test_highest_total_ranks_first_and_ties_share() -> None:
    s, junk = scripted({0: "5H", 1: "5C", 2: "QH", 3: "QS"})
    s = play(to_hunt(s, junk), "wolf 5C", "decline", "decline", "decline", "wolf QS")
    s = decline_rest(s)
    out = GAME.outcome(s)
    assert out is not None
    # 5: seat 0 +1, seat 1 +2; Q: seat 2 +2, seat 3 +4; A♥ (seat 2) and AD (seat 1) penalties.
    assert out.scores == (1, -1, -1, 4) and out.ranks == (2, 3, 3, 1)
    assert GAME.standings(s) == out


def test_standings_mid_deal_count_the_piles_so_far() -> None:
    s, junk = scripted({0: "5H", 1: "5C", 2: "QH", 3: "QS"})
    s = play(to_hunt(s, junk), "wolf 5C", "decline", "decline", "decline")
    assert GAME.outcome(s) is None
    assert GAME.standings(s).scores == (1, 2, 0, 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deals": "0"}, "deals=0"),
        ({"deals": "-3"}, "deals=-3"),
        ({"target_score": "0"}, "target_score=0"),
        ({"target_score": "-10"}, "target_score=-10"),
        ({"deals": "many"}, "deals"),
        ({"wolves": "3"}, "unknown rule option"),
    ],
)
def test_inconsistent_or_unknown_options_are_rejected(
    options: dict[str, str], message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        parse_rules(DingoRules, options)


def test_rule_options_parse() -> None:
    r = parse_rules(DingoRules, {"deals": "8", "target_score": "30"})
    assert (r.deals, r.target_score) == (8, 30)
    assert parse_rules(DingoRules, {"target_score": "none"}).target_score is None


def test_max_decisions_bounds_a_deal() -> None:
    assert GAME.max_decisions(DingoRules(), 4) == 4 * (16 + 12 + 48 + 5 + 1)
    assert GAME.max_decisions(DingoRules(deals=1), 4) == 82


# --- actions and codes ----------------------------------------------------------------------


def test_illegal_actions_are_rejected_with_a_reason() -> None:
    s, junk = scripted({0: "5H", 1: "5C"})
    with pytest.raises(IllegalAction, match="seat 0's turn"):
        GAME.apply(s, 1, GAME.decode("discard 5C"))
    with pytest.raises(IllegalAction, match="do not hold"):
        play(s, "discard 5C")
    with pytest.raises(IllegalAction, match="discard"):
        play(s, "pass 5H")
    s = _to_step(s, junk, "pass_left")
    with pytest.raises(IllegalAction, match="pass"):
        play(s, "decline")
    s = to_hunt(s, junk)
    with pytest.raises(IllegalAction, match="rank 5"):
        play(s, "discard 2C")
    with pytest.raises(IllegalAction, match="do not hold"):
        play(s, "wolf 5S")
    s = play(s, "decline")
    s = decline_rest(s)
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(s, 0, GAME.decode("decline"))
    assert all(GAME.legal_actions(s, seat) == () for seat in range(4))


def test_codes_round_trip_and_passing_a_card_differs_from_declining() -> None:
    for code in ("discard 7C", "pass QS", "wolf 5S", "wolf AC", "decline", "ace rabbit"):
        assert GAME.encode(GAME.decode(code)) == code
    assert GAME.decode("pass QS") != GAME.decode("decline")
    assert GAME.encode(GAME.decode(" Wolf  10s ")) == "wolf TS"
    for junk in ("pass", "discard", "wolf 5D", "discard 2D", "play 5H", "ace", "x" * 500):
        with pytest.raises(InvalidAction):
            GAME.decode(junk)


def test_state_from_hands_checks_the_deal() -> None:
    with pytest.raises(ValueError, match="4 hands"):
        state_from_hands([DEALT_CARDS[:10]] * 3)
    with pytest.raises(ValueError, match="exactly once"):
        state_from_hands([DEALT_CARDS[:10]] * 4)
