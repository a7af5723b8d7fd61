"""Conformance cases for gin_rummy: the default game, every option that changes play, and
the 3- and 4-player formats.

Random bots rarely knock under the default knock_limit, so several cases raise the
limit to reach many showdowns (layoffs, undercuts, gin) and short target scores or
max_hands keep matches short enough for thousands of checked playouts. The knowledge
model resampled (gin-rummy.md "What a seat sees") is in the engine's
``resample_hidden``: a seat keeps its hand, the pile and the cards taken from it;
everything else at its table and every hidden card at the other table is redealt.
"""

from __future__ import annotations

from referee.games.gin_rummy import all_cards, resample_hidden
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

__all__ = ["CASES", "GAME", "all_cards", "resample_hidden"]
