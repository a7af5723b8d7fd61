"""Gin rummy (rules: docs/games/gin_rummy.md): the engine ``GAME`` and its public helpers.

The package owns the rule options (``rules``), the bitmask meld search and showdown
(``melds``), one table's hand from the upcard offer to the knock (``table``), the
match with its 3- and 4-player formats and the ``Game`` implementation (``engine``)
and the seat views (``view``). See docs/games/gin_rummy.md for bot authors.
"""

from referee.games.gin_rummy.engine import (
    GAME,
    GinRummy,
    GinRummyState,
    new_match,
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
    "new_match",
    "stack_deck",
]
