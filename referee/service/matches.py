"""Match runtimes: one match held by the referee, its driver task and its spectator feed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any

from referee.game import Event
from referee.match import (
    MatchDriver,
    MatchResult,
    MatchSpec,
)
from referee.replay import now_iso
from referee.service.errors import RefereeError
from referee.service.seats import StreamSeat
from referee.service.sessions import PlayerSession
from referee.service.spectators import SpectatorFeed
from referee.v1 import referee_pb2 as pb

log = logging.getLogger("referee")


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
        for session in set(self.sessions):
            session.matches += 1
        self.spectator_delay = spectator_delay
        self.start_timeout = start_timeout
        self.state = "waiting"
        self.driver: MatchDriver | None = None
        self.result: MatchResult | None = None
        self.error: str | None = None
        self.spectators = SpectatorFeed(spec)
        self._feed_done: asyncio.Task[list[bytes]] | None = None
        self.done = asyncio.Event()
        self.watchers = 0
        self.task: asyncio.Task[None] | None = None

    def on_public(self, events: Sequence[Event], state: Any, result: MatchResult | None) -> None:
        self.spectators.add(events, state, result)
        if self.watchers:
            asyncio.get_running_loop().create_task(self.spectators.wake())

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
            for session in set(self.sessions):
                session.matches -= 1
                if not session.matches:
                    session.idle_since = time.monotonic()
                if session.single_use:
                    session.retire("the match this seat token was issued for is over")
            self.spectators.finish(self.result, followed=self.watchers > 0)
            if self.result is not None and self.spectators.entries:
                # Finish the watchers' feed now (off the loop), so the states go soon
                # even if every watcher leaves first.
                self._feed_done = asyncio.get_running_loop().create_task(
                    self.spectators.finished(self.result)
                )
            self.done.set()
            await self.spectators.wake()

    async def _wait_for_seats(self) -> None:
        # Tasks, each cancelled on the way out: a gather cancelled as the server stopped
        # left an exception no one retrieved (logged as a traceback).
        waits = [asyncio.ensure_future(s.settled.wait()) for s in set(self.sessions)]
        try:
            if waits:
                await asyncio.wait(waits, timeout=self.start_timeout)
        finally:
            for wait in waits:
                wait.cancel()

    async def wait(self) -> MatchResult:
        await self.done.wait()
        if self.result is None:
            raise RefereeError(f"match {self.spec.match_id} aborted: {self.error}")
        return self.result
