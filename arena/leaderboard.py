"""Leaderboards: TrueSkill ratings next to games, wins, mean score with a 95% confidence
interval, and faults, per game and rule set."""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from arena.rating import ENV, conservative
from arena.store import Store


@dataclass(frozen=True)
class Row:
    rank: int
    entrant: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    mean_score: float
    score_ci95: float
    faults: int
    forfeits: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def ci95(values: list[float]) -> float:
    """Half-width of the normal 95% confidence interval of the mean."""
    if len(values) < 2:
        return math.inf if values else 0.0
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def leaderboard(store: Store, game: str, rules_key: str) -> list[Row]:
    """Entrants of one game and rule set, best conservative rating first."""
    ratings = store.ratings(game, rules_key)
    rows = []
    for stats in store.entrant_stats(game, rules_key):
        name = stats["entrant"]
        mu, sigma, _ = ratings.get(name, (ENV.mu, ENV.sigma, 0))
        scores = stats["scores"]
        rows.append(
            Row(
                0,
                name,
                mu,
                sigma,
                conservative(mu, sigma),
                stats["games"],
                stats["wins"],
                statistics.fmean(scores),
                ci95(scores),
                stats["faults"],
                stats["forfeits"],
            )
        )
    rows.sort(key=lambda r: (-r.conservative, r.entrant))
    return [Row(i + 1, *list(asdict(r).values())[1:]) for i, r in enumerate(rows)]
