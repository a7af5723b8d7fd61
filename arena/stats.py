"""Head-to-head statistics, as chess engine testers compute them: the logistic Elo
difference a score implies, its 95% interval, the likelihood of superiority (LOS), the
pairwise table of a set of matches, and the log-likelihood ratio of a sequential
probability ratio test (SPRT) over duplicate pairs.

The SPRT uses the normal approximation of the generalized SPRT (Michel Van den Bergh's
GSPRT, as cutechess-cli and fastchess compute it for logistic Elo): each sample is the
score of one duplicate pair scaled to [0, 1] (for two seats a pentanomial: 0, 1/4, 1/2,
3/4, 1), and with ``s0``/``s1`` the expected scores under H0/H1, the mean ``m`` and
variance ``v`` of the ``N`` samples (every outcome also counts half a time, see
``PRIOR_COUNT``, so that identical results do not leave the variance at zero)::

    LLR = N * (s1 - s0) * (2 m - s0 - s1) / (2 v)

H1 is accepted when LLR >= log((1 - beta) / alpha), H0 when LLR <= log(beta / (1 - alpha)).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from arena.rating import settled

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def expected_score(elo: float) -> float:
    """The score a player ``elo`` points stronger expects (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference a score implies; +-inf at 1 and 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@dataclass(frozen=True)
class ScoreSummary:
    """Samples of a score in [0, 1] (one per match, or one per duplicate pair)."""

    n: int
    mean: float
    elo: float
    elo_low: float  # 95% interval
    elo_high: float
    los: float  # probability that the true score is above 1/2

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # infinite ends are null in the CLI's JSON (print_json)


# The exact (Clopper-Pearson) 95% bound on a rate after n successes in n is 0.025 ** (1/n).
_ALL_OF_N = (1.0 - 0.95) / 2


def summarize(samples: Sequence[float]) -> ScoreSummary:
    """Mean score, Elo with its 95% interval and LOS, from the samples' mean and variance."""
    n = len(samples)
    if n == 0:
        return ScoreSummary(0, 0.5, 0.0, -math.inf, math.inf, 0.5)
    mean = statistics.fmean(samples)
    variance = statistics.pvariance(samples, mean) if n > 1 else 0.0
    if variance == 0.0 and 0.0 < mean < 1.0:
        # Every sample alike, but not all won or lost (e.g. all draws): the samples cannot
        # say how much a score varies, and a zero-width interval would claim certainty.
        # The widest variance scores in [0, 1] with this mean can have stands in.
        variance = mean * (1.0 - mean)
    se = math.sqrt(variance / n)
    if se == 0.0:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    else:
        los = normal_cdf((mean - 0.5) / se)
    low, high = mean - Z95 * se, mean + Z95 * se
    if mean >= 1.0:  # all won: the normal interval collapses; n of n gives a real bound
        low = _ALL_OF_N ** (1.0 / n)
    elif mean <= 0.0:
        high = 1.0 - _ALL_OF_N ** (1.0 / n)
    return ScoreSummary(
        n, mean, elo_from_score(mean), elo_from_score(low), elo_from_score(high), los
    )


@dataclass(frozen=True)
class Sprt:
    llr: float
    lower: float  # accept H0 at or below
    upper: float  # accept H1 at or above
    verdict: str | None  # "H1", "H0", or None while undecided

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)  # a two-seat pair: 0, 1/2, 1, 3/2 or 2 points
TRINOMIAL = (0.0, 0.5, 1.0)  # a win, draw or loss
# Pseudo-count added to every outcome before the mean and variance are taken. fishtest adds
# 1e-3 to outcomes never seen; with the lopsided pairs a strong bot plays against a random
# one that lets a single pair "prove" H1 (variance ~0), so half a pair per outcome is added:
# a weak prior centred on an even score, which only delays a verdict.
PRIOR_COUNT = 0.5


def outcome_counts(samples: Sequence[float], outcomes: Sequence[float]) -> dict[float, int]:
    """How many samples took each of ``outcomes`` (ValueError for any other score)."""
    counts = dict.fromkeys(outcomes, 0)
    for x in samples:
        if x not in counts:
            raise ValueError(f"score {x} is not one of {tuple(outcomes)}")
        counts[x] += 1
    return counts


def llr_from_counts(counts: Mapping[float, int], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) from how many
    samples took each outcome (each outcome also counts ``PRIOR_COUNT`` times). Counts
    rather than samples, so a test read prefix by prefix costs one step per sample."""
    n = sum(counts.values())
    if n == 0:
        return 0.0
    prior = {o: c + PRIOR_COUNT for o, c in counts.items()}
    total = sum(prior.values())
    mean = sum(o * c for o, c in prior.items()) / total
    variance = sum(c * (o - mean) ** 2 for o, c in prior.items()) / total
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


def sprt_llr(
    samples: Sequence[float], elo0: float, elo1: float, outcomes: Sequence[float] = PENTANOMIAL
) -> float:
    """The GSPRT log-likelihood ratio of scores that each take one of ``outcomes``."""
    return llr_from_counts(outcome_counts(samples, outcomes), elo0, elo1)


def sprt_from_counts(
    counts: Mapping[float, int], elo0: float, elo1: float, alpha: float, beta: float
) -> Sprt:
    lower, upper = sprt_bounds(alpha, beta)
    llr = llr_from_counts(counts, elo0, elo1)
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
    return Sprt(llr, lower, upper, verdict)


def sprt(
    samples: Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    outcomes: Sequence[float] = PENTANOMIAL,
) -> Sprt:
    return sprt_from_counts(outcome_counts(samples, outcomes), elo0, elo1, alpha, beta)


# ---- the pairwise table ----------------------------------------------------------------


@dataclass(frozen=True)
class PairRow:
    """``a`` against ``b`` over the matches both played (a's point of view)."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float  # (wins + draws / 2) / games
    elo: float
    elo_low: float
    elo_high: float
    los: float  # LOS = Phi((W - L) / sqrt(W + L)), draws carry no information

    def to_json(self) -> dict[str, Any]:
        return asdict(self)  # infinite ends are null in the CLI's JSON (print_json)


def head_to_head(
    matches: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
) -> list[PairRow]:
    """Every pair of entrants that met as opponents: a beats b in a match when its (best)
    rank is better. An entrant filling several seats counts once per match, by its best
    rank. Partners (seats of one ``team``, as in 4-player gin) did not play each other:
    their shared rank is no draw between them. Nor did two seats of a free-for-all that a
    third one's forfeit stopped (``arena.rating.settled``): each beat the forfeiter."""
    results: dict[tuple[str, str], list[float]] = defaultdict(list)
    for _, match_rows in matches:
        seats = settled(match_rows)
        best: dict[str, int] = {}
        teams: dict[str, set[int]] = defaultdict(set)
        forfeited = {s["entrant"] for s in seats if s.get("forfeited")}
        for s in seats:
            best[s["entrant"]] = min(int(s["rank"]), best.get(s["entrant"], 1 << 30))
            if s.get("team") is not None:
                teams[s["entrant"]].add(int(s["team"]))
        for a, b in itertools.combinations(sorted(best), 2):
            if teams[a] & teams[b]:
                continue
            if seats[0].get("stopped") and not teams[a] and (a in forfeited) == (b in forfeited):
                continue  # no result between them
            score = 1.0 if best[a] < best[b] else 0.0 if best[a] > best[b] else 0.5
            results[(a, b)].append(score)
            results[(b, a)].append(1.0 - score)
    rows = []
    for (a, b), scores in sorted(results.items()):
        wins = sum(1 for s in scores if s == 1.0)
        losses = sum(1 for s in scores if s == 0.0)
        summary = summarize(scores)
        decisive = wins + losses
        los = normal_cdf((wins - losses) / math.sqrt(decisive)) if decisive else 0.5
        rows.append(
            PairRow(
                a,
                b,
                len(scores),
                wins,
                len(scores) - wins - losses,
                losses,
                summary.mean,
                summary.elo,
                summary.elo_low,
                summary.elo_high,
                los,
            )
        )
    return rows


def fmt_elo(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{round(value):+d}" if round(value) else "0"  # never "-0"


def fmt_elo_interval(elo: float, low: float, high: float) -> str:
    """An Elo estimate with its 95% interval, e.g. ``+35 [+10, +61]``. A score of 100% or
    0% has no finite estimate; it reads ``all won: > +95`` (the interval's finite end)."""
    if elo == math.inf:
        return f"all won: > {fmt_elo(low)}"
    if elo == -math.inf:
        return f"all lost: < {fmt_elo(high)}"
    return f"{fmt_elo(elo)} [{fmt_elo(low)}, {fmt_elo(high)}]"
