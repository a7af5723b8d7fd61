"""Golf solitaire (`golf_solitaire`): the engine, its solver, PySolFC deal numbers and
board parsing. See docs/games/golf_solitaire.md.

- engine.py: the Game (duplicate holes for 1-8 seats), its state and view;
- rules.py: the rule options and the rank adjacency they imply;
- deals.py: deals, PySolFC numbering, the deal drawn from a seed;
- holes.py: the deal of each hole (``winnable_only`` asks the solver), hindsight best scores;
- solver.py: best score / clearability / move list with every card known;
- board.py: reading deals as JSON or black-hole-solver board text; ``solve_file_text``.
"""

from .board import BoardError, format_board_text, parse_deal_text, solve_file_text
from .deals import Deal, pysol_deal
from .engine import GAME, GolfSolitaire, GolfSolitaireState, GolfSolitaireView, HoleResult
from .holes import hindsight_best_scores, hole_deal
from .rules import GolfSolitaireRules
from .solver import SolveResult, can_clear, solve, solve_position

__all__ = [
    "GAME",
    "BoardError",
    "Deal",
    "GolfSolitaire",
    "GolfSolitaireRules",
    "GolfSolitaireState",
    "GolfSolitaireView",
    "HoleResult",
    "SolveResult",
    "can_clear",
    "format_board_text",
    "hindsight_best_scores",
    "hole_deal",
    "parse_deal_text",
    "pysol_deal",
    "solve",
    "solve_file_text",
    "solve_position",
]
