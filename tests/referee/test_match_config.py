"""Match time settings: anything but a move time above 0, or a time bank of 0 or more,
each at most a day, is refused with a clear error (nan would forfeit every match at its
first decision, inf would let a bot stall a match for ever, and 1e16 s overflowed the
Turn's deadline field, charged to the seat as a crash)."""

from __future__ import annotations

import pytest

from referee.match import MatchConfig, MatchConfigError


@pytest.mark.parametrize(
    "seconds", [float("nan"), float("inf"), float("-inf"), 0.0, -1.0, 86_400.5, 1e16]
)
def test_a_move_time_out_of_its_range_is_refused(seconds: float) -> None:
    with pytest.raises(
        MatchConfigError, match="move seconds must be a finite number above 0 and at most 86400"
    ):
        MatchConfig(move_seconds=seconds)


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -0.5, 86_401.0, 1e300])
def test_a_time_bank_out_of_its_range_is_refused(seconds: float) -> None:
    with pytest.raises(
        MatchConfigError, match="time bank seconds must be a finite number from 0 to 86400"
    ):
        MatchConfig(time_bank_seconds=seconds)


def test_ordinary_times_and_the_bounds_are_kept() -> None:
    config = MatchConfig(move_seconds=0.25, time_bank_seconds=0.0)
    assert (config.move_seconds, config.time_bank_seconds) == (0.25, 0.0)
    config = MatchConfig(move_seconds=86_400, time_bank_seconds=86_400)
    assert (config.move_seconds, config.time_bank_seconds) == (86_400, 86_400)
