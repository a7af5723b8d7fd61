"""A bot that plays a uniformly random legal action, for any game.

Run: ``python -m sample_bots.random_bot`` with ARENA_TARGET and ARENA_TOKEN set
(the arena does this when it launches the bot). Its seed comes from
ARENA_BOT_SEED when set, so tournaments are reproducible.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import Any

_rng = random.Random(os.environ.get("ARENA_BOT_SEED"))


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    return _rng.choice(list(legal_actions))


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(choose, name="random")
