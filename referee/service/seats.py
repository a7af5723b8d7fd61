"""StreamSeat: the match driver's agent for a seat played over a token's session."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from referee.game import Event
from referee.match import (
    DecisionRequest,
    FaultRecord,
    MatchResult,
    MatchSpec,
    SeatFault,
)
from referee.service.messages import event_notices, match_over, match_start
from referee.service.sessions import PlayerSession, _Pending
from referee.v1 import referee_pb2 as pb
from referee.views import fill_observation


class StreamSeat:
    """A seat played by a token's session: the driver's agent for remote bots."""

    def __init__(self, session: PlayerSession, game: str) -> None:
        self.session = session
        self.game = game

    async def start(self, spec: MatchSpec, seat: int) -> None:
        self.session.match_start = match_start(spec, seat)
        self.session.send(pb.RefereeMessage(match_start=self.session.match_start))

    async def decide(self, request: DecisionRequest) -> str:
        session = self.session
        if session.gone is not None:
            raise SeatFault(session.gone_kind, session.gone)
        request_id = next(session.request_ids)
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        session.pending[request_id] = _Pending(future, request.match_id, request.seat)
        # Built in place inside its envelope: a Turn passed to RefereeMessage() is copied.
        message = pb.RefereeMessage()
        turn = message.turn
        turn.request_id = request_id
        turn.match_id = request.match_id
        turn.seat = request.seat
        turn.seconds_left = request.seconds
        turn.deadline_unix_ms = int((time.time() + request.seconds) * 1000)
        turn.time_bank_left = request.time_bank_left
        turn.legal_actions.extend(request.legal)
        turn.decision_number = request.number
        turn.events.extend(session.take_events())
        fill_observation(turn.observation, self.game, request.view)
        session.turn, session.turn_deadline = turn, time.monotonic() + request.seconds
        session.unasked = 0
        session.turn_begins()  # before the Turn is sent: the bot thinks at full speed
        try:
            session.send(message, request_id)
            async with asyncio.timeout(request.seconds):
                return await future
        except TimeoutError:
            if session.connection is None:
                why = f" ({session.cut_off})" if session.cut_off else ""
                raise SeatFault(
                    "disconnect",
                    f"not connected when the {request.seconds:.3g}s deadline passed{why}",
                ) from None
            raise SeatFault("timeout", f"no answer within {request.seconds:.3g}s") from None
        finally:
            session.turn = None
            session.forget(request_id)
            session.turn_ends()

    async def fault(self, seat: int, record: FaultRecord, strikes: int) -> None:
        self.session.send(
            pb.RefereeMessage(
                action_result=pb.ActionResult(
                    match_id=self.session.match_start.match_id if self.session.match_start else "",
                    status=record.kind,
                    message=record.reason,
                    strikes=strikes,
                )
            )
        )

    async def notify(self, seat: int, events: Sequence[Event]) -> None:
        match_id = self.session.match_start.match_id if self.session.match_start else ""
        self.session.add_events(event_notices(match_id, events, seat))

    async def finish(self, result: MatchResult, seat: int) -> None:
        self.session.flush_events()
        self.session.send(pb.RefereeMessage(match_over=match_over(result, seat)))
        self.session.match_start = None
