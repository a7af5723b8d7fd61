"""The referee service: player tokens and sessions, match runtimes, and the gRPC servicer.

:class:`RefereeCore` is the in-process API (the arena's runner calls it directly);
:class:`RefereeServicer` exposes the same core over gRPC (Play, Watch and the admin
RPCs). A token is the only way to act for a seat: a session receives only its own
seats' messages, and an action is accepted only for a request issued to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import itertools
import logging
import secrets
import time
from array import array
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from referee.game import Event, game_names, get_game, parse_rules
from referee.match import (
    DecisionRequest,
    FaultKind,
    FaultRecord,
    MatchConfig,
    MatchDriver,
    MatchResult,
    MatchSpec,
    SeatFault,
)
from referee.replay import now_iso, parse_replay, simulate
from referee.rules import RulesError, describe_rules, rules_to_strings
from referee.v1 import referee_pb2 as pb
from referee.views import fill_observation, observation_message

log = logging.getLogger("referee")

PROTOCOL = "referee.v1"
HELLO_TIMEOUT = 30.0  # seconds a new stream has to say hello
_EXPIRED_MEMORY = 256  # request ids remembered to tell "late" from "unknown"
_MAX_MESSAGE_BYTES = 64 * 1024  # bot messages are tiny; anything bigger is hostile
# Events wait up to this long for company before they are sent on their own; a Turn
# takes them along at once. Fewer, larger messages: the transport costs per message.
EVENT_FLUSH_SECONDS = 0.1
KEEP_FINISHED = 200  # finished matches a long-running referee keeps in memory


# One step of a match's spectator feed: (time, events, state after them, result at the end).
FeedEntry = tuple[float, Sequence[Event], Any, "MatchResult | None"]


# The referee allocates many short-lived objects per decision (views, messages, events):
# collecting the youngest generation every 700 allocations, Python's default, took about
# a tenth of its CPU in scripts/bench.
GC_THRESHOLDS = (10_000, 10, 10)


def tune_gc() -> None:
    """Collect garbage less often, for a process that runs the referee (call it once, at
    start). What is loaded so far lives as long as the process, so it is frozen out of
    the collections too."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class RefereeError(ValueError):
    """A request the referee cannot carry out (unknown match, bad settings, ...)."""


# ---- sessions --------------------------------------------------------------


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


class EventBatcher:
    """Sends the events sessions hold back once they are half a flush period old (so none
    waits longer than EVENT_FLUSH_SECONDS), unless a Turn takes them along first.

    One timer serves every session of a referee: arming and cancelling a timer per
    session and step cost more than the rest of the batching."""

    def __init__(self) -> None:
        self.waiting: dict[PlayerSession, float] = {}  # session -> when its events began
        self._timer: asyncio.TimerHandle | None = None

    def hold(self, session: PlayerSession) -> None:
        if session not in self.waiting:
            loop = asyncio.get_running_loop()
            self.waiting[session] = loop.time()
            if self._timer is None:
                self._timer = loop.call_later(EVENT_FLUSH_SECONDS / 2, self._tick)

    def release(self, session: PlayerSession) -> None:
        self.waiting.pop(session, None)

    def _tick(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        due = loop.time() - EVENT_FLUSH_SECONDS / 2
        for session, since in list(self.waiting.items()):
            if since <= due:
                session.flush_events()
        if self.waiting:
            self._timer = loop.call_later(EVENT_FLUSH_SECONDS / 2, self._tick)


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
        # Per session: a referee-wide counter would tell a bot how many turns other seats
        # were given between two of its own.
        self.request_ids = itertools.count(1)
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


def _event_notices(
    match_id: str, events: Iterable[Event], seat: int | None
) -> list[pb.EventNotice]:
    return [
        pb.EventNotice(
            match_id=match_id,
            kind=e.kind,
            text=e.text_for(seat),
            seat=-1 if e.seat is None else e.seat,
            hand=e.hand,
        )
        for e in events
    ]


def _match_over(result: MatchResult, seat: int) -> pb.MatchOver:
    import json

    return pb.MatchOver(
        match_id=result.spec.match_id,
        seat=seat,
        scores=list(result.outcome.scores),
        ranks=list(result.outcome.ranks),
        reason=result.reason,
        faults=[
            pb.Fault(seat=f.seat, kind=f.kind, reason=f.reason, decision_number=f.decision)
            for f in result.faults
            if seat < 0 or f.seat == seat
        ],
        details_json=json.dumps(result.outcome.details, sort_keys=True),
    )


def _match_start(spec: MatchSpec, seat: int) -> pb.MatchStart:
    game = get_game(spec.game)
    c = spec.config
    return pb.MatchStart(
        match_id=spec.match_id,
        game=spec.game,
        game_version=game.version,
        seat=seat,
        seats=spec.seats,
        rules=rules_to_strings(spec.rules, for_players=True),
        players=list(spec.players),
        move_seconds=c.move_seconds,
        time_bank_seconds=c.time_bank_seconds,
        fault_policy=c.fault_policy,
        max_strikes=c.max_strikes,
    )


class StreamSeat:
    """A seat played by a token's session: the driver's agent for remote bots."""

    def __init__(self, session: PlayerSession, game: str) -> None:
        self.session = session
        self.game = game

    async def start(self, spec: MatchSpec, seat: int) -> None:
        self.session.match_start = _match_start(spec, seat)
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
        session.send(message)
        try:
            async with asyncio.timeout(request.seconds):
                return await future
        except TimeoutError:
            if session.connection is None:
                raise SeatFault(
                    "disconnect", f"not connected when the {request.seconds:.3g}s deadline passed"
                ) from None
            raise SeatFault("timeout", f"no answer within {request.seconds:.3g}s") from None
        finally:
            session.turn = None
            session.forget(request_id)

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
        self.session.add_events(_event_notices(match_id, events, seat))

    async def finish(self, result: MatchResult, seat: int) -> None:
        self.session.flush_events()
        self.session.send(pb.RefereeMessage(match_over=_match_over(result, seat)))
        self.session.match_start = None


# ---- matches -----------------------------------------------------------------


class MatchRuntime:
    """One match held by the referee: its seats, its driver task and its public feed."""

    def __init__(
        self,
        spec: MatchSpec,
        sessions: Sequence[PlayerSession],
        spectator_delay: float,
        start_timeout: float,
    ) -> None:
        self.spec = spec
        self.sessions = tuple(sessions)
        self.spectator_delay = spectator_delay
        self.start_timeout = start_timeout
        self.state = "waiting"
        self.driver: MatchDriver | None = None
        self.result: MatchResult | None = None
        self.error: str | None = None
        # (time, events, state after them, result): turned into messages only for watchers.
        # Emptied when the match is over (it holds every state: ten times the replay's
        # size); a watcher of a finished match gets it rebuilt from the replay, with the
        # times kept here (so a spectator delay still holds for a match just over).
        self.feed: list[FeedEntry] = []
        self.feed_times = array("d")
        self.feed_changed = asyncio.Condition()
        self.done = asyncio.Event()
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None

    def on_public(self, events: Sequence[Event], state: Any, result: MatchResult | None) -> None:
        self.feed.append((time.monotonic(), events, state, result))
        if self.watchers:
            asyncio.get_running_loop().create_task(self._wake_watchers())

    def watch_feed(self) -> list[FeedEntry]:
        """The feed a new watcher follows: the live one (it keeps growing until the match
        is over), or a finished match's, rebuilt from its replay."""
        if self.result is None or not self.done.is_set():
            return self.feed
        game, _, steps = simulate(parse_replay(self.result.replay))
        feed: list[FeedEntry] = []
        state = None
        for step in steps:
            state = step.state
            if step.line["type"] in ("header", "decision") and (events := game.events(state)):
                feed.append((0.0, events, state, None))
        feed.append((0.0, (), state, self.result))
        if len(feed) == len(self.feed_times):
            feed = [(t, *entry[1:]) for t, entry in zip(self.feed_times, feed, strict=True)]
        return feed

    def watch_message(self, entry: FeedEntry) -> tuple[float, pb.WatchMessage]:
        stamp, events, state, result = entry
        view = get_game(self.spec.game).public_view(state)
        message = pb.WatchMessage(
            match_id=self.spec.match_id,
            events=_event_notices(self.spec.match_id, events, None),
            view=observation_message(self.spec.game, view),
        )
        if result is not None:
            message.match_over.CopyFrom(_match_over(result, -1))
        return stamp, message

    async def _wake_watchers(self) -> None:
        async with self.feed_changed:
            self.feed_changed.notify_all()

    async def run(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                # Locks in one global order, so two matches sharing players cannot deadlock.
                for session in sorted(set(self.sessions), key=lambda s: s.token):
                    await stack.enter_async_context(session.busy)
                await self._wait_for_seats()
                self.state = "running"
                self.driver = MatchDriver(
                    self.spec,
                    [StreamSeat(s, self.spec.game) for s in self.sessions],
                    now_iso(),
                    self.on_public,
                )
                self.result = await self.driver.run()
                self.state = "over"
        except Exception as exc:  # an engine bug: record it, keep the referee alive
            log.exception("match %s aborted", self.spec.match_id)
            self.error = f"{type(exc).__name__}: {exc}"
            self.state = "aborted"
            # The match is void; the seats' connections carry on with their next match.
            for seat, session in enumerate(self.sessions):
                session.match_start = None
                session.turn = None
                over = pb.MatchOver(match_id=self.spec.match_id, seat=seat, reason="aborted")
                session.flush_events()
                session.send(pb.RefereeMessage(match_over=over))
        finally:
            for session in self.sessions:
                if session.single_use:
                    session.mark_gone("the match this seat token was issued for is over")
            if self.result is not None:
                self.feed_times = array("d", (entry[0] for entry in self.feed))
                self.feed = []  # watchers hold their own reference; new ones rebuild it
            self.done.set()
            await self._wake_watchers()

    async def _wait_for_seats(self) -> None:
        waits = [s.settled.wait() for s in set(self.sessions)]
        if waits:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), self.start_timeout)

    async def wait(self) -> MatchResult:
        await self.done.wait()
        if self.result is None:
            raise RefereeError(f"match {self.spec.match_id} aborted: {self.error}")
        return self.result


class RefereeCore:
    """Tokens, sessions and matches: the referee without its transport."""

    def __init__(self, keep_finished: int = KEEP_FINISHED) -> None:
        self.sessions: dict[str, PlayerSession] = {}
        self.matches: dict[str, MatchRuntime] = {}
        self.batcher = EventBatcher()
        self.keep_finished = keep_finished
        self._match_numbers = itertools.count(1)

    def issue_player_token(self, name: str, single_use: bool = False) -> str:
        """A token for a player that may be seated in many matches (or, single_use, in the
        one match it is issued for)."""
        token = secrets.token_urlsafe(24)
        self.sessions[token] = PlayerSession(token, name, self.batcher, single_use)
        return token

    def session(self, token: str) -> PlayerSession | None:
        for known, session in self.sessions.items():
            if hmac.compare_digest(known, token):
                return session
        return None

    def player_gone(self, token: str, reason: str, kind: FaultKind = "crash") -> None:
        """The arena saw the bot process behind ``token`` die (or stopped it): fail its
        decisions at once."""
        session = self.sessions.get(token)
        if session is not None:
            session.mark_gone(reason, kind)

    def retire_player(self, token: str) -> None:
        session = self.sessions.pop(token, None)
        if session is not None and session.connection is not None:
            session.connection.close()

    def create_match(
        self,
        game: str,
        rules: dict[str, Any] | Any,
        seats: int,
        seed: int,
        players: Sequence[str | None],
        names: Sequence[str] | None = None,
        config: MatchConfig | None = None,
        match_id: str | None = None,
        spectator_delay: float = 0.0,
        start_timeout: float = 60.0,
    ) -> tuple[MatchRuntime, list[str]]:
        """Create and start a match. ``players`` has a player token per seat, or None to
        issue a fresh token for that seat; returns the runtime and the seat tokens."""
        engine = get_game(game)
        parsed = rules if isinstance(rules, engine.Rules) else parse_rules(engine.Rules, rules)
        if seats not in engine.seats(parsed):
            allowed = engine.seats(parsed)
            raise RefereeError(
                f"{game} with these rules seats {allowed.start} to {allowed.stop - 1}, not {seats}"
            )
        if len(players) != seats:
            raise RefereeError(f"{seats} seats need {seats} player entries, got {len(players)}")
        self._forget_old_matches()
        match_id = match_id or f"m{next(self._match_numbers)}-{secrets.token_hex(4)}"
        if match_id in self.matches:
            raise RefereeError(f"match id {match_id!r} is already in use")
        tokens: list[str] = []
        for seat, token in enumerate(players):
            if not token:
                token = self.issue_player_token(
                    names[seat] if names else f"seat {seat}", single_use=True
                )
            elif token not in self.sessions:
                raise RefereeError(f"seat {seat}: unknown player token")
            tokens.append(token)
        display = tuple(names) if names else tuple(self.sessions[t].name for t in tokens)
        spec = MatchSpec(match_id, game, parsed, seats, seed, display, config or MatchConfig())
        runtime = MatchRuntime(
            spec, [self.sessions[t] for t in tokens], spectator_delay, start_timeout
        )
        self.matches[match_id] = runtime
        runtime.task = asyncio.get_running_loop().create_task(runtime.run())
        return runtime, tokens

    def _forget_old_matches(self) -> None:
        """A long-running referee keeps the last ``keep_finished`` finished matches (their
        status, result and spectator feed) and forgets older ones with their seat tokens;
        the arena keeps their replays."""
        finished = [m for m, r in self.matches.items() if r.done.is_set() and not r.watchers]
        for match_id in finished[: max(0, len(finished) - self.keep_finished)]:
            runtime = self.matches.pop(match_id)
            for session in runtime.sessions:
                if session.single_use:
                    self.sessions.pop(session.token, None)

    def forget_match(self, match_id: str) -> None:
        self.matches.pop(match_id, None)


# ---- gRPC ----------------------------------------------------------------------


class RefereeServicer:
    """The gRPC face of a :class:`RefereeCore`."""

    def __init__(self, core: RefereeCore, admin_token: str | None) -> None:
        self.core = core
        self.admin_token = admin_token

    async def Play(
        self,
        request_iterator: AsyncIterator[bytes],
        context: grpc.aio.ServicerContext[bytes, pb.RefereeMessage],
    ) -> AsyncIterator[pb.RefereeMessage]:
        try:
            raw = await asyncio.wait_for(anext(request_iterator), HELLO_TIMEOUT)
        except (StopAsyncIteration, TimeoutError):
            return
        except Exception:
            return
        try:
            hello = pb.BotMessage.FromString(raw)
        except DecodeError:
            yield pb.RefereeMessage(
                error=pb.Error(code="protocol", message="the first message must be a Hello")
            )
            return
        if hello.WhichOneof("kind") != "hello":
            yield pb.RefereeMessage(
                error=pb.Error(code="protocol", message="the first message must be a Hello")
            )
            return
        session = self.core.session(hello.hello.token)
        if session is None or session.gone is not None:
            yield pb.RefereeMessage(
                error=pb.Error(code="unauthenticated", message="unknown or expired token")
            )
            return
        conn = session.attach()
        # Queue the resumed match before anything can await: a match starting meanwhile
        # then sends its own MatchStart after these, never a second copy.
        session.resume()
        yield pb.RefereeMessage(welcome=pb.Welcome(player=session.name, protocol=PROTOCOL))
        reader = asyncio.get_running_loop().create_task(self._read(request_iterator, session, conn))
        try:
            while True:
                message = await conn.queue.get()
                if message is None:
                    break
                yield message
        finally:
            reader.cancel()
            session.detach(conn)

    async def _read(
        self, requests: AsyncIterator[bytes], session: PlayerSession, conn: _Connection
    ) -> None:
        try:
            async for raw in requests:
                if session.connection is not conn:
                    break
                session.on_message(raw)
        except Exception:
            pass
        finally:
            if session.connection is conn:
                session.detach(conn)
                conn.close()

    async def Watch(
        self,
        request: pb.WatchRequest,
        context: grpc.aio.ServicerContext[pb.WatchRequest, pb.WatchMessage],
    ) -> AsyncIterator[pb.WatchMessage]:
        runtime = self.core.matches.get(request.match_id)
        if runtime is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            return
        delay = max(runtime.spectator_delay, request.delay_seconds)
        start = _match_start(runtime.spec, -1)
        yield pb.WatchMessage(match_id=runtime.spec.match_id, match_start=start)
        index = 0
        if runtime.done.is_set():  # rebuilt from the replay: long matches take a while
            feed = await asyncio.to_thread(runtime.watch_feed)
        else:
            feed = runtime.watch_feed()
        runtime.watchers += 1
        try:
            while True:
                async with runtime.feed_changed:
                    await runtime.feed_changed.wait_for(
                        lambda: index < len(feed) or runtime.done.is_set()  # noqa: B023
                    )
                if index >= len(feed):
                    return
                stamp, message = runtime.watch_message(feed[index])
                index += 1
                wait = stamp + delay - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                yield message
                if message.HasField("match_over"):
                    return
        finally:
            runtime.watchers -= 1

    def _check_admin(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if self.admin_token is None:
            return
        given = dict(context.invocation_metadata() or ()).get("x-admin-token", "")
        if not hmac.compare_digest(str(given), self.admin_token):
            raise _Abort(
                grpc.StatusCode.UNAUTHENTICATED, "admin RPCs need the x-admin-token metadata"
            )

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        games = []
        for name in game_names():
            engine = get_game(name)
            default_rules = engine.Rules()
            allowed = engine.seats(default_rules)
            games.append(
                pb.GameInfo(
                    name=name,
                    version=engine.version,
                    min_seats=allowed.start,
                    max_seats=allowed.stop - 1,
                    options=[
                        pb.RuleOption(
                            name=o.name,
                            type=o.type,
                            default=o.default,
                            choices=o.choices,
                            doc=o.doc,
                        )
                        for o in describe_rules(engine.Rules)
                    ],
                    presets=sorted(getattr(engine.Rules, "presets", {})),
                )
            )
        return pb.ListGamesResponse(games=games)

    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: Any
    ) -> pb.CreateMatchResponse:
        try:
            self._check_admin(context)
            config = MatchConfig(
                move_seconds=request.move_seconds or 5.0,
                time_bank_seconds=request.time_bank_seconds,
                fault_policy=request.fault_policy or "forfeit",  # type: ignore[arg-type]
                max_strikes=request.max_strikes or 3,
            )
            players = list(request.players) or [""] * request.seats
            runtime, tokens = self.core.create_match(
                request.game,
                dict(request.rules),
                request.seats,
                request.seed or secrets.randbits(63),  # unset: a deal nobody can predict
                [p or None for p in players],
                list(request.names) or None,
                config,
                spectator_delay=request.spectator_delay_seconds,
                start_timeout=request.start_timeout_seconds or 60.0,
            )
        except _Abort as exc:
            await context.abort(exc.code, exc.message)
            raise
        except (ValueError, RulesError) as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
            raise
        return pb.CreateMatchResponse(match_id=runtime.spec.match_id, seat_tokens=tokens)

    async def IssuePlayerToken(
        self, request: pb.IssuePlayerTokenRequest, context: Any
    ) -> pb.IssuePlayerTokenResponse:
        try:
            self._check_admin(context)
        except _Abort as exc:
            await context.abort(exc.code, exc.message)
            raise
        return pb.IssuePlayerTokenResponse(
            token=self.core.issue_player_token(request.name or "player")
        )

    async def MatchStatus(
        self, request: pb.MatchStatusRequest, context: Any
    ) -> pb.MatchStatusResponse:
        runtime = self.core.matches.get(request.match_id)
        if runtime is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            raise RefereeError("unreachable")
        response = pb.MatchStatusResponse(
            match_id=runtime.spec.match_id, game=runtime.spec.game, state=runtime.state
        )
        driver = runtime.driver
        if driver is not None and driver.state is not None:
            response.decisions = driver.decisions
            if runtime.result is None:
                response.to_act.extend(driver.game.to_act(driver.state))
        if runtime.result is not None:
            response.result.CopyFrom(_match_over(runtime.result, -1))
        return response


class _Abort(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _handlers(servicer: RefereeServicer) -> grpc.GenericRpcHandler[Any, Any]:
    """The service's method handlers. Play takes raw bytes so that a garbage message is a
    recorded fault of that seat rather than a transport error."""
    ser = {
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=None,
            response_serializer=pb.RefereeMessage.SerializeToString,
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            servicer.Watch,
            request_deserializer=pb.WatchRequest.FromString,
            response_serializer=pb.WatchMessage.SerializeToString,
        ),
        "ListGames": grpc.unary_unary_rpc_method_handler(
            servicer.ListGames,
            request_deserializer=pb.ListGamesRequest.FromString,
            response_serializer=pb.ListGamesResponse.SerializeToString,
        ),
        "CreateMatch": grpc.unary_unary_rpc_method_handler(
            servicer.CreateMatch,
            request_deserializer=pb.CreateMatchRequest.FromString,
            response_serializer=pb.CreateMatchResponse.SerializeToString,
        ),
        "IssuePlayerToken": grpc.unary_unary_rpc_method_handler(
            servicer.IssuePlayerToken,
            request_deserializer=pb.IssuePlayerTokenRequest.FromString,
            response_serializer=pb.IssuePlayerTokenResponse.SerializeToString,
        ),
        "MatchStatus": grpc.unary_unary_rpc_method_handler(
            servicer.MatchStatus,
            request_deserializer=pb.MatchStatusRequest.FromString,
            response_serializer=pb.MatchStatusResponse.SerializeToString,
        ),
    }
    return grpc.method_handlers_generic_handler("referee.v1.Referee", ser)


async def start_server(
    core: RefereeCore,
    addresses: Sequence[str],
    admin_token: str | None = None,
    services: Sequence[Callable[[grpc.aio.Server], None]] = (),
    max_message_bytes: int = 1024 * 1024,
) -> grpc.aio.Server:
    """Start a grpc.aio server for ``core`` on ``addresses`` ("127.0.0.1:50051",
    "unix:/path/sock", "127.0.0.1:0" for any free port). Returns the started server;
    ``server.bound_addresses`` lists the addresses with the ports actually bound.
    ``services`` register further services (the arena's) before it starts."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.so_reuseport", 0),
        ]
    )
    server.add_generic_rpc_handlers((_handlers(RefereeServicer(core, admin_token)),))
    for add_service in services:
        add_service(server)
    bound = []
    for address in addresses:
        port = server.add_insecure_port(address)
        if address.startswith("unix:"):
            bound.append(address)
        elif port == 0:
            raise RefereeError(f"cannot listen on {address}")
        else:
            bound.append(f"{address.rsplit(':', 1)[0]}:{port}")
    await server.start()
    server.bound_addresses = bound  # type: ignore[attr-defined]
    return server
