"""One Play stream's outgoing queue, bounded in messages and bytes.

A bot that stops reading (or floods the referee with messages that each earn a reply)
would otherwise make the referee hold every message it is owed. Messages are
serialized once, when queued, so their size is known exactly and the transport sends
the same bytes. A queue that goes over either bound is dropped at once and the stream
closed with the reason; a normal close lets what is queued go out first.
"""

from __future__ import annotations

import asyncio
from collections import deque

# A seat is owed at most a MatchStart, a few event batches, one Turn and a few
# ActionResults at a time; hundreds of unread messages mean the bot is not reading.
MAX_QUEUED_MESSAGES = 256
MAX_QUEUED_BYTES = 4 * 1024 * 1024


class Connection:
    """The outgoing side of one bot stream."""

    def __init__(
        self, max_messages: int = MAX_QUEUED_MESSAGES, max_bytes: int = MAX_QUEUED_BYTES
    ) -> None:
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._queue: deque[tuple[bytes, int]] = deque()  # (message, its turn's request id or 0)
        self._bytes = 0
        self._wakeup = asyncio.Event()
        self.closed = False
        self.abort_reason: str | None = None  # set when the referee cut the stream off

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._queue)

    def put(self, data: bytes, turn_id: int = 0) -> bool:
        """Queue one serialized message; False if the connection is closed, or is closed
        now because the bot fell too far behind (``abort_reason`` says how far)."""
        if self.closed:
            return False
        self._queue.append((data, turn_id))
        self._bytes += len(data)
        if len(self._queue) > self.max_messages or self._bytes > self.max_bytes:
            self.abort(
                f"the bot fell behind: {len(self._queue)} messages ({self._bytes} bytes) unread, "
                f"over the limit of {self.max_messages} messages or {self.max_bytes} bytes"
            )
            return False
        self._wakeup.set()
        return True

    def close(self) -> None:
        """End the stream once what is queued has gone out."""
        self.closed = True
        self._wakeup.set()

    def abort(self, reason: str) -> None:
        """End the stream now, dropping what is queued."""
        self._queue.clear()
        self._bytes = 0
        self.abort_reason = reason
        self.close()

    async def get(self) -> tuple[bytes, int] | None:
        """The next message to send, or None once the stream is to end."""
        while not self._queue:
            if self.closed:
                return None
            self._wakeup.clear()
            await self._wakeup.wait()
        data, turn_id = self._queue.popleft()
        self._bytes -= len(data)
        return data, turn_id
