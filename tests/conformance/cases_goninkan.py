"""Conformance cases for goninkan: variants, card zones, and the hidden-card resampler.

What a seat may know (spec, "What a seat sees"): its own hand; every card played; in deal 1
where the trump ace and the joker sit (announced), except after a 二重関 exchange, where only
the holder and the partner know which key card went where; the two cards shown to it (or by
it) in a 決め役. Everything else is redealt at random among the hands it cannot see.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from referee.cards import Card
from referee.games.goninkan import CARD_AT, DECK, JOKER_I, State, evolve
from tests.conformance.harness import Case

GAME = "goninkan"

# A default match is ~430 decisions and the harness converts 7 views to protobuf at each,
# so the fully checked playouts mostly use one trump round (still covering teams, 二重関,
# deals 2-3, sixteens); the fast playouts (cheap checks only) add thousands more.
CASES = [
    Case("default", {}, seats=6, playouts=20, leak_checks=4, fast_playouts=150),
    Case("one-round", {"yaku_count": 1}, seats=6, playouts=120, leak_checks=20, fast_playouts=2000),
    Case("three-rounds", {"yaku_count": 3}, seats=6, playouts=25, leak_checks=4, fast_playouts=150),
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
    out = evolve(state, hands=tuple(new))
    return _resample_records(out, seat, rng)


def _dealt_to(state: State, p: int) -> list[int]:
    """Every card ``p`` had in this deal: its hand and what it played."""
    cards = _bits(state.hands[p])
    for t in state.tricks:
        cards += [c.index for s, c in zip(t.seats, t.cards, strict=True) if s == p]
    cards += [c for s, c in zip(state.trick_seats, state.trick, strict=True) if s == p]
    return cards


def _resample_records(state: State, seat: int | None, rng: random.Random) -> State:
    """Redraw the private records (決め役 cards, 二重関 exchange) for a viewer not privy to them."""
    if state.deal >= 2 and state.shown and seat not in (state.shower(), state.chooser()):
        two = sorted(rng.sample(_dealt_to(state, state.shower()), 2))
        state = evolve(state, shown=(CARD_AT[two[0]], CARD_AT[two[1]]))
    if (
        state.double
        and state.exchange_key is not None
        and seat
        not in (
            state.ace_role,
            state.joker_role,
        )
    ):
        keys = (state.round_trump * 13, JOKER_I)
        if state.deal == 1:
            # The key card the partner got is wherever the resample put it (or played it).
            partner_cards = _dealt_to(state, state.joker_role)
            key = next(k for k in keys if k in partner_cards)
            backs = [c for c in _dealt_to(state, state.ace_role) if c not in keys]
        else:
            key = rng.choice(keys)
            backs = [c.index for c in CARD_AT if c.index not in keys and c.index in _DECK_I]
        state = evolve(state, exchange_key=CARD_AT[key], exchange_back=CARD_AT[rng.choice(backs)])
    return state


_DECK_I = frozenset(c.index for c in DECK)
