"""A match's spectator feed: the public steps of the match as serialized WatchMessages,
each built once and shared by every watcher.

While the match runs the feed keeps each step's state (to build its public view on
demand); a step's message is built the first time a watcher needs it. When the match
ends, if watchers are following it, the steps they have not reached yet are built from
the kept states, once, in a worker thread, and the states are dropped; otherwise the
states are dropped at once (they hold ten times the replay's size) and the messages are
rebuilt from the replay once, in a worker thread (a long match takes seconds of CPU),
the first time someone watches, with the times the steps happened (so a spectator delay
still holds for a match just over). Every later watcher reads the same bytes.
"""

from __future__ import annotations

import asyncio
import time
from array import array
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from referee.game import Event, get_game
from referee.match import MatchResult, MatchSpec
from referee.replay import parse_replay, simulate
from referee.service.messages import event_notices, match_over, match_start
from referee.v1 import referee_pb2 as pb
from referee.views import observation_message

# One live step: (time, events, state after them, result at the end).
FeedEntry = tuple[float, Sequence[Event], Any, "MatchResult | None"]


# The time of a message any delay has passed (the start, steps whose times are unknown).
# Not 0: on the monotonic clock that is the machine's boot, and a delay longer than its
# uptime held the start back.
LONG_AGO = float("-inf")


class SpectatorFeed:
    """The public feed of one match, shared by its watchers."""

    def __init__(self, spec: MatchSpec) -> None:
        self.spec = spec
        self.start = pb.WatchMessage(
            match_id=spec.match_id, match_start=match_start(spec, -1)
        ).SerializeToString()
        self.entries: list[FeedEntry] = []  # live steps, with their states
        self.times = array("d")  # when each step happened
        self.messages: list[bytes] = []  # built steps, shared; complete when `complete`
        self.complete = False
        self.over = False
        self.changed = asyncio.Condition()
        self._rebuild: asyncio.Task[list[bytes]] | None = None
        self.rebuilds = 0  # times the feed was rebuilt from the replay (at most once)

    def add(self, events: Sequence[Event], state: Any, result: MatchResult | None) -> None:
        if result is not None or _told_to_spectators(events):
            self.entries.append((time.monotonic(), events, state, result))

    def step(self, index: int) -> tuple[float, bytes]:
        """Step ``index`` of a live feed (built now if no watcher needed it before)."""
        while len(self.messages) <= index:
            self.messages.append(self._message(self.entries[len(self.messages)]))
        return self.entries[index][0], self.messages[index]

    def finish(self, result: MatchResult | None, followed: bool) -> None:
        """The match is over: keep what watchers need, drop the rest."""
        self.times = array("d", (entry[0] for entry in self.entries))
        self.over = True
        if result is None or not followed:
            # Aborted (nothing more to show), or nobody watching: a later watcher gets
            # the messages rebuilt from the replay.
            self.entries, self.messages = [], []
        # else the watchers' remaining steps are built from the kept states in a worker
        # thread (a watcher far behind, under a spectator delay, may need thousands)

    async def finished(self, result: MatchResult) -> list[bytes]:
        """Every step's message of a finished match, built at most once, off the loop."""
        if self.complete:
            return self.messages
        if self._rebuild is None:
            build = self._complete_from_states if self.entries else self._messages_from_replay
            self._rebuild = asyncio.get_running_loop().create_task(asyncio.to_thread(build, result))
        messages = await asyncio.shield(self._rebuild)
        if not self.complete:
            self.messages, self.complete, self.entries = messages, True, []
            if len(self.times) != len(messages):
                self.times = array("d")  # steps not matched one to one: times unknown
        return self.messages

    def _complete_from_states(self, result: MatchResult) -> list[bytes]:
        built = list(self.messages)
        built.extend(self._message(entry) for entry in self.entries[len(built) :])
        return built

    async def follow(
        self, result: Callable[[], MatchResult | None]
    ) -> AsyncIterator[tuple[float, bytes]]:
        """What one watcher receives, with when each step happened: the start, each step
        as it comes, and the rest from the finished feed once the match is over."""
        yield LONG_AGO, self.start
        index = 0
        while not self.over:
            async with self.changed:
                await self.changed.wait_for(lambda: index < len(self.entries) or self.over)  # noqa: B023
            if self.over:
                break
            yield self.step(index)
            index += 1
        final = result()
        if final is None:
            return  # aborted: the match is void
        messages = await self.finished(final)
        for i in range(index, len(messages)):
            yield self.stamp(i), messages[i]

    def _messages_from_replay(self, result: MatchResult) -> list[bytes]:
        self.rebuilds += 1
        game, _, steps = simulate(parse_replay(result.replay))
        entries: list[FeedEntry] = []
        state = None
        for step in steps:
            state = step.state
            if step.line["type"] in ("header", "decision") and _told_to_spectators(
                events := game.events(state)
            ):
                entries.append((0.0, events, state, None))
        entries.append((0.0, (), state, result))
        return [self._message(entry) for entry in entries]

    def stamp(self, index: int) -> float:
        """When step ``index`` happened (LONG_AGO when not known: a spectator delay has
        passed)."""
        return self.times[index] if index < len(self.times) else LONG_AGO

    def _message(self, entry: FeedEntry) -> bytes:
        _, events, state, result = entry
        view = get_game(self.spec.game).public_view(state)
        message = pb.WatchMessage(
            match_id=self.spec.match_id,
            events=event_notices(self.spec.match_id, events, None),
            view=observation_message(self.spec.game, view),
        )
        if result is not None:
            message.match_over.CopyFrom(match_over(result, -1))
        return message.SerializeToString()

    async def wake(self) -> None:
        async with self.changed:
            self.changed.notify_all()


def _told_to_spectators(events: Sequence[Event]) -> bool:
    """Whether a step shows spectators anything: a step of secret events only (another
    golf solitaire move) is left out, since even an empty message would count the moves."""
    return any(e.told_to(None) for e in events)
