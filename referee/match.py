"""Drives one match: asks seats for decisions, enforces deadlines and the time bank,
applies the fault policy, and records every step for the replay.

The driver knows nothing of gRPC: a seat is any :class:`SeatAgent` (the service
wraps a bot's stream in one; tests and local tools use in-process agents). A
faulty seat can cost the match only its own result: every wait is bounded by
that seat's deadline, and nothing an agent raises other than :class:`SeatFault`
reaches past it unclassified.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from referee.game import (
    Event,
    Game,
    InvalidAction,
    Outcome,
    PlayLoop,
    forfeit_outcome,
    get_game,
)

# The spec types live below both this driver and the replay recorder (so neither imports
# the other); re-exported here, where callers have always imported them.
from referee.matchspec import FaultKind as FaultKind
from referee.matchspec import FaultPolicy as FaultPolicy
from referee.matchspec import FaultRecord as FaultRecord
from referee.matchspec import MatchConfig as MatchConfig
from referee.matchspec import MatchConfigError as MatchConfigError
from referee.matchspec import MatchSpec as MatchSpec
from referee.replay import ReplayRecorder

_GRACE = 0.25  # seconds
# A seat's answer to one request: (code, or None if it forfeited; the action; its status;
# seconds taken).
Answer = tuple[str | None, Any, str, float]


class SeatFault(Exception):
    """A seat failed to give a usable decision."""

    def __init__(self, kind: FaultKind, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind: FaultKind = kind
        self.reason = reason


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """One decision asked of one seat."""

    match_id: str
    seat: int
    number: int  # this seat's own decisions so far in the match (see _ask)
    view: Any  # the seat's observation dataclass
    legal: tuple[str, ...]
    seconds: float  # time until the deadline, time bank included
    time_bank_left: float


@dataclass(frozen=True, slots=True)
class MatchResult:
    spec: MatchSpec
    outcome: Outcome
    reason: Literal["finished", "forfeit"]
    faults: tuple[FaultRecord, ...]
    decisions: int
    forfeited: tuple[int, ...]
    replay: str  # the JSON Lines replay


class SeatAgent(Protocol):
    """The driver's handle on one seat's player."""

    async def start(self, spec: MatchSpec, seat: int) -> None: ...

    async def decide(self, request: DecisionRequest) -> str:
        """The action code, within ``request.seconds``; may raise SeatFault."""
        ...

    async def fault(self, seat: int, record: FaultRecord, strikes: int) -> None:
        """Tell the seat that its decision was a fault (so a bot can log why)."""
        ...

    async def notify(self, seat: int, events: Sequence[Event]) -> None:
        """Events this seat may see (texts via ``Event.text_for``). Must not block long."""
        ...

    async def finish(self, result: MatchResult, seat: int) -> None: ...


# Told of every step: its events, the (immutable) state after them, and the result at the end.
PublicListener = Callable[[Sequence[Event], Any, "MatchResult | None"], None]


@dataclass
class _SeatClock:
    bank: float
    strikes: int = 0


class MatchDriver:
    """Runs one match to its end. Create, then ``await run()``."""

    def __init__(
        self,
        spec: MatchSpec,
        agents: Sequence[SeatAgent],
        started_at: str | None = None,
        on_public: PublicListener | None = None,
    ) -> None:
        if len(agents) != spec.seats:
            raise ValueError(f"{spec.seats} seats but {len(agents)} agents")
        self.spec = spec
        self.game: Game[Any, Any, Any] = get_game(spec.game)
        self.agents = agents
        self.recorder = ReplayRecorder.begin(spec, started_at)
        self.on_public = on_public
        self.clocks = [_SeatClock(spec.config.time_bank_seconds) for _ in range(spec.seats)]
        self.faults: list[FaultRecord] = []
        self.forfeited: list[int] = []
        self.asked = [0] * spec.seats  # decisions asked of each seat
        self.answered = [0] * spec.seats  # answers each seat gave (legal or not)
        self.play_loop: PlayLoop[Any, Any] | None = None  # the match in play, once started

    @property
    def state(self) -> Any:
        """The match's state (None before it starts)."""
        return None if self.play_loop is None else self.play_loop.state

    @property
    def decisions(self) -> int:
        """Decisions applied so far."""
        return 0 if self.play_loop is None else self.play_loop.decisions

    async def run(self) -> MatchResult:
        game, spec = self.game, self.spec
        await asyncio.gather(*(self._safe_start(seat) for seat in range(spec.seats)))
        self.play_loop = loop = PlayLoop(
            game, game.initial_state(spec.rules, spec.seats, spec.seed)
        )
        await self._publish(game.events(loop.state))
        if game.independent_seats:
            await self._play_independently(loop)
            return await self._finish()
        # The play loop's rounds; the seats of a round are asked at once.
        for to_act in loop.rounds():
            if self.forfeited:
                break
            if len(to_act) == 1:
                asked = [await self._ask(to_act[0])]
            else:
                asked = await asyncio.gather(*(self._ask(seat) for seat in to_act))
            for seat, answer in zip(to_act, asked, strict=True):
                if self.forfeited:
                    break
                await self._play(loop, seat, answer)
        return await self._finish()

    async def _play(self, loop: PlayLoop[Any, Any], seat: int, answer: Answer) -> None:
        """Apply one seat's answer (nothing if it forfeited, or if an earlier decision of
        its round left it nothing to do), record it and publish its events."""
        code, action, status, elapsed = answer
        if code is None:  # this seat forfeited
            return
        number = loop.decisions
        if loop.play(seat, action):
            self.recorder.decision(number, seat, code, elapsed, status)
            await self._publish(self.game.events(loop.state))

    async def _play_independently(self, loop: PlayLoop[Any, Any]) -> None:
        """Seats playing their own copies: each is asked again as soon as its answer is
        applied, so none waits on another's thinking (nor learns from the wait how far the
        other has got). Answers that come together are applied in seat order."""
        asking: dict[asyncio.Task[Answer], int] = {}
        try:
            while True:
                if not self.forfeited:
                    asked = set(asking.values())
                    for seat in loop.waiting:  # in seat order: the same run, the same replay
                        if seat not in asked:
                            asking[asyncio.ensure_future(self._ask(seat))] = seat
                if not asking:
                    return
                done, _ = await asyncio.wait(asking, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=asking.__getitem__):
                    seat = asking.pop(task)
                    if not self.forfeited:
                        await self._play(loop, seat, task.result())
        finally:
            for task in asking:
                task.cancel()

    async def _safe_start(self, seat: int) -> None:
        # A seat that cannot even start faults on its first decision instead.
        with contextlib.suppress(SeatFault, TimeoutError, ConnectionError):
            await asyncio.wait_for(
                self.agents[seat].start(self.spec, seat), self.spec.config.move_seconds
            )

    async def _ask(self, seat: int) -> Answer:
        """One decision of one seat under the fault policy: (code or None if forfeited,
        its action, status, seconds taken)."""
        game, config = self.game, self.spec.config
        legal_actions = game.legal_actions(self.state, seat)
        legal = tuple(game.encode(a) for a in legal_actions)
        clock = self.clocks[seat]
        seconds = config.move_seconds + clock.bank
        request = DecisionRequest(
            match_id=self.spec.match_id,
            seat=seat,
            # Per seat: the match-wide count would also count other seats' decisions, and
            # whether a seat was asked at all (or played a forced move automatically) can
            # depend on cards this seat cannot see (Dingo's hunt passes).
            number=self.asked[seat],
            view=game.observation(self.state, seat),
            legal=legal,
            seconds=seconds,
            time_bank_left=clock.bank,
        )
        self.asked[seat] += 1
        started = time.monotonic()
        fault: SeatFault | None = None
        try:
            # Agents enforce the deadline themselves (to tell a timeout from a disconnect);
            # this bound only guards against an agent that does not.
            async with asyncio.timeout(seconds + _GRACE):
                code = await self.agents[seat].decide(request)
            self.answered[seat] += 1
        except TimeoutError:
            fault = SeatFault("timeout", f"no answer within {seconds:.3g}s")
        except SeatFault as exc:
            fault = exc
        except Exception as exc:  # an agent bug must not take the referee down
            fault = SeatFault("crash", f"seat agent failed: {type(exc).__name__}: {exc}")
        elapsed = time.monotonic() - started
        clock.bank = max(0.0, clock.bank - max(0.0, elapsed - config.move_seconds))
        if fault is None:
            if code in legal:
                return code, legal_actions[legal.index(code)], "ok", elapsed
            fault = self._classify_bad_code(code, legal_actions)
        result = self._apply_policy(seat, fault, legal_actions, elapsed)
        with contextlib.suppress(Exception):
            await self.agents[seat].fault(seat, self.faults[-1], clock.strikes)
        return result

    def _classify_bad_code(self, code: str, legal_actions: Sequence[Any]) -> SeatFault:
        shown = code if len(code) <= 40 else code[:40] + "..."
        try:
            action = self.game.decode(code)
        except InvalidAction as exc:
            return SeatFault("malformed", f"{shown!r} is not an action code of this game ({exc})")
        if action in legal_actions:  # a non-canonical spelling of a legal action
            return SeatFault("malformed", f"{shown!r} is not in the canonical form the turn listed")
        return SeatFault("illegal", f"{shown!r} is not legal now")

    def _apply_policy(
        self, seat: int, fault: SeatFault, legal_actions: Sequence[Any], elapsed: float
    ) -> tuple[str | None, Any, str, float]:
        config = self.spec.config
        record = FaultRecord(seat, fault.kind, fault.reason, self.decisions)
        self.faults.append(record)
        self.recorder.fault(record)
        clock = self.clocks[seat]
        clock.strikes += 1
        if config.fault_policy == "default" and clock.strikes < config.max_strikes:
            first = legal_actions[0]
            return self.game.encode(first), first, f"default:{fault.kind}", elapsed
        if seat not in self.forfeited:
            self.forfeited.append(seat)
        return None, None, f"forfeit:{fault.kind}", elapsed

    async def _publish(self, events: tuple[Event, ...]) -> None:
        if not events:
            return
        self.recorder.events(events)
        for seat, agent in enumerate(self.agents):
            if seat in self.forfeited:
                continue
            with contextlib.suppress(Exception):
                await agent.notify(seat, events)
        if self.on_public is not None:
            self.on_public(events, self.state, None)

    async def _finish(self) -> MatchResult:
        game = self.game
        if self.forfeited:
            outcome = forfeit_outcome(game.standings(self.state), self.forfeited)
            reason: Literal["finished", "forfeit"] = "forfeit"
        else:
            final = game.outcome(self.state)
            assert final is not None
            outcome, reason = final, "finished"
        self.recorder.end(outcome, reason, self.forfeited, self.decisions)
        result = MatchResult(
            spec=self.spec,
            outcome=outcome,
            reason=reason,
            faults=tuple(self.faults),
            decisions=self.decisions,
            forfeited=tuple(self.forfeited),
            replay=self.recorder.text(),
        )
        if self.on_public is not None:
            self.on_public((), self.state, result)
        await asyncio.gather(*(self._safe_finish(result, seat) for seat in range(self.spec.seats)))
        return result

    async def _safe_finish(self, result: MatchResult, seat: int) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.agents[seat].finish(result, seat), 5.0)
