"""Match time settings: anything but a positive finite move time, or a finite time bank
of zero or more, is refused with a clear error (nan would forfeit every match at its
first decision, inf would let a bot stall a match for ever)."""

from __future__ import annotations

import pytest

from referee.match import MatchConfig, MatchConfigError


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), float("-inf"), 0.0, -1.0])
def test_a_move_time_that_is_not_positive_and_finite_is_refused(seconds: float) -> None:
    with pytest.raises(MatchConfigError, match="move seconds must be a positive, finite number"):
        MatchConfig(move_seconds=seconds)


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -0.5])
def test_a_time_bank_that_is_negative_or_not_finite_is_refused(seconds: float) -> None:
    with pytest.raises(MatchConfigError, match="time bank seconds must be a finite number"):
        MatchConfig(time_bank_seconds=seconds)


def test_ordinary_times_are_kept() -> None:
    config = MatchConfig(move_seconds=0.25, time_bank_seconds=0.0)
    assert (config.move_seconds, config.time_bank_seconds) == (0.25, 0.0)
