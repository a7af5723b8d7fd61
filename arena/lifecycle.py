"""How an arena process ends: cleanly when asked, and without litter when it cannot.

``kill PID`` (SIGTERM, what service managers and ``timeout`` send), and the hangup of its
terminal (SIGHUP), stop a running tournament as Ctrl-C does: its matches in play are abandoned, every bot process is killed,
its cgroups and socket directory are removed, and the tournament is left ``interrupted``
to resume. An arena killed outright (SIGKILL, a crash, the machine's power) cleans nothing
up: what it leaves is named after it, and the next arena that starts there removes it
(referee/owned_dirs.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from arena.stop_signals import STOP_SIGNALS, stop_signals_taken

T = TypeVar("T")


_held: list[int] | None = None  # inside stops_held(): the stop signals that came


@contextlib.contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """Block the stop signals (in this thread) for a few instructions that must not be
    parted, such as making a file and noting its name; one that comes meanwhile is
    delivered, not lost, as the block ends."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def after_stop_signal(signum: int) -> None:
    """What a stop signal changes beyond stopping: after a hangup (SIGHUP), the clean-up's
    last words (the progress bar, the resume line) go nowhere (``away_from_gone_terminal``)."""
    if signum == signal.SIGHUP:
        away_from_gone_terminal()


def away_from_gone_terminal() -> None:
    """Point stdout and stderr at /dev/null where they went to a terminal that hung up:
    every write there fails with EIO, and the command's last words raised there and it
    ended with exit 1 and a traceback no one could see. One redirected to a file or a
    pipe, and a terminal still there (a SIGHUP sent by hand), are kept."""
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            # A terminal that hung up is no longer a tty to isatty, but still a device.
            if stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, fd)
                os.close(devnull)


def _next_one_kills(signums: list[int]) -> None:
    """After a first stop, a second kills at once (the default action), as SIGKILL would:
    the next arena removes what it leaves. Raised as KeyboardInterrupt inside the
    clean-up, it cut that short with tracebacks of bot pipes left to a closed loop."""
    for signum in signums:
        signal.signal(signum, signal.SIG_DFL)


def _hold(held: list[int]) -> None:
    """Hold the stop signals in ``held``; a second one kills at once, as in a run."""
    taken = stop_signals_taken()

    def hold(signum: int, _frame: object) -> None:
        if held:
            _next_one_kills(taken)
            os.kill(os.getpid(), signum)
        after_stop_signal(signum)
        held.append(signum)

    for signum in taken:
        signal.signal(signum, hold)


@contextlib.contextmanager
def stops_held() -> Iterator[list[int]]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back through a step a stop must not cut in two: a
    tournament stored, then run (stopped in between, it was stored and nothing said how
    to resume it). A ``run_stoppable`` inside takes the held ones (its work is cancelled
    as it starts); one held to the end of the block raises KeyboardInterrupt there.
    Yields the list of the signals held so far."""
    global _held
    if _held is not None or threading.current_thread() is not threading.main_thread():
        yield _held if _held is not None else []  # the outer block holds them; or none here
        return
    previous = {signum: signal.getsignal(signum) for signum in stop_signals_taken()}
    held: list[int] = []
    _hold(held)
    _held = held
    try:
        yield held
    finally:
        _held = None
        for signum, handler in previous.items():
            if handler is not None:  # None: a handler not set from Python, left as is
                signal.signal(signum, handler)
    if held:
        raise KeyboardInterrupt


@contextlib.contextmanager
def stops_interrupt() -> Iterator[None]:
    """Around every command (``arena.cli.main``): SIGTERM and SIGHUP raise
    KeyboardInterrupt as Ctrl-C does, so the caller's clean-up runs; then every stop
    signal kills at once (the default), so a second one cuts that clean-up short. One the
    launcher set to be ignored stays ignored. Without a stop, the handlers are restored."""
    previous = {signum: signal.getsignal(signum) for signum in stop_signals_taken()}

    def stop(signum: int, _frame: object) -> None:
        _next_one_kills(list(previous))
        after_stop_signal(signum)
        raise KeyboardInterrupt

    for signum in previous:
        signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if signal.getsignal(signum) is stop and handler is not None:
                signal.signal(signum, handler)


def run_stoppable(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``, where SIGTERM and SIGHUP, like Ctrl-C (SIGINT), cancel
    ``work`` and raise KeyboardInterrupt, so its clean-up runs. A second one kills at
    once. One that comes while the loop is being set up (or earlier in ``stops_held``) is
    held until ``work`` runs, then cancels it: Python's own handler would raise inside
    asyncio's setup and leave ``work`` never awaited. Off the main thread (a server's
    request handler) signals are not this code's: plain asyncio.run."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(work)

    with stops_held() as held:

        async def main() -> T:
            task = asyncio.current_task()
            loop = asyncio.get_running_loop()
            taken = stop_signals_taken()

            def stop(signum: int) -> None:
                if not held:  # a held one had its effects as it came
                    after_stop_signal(signum)
                held.append(signum)
                for taken_signum in taken:
                    loop.remove_signal_handler(taken_signum)
                _next_one_kills(taken)
                if task is not None:
                    task.cancel()

            for signum in taken:
                loop.add_signal_handler(signum, stop, signum)
            if held:
                stop(held[0])
            try:
                return await work
            finally:
                for signum in taken:
                    loop.remove_signal_handler(signum)
                _hold(held)

        try:
            result = asyncio.run(main())
        except asyncio.CancelledError:
            if held:
                raise KeyboardInterrupt from None
            raise
        held.clear()  # one that came as the work ended stopped nothing
        return result


REFEREE_SOCKET = "referee.sock"  # the name of a bot-facing referee's socket in its directory
