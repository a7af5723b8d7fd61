"""``arena matches``: list and export stored matches."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.cli.bots import check_ref
from arena.cli.common import (
    DEFAULT_DB,
    USER_ERRORS,
    DbOption,
    JsonOption,
    TournamentIdOption,
    console,
    err,
    fail,
    open_existing,
    print_json,
    warn,
    whole,
)
from arena.export import export_rows, write_export
from arena.outputs import write_whole
from arena.store import Store
from referee.game import get_game

app = typer.Typer(no_args_is_help=True, help="List and export stored matches.")


def _checked(
    db: Path, game: str | None, tournament: int | None, bot: str | None
) -> tuple[Store, str | None]:
    """The database, once the filters name a known game, tournament and bot, and the bot
    as matches name it (a submitted bot's NAME is its latest version, NAME@v)."""
    store = open_existing(db)
    try:
        if game is not None:
            get_game(game)
        if bot is not None:
            check_ref(bot)
            bot = store.entrant(bot).name
        if tournament is not None:
            store.tournament(tournament)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    return store, bot


@app.command("list")
def matches_list(
    game: Annotated[str | None, typer.Option(help="Only this game.")] = None,
    tournament: TournamentIdOption = None,
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played.")] = None,
    limit: Annotated[
        int | None, typer.Option(parser=whole("--limit"), help="At most this many.")
    ] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """List stored matches."""
    store, bot = _checked(db, game, tournament, bot)
    rows = store.matches(game, tournament, bot, limit)
    if as_json:
        print_json(rows)
        return
    table = Table(
        "match", "game", "rules", "seats: bot (rank, score)", "reason", "decisions", "finished"
    )
    for m in rows:
        out = m["outcome"]
        seats = ", ".join(
            f"{n} ({r}, {s:g})"
            for n, r, s in zip(m["entrants"], out["ranks"], out["scores"], strict=True)
        )
        table.add_row(
            m["id"],
            m["game"],
            m["rules_key"],
            seats,
            m["reason"],
            str(m["decisions"]),
            m["finished"],
        )
    console.print(table)


@app.command("export")
def matches_export(
    game: Annotated[str | None, typer.Option(help="Only this game.")] = None,
    tournament: TournamentIdOption = None,
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="csv | jsonl")] = "csv",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write one row per match and seat (game version, seed, bot, score, rank, faults, ...)
    as CSV or JSON Lines."""
    if fmt not in ("csv", "jsonl"):
        raise fail(f"--format must be csv or jsonl, not {fmt!r}")
    store, bot = _checked(db, game, tournament, bot)
    unreadable: list[str] = []
    rows = export_rows(store, game, tournament, bot, unreadable)
    if output is None:
        write_export(rows, sys.stdout, fmt)
    else:
        try:
            count = write_whole(output, lambda out: write_export(rows, out, fmt), newline="")
        except OSError as exc:
            raise fail(f"cannot write {output}: {exc.strerror or exc}") from exc
        err.print(f"wrote {count} rows to {output}", highlight=False)
    if unreadable:
        shown = ", ".join(unreadable[:5]) + (", ..." if len(unreadable) > 5 else "")
        warn(
            f"the stored replays of {len(unreadable)} match(es) ({shown}) are corrupt: their "
            "game_version is empty; arena replay verify says why"
        )
