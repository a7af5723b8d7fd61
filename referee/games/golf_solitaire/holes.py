"""Golf solitaire: the deal of each hole of a match (from the seed or from deal numbers,
honouring ``winnable_only``) and the best score possible on each of them.

Above both :mod:`.deals` (the deal values) and :mod:`.solver` (which takes a deal), since
``winnable_only`` skips the deals the solver cannot clear.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from referee.rules import RulesError, parse_rules

from .deals import Deal, pysol_deal, seed_deal
from .rules import MAX_DEAL_NUMBER, GolfSolitaireRules
from .solver import can_clear, deal_best_score

REDEAL_LIMIT = 10_000  # winnable_only: give up (an error) after this many skipped deals


def hole_deal(rules: GolfSolitaireRules, seed: int, hole: int) -> Deal:
    """The deal of hole ``hole`` (0-based) of a match: the same for every seat, and a pure
    function of (rules, seed, hole). With ``winnable_only`` a deal the solver cannot clear
    is skipped for the next deal number no hole plays (or the next reshuffle of the
    seed)."""
    if rules.deal_numbers is not None:
        return pysol_deal(_played_numbers(rules, hole)[hole], rules.foundation_starts_empty)
    for attempt in range(REDEAL_LIMIT):
        deal = seed_deal(rules, seed, hole, attempt)
        if not rules.winnable_only or can_clear(deal, rules):
            return deal
    raise RulesError(f"no clearable deal for hole {hole + 1} in {REDEAL_LIMIT} reshuffles")


@lru_cache(maxsize=256)
def _played_numbers(rules: GolfSolitaireRules, last: int) -> tuple[int, ...]:
    """The PySolFC numbers holes 0..``last`` play. A hole's skip never lands on a number
    listed for another hole or played by an earlier one: a seat that had turned that
    deal's stock once would know its order the second time."""
    listed = rules.deal_numbers
    assert listed is not None
    earlier = _played_numbers(rules, last - 1) if last else ()
    number = listed[last]
    if not rules.winnable_only:
        return (*earlier, number)
    taken = {*listed, *earlier}
    for _ in range(REDEAL_LIMIT):
        if can_clear(pysol_deal(number, rules.foundation_starts_empty), rules):
            return (*earlier, number)
        number += 1
        while number in taken:
            number += 1
        if number > MAX_DEAL_NUMBER:
            break
    raise RulesError(
        f"deal_numbers: no clearable deal for hole {last + 1} from PySolFC deal "
        f"{listed[last]} on (they end at {MAX_DEAL_NUMBER}, and at most "
        f"{REDEAL_LIMIT} are tried)"
    )


def hindsight_best_scores(
    rules: GolfSolitaireRules | Mapping[str, Any] | None, seed: int
) -> tuple[int, ...]:
    """The best achievable score of each hole of the match with these rules and seed (the
    deals are a pure function of them, the same for every seat), with the stock known.
    For the leaderboard: a bot's hole scores next to the best possible on the same deals."""
    r = rules if isinstance(rules, GolfSolitaireRules) else parse_rules(GolfSolitaireRules, rules)
    return tuple(deal_best_score(hole_deal(r, seed, h), r) for h in range(r.holes))
