"""Seats that play their own copies of the deal (golf solitaire) are not asked in rounds: a
seat is asked again as soon as its answer is applied, whatever the others are doing."""

from __future__ import annotations

import asyncio

from referee.game import get_game, parse_rules
from referee.match import (
    DecisionRequest,
    MatchConfig,
    MatchDriver,
    MatchResult,
    MatchSpec,
    SeatFault,
)
from referee.replay import parse_replay, verify_replay
from tests.agents import RandomAgent

AHEAD = 10  # decisions seat 0 makes before seat 1 answers its first


def _spec(seats: int, seed: int) -> MatchSpec:
    """A two-hole golf solitaire match of ``seats`` seats."""
    rules = parse_rules(get_game("golf_solitaire").Rules, {"holes": "2"})
    names = tuple("abcdefgh"[:seats])
    return MatchSpec(
        "m1", "golf_solitaire", rules, seats, seed, names, MatchConfig(move_seconds=3.0)
    )


class GatedSeat(RandomAgent):
    """Seat 0 opens the gate after AHEAD decisions; seat 1 answers nothing before that."""

    def __init__(self, seed: int, gate: asyncio.Event, log: list[int]) -> None:
        super().__init__(seed)
        self.gate, self.log = gate, log

    async def decide(self, request: DecisionRequest) -> str:
        if request.seat == 1:
            await self.gate.wait()
        self.log.append(request.seat)
        if self.log.count(0) == AHEAD:
            self.gate.set()
        return await super().decide(request)


def test_a_golf_solitaire_seat_does_not_wait_on_another_seats_thinking() -> None:
    # In rounds, seat 0's second decision waited for seat 1's first: a slow seat stalled
    # the other, which could also tell from the wait when the slow one had finished its
    # hole, that is how many moves it made (its score). Here seat 1 holds its first
    # answer until seat 0 has made AHEAD decisions: in rounds it times out.
    spec = _spec(seats=2, seed=7)

    async def play() -> tuple[MatchResult, list[int]]:
        gate, log = asyncio.Event(), list[int]()
        seats = [GatedSeat(1, gate, log), GatedSeat(2, gate, log)]
        return await MatchDriver(spec, seats).run(), log

    result, log = asyncio.run(play())
    assert result.reason == "finished" and not result.faults
    assert log[:AHEAD] == [0] * AHEAD and log[AHEAD] == 1
    # Decisions are recorded in the order applied, and the replay verifies in that order.
    replay = parse_replay(result.replay)
    seats = [line["seat"] for line in replay.decisions]
    assert seats[:AHEAD] == [0] * AHEAD
    assert verify_replay(replay).ok


class CrashingSeat(RandomAgent):
    """Crashes on its third decision."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.asked = 0

    async def decide(self, request: DecisionRequest) -> str:
        self.asked += 1
        if self.asked == 3:
            raise SeatFault("crash", "gone")
        return await super().decide(request)


def test_a_golf_solitaire_seat_that_crashes_ends_the_match_as_a_forfeit() -> None:
    spec = _spec(seats=3, seed=8)
    result = asyncio.run(MatchDriver(spec, [RandomAgent(1), CrashingSeat(2), RandomAgent(3)]).run())
    assert result.reason == "forfeit"
    assert [f.seat for f in result.faults] == [1] and result.faults[0].kind == "crash"
    assert result.outcome.ranks[1] == 3  # the forfeiting seat is last
    replay = parse_replay(result.replay)
    assert [line["seat"] for line in replay.decisions].count(1) == 2
    assert verify_replay(replay).ok
