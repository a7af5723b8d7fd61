"""The play loop (referee.game.PlayLoop, play_out): rounds, seats left with nothing to do,
the decision count and bound, on a game small enough to follow by hand."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import pytest

from referee.game import Event, GameBase, Outcome, PlayLoop, get_game, play_out, ranks_from_scores
from referee.rules import RuleOptions


@dataclass(frozen=True, slots=True)
class SnapRules(RuleOptions):
    pass


@dataclass(frozen=True, slots=True)
class SnapState:
    waiting: tuple[int, ...]
    winner: int
    events: tuple[Event, ...] = ()


class Snap(GameBase[SnapState, str, SnapRules]):
    """Two seats wait at once; the first to say "snap" wins, which leaves the other seat
    nothing to do. "wait" passes the chance to the next round."""

    name: ClassVar[str] = "snap"
    version: ClassVar[int] = 1
    Rules = SnapRules

    def seats(self, rules: SnapRules) -> range:
        return range(2, 3)

    def initial_state(self, rules: SnapRules, seats: int, seed: int) -> SnapState:
        return SnapState(waiting=(0, 1), winner=-1)

    def to_act(self, s: SnapState) -> tuple[int, ...]:
        return s.waiting

    def legal_actions(self, s: SnapState, seat: int) -> tuple[str, ...]:
        return ("snap", "wait") if seat in s.waiting else ()

    def _transition(self, s: SnapState, seat: int, a: str) -> SnapState:
        if a == "snap":
            return replace(s, waiting=(), winner=seat)
        return s

    def standings(self, s: SnapState) -> Outcome:
        scores = [1.0 if seat == s.winner else 0.0 for seat in range(2)]
        return Outcome(scores=tuple(scores), ranks=ranks_from_scores(scores, True))

    def max_decisions(self, rules: SnapRules, seats: int) -> int:
        return 10

    def decode(self, code: str) -> str:
        return code

    def _view(self, s: SnapState, seat: int) -> SnapState:
        return s


GAME = Snap()


def test_a_seat_left_with_nothing_to_do_is_not_asked() -> None:
    asked: list[int] = []

    def snap(state: SnapState, seat: int, legal: tuple[str, ...]) -> str:
        asked.append(seat)
        return "snap"

    state, decisions = play_out(GAME, GAME.initial_state(SnapRules(), 2, 0), snap)
    assert (asked, decisions, state.winner) == ([0], 1, 0)


def test_an_answer_for_a_seat_no_longer_waiting_is_not_played() -> None:
    # The match driver asks a round's seats at once and then plays their answers in order.
    loop = PlayLoop(GAME, GAME.initial_state(SnapRules(), 2, 0))
    rounds = loop.rounds()
    assert tuple(next(rounds)) == (0, 1)
    assert loop.play(1, "snap") and not loop.play(0, "snap")
    assert (loop.state.winner, loop.decisions, loop.waiting) == (1, 1, ())
    assert list(rounds) == []


def test_the_seats_picked_per_round_and_the_decision_bound() -> None:
    asked: list[int] = []

    def wait(state: SnapState, seat: int, legal: tuple[str, ...]) -> str:
        asked.append(seat)
        return "wait"

    start = GAME.initial_state(SnapRules(), 2, 0)
    with pytest.raises(RuntimeError, match="no end after 5 decisions"):
        play_out(GAME, start, wait, seats=lambda to_act: to_act[::-1], max_decisions=5)
    assert asked == [1, 0, 1, 0, 1, 0]  # the sixth choice is not played


def test_play_out_sees_every_state_of_a_real_match() -> None:
    game = get_game("golf")
    rules = game.Rules()
    seen: list[object] = []
    final, decisions = play_out(
        game,
        game.initial_state(rules, 2, 3),
        lambda state, seat, legal: legal[0],
        on_state=seen.append,
        max_decisions=game.max_decisions(rules, 2),
    )
    assert len(seen) == decisions + 1 and seen[-1] is final and game.outcome(final) is not None
