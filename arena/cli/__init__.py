"""The ``arena`` command line: bots, tournaments, leaderboards, matches, replays, the
referee server and the demo.

One module per command group (``arena.cli.bots``, ``.submitters``, ``.tournament``, ``.leaderboard``,
``.matches``, ``.replay``, ``.serve``, ``.demo``, ``.solitaire``); what they share (the
database option, errors, opening the store, rule options) lives in ``arena.cli.common``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import sys

import typer

from arena.cli import (
    bots,
    demo,
    leaderboard,
    matches,
    replay,
    serve,
    solitaire,
    submitters,
    tournament,
)
from arena.cli.common import fail
from arena.lifecycle import away_from_gone_terminal, stops_interrupt
from arena.outputs import out_of_room
from arena.store import BUSY_SECONDS, DAMAGED_REMEDY, StoreError, damaged
from referee.service import tune_gc

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help=__doc__.split("\n\n")[0].replace("``", "")
)
app.add_typer(bots.app, name="bots")
app.add_typer(submitters.app, name="submitters")
app.add_typer(tournament.app, name="tournament")
app.add_typer(matches.app, name="matches")
app.add_typer(replay.app, name="replay")
app.add_typer(solitaire.app, name="solitaire")
leaderboard.register(app)
serve.register(app)
demo.register(app)


def main() -> None:
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    tune_gc()  # the referee runs in this process (or `arena serve` is this process)
    try:
        try:
            # SIGTERM and SIGHUP as Ctrl-C for every command: the clean-ups run (a file
            # being written whole is removed, not left as a hidden temporary).
            with stops_interrupt():
                app()
        finally:
            sys.stdout.flush()  # here, where a full disk behind it is one line
    except OSError as exc:
        # A full disk behind the standard output is one line; a terminal that hung up
        # (its SIGHUP ignored: nohup, `trap '' HUP`) hears nothing more.
        if not (out_of_room(exc) or exc.errno == errno.EIO):
            raise
        away_from_gone_terminal()
        # What is left unwritten goes nowhere, so the flush at exit raises nothing more.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(fail(f"cannot write the output: {exc.strerror}").exit_code) from exc
    except KeyboardInterrupt:  # a stop no command took (one as typer built the commands)
        raise SystemExit(130) from None
    except StoreError as exc:  # the file changed under a command (Store.check_same_file)
        raise SystemExit(fail(str(exc)).exit_code) from exc
    except sqlite3.DatabaseError as exc:  # any command: one line, not a traceback
        hint = (
            f" (another process held its write lock over {BUSY_SECONDS:g} s; try again)"
            if "locked" in str(exc)
            else f" ({DAMAGED_REMEDY})"
            if damaged(exc)
            else " (free space where it lies)"
            if out_of_room(exc)
            else ""
        )
        raise SystemExit(fail(f"the database: {exc}{hint}").exit_code) from exc
