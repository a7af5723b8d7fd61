"""``arena bots``: register, list and check bots (entrants)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena import checks
from arena.cli.common import (
    DEFAULT_DB,
    USER_ERRORS,
    DbOption,
    JsonOption,
    console,
    fail,
    open_existing,
    open_store,
    print_json,
)
from arena.settings import DEFAULTS
from arena.store import StoreError
from referee.game import game_names, get_game

app = typer.Typer(no_args_is_help=True, help="Register and list bots (entrants).")


@app.command("add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bots_add(
    ctx: typer.Context,
    name: str,
    game: Annotated[
        list[str], typer.Option("--game", help="A game the bot plays (repeat); '*' for any.")
    ],
    cwd: Annotated[
        Path | None, typer.Option(help="Directory the bot runs in (default: here).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Register a bot: arena bots add NAME --game G -- COMMAND..."""
    command = list(ctx.args)
    for g in game:
        if g != "*" and g not in game_names():
            raise fail(f"unknown game {g!r}; games: {', '.join(game_names())}")
    folder = (cwd or Path.cwd()).resolve()
    if not folder.is_dir():
        raise fail(f"--cwd {cwd}: no such directory")
    if command and not _findable(command[0], folder):
        raise fail(
            f"cannot find the command {command[0]!r} (not on PATH, nor a file in {folder}); "
            "give its full path"
        )
    store = open_store(db)
    try:
        entrant = store.add_entrant(name, game, command, str(folder))
    except StoreError as exc:
        raise fail(str(exc)) from exc
    console.print(
        f"added bot [bold]{entrant.name}[/] for {', '.join(entrant.games)}: {' '.join(entrant.command)}"
    )


def _findable(program: str, cwd: Path) -> bool:
    """Whether the bot's program can be started from ``cwd``: a path (relative to it) to an
    executable file, or a name on PATH."""
    if "/" in program:
        path = cwd / program
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(program) is not None


@app.command("list")
def bots_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List registered bots."""
    entrants = open_existing(db).entrants()
    if as_json:
        print_json(
            [
                {
                    "name": e.name,
                    "games": list(e.games),
                    "command": list(e.command),
                    "cwd": e.cwd,
                    "created": e.created,
                }
                for e in entrants
            ]
        )
        return
    table = Table("name", "games", "command", "cwd")
    for e in entrants:
        table.add_row(e.name, ", ".join(e.games), " ".join(e.command), e.cwd)
    console.print(table)


@app.command("check")
def bots_check(
    name: str,
    game: Annotated[
        list[str] | None, typer.Option("--game", help="Check only this game (repeat).")
    ] = None,
    move_seconds: Annotated[float, typer.Option(help="Time per decision.")] = DEFAULTS.move_seconds,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Play one short match of each game the bot declares against random bots and report
    protocol errors, illegal actions, timeouts and crashes in plain words."""
    store = open_existing(db)
    try:
        entrant = store.entrant(name)
        for g in game or []:
            get_game(g)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    reports = checks.run_checks(entrant, game, move_seconds)
    if as_json:
        print_json([dataclasses.asdict(r) for r in reports])
    else:
        for r in reports:
            if r.ok:
                console.print(f"[green]ok[/] {r.game}: {r.decisions} decisions, no faults")
            else:
                console.print(f"[red]problem[/] {r.game}:")
                for p in r.problems:
                    console.print(f"  - {name} {p}", highlight=False)
            if r.stderr_tail and not r.ok:
                console.print(
                    "  its last stderr lines:\n"
                    + "\n".join(f"    {x}" for x in r.stderr_tail.splitlines()),
                    highlight=False,
                )
    if not reports or not all(r.ok for r in reports):
        raise typer.Exit(1)
