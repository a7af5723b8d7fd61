"""Player sessions: what the referee holds for one token (its connection, the decision
it owes, the events not yet sent) and how it reads what the bot sends."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from referee.match import (
    FaultKind,
    SeatFault,
)
from referee.service.batching import EventBatcher
from referee.v1 import referee_pb2 as pb

_EXPIRED_MEMORY = 256  # request ids remembered to tell "late" from "unknown"
_MAX_MESSAGE_BYTES = 64 * 1024  # bot messages are tiny; anything bigger is hostile


@dataclass
class _Pending:
    future: asyncio.Future[str]
    match_id: str
    seat: int


@dataclass(eq=False)
class _Connection:
    queue: asyncio.Queue[pb.RefereeMessage | None] = field(default_factory=asyncio.Queue)

    def close(self) -> None:
        self.queue.put_nowait(None)


class PlayerSession:
    """Everything the referee holds for one token: its connection, the match it is seated
    in, and the decision it owes."""

    def __init__(
        self, token: str, name: str, batcher: EventBatcher, single_use: bool = False
    ) -> None:
        self.token = token
        self.name = name
        self.single_use = single_use  # a seat token: retired when its match ends
        self.busy = asyncio.Lock()  # one match at a time, in the order they were given
        self.connection: _Connection | None = None
        self.connected = asyncio.Event()
        self.settled = asyncio.Event()  # connected, or known to be gone: a match can start
        self.pending: dict[int, _Pending] = {}
        self.expired: OrderedDict[int, None] = OrderedDict()
        self.match_start: pb.MatchStart | None = None  # resent on reconnect
        self.turn: pb.Turn | None = None  # resent on reconnect
        self.turn_deadline = 0.0  # time.monotonic() of the pending turn's deadline
        self.gone: str | None = None  # set when the bot's process is known to be dead
        self.gone_kind: FaultKind = "crash"
        self.events: list[pb.EventNotice] = []  # not yet sent
        self.batcher = batcher

    def send(self, message: pb.RefereeMessage) -> None:
        if self.connection is not None:
            self.connection.queue.put_nowait(message)

    def add_events(self, notices: list[pb.EventNotice]) -> None:
        if notices:
            self.events.extend(notices)
            self.batcher.hold(self)

    def take_events(self) -> list[pb.EventNotice]:
        """The pending events, to travel with a Turn."""
        if not self.events:
            return []
        self.batcher.release(self)
        events, self.events = self.events, []
        return events

    def flush_events(self) -> None:
        events = self.take_events()
        if events:
            self.send(pb.RefereeMessage(events=pb.Events(events=events)))

    def attach(self) -> _Connection:
        if self.connection is not None:  # a reconnect replaces the old stream
            self.connection.close()
        conn = _Connection()
        self.connection = conn
        self.connected.set()
        self.settled.set()
        return conn

    def resume(self) -> None:
        """After a (re)connect: what the bot needs to pick up where it is."""
        if self.match_start is not None:
            self.send(pb.RefereeMessage(match_start=self.match_start))
        if self.turn is not None:
            turn = pb.Turn()
            turn.CopyFrom(self.turn)
            turn.seconds_left = max(0.0, self.turn_deadline - time.monotonic())
            self.send(pb.RefereeMessage(turn=turn))

    def detach(self, conn: _Connection) -> None:
        if self.connection is conn:
            self.connection = None
            self.connected.clear()
            if self.gone is None:
                self.settled.clear()

    def fail_pending(self, fault: SeatFault) -> None:
        for pending in list(self.pending.values()):
            if not pending.future.done():
                pending.future.set_exception(fault)

    def mark_gone(self, reason: str, kind: FaultKind = "crash") -> None:
        if self.gone is not None:
            return  # the first reason stands (a limit kill is also an exit)
        self.gone, self.gone_kind = reason, kind
        self.settled.set()
        self.fail_pending(SeatFault(kind, reason))
        if self.connection is not None:
            self.connection.close()

    def on_message(self, raw: bytes) -> None:
        """One message from the bot's stream, after the hello."""
        if len(raw) > _MAX_MESSAGE_BYTES:
            self._malformed(
                f"message of {len(raw)} bytes is over the {_MAX_MESSAGE_BYTES}-byte limit"
            )
            return
        try:
            message = pb.BotMessage.FromString(raw)
        except DecodeError:
            self._malformed("bytes that are not a BotMessage")
            return
        if message.WhichOneof("kind") != "action":
            self._malformed("expected an Action (the hello was already accepted)")
            return
        action = message.action
        pending = self.pending.get(action.request_id)
        if pending is None:
            status = "late" if action.request_id in self.expired else "unknown_request"
            text = (
                "the answer came after its deadline and was ignored"
                if status == "late"
                else "no turn with this request id is waiting for you; ignored"
            )
            self.send(
                pb.RefereeMessage(
                    action_result=pb.ActionResult(
                        request_id=action.request_id, status=status, message=text
                    )
                )
            )
            return
        if not pending.future.done():
            pending.future.set_result(action.code)

    def _malformed(self, what: str) -> None:
        if self.pending:
            self.fail_pending(SeatFault("malformed", f"the bot sent {what}"))
        else:
            self.send(
                pb.RefereeMessage(
                    action_result=pb.ActionResult(
                        status="malformed", message=f"ignored: the bot sent {what}"
                    )
                )
            )

    def forget(self, request_id: int) -> None:
        self.pending.pop(request_id, None)
        self.expired[request_id] = None
        while len(self.expired) > _EXPIRED_MEMORY:
            self.expired.popitem(last=False)
