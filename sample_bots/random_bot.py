"""A bot that plays a uniformly random legal action, for any game.

Run: ``python -m sample_bots.random_bot`` with ARENA_TARGET and ARENA_TOKEN set
(the arena does this when it launches the bot). Its generator is reseeded at the
start of every match from ARENA_BOT_SEED and the match id, so its play in a match
does not depend on which process plays it or what it played before: tournaments
are reproducible, resumed ones included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.botkit import MatchRandom

_rng = MatchRandom()  # reseeded from ARENA_BOT_SEED and the match id at every match


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    return _rng.choice(list(legal_actions))


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(choose, name="random", on_match_start=lambda start: _rng.start_match(start.match_id))
