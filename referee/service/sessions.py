"""Player sessions: what the referee holds for one token (its connection, the decision
it owes, the events not yet sent) and how it reads what the bot sends."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from referee.match import (
    FaultKind,
    SeatFault,
)
from referee.service.batching import EventBatcher
from referee.service.connection import Connection
from referee.v1 import referee_pb2 as pb

_EXPIRED_MEMORY = 256  # request ids remembered to tell "late" from "unknown"
MAX_MESSAGE_BYTES = 64 * 1024  # bot messages are tiny; anything bigger is hostile
# Bigger messages than this are refused by the transport itself, which just ends the
# bot's side of the stream. Up to it a message is read whole and refused here, as
# `malformed`; past it, a bot that keeps its stream open gets the same fault (see
# on_stream_end), one that drops the connection is a disconnect, since grpc shows the two
# alike. The transport holds what has come of every unfinished message, in the arena's
# process and outside every bot's limits, so this is kept small: at 128 MiB a bot that
# started 100 MiB messages on 8 streams and never finished them took 800 MB of the arena.
MAX_RECEIVE_BYTES = 128 * 1024
# Messages that answer no waiting Turn (late or unknown answers, malformed messages)
# each earn a reply; a bot sending more than this many between two Turns is flooding.
MAX_UNASKED_MESSAGES = 64


@dataclass
class _Pending:
    future: asyncio.Future[str]
    match_id: str
    seat: int


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
        self.connection: Connection | None = None
        self.cut_off: str | None = None  # why the referee last closed this session's stream
        self.unasked = 0  # messages answering no waiting Turn since the last Turn
        self.delivered_turn = 0  # request id of the last Turn handed to the transport
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
        # Per session: a referee-wide counter would tell a bot how many turns other seats
        # were given between two of its own.
        self.request_ids = itertools.count(1)
        self.idle_since = time.monotonic()  # when it last held no match (see RefereeCore)
        self.matches = 0  # matches it is seated in that are not over
        self.batcher = batcher
        self.turns = 0  # decisions asked of it and not yet answered (one per seat at most)
        self._on_turn: Callable[[bool], None] | None = None

    def watch_turns(self, on_turn: Callable[[bool], None] | None) -> None:
        """Call ``on_turn(True)`` when a decision is asked of this session while it owed
        none, and ``on_turn(False)`` when it owes none again (the arena holds a bot's CPU
        back between its turns); called at once, and whenever the session (re)connects,
        with whether it owes one now. None stops the calls. ``on_turn`` must not raise:
        it runs inside the match."""
        self._on_turn = on_turn
        if on_turn is not None:
            on_turn(self.turns > 0)

    def turn_begins(self) -> None:
        self.turns += 1
        if self.turns == 1 and self._on_turn is not None:
            self._on_turn(True)

    def turn_ends(self) -> None:
        self.turns -= 1
        if self.turns == 0 and self._on_turn is not None:
            self._on_turn(False)

    def send(self, message: pb.RefereeMessage, turn_id: int = 0) -> None:
        conn = self.connection
        put = conn is not None and conn.put(message.SerializeToString(), turn_id)
        if conn is not None and not put and conn.abort_reason is not None:
            self.cut(conn, conn.abort_reason)

    def cut(self, conn: Connection, reason: str) -> None:
        """The referee closes this stream (the bot fell behind or floods it): the decision
        it owes is a disconnect, with the reason."""
        if conn.abort_reason is None:
            conn.abort(reason)
        self.cut_off = f"the referee closed the connection: {reason}"
        self.detach(conn)
        self.fail_pending(SeatFault("disconnect", self.cut_off))

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

    def attach(self) -> Connection:
        if self.connection is not None:  # a reconnect replaces the old stream
            self.connection.close()
        conn = Connection()
        self.connection = conn
        self.cut_off = None
        self.connected.set()
        self.settled.set()
        if self._on_turn is not None:  # a process that was starting has started
            self._on_turn(self.turns > 0)
        return conn

    def resume(self) -> None:
        """After a (re)connect: what the bot needs to pick up where it is."""
        if self.match_start is not None:
            self.send(pb.RefereeMessage(match_start=self.match_start))
        if self.turn is not None:
            message = pb.RefereeMessage()
            message.turn.CopyFrom(self.turn)
            message.turn.seconds_left = max(0.0, self.turn_deadline - time.monotonic())
            if self.delivered_turn == self.turn.request_id:
                del message.turn.events[:]  # the bot was sent them: no event twice
            self.send(message, self.turn.request_id)

    def detach(self, conn: Connection) -> None:
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

    def retire(self, reason: str) -> None:
        """Nothing more for this token: tell the bot why (Goodbye, last), end its stream
        once that is sent, and refuse the token from now on."""
        if self.gone is None:
            self.send(pb.RefereeMessage(goodbye=pb.Goodbye(reason=reason)))
        self.mark_gone(reason)

    def on_message(self, raw: bytes) -> None:
        """One message from the bot's stream, after the hello."""
        if len(raw) > MAX_MESSAGE_BYTES:
            self._malformed(
                f"message of {len(raw)} bytes is over the {MAX_MESSAGE_BYTES}-byte limit"
            )
            return
        try:
            message = pb.BotMessage.FromString(raw)
        except DecodeError:
            self._malformed("bytes that are not a BotMessage")
            return
        kind = message.WhichOneof("kind")
        if kind != "action":
            self._malformed(
                "a second Hello (a stream says hello once)"
                if kind == "hello"
                else "a message that is not an Action (after the Hello, only Actions)"
            )
            return
        action = message.action
        pending = self.pending.get(action.request_id)
        # A pending turn whose future is done is no longer waiting either: its deadline
        # fired (or it was answered) in this turn of the event loop, and the seat has
        # not forgotten it yet. Its answer was dropped without a word.
        if pending is None or pending.future.done():
            if self._flooding():
                return
            waited = pending is not None or action.request_id in self.expired
            status = "late" if waited else "unknown_request"
            text = (
                "that turn is no longer waiting (its deadline passed, or it was answered "
                "already); ignored"
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
        pending.future.set_result(action.code)

    def on_stream_end(self) -> None:
        """The bot's side of the stream ended while the stream stayed open: it half-closed,
        or the transport refused a message over MAX_RECEIVE_BYTES (grpc ends the reads
        the same way for both). Either way the bot can no longer answer."""
        self._malformed(
            f"a message over the {MAX_RECEIVE_BYTES}-byte transport limit, or closed its "
            "side of the stream"
        )

    def _malformed(self, what: str) -> None:
        if self.pending:
            self.fail_pending(SeatFault("malformed", f"the bot sent {what}"))
        elif not self._flooding():
            self.send(
                pb.RefereeMessage(
                    action_result=pb.ActionResult(
                        status="malformed", message=f"ignored: the bot sent {what}"
                    )
                )
            )

    def _flooding(self) -> bool:
        """Count one message that answers no waiting Turn; past the bound, cut the stream."""
        self.unasked += 1
        if self.unasked <= MAX_UNASKED_MESSAGES or self.connection is None:
            return False
        self.cut(
            self.connection,
            f"the bot sent over {MAX_UNASKED_MESSAGES} messages that answer no waiting turn",
        )
        return True

    def forget(self, request_id: int) -> None:
        self.pending.pop(request_id, None)
        self.expired[request_id] = None
        while len(self.expired) > _EXPIRED_MEMORY:
            self.expired.popitem(last=False)
