"""What every ``arena`` command module shares: the consoles, the common options (database,
JSON output, rule options), the one-line error exit, opening the database and reading
a replay."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from arena import runner
from arena.schedule import ScheduleError
from arena.store import Store, StoreError
from referee.game import RulesError, UnknownGame
from referee.match import MatchConfigError
from referee.replay import ReplayError
from referee.rules import parse_option_strings

# Wide enough for the tables when the output is a file or a pipe (rich assumes 80 there).
console = Console(width=None if sys.stdout.isatty() else 132)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 132, soft_wrap=True)

DbOption = Annotated[Path, typer.Option("--db", envvar="ARENA_DB", help="SQLite database file.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
RulesOption = Annotated[
    list[str] | None,
    typer.Option("--rules", help="Rule option key=value (repeat, or several separated by spaces)."),
]
DEFAULT_DB = Path("arena.db")
# Commands whose options take several words (``--rules a=1 b=2``) collect the words
# that follow in ctx.args; each such command checks them (see ``rule_options``).
EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": False}
USER_ERRORS = (
    StoreError,
    RulesError,
    UnknownGame,
    ScheduleError,
    runner.TournamentError,
    MatchConfigError,
    ReplayError,
)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error; the caller raises what this returns."""
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def open_store(db: Path) -> Store:
    """The database, created if it does not exist (commands that write)."""
    try:
        return Store(db)
    except StoreError as exc:
        raise fail(str(exc)) from exc


def open_existing(db: Path) -> Store:
    """The database for a command that only reads: a missing file is an error, not a
    new empty database."""
    if not db.exists():
        raise fail(f"no database at {db} (give --db or set ARENA_DB)")
    return open_store(db)


def rule_options(pairs: list[str] | None, ctx: typer.Context | None = None) -> dict[str, str]:
    """Rule options from --rules values, plus bare key=value words that follow them on the
    command line (``--rules a=1 b=2``)."""
    items = [item for pair in pairs or [] for item in pair.split()]
    extra = list(ctx.args) if ctx is not None else []
    stray = [a for a in extra if "=" not in a]
    if stray:
        raise RulesError(
            f"unexpected argument(s) {' '.join(stray)}; rule options look like key=value"
        )
    return parse_option_strings(items + extra)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def replay_text(db: Path, match_id: str | None, file: Path | None) -> str:
    """A replay's JSON Lines: from ``file`` if given, else the stored match."""
    if file is not None:
        try:
            return file.read_text()
        except OSError as exc:
            raise fail(f"cannot read {file}: {exc}") from exc
    if match_id is None:
        raise fail("give a MATCH_ID or --file")
    store = open_existing(db)
    try:
        return store.replay_text(match_id)
    except StoreError as exc:
        raise fail(str(exc)) from exc
