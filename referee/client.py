"""The Python bot SDK: a bot is one function ``choose(observation, legal_actions) -> code``.

:func:`run_bot` connects to the referee (``ARENA_TARGET``, e.g. ``unix:/tmp/x.sock``
or ``127.0.0.1:50051``) with a token (``ARENA_TOKEN``), says hello, and plays every
match the token is seated in, one after another, on one connection. It answers
each turn before its deadline (falling back to the first legal action, and saying
so on stderr, when ``choose`` is too slow or fails), and reconnects with backoff
if the connection drops. It returns when the referee closes the stream.

The connection runs on grpc.aio in one thread: measured against a thread-per-stream
client it costs the bot about a third less CPU per decision. ``choose`` runs inline;
its deadline is enforced with a SIGALRM timer, so the bot must run in the main
thread (as a bot script does) for the fallback to work.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import grpc

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

Chooser = Callable[[Any, Sequence[str]], str]
Send = Callable[[pb.BotMessage], Awaitable[None]]
SAFETY_MARGIN = 0.1  # seconds kept back from the deadline for the answer's trip
MOST_ALARM_SECONDS = 10 * 86_400.0  # longer than any turn a referee gives (a day and its bank)
_RECONNECT_DELAYS = (0.1, 0.2, 0.5, 1.0, 2.0, 2.0, 2.0)


class BotError(RuntimeError):
    """The referee refused the bot (bad token, protocol error)."""


class _TimeUp(BaseException):  # BaseException: choose() must not swallow it
    """Raised inside choose() when its time is up."""


# Every answer the SDK makes up (choose() too slow, raising, or returning a non-code) is
# logged with this mark on stderr, so `arena bots check` can report it as a problem.
FALLBACK_MARK = "[sdk-fallback]"


def _log(name: str, text: str) -> None:
    print(f"[{name}] {text}", file=sys.stderr, flush=True)


def _time_up(signum: int, frame: Any) -> None:
    raise _TimeUp


@contextlib.contextmanager
def _alarm_handler() -> Iterator[bool]:
    """Install the SIGALRM handler for the whole run (once, not per decision); yields
    whether deadlines can be enforced (only in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = signal.signal(signal.SIGALRM, _time_up)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _deadline(seconds: float, armed: bool) -> Iterator[None]:
    """Interrupt the block with _TimeUp after ``seconds`` (when ``armed``)."""
    if not armed:
        yield
        return
    # Within what setitimer takes whatever the referee said: past about 9e9 s it
    # overflowed, and choose() was never called; nan is no time at all.
    seconds = min(seconds, MOST_ALARM_SECONDS) if seconds > 0.001 else 0.001
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class BotRunner:
    """Plays matches for one token. Use :func:`run_bot` unless you need the hooks."""

    def __init__(
        self,
        choose: Chooser,
        name: str = "bot",
        target: str | None = None,
        token: str | None = None,
        on_message: Callable[[pb.RefereeMessage], None] | None = None,
    ) -> None:
        self.choose = choose
        self.name = name
        self.target = target or os.environ.get("ARENA_TARGET", "")
        self.token = token or os.environ.get("ARENA_TOKEN", "")
        if not self.target or not self.token:
            raise BotError(
                "set ARENA_TARGET and ARENA_TOKEN (the arena does this when it launches a bot)"
            )
        self.on_message = on_message
        self.matches_played = 0
        self.goodbye = ""  # why the referee ended the session, once it has
        self._failures = 0
        self._armed = False  # whether choose() runs under a SIGALRM deadline

    def run(self) -> None:
        """Play until the referee closes the stream; reconnect after transport errors
        (giving up after several failures in a row)."""
        with _alarm_handler() as self._armed:
            asyncio.run(self._run())

    async def _run(self) -> None:
        self._failures = 0
        while True:
            try:
                await self._session()
                return
            except grpc.RpcError as exc:
                code = exc.code() if isinstance(exc, grpc.aio.AioRpcError) else None
                if self._failures >= len(_RECONNECT_DELAYS):
                    raise BotError(f"cannot reach the referee at {self.target}: {code}") from exc
                await asyncio.sleep(_RECONNECT_DELAYS[self._failures])
                self._failures += 1

    async def _session(self) -> None:
        """One connection, until the referee ends it (or a transport error is raised)."""
        async with grpc.aio.insecure_channel(self.target) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            call = stub.Play()
            await call.write(pb.BotMessage(hello=pb.Hello(token=self.token, bot_name=self.name)))
            async for message in call:
                if self.on_message is not None:
                    self.on_message(message)
                await self._handle(message, call.write)

    async def _handle(self, message: pb.RefereeMessage, send: Send) -> None:
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            self._failures = 0  # connected again: the next failure starts a new count
        elif kind == "turn":
            code = self._decide(message.turn)
            await send(
                pb.BotMessage(action=pb.Action(request_id=message.turn.request_id, code=code))
            )
        elif kind == "match_over":
            self.matches_played += 1
        elif kind == "action_result":
            result = message.action_result
            _log(self.name, f"referee: {result.status}: {result.message}")
        elif kind == "goodbye":  # nothing more for this token: the stream ends next
            self.goodbye = message.goodbye.reason
        elif kind == "error":
            raise BotError(
                f"referee refused the bot: {message.error.code}: {message.error.message}"
            )

    def _decide(self, turn: pb.Turn) -> str:
        game = turn.observation.WhichOneof("game")
        observation = getattr(turn.observation, game) if game else turn.observation
        legal = list(turn.legal_actions)
        fallback = legal[0]
        try:
            with _deadline(turn.seconds_left - SAFETY_MARGIN, self._armed):
                code = self.choose(observation, legal)
        except _TimeUp:
            _log(self.name, f"{FALLBACK_MARK} choose() missed its deadline; playing {fallback!r}")
            return fallback
        except Exception as exc:  # a bug in choose() must not lose the match
            _log(
                self.name,
                f"{FALLBACK_MARK} choose() raised {type(exc).__name__}: {exc}; playing {fallback!r}",
            )
            return fallback
        if not isinstance(code, str):
            _log(
                self.name,
                f"{FALLBACK_MARK} choose() returned {code!r}, not a code; playing {fallback!r}",
            )
            return fallback
        return code


def run_bot(
    choose: Chooser,
    name: str = "bot",
    on_match_start: Callable[[pb.MatchStart], None] | None = None,
    on_match_over: Callable[[pb.MatchOver], None] | None = None,
) -> None:
    """Entry point for a bot script: play every match given to ``ARENA_TOKEN``.

    ``on_match_start`` / ``on_match_over`` are called with those messages (e.g. to reset
    per-match memory or reseed a random generator per match)."""

    def hooks(message: pb.RefereeMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "match_start" and on_match_start is not None:
            on_match_start(message.match_start)
        elif kind == "match_over" and on_match_over is not None:
            on_match_over(message.match_over)

    try:
        BotRunner(choose, name=name, on_message=hooks).run()
    except BotError as exc:
        _log(name, str(exc))
        sys.exit(2)
    except KeyboardInterrupt:
        pass


__all__ = ["BotError", "BotRunner", "Chooser", "run_bot"]
