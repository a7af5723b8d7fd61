"""Gin rummy (spec: shared/rules/gin-rummy.md): the engine ``GAME`` and its public helpers.

The package owns the rules (``rules``), the bitmask meld search and showdown
(``melds``), the match state and transitions (``engine``) and the seat views
(``view``). See docs/games/gin_rummy.md for bot authors.
"""

from referee.games.gin_rummy.engine import (
    GAME,
    GinRummy,
    GinRummyState,
    all_cards,
    new_match,
    resample_hidden,
    stack_deck,
)
from referee.games.gin_rummy.rules import GinRummyRules
from referee.games.gin_rummy.view import GinHandResult, GinRummyView, GinTable

__all__ = [
    "GAME",
    "GinHandResult",
    "GinRummy",
    "GinRummyRules",
    "GinRummyState",
    "GinRummyView",
    "GinTable",
    "all_cards",
    "new_match",
    "resample_hidden",
    "stack_deck",
]
