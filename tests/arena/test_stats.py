"""Head-to-head statistics and the SPRT's log-likelihood ratio against hand-computed
figures."""

from __future__ import annotations

import math

import pytest

from arena.stats import (
    PENTANOMIAL,
    PRIOR_COUNT,
    TRINOMIAL,
    elo_from_score,
    expected_score,
    fmt_elo_interval,
    head_to_head,
    sprt,
    sprt_bounds,
    sprt_llr,
    summarize,
)


def test_elo_and_expected_score_are_inverse_logistic() -> None:
    # 75%: -400 log10(1/0.75 - 1) = 400 log10(3) = 190.85
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert expected_score(190.848) == pytest.approx(0.75, abs=1e-6)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_sprt_bounds_are_walds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(2.944, abs=1e-3)


def test_pentanomial_llr_by_hand() -> None:
    # 10 pairs: 1 x 0, 2 x 1/4, 4 x 1/2, 2 x 3/4, 1 x 1 (symmetric, mean 1/2), plus the prior
    # of 1/2 per outcome: counts 1.5, 2.5, 4.5, 2.5, 1.5 (12.5), mean 0.5,
    # variance (1.5*0.25*2 + 2.5*0.0625*2) / 12.5 = 0.085.
    samples = [0.0] + [0.25] * 2 + [0.5] * 4 + [0.75] * 2 + [1.0]
    assert PRIOR_COUNT == 0.5
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))  # elo0 = 0, elo1 = 10
    by_hand = 10 * (s1 - s0) * (2 * 0.5 - s0 - s1) / (2 * 0.085)
    assert sprt_llr(samples, 0, 10) == pytest.approx(by_hand)
    assert by_hand < 0  # an even score favours H0


def test_sprt_verdicts() -> None:
    assert sprt([1.0] * 40, 0, 50, 0.05, 0.05).verdict == "H1"
    assert sprt([0.0] * 40, 0, 50, 0.05, 0.05).verdict == "H0"
    assert sprt([1.0, 0.0] * 3, 0, 50, 0.05, 0.05).verdict is None
    with pytest.raises(ValueError, match="not one of"):
        sprt_llr([0.3], 0, 10)


def test_straight_won_pairs_needed_for_a_verdict_as_documented() -> None:
    # docs/tournaments.md: with elo1 = 50 (elo0 = 0, alpha = beta = 0.05) nine straight won
    # pairs are needed for two seats (pentanomial), eight for more seats (trinomial).
    def first_verdict(outcomes: tuple[float, ...]) -> int:
        return next(
            n
            for n in range(1, 40)
            if sprt([1.0] * n, 0, 50, 0.05, 0.05, outcomes=outcomes).verdict == "H1"
        )

    assert first_verdict(PENTANOMIAL) == 9
    assert first_verdict(TRINOMIAL) == 8


def test_summary_interval_and_los() -> None:
    s = summarize([1.0, 1.0, 1.0, 0.0])  # mean 0.75, pvariance 0.1875, se 0.2165
    se = math.sqrt(0.1875 / 4)
    assert s.mean == 0.75 and s.elo == pytest.approx(190.848, abs=1e-3)
    assert s.elo_low == pytest.approx(elo_from_score(0.75 - 1.959964 * se), abs=1e-3)
    assert s.los == pytest.approx(0.5 * (1 + math.erf((0.25 / se) / math.sqrt(2))))


def test_head_to_head_table_by_hand() -> None:
    def match(mid: str, *seats: tuple[str, int]) -> tuple[str, list[dict[str, object]]]:
        return mid, [{"entrant": e, "rank": r} for e, r in seats]

    matches = [
        match("1", ("a", 1), ("b", 2)),
        match("2", ("b", 1), ("a", 2)),
        match("3", ("a", 1), ("b", 1)),  # a draw
        match("4", ("a", 1), ("b", 2)),
        match("5", ("a", 1), ("c", 2), ("b", 3)),  # three seats: a>c, a>b, c>b
        match("6", ("c", 1), ("c", 2), ("a", 3)),  # c in two seats counts once (best rank)
    ]
    rows = {(r.a, r.b): r for r in head_to_head(matches)}
    ab = rows[("a", "b")]
    # a vs b: W W(4) W(5), D(3), L(2): 3-1-1 in 5, score 3.5/5 = 0.7
    assert (ab.games, ab.wins, ab.draws, ab.losses) == (5, 3, 1, 1)
    assert ab.score == pytest.approx(0.7)
    assert ab.elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))
    assert ab.los == pytest.approx(0.5 * (1 + math.erf((3 - 1) / math.sqrt(4) / math.sqrt(2))))
    ba = rows[("b", "a")]
    assert (ba.wins, ba.losses) == (1, 3) and ba.score == pytest.approx(0.3)
    ac = rows[("a", "c")]
    assert (ac.games, ac.wins, ac.losses) == (2, 1, 1)
    assert rows[("c", "b")].wins == 1 and ("c", "c") not in rows


def test_partners_are_not_opponents_in_the_head_to_head_table() -> None:
    """4-player gin: seats 0+2 against 1+3, partners sharing their team's rank. Partners
    did not play each other, so their shared rank is no draw between them."""

    def team_match(mid: str, lineup: str, winners: int) -> tuple[str, list[dict[str, object]]]:
        return mid, [
            {"entrant": e, "team": seat % 2, "rank": 1 if seat % 2 == winners else 3}
            for seat, e in enumerate(lineup)
        ]

    matches = [team_match("1", "abcd", 0), team_match("2", "abdc", 1), team_match("3", "acbd", 0)]
    rows = {(r.a, r.b): r for r in head_to_head(matches)}
    # a partners c in 1, d in 2, b in 3; it meets each of the others in the other two.
    assert {b: rows[("a", b)].games for b in "bcd"} == {"b": 2, "c": 2, "d": 2}
    assert all(r.draws == 0 for r in rows.values())
    assert (rows[("a", "b")].wins, rows[("a", "d")].wins, rows[("a", "c")].wins) == (1, 2, 1)


def test_a_perfect_score_has_a_finite_bound_and_reads_as_one() -> None:
    """100% or 0% has no finite Elo; the exact binomial bound still gives one side: after 10
    wins in 10 the rate is above 0.025 ** 0.1 with 95% confidence (Clopper-Pearson)."""
    won = summarize([1.0] * 10)
    assert won.elo == math.inf and won.elo_high == math.inf
    assert won.elo_low == pytest.approx(elo_from_score(0.025**0.1))
    assert 0 < won.elo_low < math.inf
    assert fmt_elo_interval(won.elo, won.elo_low, won.elo_high) == (
        f"all won: > {elo_from_score(0.025**0.1):+.0f}"
    )
    lost = summarize([0.0] * 10)
    assert lost.elo_high == pytest.approx(-won.elo_low) and lost.elo_low == -math.inf
    assert fmt_elo_interval(lost.elo, lost.elo_low, lost.elo_high).startswith("all lost: < -")
    # More wins in a row prove more: the bound grows with n.
    assert summarize([1.0] * 40).elo_low > won.elo_low
    mixed = summarize([1.0, 0.0, 1.0, 0.5])
    shown = fmt_elo_interval(mixed.elo, mixed.elo_low, mixed.elo_high)
    assert mixed.elo_high == math.inf  # 75% over 4: the upper end is not bounded
    assert shown == f"{mixed.elo:+.0f} [{mixed.elo_low:+.0f}, inf]"


def test_an_elo_of_zero_reads_0_never_minus_0() -> None:
    # all draws: an estimate and interval that round to zero from below
    assert fmt_elo_interval(-0.0, -0.3, -0.0) == "0 [0, 0]"
    assert fmt_elo_interval(35.4, 10.0, -60.6) == "+35 [+10, -61]"


def test_all_draws_are_no_certainty() -> None:
    # Four draws: the sample variance is 0, which made the interval [0, 0] and its LOS
    # exactly 1/2 as if the two bots were known to be equal.
    drawn = summarize([0.5] * 4)
    se = math.sqrt(0.25 / 4)
    assert drawn.elo == 0.0 and drawn.los == 0.5
    assert drawn.elo_low == pytest.approx(elo_from_score(0.5 - 1.959964 * se), abs=1e-3)
    assert drawn.elo_low < -100 and drawn.elo_high == pytest.approx(-drawn.elo_low)
    # More draws narrow it; alike samples off one half (every pair 3 of 4 points) too.
    assert summarize([0.5] * 100).elo_low > drawn.elo_low
    pairs = summarize([0.75] * 4)
    assert pairs.elo_low < pairs.elo < pairs.elo_high and 0.5 < pairs.los < 1.0
