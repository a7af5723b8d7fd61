"""Match runtimes: one match held by the referee, its driver task and its spectator feed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from array import array
from collections.abc import Sequence
from typing import Any

from referee.game import Event, get_game
from referee.match import (
    MatchDriver,
    MatchResult,
    MatchSpec,
)
from referee.replay import now_iso, parse_replay, simulate
from referee.service.errors import RefereeError
from referee.service.messages import event_notices, match_over
from referee.service.seats import StreamSeat
from referee.service.sessions import PlayerSession
from referee.v1 import referee_pb2 as pb
from referee.views import observation_message

log = logging.getLogger("referee")


# One step of a match's spectator feed: (time, events, state after them, result at the end).
FeedEntry = tuple[float, Sequence[Event], Any, "MatchResult | None"]


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
            events=event_notices(self.spec.match_id, events, None),
            view=observation_message(self.spec.game, view),
        )
        if result is not None:
            message.match_over.CopyFrom(match_over(result, -1))
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
