"""A golf_solitaire strategy bot: perfect-information sampling over the hidden stock.

The bot sees the tableau, its foundation and which cards are still in the stock (the
observation's ``unseen``), never their order. For each decision it deals random stock
orders of those cards (the same samples for every candidate move, so the comparison is
fair), solves each candidate's resulting position with the solver as if the sampled
order were the real one, and plays the move with the best mean score (a tableau play
before the stock on a tie, then the lowest column). A single legal move is played at once.

Effort: it takes at least MIN_SAMPLES and at most MAX_SAMPLES samples, and stops once its
solves have done WORK_BUDGET units of work (the solver's machine-independent count, about
0.2 s on a 2-core 2020s machine), so its play is reproducible from its seed whatever the
machine's load. A wall-clock cap (SECONDS_CAP, 0.6 s, or half the match's per-move time
when the referee gives one) stops it earlier on a slow machine; ``stats`` counts those.

Randomness: a module-level generator seeded from ARENA_BOT_SEED, reseeded at the start of
every match from it and the match id (``reseed``), so a match's play is reproducible.
Run: ``python -m sample_bots.golf_solitaire_strategy`` with ARENA_TARGET and ARENA_TOKEN.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence
from typing import Any

from referee.botkit import solitaire_adjacency as adjacency
from referee.botkit import solitaire_best_score as best_score_and_work
from referee.botkit import solitaire_warm_up as warm_up

MIN_SAMPLES = 4
MAX_SAMPLES = 64
WORK_BUDGET = 200_000_000
SECONDS_CAP = 0.6

_BASE_SEED = os.environ.get("ARENA_BOT_SEED", "")
_rng = random.Random(_BASE_SEED)
warm_up()  # build the solver's tables now, not during the first decision
_cap = [SECONDS_CAP]
stats = {"decisions": 0, "samples": 0, "capped": 0}


def reseed(match_id: int | str) -> None:
    """Restart the random stream for a match (from ARENA_BOT_SEED and the match id), so
    the bot's play in a match does not depend on what it played before."""
    _rng.seed(f"{_BASE_SEED}/{match_id}")


def set_move_seconds(seconds: float) -> None:
    """Fit the wall-clock cap to the match's per-move time."""
    if seconds > 0:
        _cap[0] = min(SECONDS_CAP, seconds / 2)


def _ranks(cards: Any) -> list[int]:
    return [c.rank for c in cards]


def move_means(
    observation: Any,
    legal_actions: Sequence[str],
    work_budget: int | None = None,
    max_samples: int | None = None,
) -> dict[str, float]:
    """The mean solved score of each legal move over sampled stock orders."""
    budget = WORK_BUDGET if work_budget is None else work_budget
    most = MAX_SAMPLES if max_samples is None else max_samples
    deadline = time.monotonic() + _cap[0]
    columns = [_ranks(group.cards) for group in observation.tableau]
    unseen = _ranks(observation.unseen)
    adj = adjacency(observation.queen_on_king, observation.wrap)
    blocked = observation.stock_only_when_blocked
    totals = dict.fromkeys(legal_actions, 0.0)
    samples = work = 0
    late = False
    while samples < most and not late:
        stock = unseen[:]
        _rng.shuffle(stock)
        values = {}
        for code in legal_actions:
            if code == "stock":
                value, cost = best_score_and_work(columns, stock[0], stock[1:], adj, blocked)
            else:
                c = int(code[5:])
                cols = [col[:-1] if i == c else col for i, col in enumerate(columns)]
                value, cost = best_score_and_work(cols, columns[c][-1], stock, adj, blocked)
            values[code] = value
            work += cost
            # Past the wall-clock cap a half-done sample is dropped (one full sample is kept).
            if samples and time.monotonic() >= deadline:
                stats["capped"] += 1
                late = True
                break
        else:
            for code, value in values.items():
                totals[code] += value
            samples += 1
            if samples >= MIN_SAMPLES and work >= budget:
                break
    stats["decisions"] += 1
    stats["samples"] += samples
    return {code: total / samples for code, total in totals.items()}


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    if len(legal_actions) == 1:
        return legal_actions[0]
    means = move_means(observation, legal_actions)
    # Lowest mean score; on a tie a tableau play (it keeps the stock), lowest column first.
    return min(legal_actions, key=lambda code: (means[code], code == "stock", code))


if __name__ == "__main__":
    from referee.client import run_bot

    def _on_start(start: Any) -> None:
        reseed(start.match_id)
        set_move_seconds(start.move_seconds)

    run_bot(choose, name="golf_solitaire_strategy", on_match_start=_on_start)
