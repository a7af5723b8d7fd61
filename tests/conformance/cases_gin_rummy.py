"""Conformance cases for gin_rummy: the default game, every option that changes play, and
the 3- and 4-player formats.

Random bots rarely knock under the default knock_limit, so several cases raise the
limit to reach many showdowns (layoffs, undercuts, gin) and short target scores or
max_hands keep matches short enough for thousands of checked playouts. The knowledge
model resampled (gin-rummy.md "What a seat sees") is ``resample_hidden`` below: a seat
keeps its hand, the pile and the cards taken from it; everything else at its table and
every hidden card at the other table is redealt.
"""

from __future__ import annotations

import dataclasses
import random

from referee.cards import STANDARD_DECK, Card
from referee.games.gin_rummy import GinRummyState
from referee.games.gin_rummy.melds import bits
from referee.games.gin_rummy.table import DONE, rebuild_table
from tests.conformance.harness import Case

GAME = "gin_rummy"

# Knocks with nearly any hand: showdowns, layoffs and undercuts in almost every hand.
_LOOSE = {"knock_limit": 60}

CASES = [
    Case("default-1hand", {"max_hands": 1}, seats=2, playouts=80, leak_checks=8),
    Case("loose-to-100", _LOOSE, seats=2, playouts=200, leak_checks=15),
    Case("loose-to-40", {**_LOOSE, "target_score": 40}, seats=2, playouts=800, leak_checks=50),
    Case(
        "pagat-classic-biggin-tie",
        {
            "preset": "pagat_classic",
            "knock_limit": 45,
            "big_gin_bonus": 31,
            "undercut_on_tie": False,
            "target_score": 60,
        },
        seats=2,
        playouts=150,
        leak_checks=12,
    ),
    Case(
        "floor0-short-turns",
        {"stock_floor": 0, "max_turns": 12, "knock_limit": 25, "max_hands": 4},
        seats=2,
        playouts=80,
        leak_checks=8,
    ),
    Case(
        "three-players",
        {**_LOOSE, "players": 3, "target_score": 60},
        seats=3,
        playouts=300,
        leak_checks=20,
    ),
    Case(
        "three-default-short", {"players": 3, "max_hands": 2}, seats=3, playouts=20, leak_checks=3
    ),
    Case(
        "four-teams",
        {**_LOOSE, "players": 4, "target_score": 60},
        seats=4,
        playouts=100,
        leak_checks=10,
    ),
    Case("four-default-short", {"players": 4, "max_hands": 1}, seats=4, playouts=8, leak_checks=2),
]


def all_cards(s: GinRummyState) -> list[Card]:
    """Every card in every zone of the current deal(s): hands, stock, pile, knock card."""
    out: list[Card] = []
    deck = STANDARD_DECK
    for t in s.tables:
        for m in t.hands:
            out += [deck[i] for i in bits(m)]
        out += [deck[i] for i in t.stock[t.stock_pos :]]
        out += [deck[i] for i in t.pile]
        if t.knock_card >= 0:
            out.append(deck[t.knock_card])
    return out


def resample_hidden(s: GinRummyState, seat: int | None, rng: random.Random) -> GinRummyState:
    """The state with every card ``seat`` cannot see redealt among the places it cannot see.

    At its own table a seat knows its hand, the pile and the cards its opponent took from
    the pile; everything else there (the opponent's other cards, the stock) is shuffled.
    At any other table (or as a spectator, or sitting out) only the pile and taken cards
    are known. A finished table's hands were laid down (public) and keep their cards.
    """
    tables = []
    for t in s.tables:
        if t.phase == DONE and t.result is not None and t.result.result != "void":
            rest = t.stock[t.stock_pos :]
            pool = list(rest)
            rng.shuffle(pool)
            tables.append(rebuild_table(t, s.rules, t.hands, pool))
            continue
        known = [seat is not None and t.seats[p] == seat for p in (0, 1)]
        pool = list(t.stock[t.stock_pos :])
        for p in (0, 1):
            if not known[p]:
                pool += bits(t.hands[p] & ~t.taken[p])
        rng.shuffle(pool)
        hands = list(t.hands)
        for p in (0, 1):
            if not known[p]:
                n = (t.hands[p] & ~t.taken[p]).bit_count()
                m = t.taken[p]
                for c in pool[:n]:
                    m |= 1 << c
                pool = pool[n:]
                hands[p] = m
        tables.append(rebuild_table(t, s.rules, (hands[0], hands[1]), pool))
    return dataclasses.replace(s, tables=tuple(tables))
