"""What every ``arena`` command module shares: the consoles, the common options (database,
JSON output, rule options), the one-line error exit, opening the database and reading
a replay."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from arena import runner, sandbox
from arena.artifacts import SubmissionError
from arena.distributed import ClusterError, require_dask
from arena.lifecycle import stops_held
from arena.rendering import terminal_text
from arena.schedule import ScheduleError
from arena.settings import CLUSTER_NUMBERS, SettingsError
from arena.store import Store, StoreError, TournamentRecord
from arena.submissions import SubmissionRefused
from referee.game import RulesError, UnknownGame
from referee.match import MatchConfigError
from referee.numbers import SQLITE_INTEGER_BOUND, whole_number
from referee.replay import ReplayError, read_replay_file
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
SANDBOX_HELP = "auto | bwrap | none: how bot processes are confined (docs/security.md)."
WorkersOption = Annotated[
    int | None,
    typer.Option(help="Play on N local Dask worker processes (needs card-arena\\[dask])."),
]
ClusterOption = Annotated[
    str | None, typer.Option(help="Play on the Dask scheduler at this address (tcp://...).")
]
MatchesPerWorkerOption = Annotated[
    int | None, typer.Option(help="Matches a local worker plays at once (default: cores - 1).")
]
SharedBotsOption = Annotated[
    bool,
    typer.Option("--shared-bots", help="With --cluster: plain-command bots exist on every worker."),
]
DEFAULT_DB = Path("arena.db")
# Commands whose options take several words (``--rules a=1 b=2``) collect the words
# that follow in ctx.args; each such command checks them (see ``rule_options``).
EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": False}
USER_ERRORS = (
    sandbox.SandboxError,
    ClusterError,
    StoreError,
    RulesError,
    UnknownGame,
    ScheduleError,
    runner.TournamentError,
    MatchConfigError,
    ReplayError,
    SettingsError,
    SubmissionError,
    SubmissionRefused,
)
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error; the caller raises what this returns. The message may carry
    words from a replay file or a referee, so control characters are shown as escapes."""
    err.print(f"[bold red]error:[/] {escape(terminal_text(message))}", highlight=False)
    return typer.Exit(code)


@contextlib.contextmanager
def said_when_interrupted(message: str) -> Iterator[None]:
    """Ctrl-C or SIGTERM (KeyboardInterrupt, arena.lifecycle) in the block ends the
    command with ``interrupted: message`` (markup allowed) and exit 130, where typer
    would exit 130 saying nothing."""
    try:
        yield
    except KeyboardInterrupt:
        err.print(f"interrupted: {message}", highlight=False)
        raise typer.Exit(130) from None


def warn(message: str) -> None:
    """Print a one-line warning (the command goes on), as text like ``fail``'s."""
    err.print(f"[bold yellow]warning:[/] {escape(terminal_text(message))}", highlight=False)


def resolve_sandbox(mode: str, demo: bool = False) -> sandbox.Sandbox:
    """The sandbox for ``mode``, or a clear error; says so when bots will run unconfined.
    A stop during its probe waits for the probe (it leaves nothing), then ends the command
    saying nothing was stored; inside a caller's ``stops_held`` the caller takes it."""
    try:
        with said_when_interrupted("nothing was stored"), stops_held():
            box = sandbox.resolve(mode, demo=demo)
    except sandbox.SandboxError as exc:
        raise fail(str(exc)) from exc
    if box.note:
        err.print(f"[yellow]note:[/] {escape(box.note)}", highlight=False)
    return box


def cluster_options(
    workers: int | None, cluster: str | None, per_worker: int | None, shared_bots: bool
) -> runner.ClusterOptions | None:
    """Where matches run (--workers / --cluster), checked; None: in this process."""
    if workers is not None and cluster is not None:
        raise fail("give --workers (a local cluster) or --cluster (a scheduler), not both")
    for option, value in (("--workers", workers), ("--matches-per-worker", per_worker)):
        try:
            CLUSTER_NUMBERS[option].check(option, value)
        except SettingsError as exc:
            raise fail(str(exc)) from exc
    if workers is None and cluster is None:
        return None
    try:
        require_dask()
    except ClusterError as exc:
        raise fail(str(exc)) from exc
    return runner.ClusterOptions(workers, cluster, per_worker, shared_bots)


def public_record(record: TournamentRecord) -> dict[str, Any]:
    """A tournament as JSON, never with the deals' secret: listings get pasted into
    issues and chats while a tournament is still being played."""
    out = dataclasses.asdict(record)
    del out["secret"]
    out["bots"] = list(record.bots)
    out["settings"] = record.settings.to_json()
    return out


def open_store(db: Path) -> Store:
    """The database, created if it does not exist (commands that write)."""
    try:
        return Store(db)
    except StoreError as exc:
        raise fail(str(exc)) from exc


def open_existing(db: Path) -> Store:
    """The database for a command that only reads: a missing or empty file is an error,
    not a new empty database (SQLite would take an empty file as one)."""
    if not db.exists():
        raise fail(f"no database at {db} (give --db or set ARENA_DB)")
    if db.is_file() and db.stat().st_size == 0:
        raise fail(f"{db} is an empty file, not an arena database yet (give --db or set ARENA_DB)")
    return open_store(db)


def whole(what: str) -> Callable[[str], int]:
    """The parser of a whole number typed on the command line (an id, a count): one SQLite
    can store, or a one-line error naming ``what`` it is."""

    def parse(text: str) -> int:
        number = whole_number(text)
        if number is None:
            raise fail(f"{what} must be a whole number from 0 to {SQLITE_INTEGER_BOUND - 1}")
        return number

    return parse


TournamentIdArg = Annotated[
    int,
    typer.Argument(parser=whole("a tournament id"), show_default=False),
]
TournamentIdOption = Annotated[
    int | None,
    typer.Option(parser=whole("--tournament"), help="Only this tournament."),
]


def rule_options(pairs: list[str] | None, ctx: typer.Context | None = None) -> dict[str, str]:
    """Rule options from --rules values, plus bare key=value words that follow them on the
    command line (``--rules a=1 b=2``)."""
    items = [item for pair in pairs or [] for item in pair.split()]
    extra = list(ctx.args) if ctx is not None else []
    stray = [a for a in extra if "=" not in a]
    if extra and not pairs:
        raise RulesError(
            f"unexpected argument(s) {' '.join(extra)}; give rule options after --rules"
        )
    if stray:
        raise RulesError(
            f"unexpected argument(s) {' '.join(stray)}; rule options look like key=value"
        )
    return parse_option_strings(items + extra)


def print_json(data: Any) -> None:
    """``data`` as JSON on stdout, every infinite (or NaN) number as null: JSON has no
    Infinity, and strict parsers (JavaScript's JSON.parse) refuse the whole document."""
    text = json.dumps(_finite(data), indent=2, sort_keys=True, default=str, allow_nan=False)
    sys.stdout.write(text + "\n")


def _finite(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(v) for v in data]
    return data


def replay_text(db: Path, match_id: str | None, file: Path | None) -> str:
    """A replay's JSON Lines: from ``file`` if given, else the stored match; anything that
    cannot be read (see :func:`referee.replay.read_replay_file`) is a one-line error."""
    try:
        if file is not None:
            return read_replay_file(file)
        if match_id is None:
            raise fail("give a MATCH_ID or --file")
        return open_existing(db).replay_text(match_id)
    except (ReplayError, StoreError) as exc:
        raise fail(str(exc)) from exc


def invoked_as() -> str:
    """How the user can run ``arena`` again from here, for hints printed to them: "arena"
    when that is on PATH, else the wrapper or the path they ran (``scripts/arena`` when
    ``arena`` is not installed), else ``python -m arena.cli``."""
    argv0 = Path(sys.argv[0])
    if argv0.name == "__main__.py":
        return f"{shlex.quote(sys.executable)} -m arena.cli"
    found = shutil.which("arena")
    if found and Path(found).resolve() == argv0.resolve():
        return "arena"
    wrapper = PROJECT_ROOT / "scripts" / "arena"
    if wrapper.exists() and argv0.resolve() == (PROJECT_ROOT / ".venv" / "bin" / "arena").resolve():
        return shlex.quote(os.path.relpath(wrapper))
    return shlex.quote(str(argv0))


def db_words(db: Path) -> str:
    """`` --db PATH`` when a hint needs it to find this database (not the default one)."""
    if Path(os.environ.get("ARENA_DB", DEFAULT_DB)) == db:
        return ""
    return f" --db {shlex.quote(str(db))}"
