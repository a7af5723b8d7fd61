"""An SPRT tournament's state, from its stored matches: the duplicate pairs played so far,
their scores, the log-likelihood ratio against its bounds, and the verdict.

Pair ``p`` is matches ``2p`` and ``2p+1`` (one deal, see :func:`arena.schedule.sprt_pairs`).
With two seats the pair scores NEW's points over both matches (win 1, draw 1/2, loss 0),
so 0, 1/2, 1, 3/2 or 2, scaled to [0, 1]: the pentanomial model. With more seats the pair
compares NEW's rank with BASE's rank in the same seat on the same deal: 1, 1/2 or 0 (a
forfeit loses; a half stopped by a field bot's forfeit makes the pair a draw).

The verdict is taken over the pairs in schedule order and stops at the first prefix whose
LLR crosses a bound, so it does not depend on how many matches were in flight when the
test stopped or was killed: a resumed test reaches the verdict an uninterrupted one does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from arena.stats import (
    PENTANOMIAL,
    TRINOMIAL,
    ScoreSummary,
    Sprt,
    outcome_counts,
    sprt_from_counts,
    summarize,
)
from arena.store import Store, TournamentRecord


@dataclass(frozen=True)
class SprtStatus:
    new: str
    base: str
    pairs: int  # pairs counted (up to the verdict)
    pair_counts: dict[str, int]  # pair score -> how many pairs (pentanomial/trinomial)
    test: Sprt
    summary: ScoreSummary  # Elo of NEW over BASE with its 95% interval, LOS
    capped: bool  # every scheduled match played without a verdict

    @property
    def decided(self) -> bool:
        return self.test.verdict is not None or self.capped

    @property
    def verdict(self) -> str:
        return self.test.verdict or ("inconclusive" if self.capped else "running")

    def to_json(self) -> dict[str, Any]:
        return {
            "new": self.new,
            "base": self.base,
            "verdict": self.verdict,
            "pairs": self.pairs,
            "pair_counts": self.pair_counts,
            "llr": self.test.llr,
            "lower_bound": self.test.lower,
            "upper_bound": self.test.upper,
            **{k: v for k, v in self.summary.to_json().items() if k.startswith("elo")},
            "los": self.summary.los,
            "games": 2 * self.pairs,
        }


Seats = list[dict[str, Any]]  # one match's rows, as Store.results_in_order gives them


def _row(seats: Seats, name: str) -> dict[str, Any]:
    return next(s for s in seats if s["entrant"] == name)


def _score(mine: int, theirs: int) -> float:
    """1 for the better rank, 1/2 for the same, 0 for the worse."""
    return 1.0 if mine < theirs else 0.0 if mine > theirs else 0.5


def _match_score(seats: Seats, me: str, other: str) -> float:
    return _score(_row(seats, me)["rank"], _row(seats, other)["rank"])


def _same_seat_score(first: Seats, second: Seats, new: str, base: str) -> float:
    """NEW's result on a deal against BASE's in the same seat against the same field. Its
    own forfeit is a loss; a half a field bot's forfeit stopped has no result for NEW
    against BASE (the ranks are the order the seats stopped in), so the pair is a draw."""
    new_forfeited = bool(_row(first, new)["forfeited"])
    base_forfeited = bool(_row(second, base)["forfeited"])
    if new_forfeited or base_forfeited:
        return 0.5 if new_forfeited and base_forfeited else 0.0 if new_forfeited else 1.0
    if any(s["forfeited"] for s in first + second):
        return 0.5
    return _score(_row(first, new)["rank"], _row(second, base)["rank"])


def pair_scores(store: Store, record: TournamentRecord) -> list[float | None]:
    """Per pair in schedule order: its score in [0, 1], or None while not both played."""
    new, base = record.settings.bots
    by_idx = {
        seats[0]["idx"]: seats
        for _, seats in store.results_in_order(record.game, record.rules_key, record.id)
    }
    out: list[float | None] = []
    for p in range(record.total_matches // 2):
        first, second = by_idx.get(2 * p), by_idx.get(2 * p + 1)
        if first is None or second is None:
            out.append(None)
        elif record.seats == 2:
            out.append((_match_score(first, new, base) + _match_score(second, new, base)) / 2)
        else:
            out.append(_same_seat_score(first, second, new, base))
    return out


def sprt_status(store: Store, record: TournamentRecord) -> SprtStatus:
    settings = record.settings
    assert settings.sprt is not None
    test = settings.sprt
    new, base = settings.bots
    scores = pair_scores(store, record)
    counted: list[float] = []
    outcomes = PENTANOMIAL if record.seats == 2 else TRINOMIAL
    tally = outcome_counts([], outcomes)
    result = sprt_from_counts(tally, test.elo0, test.elo1, test.alpha, test.beta)
    for score in scores:
        if score is None:
            break  # the verdict is read over complete pairs in order only
        counted.append(score)
        tally[score] += 1  # every prefix's LLR from running counts: one step per pair
        result = sprt_from_counts(tally, test.elo0, test.elo1, test.alpha, test.beta)
        if result.verdict is not None:
            break
    capped = result.verdict is None and all(s is not None for s in scores)
    counts = Counter(f"{s * (2 if record.seats == 2 else 1):g}" for s in counted)
    return SprtStatus(
        new, base, len(counted), dict(sorted(counts.items())), result, summarize(counted), capped
    )
