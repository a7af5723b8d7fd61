"""Conformance cases for dingo: the default 4-deal match, single deals, and target_score.

The knowledge model resampled here is dingo.md "What a seat sees": a seat keeps
its own hand and everything public (the discard pile, the hunt deck, every card
played in a hunt, the scoring and penalty piles, hand sizes) and the cards of the
passes it made or received. Everything else is hidden and is redealt: the other
hands' cards among those hands (sizes kept), and the card of every pass between
two other seats (replaced by a random dealt card). A spectator keeps only the
public part.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from referee.cards import Card
from referee.games.dingo import DEALT_CARDS, DingoState
from tests.conformance.harness import Case

GAME = "dingo"

CASES = [
    Case("default", {}, seats=4, playouts=30, leak_checks=10),
    Case("one-deal", {"deals": 1}, seats=4, playouts=300, leak_checks=40, fast_playouts=1500),
    Case("target", {"target_score": 12, "deals": 8}, seats=4, playouts=40, leak_checks=4),
]


def _cards(mask: int) -> list[Card]:
    from referee.cards import STANDARD_DECK

    return [STANDARD_DECK[i] for i in range(52) if mask >> i & 1]


def all_cards(state: DingoState) -> Iterator[Card]:
    for mask in state.hands:
        yield from _cards(mask)
    yield from state.hunt_deck
    yield from (d.card for d in state.discards)
    yield from state.table
    for pile in (*state.scoring, *state.penalty):
        yield from pile


def resample_hidden(state: DingoState, seat: int | None, rng: random.Random) -> DingoState:
    hidden = [s for s in range(4) if s != seat]
    pool = [c for s in hidden for c in _cards(state.hands[s])]
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in hidden:
        n = state.hands[s].bit_count()
        hands[s] = sum(1 << c.index for c in pool[:n])
        pool = pool[n:]
    passes = tuple(
        p
        if seat in (p.from_seat, p.to_seat)
        else dataclasses.replace(p, card=rng.choice(DEALT_CARDS))
        for p in state.passes
    )
    return dataclasses.replace(state, hands=tuple(hands), passes=passes)


def swap_hidden(state: DingoState, seat: int, rng: random.Random) -> DingoState:
    """The smallest hidden difference: one card of one other hand swapped with one of
    another (what ``seat`` sees is unchanged). Whole-hand resampling changes who plays
    the dingo, a public event; a single swap often changes only who holds a wolf."""
    a, b = rng.sample([s for s in range(4) if s != seat], 2)
    if not state.hands[a] or not state.hands[b]:
        return state
    ca = rng.choice(_cards(state.hands[a]))
    cb = rng.choice(_cards(state.hands[b]))
    hands = list(state.hands)
    hands[a] = hands[a] & ~(1 << ca.index) | 1 << cb.index
    hands[b] = hands[b] & ~(1 << cb.index) | 1 << ca.index
    return dataclasses.replace(state, hands=tuple(hands))
