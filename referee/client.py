"""The Python bot SDK: a bot is one function ``choose(observation, legal_actions) -> code``.

:func:`run_bot` connects to the referee (``ARENA_TARGET``, e.g. ``unix:/tmp/x.sock``
or ``127.0.0.1:50051``) with a token (``ARENA_TOKEN``), says hello, and plays every
match the token is seated in, one after another, on one connection. It answers
each turn before its deadline (falling back to the first legal action, and saying
so on stderr, when ``choose`` is too slow or fails), and reconnects with backoff
if the connection drops. It returns when the referee closes the stream.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

Chooser = Callable[[Any, Sequence[str]], str]
SAFETY_MARGIN = 0.05  # seconds kept back from the deadline for the answer's trip
_RECONNECT_DELAYS = (0.1, 0.2, 0.5, 1.0, 2.0, 2.0, 2.0)


class BotError(RuntimeError):
    """The referee refused the bot (bad token, protocol error)."""


def _log(name: str, text: str) -> None:
    print(f"[{name}] {text}", file=sys.stderr, flush=True)


class _Outbox:
    """The bot's side of the stream: a queue the request iterator drains."""

    def __init__(self, hello: pb.BotMessage) -> None:
        self._queue: queue.Queue[pb.BotMessage | None] = queue.Queue()
        self._queue.put(hello)

    def put(self, message: pb.BotMessage) -> None:
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(None)

    def __iter__(self) -> Iterator[pb.BotMessage]:
        while (message := self._queue.get()) is not None:
            yield message


class _Watchdog:
    """Sends the fallback answer if ``choose`` is still running at the deadline.

    One long-lived thread for all turns (a thread per turn would cost more than many
    bots' whole decision)."""

    def __init__(self, outbox_ref: list[_Outbox], name: str) -> None:
        self._outbox_ref = outbox_ref
        self._name = name
        self._cond = threading.Condition()
        self._armed: tuple[int, float, str] | None = None
        threading.Thread(target=self._run, daemon=True, name="deadline-watchdog").start()

    def arm(self, request_id: int, deadline: float, fallback: str) -> None:
        with self._cond:
            self._armed = (request_id, deadline, fallback)
            self._cond.notify()

    def disarm(self) -> bool:
        """True if the answer is still ours to send (the watchdog did not fire)."""
        with self._cond:
            ours = self._armed is not None
            self._armed = None
            return ours

    def _run(self) -> None:
        with self._cond:
            while True:
                if self._armed is None:
                    self._cond.wait()
                    continue
                request_id, deadline, fallback = self._armed
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self._armed = None
                _log(self._name, f"choose() missed its deadline; playing {fallback!r}")
                self._outbox_ref[0].put(
                    pb.BotMessage(action=pb.Action(request_id=request_id, code=fallback))
                )


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
        self._failures = 0
        self._outbox_ref: list[_Outbox] = []
        self._watchdog = _Watchdog(self._outbox_ref, name)

    def run(self) -> None:
        """Play until the referee closes the stream; reconnect after transport errors
        (giving up after several failures in a row)."""
        self._failures = 0
        while True:
            try:
                self._session()
                return
            except grpc.RpcError as exc:
                code = exc.code() if isinstance(exc, grpc.Call) else None
                if self._failures >= len(_RECONNECT_DELAYS):
                    raise BotError(f"cannot reach the referee at {self.target}: {code}") from exc
                time.sleep(_RECONNECT_DELAYS[self._failures])
                self._failures += 1

    def _session(self) -> None:
        """One connection, until the referee ends it (or a transport error is raised)."""
        hello = pb.BotMessage(hello=pb.Hello(token=self.token, bot_name=self.name))
        outbox = _Outbox(hello)
        self._outbox_ref[:] = [outbox]
        with grpc.insecure_channel(self.target) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            try:
                for message in stub.Play(iter(outbox)):
                    if self.on_message is not None:
                        self.on_message(message)
                    self._handle(message, outbox)
            finally:
                outbox.close()

    def _handle(self, message: pb.RefereeMessage, outbox: _Outbox) -> None:
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            self._failures = 0  # connected again: the next failure starts a new count
        elif kind == "turn":
            code = self._decide(message.turn)
            if code is not None:
                outbox.put(
                    pb.BotMessage(action=pb.Action(request_id=message.turn.request_id, code=code))
                )
        elif kind == "match_over":
            self.matches_played += 1
        elif kind == "action_result":
            result = message.action_result
            _log(self.name, f"referee: {result.status}: {result.message}")
        elif kind == "error":
            raise BotError(
                f"referee refused the bot: {message.error.code}: {message.error.message}"
            )

    def _decide(self, turn: pb.Turn) -> str | None:
        """The code to send, or None if the watchdog already answered for a slow choose()."""
        game = turn.observation.WhichOneof("game")
        observation = getattr(turn.observation, game) if game else turn.observation
        legal = list(turn.legal_actions)
        budget = max(0.0, turn.seconds_left - SAFETY_MARGIN)
        self._watchdog.arm(turn.request_id, time.monotonic() + budget, legal[0])
        try:
            code = self.choose(observation, legal)
        except Exception as exc:
            _log(self.name, f"choose() raised {type(exc).__name__}: {exc}; playing {legal[0]!r}")
            code = legal[0]
        if not isinstance(code, str):
            _log(self.name, f"choose() returned {code!r}, not a code; playing {legal[0]!r}")
            code = legal[0]
        return code if self._watchdog.disarm() else None


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
