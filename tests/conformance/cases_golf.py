"""Conformance cases for golf: every variant, the options that change play, 2 to 12 seats.

The knowledge model resampled here is golf.md "What a seat sees": a seat keeps
every face-up card, the discard pile, every face-down card known to everyone (a
card taken from the discard pile and placed), its own face-down cards it has seen
(peeked, or drawn from the stock and placed; in four_in_hand its whole hand),
and the drawn card when it came from the discard pile or the seat drew it.
Everything else (the stock, unseen face-down cards, its own included, and a card
another seat drew from the stock) is redealt among those same places.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from referee.cards import Card
from referee.games.golf import GolfState
from tests.conformance.harness import Case

GAME = "golf"

# Big tables are slow to check (every seat's view at every step), so they play
# fewer playouts and a short turn limit (which also exercises the length bound).
_BIG = {"playouts": 2, "leak_checks": 1}
_MID = {"playouts": 3, "leak_checks": 1}

CASES = [
    Case("six", {"holes": 2}, seats=2, playouts=30, leak_checks=6, fast_playouts=500),
    Case("six", {"holes": 1}, seats=5, playouts=10, leak_checks=3, fast_playouts=200),
    Case("six", {"holes": 1, "max_turns": 4}, seats=12, **_BIG),
    Case(
        "eight",
        {"variant": "eight", "holes": 1},
        seats=3,
        playouts=12,
        leak_checks=3,
        fast_playouts=200,
    ),
    Case("eight", {"variant": "eight", "holes": 1, "max_turns": 6}, seats=8, **_MID),
    Case(
        "ten",
        {"variant": "ten", "holes": 1},
        seats=2,
        playouts=12,
        leak_checks=3,
        fast_playouts=200,
    ),
    Case("ten", {"variant": "ten", "holes": 1, "max_turns": 3}, seats=12, **_BIG),
    Case(
        "nine",
        {"variant": "nine", "holes": 1},
        seats=3,
        playouts=12,
        leak_checks=3,
        fast_playouts=200,
    ),
    Case("nine", {"variant": "nine", "holes": 1, "max_turns": 6}, seats=7, **_MID),
    Case(
        "ffd",
        {"variant": "four_face_down", "holes": 3},
        seats=2,
        playouts=40,
        leak_checks=8,
        fast_playouts=400,
    ),
    Case("ffd", {"variant": "four_face_down", "holes": 2}, seats=5, playouts=12, leak_checks=4),
    Case("ffd", {"variant": "four_face_down", "holes": 1}, seats=12, **_MID),
    Case(
        "hand",
        {"variant": "four_in_hand", "holes": 3},
        seats=2,
        playouts=40,
        leak_checks=8,
        fast_playouts=400,
    ),
    Case("hand", {"variant": "four_in_hand", "holes": 2}, seats=4, playouts=12, leak_checks=4),
    Case("hand", {"variant": "four_in_hand", "holes": 1}, seats=10, **_MID),
    # Options that change play.
    Case(
        "six-remove-anywhere-4oak-jokers",
        {
            "remove_cancelled": True,
            "pairs_anywhere": True,
            "four_of_a_kind_bonus": True,
            "jokers": 2,
            "holes": 1,
        },
        seats=3,
        playouts=12,
        leak_checks=3,
    ),
    Case(
        "nine-remove-same-column-hard",
        {
            "variant": "nine",
            "remove_cancelled": True,
            "initial_flips_same_column": True,
            "scoring": "hard",
            "holes": 1,
        },
        seats=2,
        playouts=12,
        leak_checks=3,
    ),
    Case(
        "ten-stock-only-penalty-bonus2",
        {
            "variant": "ten",
            "final_turn_stock_only": True,
            "early_end_penalty": "add_lowest",
            "bonus_rank": "2",
            "holes": 1,
        },
        seats=4,
        playouts=6,
        leak_checks=2,
    ),
    Case(
        "ffd-near-diagonal-stock-only",
        {
            "variant": "four_face_down",
            "peek_near_only": True,
            "diagonal_pairs": True,
            "final_turn_stock_only": True,
            "early_end_penalty": "plus_ten",
            "holes": 2,
        },
        seats=3,
        playouts=12,
        leak_checks=4,
    ),
    Case(
        "ffd-no-pairs-one-eyed",
        {
            "variant": "four_face_down",
            "no_pairs": True,
            "bonus_rank": "one_eyed_jacks",
            "holes": 1,
        },
        seats=11,
        playouts=3,
        leak_checks=1,
    ),
    # Short bounds: the stock runs out and is rebuilt, or the turn limit ends holes.
    Case(
        "six-tight-bounds",
        {"max_turns": 4, "max_reshuffles": 1, "decks": 1, "holes": 2},
        seats=8,
        playouts=4,
        leak_checks=2,
    ),
    Case(
        "hand-target",
        {"variant": "four_in_hand", "holes": "none", "target_score": 40, "max_reshuffles": 0},
        seats=6,
        playouts=6,
        leak_checks=2,
    ),
]


def all_cards(state: GolfState) -> Iterator[Card]:
    for cells in state.cells:
        yield from (c for c in cells if c is not None)
    yield from state.stock
    yield from state.discard
    if state.holding is not None:
        yield state.holding


def resample_hidden(state: GolfState, seat: int | None, rng: random.Random) -> GolfState:
    cells = [list(lay) for lay in state.cells]
    hidden: list[tuple[str, int, int]] = []  # ("cell", seat, position) or ("stock", i, 0)
    in_hand = state.rules.variant == "four_in_hand"
    for p, lay in enumerate(state.cells):
        for i, c in enumerate(lay):
            bit = 1 << i
            if c is None or state.face_up[p] & bit or state.public_known[p] & bit:
                continue
            if p == seat and (in_hand or state.owner_known[p] & bit):
                continue
            hidden.append(("cell", p, i))
    hidden.extend(("stock", i, 0) for i in range(len(state.stock)))
    holding_hidden = state.holding is not None and not state.from_discard and seat != state.current
    if holding_hidden:
        hidden.append(("holding", 0, 0))
    stock = list(state.stock)

    def get(place: tuple[str, int, int]) -> Card:
        kind, a, b = place
        if kind == "cell":
            found = cells[a][b]
            assert found is not None
            return found
        if kind == "stock":
            return stock[a]
        assert state.holding is not None
        return state.holding

    pool = [get(p) for p in hidden]
    rng.shuffle(pool)
    holding = state.holding
    for (kind, a, b), c in zip(hidden, pool, strict=True):
        if kind == "cell":
            cells[a][b] = c
        elif kind == "stock":
            stock[a] = c
        else:
            holding = c
    return dataclasses.replace(
        state,
        cells=tuple(tuple(lay) for lay in cells),
        stock=tuple(stock),
        holding=holding,
    )
