"""Golf solitaire: the deal of each hole of a match (from the seed or from deal numbers,
honouring ``winnable_only``) and the best score possible on each of them.

Above both :mod:`.deals` (the deal values) and :mod:`.solver` (which takes a deal), since
``winnable_only`` skips the deals the solver cannot clear.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.rules import parse_rules

from .deals import Deal, pysol_deal, seed_deal
from .rules import GolfSolitaireRules
from .solver import can_clear, deal_best_score

REDEAL_LIMIT = 10_000  # winnable_only: give up (an error) after this many skipped deals


def hole_deal(rules: GolfSolitaireRules, seed: int, hole: int) -> Deal:
    """The deal of hole ``hole`` (0-based) of a match: the same for every seat, and a pure
    function of (rules, seed, hole). With ``winnable_only`` a deal the solver cannot clear
    is skipped for the next deal number (or the next reshuffle of the seed)."""
    for attempt in range(REDEAL_LIMIT):
        if rules.deal_numbers is not None:
            deal = pysol_deal(rules.deal_numbers[hole] + attempt, rules.foundation_starts_empty)
        else:
            deal = seed_deal(rules, seed, hole, attempt)
        if not rules.winnable_only or can_clear(deal, rules):
            return deal
    raise ValueError(f"no clearable deal for hole {hole + 1} in {REDEAL_LIMIT} tries")


def hindsight_best_scores(
    rules: GolfSolitaireRules | Mapping[str, Any] | None, seed: int
) -> tuple[int, ...]:
    """The best achievable score of each hole of the match with these rules and seed (the
    deals are a pure function of them, the same for every seat), with the stock known.
    For the leaderboard: a bot's hole scores next to the best possible on the same deals."""
    r = rules if isinstance(rules, GolfSolitaireRules) else parse_rules(GolfSolitaireRules, rules)
    return tuple(deal_best_score(hole_deal(r, seed, h), r) for h in range(r.holes))
