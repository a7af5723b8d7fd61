"""An answer to a turn that is no longer waiting gets a `late` ActionResult, as the
proto says: also in the moment its deadline has fired but the seat has not yet forgotten
it (a red-team bot answering 1-4 ms around its deadlines was told nothing at all)."""

from __future__ import annotations

import asyncio

from referee.service.batching import EventBatcher
from referee.service.sessions import PlayerSession, _Pending
from referee.v1 import referee_pb2 as pb


def action(request_id: int, code: str = "stock") -> bytes:
    message = pb.BotMessage(action=pb.Action(request_id=request_id, code=code))
    return message.SerializeToString()


def test_an_answer_to_a_turn_whose_deadline_just_fired_is_told_late() -> None:
    async def scenario() -> list[pb.RefereeMessage]:
        session = PlayerSession("token", "bot", EventBatcher())
        sent: list[pb.RefereeMessage] = []
        session.send = lambda message, turn_id=0: sent.append(message)  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        timed_out: asyncio.Future[str] = loop.create_future()
        timed_out.cancel()  # the deadline's timer fired; the seat forgets it next
        answered: asyncio.Future[str] = loop.create_future()
        answered.set_result("stock")  # answered once already
        waiting: asyncio.Future[str] = loop.create_future()
        session.pending = {
            1: _Pending(timed_out, "m", 0),
            2: _Pending(answered, "m", 0),
            3: _Pending(waiting, "m", 0),
        }
        for request_id in (1, 2, 3, 4):
            session.on_message(action(request_id))
        assert waiting.result() == "stock" and answered.result() == "stock"
        return sent

    sent = asyncio.run(scenario())
    told = [(m.action_result.request_id, m.action_result.status) for m in sent]
    assert told == [(1, "late"), (2, "late"), (4, "unknown_request")]
