"""Conformance cases for golf_solitaire: every option that changes play, 1 to 8 seats.

The leak test resamples, for a seat, the stock cards it has not turned (their order is
the one thing it cannot know) and replaces every other seat's copy of the hole with a
random play on that resampled deal (a seat must not see another's play); a spectator
sees the hole as dealt, so for it the whole stock and every seat's play are resampled.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable

from referee.cards import Card
from referee.games.golf_solitaire.deals import Deal
from referee.games.golf_solitaire.engine import (
    GolfSolitaireState,
    SeatPlay,
    advance,
    legal_moves,
    start_play,
)
from tests.conformance.harness import Case

GAME = "golf_solitaire"

CASES = [
    Case("default", {}, seats=1, playouts=60, leak_checks=6),
    Case("short", {"holes": 2}, seats=2, playouts=100, leak_checks=8),
    Case("short", {"holes": 2}, seats=3, playouts=25, leak_checks=4),
    Case("short", {"holes": 1}, seats=8, playouts=10, leak_checks=2),
    Case("match", {"holes": 3, "scoring": "match"}, seats=2, playouts=40, leak_checks=6),
    Case(
        "queen_on_king", {"holes": 2, "queen_on_king": True}, seats=1, playouts=150, leak_checks=6
    ),
    Case("wrap", {"holes": 2, "wrap": True}, seats=2, playouts=40, leak_checks=6),
    Case("jokers1", {"holes": 2, "jokers": 1}, seats=1, playouts=150, leak_checks=6),
    Case("jokers2", {"holes": 2, "jokers": 2}, seats=2, playouts=40, leak_checks=6),
    Case(
        "empty_start",
        {"holes": 2, "foundation_starts_empty": True},
        seats=2,
        playouts=40,
        leak_checks=6,
    ),
    Case(
        "blocked",
        {"holes": 2, "stock_only_when_blocked": True},
        seats=1,
        playouts=80,
        leak_checks=6,
    ),
    Case("winnable", {"holes": 2, "winnable_only": True}, seats=2, playouts=15, leak_checks=3),
    Case(
        "deal_numbers",
        {"holes": 3, "deal_numbers": "1,906,26464608654870335080"},
        seats=2,
        playouts=20,
        leak_checks=3,
    ),
]


def all_cards(state: GolfSolitaireState) -> Iterable[Card]:
    """Every seat's own copy of the hole: its tableau, its foundation and its stock."""
    deal = state.deal
    for play in state.plays:
        for col, h in zip(deal.tableau, play.heights, strict=True):
            yield from col[:h]
        yield from play.foundation
        yield from deal.stock[play.stock_pos :]


def _random_play(state: GolfSolitaireState, deal: Deal, rng: random.Random) -> SeatPlay:
    """A random play of up to 40 moves of the current hole on ``deal``."""
    play = start_play(state.rules, deal)
    for _ in range(rng.randrange(0, 40)):
        legal = legal_moves(state.rules, deal, play)
        if not legal:
            break
        play, _card = advance(state.rules, deal, play, rng.choice(legal))
    return play


def resample_hidden(
    state: GolfSolitaireState, seat: int | None, rng: random.Random
) -> GolfSolitaireState:
    keep = 0 if seat is None else state.plays[seat].stock_pos
    stock = list(state.deal.stock)
    rest = stock[keep:]
    rng.shuffle(rest)
    deal = dataclasses.replace(state.deal, stock=tuple(stock[:keep] + rest))
    plays = tuple(
        p if i == seat else _random_play(state, deal, rng) for i, p in enumerate(state.plays)
    )
    return dataclasses.replace(state, deal=deal, plays=plays)
