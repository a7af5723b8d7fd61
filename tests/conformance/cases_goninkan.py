"""Conformance cases for goninkan: variants, card zones, and the hidden-card resampler.

What a seat may know (spec, "What a seat sees"): its own hand; every card played; in deal 1
where the trump ace and the joker sit (announced), except after a 二重関 exchange, where only
the holder and the partner know which key card went where; the two cards shown to it (or by
it) in a 決め役. Everything else is redealt at random among the hands it cannot see.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable

from referee.cards import Card
from referee.games.goninkan import CARD_AT, JOKER_I, State
from tests.conformance.harness import Case

GAME = "goninkan"

CASES = [
    Case("default", {}, seats=6, playouts=60, leak_checks=6),
    Case("one-round", {"yaku_count": 1}, seats=6, playouts=300, leak_checks=25),
    Case("three-rounds", {"yaku_count": 3}, seats=6, playouts=100, leak_checks=6),
]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def all_cards(state: State) -> Iterable[Card]:
    for h in state.hands:
        for i in _bits(h):
            yield CARD_AT[i]
    for t in state.tricks:
        yield from t.cards
    for i in state.trick:
        yield CARD_AT[i]


def _known(state: State, seat: int | None, rng: random.Random) -> list[int]:
    """Per seat, the cards the viewer knows to be in that hand (after choosing, at random,
    whatever the viewer cannot tell apart)."""
    hands = state.hands
    fixed = [0] * len(hands)
    if seat is not None:
        fixed[seat] = hands[seat]
    if state.deal == 1 and state.ace_role >= 0:
        ace_i = state.round_trump * 13
        holder, partner = state.ace_role, state.joker_role
        keys = (ace_i, JOKER_I)
        where = {k: next((p for p in range(len(hands)) if hands[p] >> k & 1), None) for k in keys}
        insiders = (holder, partner) if state.double else ()
        if not state.double or seat in insiders or None in where.values():
            # Announced positions, or an insider of the exchange, or one key card played
            # (which tells where the other one is).
            for k, p in where.items():
                if p is not None:
                    fixed[p] |= 1 << k
            if state.double and seat == partner and state.exchange_back is not None:
                b = state.exchange_back.index
                if hands[holder] >> b & 1:
                    fixed[holder] |= 1 << b
        else:
            # Outsiders of a 二重関 know only that the holder and the partner hold one each.
            a, b = (holder, partner) if rng.random() < 0.5 else (partner, holder)
            fixed[a] |= 1 << ace_i
            fixed[b] |= 1 << JOKER_I
    if state.deal >= 2 and state.shown and seat in (state.shower(), state.chooser()):
        shower = state.shower()
        for c in state.shown:
            if hands[shower] >> c.index & 1:
                fixed[shower] |= 1 << c.index
    return fixed


def resample_hidden(state: State, seat: int | None, rng: random.Random) -> State:
    fixed = _known(state, seat, rng)
    hands = state.hands
    # Cards in hands that the viewer cannot place; key cards moved by the random choice
    # above are taken out of the pool by `fixed` and put back where chosen.
    all_fixed = 0
    for m in fixed:
        all_fixed |= m
    pool: list[int] = []
    for h in hands:
        pool.extend(_bits(h & ~all_fixed))
    rng.shuffle(pool)
    new = []
    for p, h in enumerate(hands):
        need = h.bit_count() - fixed[p].bit_count()
        assert need >= 0
        m = fixed[p]
        for i in pool[:need]:
            m |= 1 << i
        del pool[:need]
        new.append(m)
    assert not pool
    return dataclasses.replace(state, hands=tuple(new))
