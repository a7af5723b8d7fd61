"""A greedy golf_solitaire bot: play a tableau card whenever one fits, else turn the stock.

Among the cards that fit it plays the one from the tallest column (uncovering the most
buried cards first), the lowest column number on a tie. A baseline for the strategy bot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    plays = [code for code in legal_actions if code.startswith("play ")]
    if not plays:
        return legal_actions[0]
    heights = [len(group.cards) for group in observation.tableau]
    return max(plays, key=lambda code: (heights[int(code[5:])], -int(code[5:])))


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(choose, name="golf_solitaire_greedy")
