"""Event batching: one timer that sends the events sessions hold back."""

from __future__ import annotations

import asyncio
from typing import Protocol


class HoldsEvents(Protocol):
    """A session whose held-back events the batcher sends (a HoldsEvents; declared here
    so this module does not import the sessions module, which imports it)."""

    def flush_events(self) -> None: ...


# Events wait up to this long for company before they are sent on their own; a Turn
# takes them along at once. Fewer, larger messages: the transport costs per message.
EVENT_FLUSH_SECONDS = 0.1


class EventBatcher:
    """Sends the events sessions hold back once they are half a flush period old (so none
    waits longer than EVENT_FLUSH_SECONDS), unless a Turn takes them along first.

    One timer serves every session of a referee: arming and cancelling a timer per
    session and step cost more than the rest of the batching."""

    def __init__(self) -> None:
        self.waiting: dict[HoldsEvents, float] = {}  # session -> when its events began
        self._timer: asyncio.TimerHandle | None = None

    def hold(self, session: HoldsEvents) -> None:
        if session not in self.waiting:
            loop = asyncio.get_running_loop()
            self.waiting[session] = loop.time()
            if self._timer is None:
                self._timer = loop.call_later(EVENT_FLUSH_SECONDS / 2, self._tick)

    def release(self, session: HoldsEvents) -> None:
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
