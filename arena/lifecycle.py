"""How an arena process ends: cleanly when asked, and without litter when it cannot.

``kill PID`` (SIGTERM, what service managers and ``timeout`` send) stops a running
tournament as Ctrl-C does: its matches in play are abandoned, every bot process is killed,
its cgroups and socket directory are removed, and the tournament is left ``interrupted``
to resume. An arena killed outright (SIGKILL, a crash, the machine's power) cleans nothing
up: what it leaves is named after it, and the next arena that starts there removes it
(referee/owned_dirs.py).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_stoppable(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``, where SIGTERM cancels ``work`` and raises KeyboardInterrupt,
    as Ctrl-C does, so its clean-up runs. A second SIGTERM kills at once. Off the main
    thread (a server's request handler) signals are not this code's: plain asyncio.run."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(work)
    stopped = False

    async def main() -> T:
        nonlocal stopped
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()

        def stop() -> None:
            nonlocal stopped
            stopped = True
            loop.remove_signal_handler(signal.SIGTERM)  # back to the default: dies
            if task is not None:
                task.cancel()

        loop.add_signal_handler(signal.SIGTERM, stop)
        try:
            return await work
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if stopped:
            raise KeyboardInterrupt from None
        raise
    finally:
        if previous is not None:  # None: a handler not set from Python, left as is
            signal.signal(signal.SIGTERM, previous)


REFEREE_SOCKET = "referee.sock"  # the name of a bot-facing referee's socket in its directory
