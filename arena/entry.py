"""The ``arena`` command's entry point. It is small, so that a stop in the command's
first half second, while its modules load, ends it at once and quietly (exit 130:
nothing has begun). A Ctrl-C there printed a KeyboardInterrupt traceback from deep in an
import; SIGTERM and SIGHUP killed it by their default."""

from __future__ import annotations

import os
import signal

from arena.stop_signals import stop_signals_taken


def _stopped_while_loading(_signum: int, _frame: object) -> None:
    os._exit(130)  # nothing to clean up: no command has begun


def main() -> None:
    taken = {signum: signal.getsignal(signum) for signum in stop_signals_taken()}
    for signum in taken:
        signal.signal(signum, _stopped_while_loading)
    from arena.cli import main as run_command

    for signum, handler in taken.items():
        if handler is not None:
            signal.signal(signum, handler)
    run_command()
