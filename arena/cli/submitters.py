"""``arena submitters``: who may submit bots from elsewhere (RPC, web form)."""

from __future__ import annotations

import sys

import typer
from rich.table import Table

from arena.cli.common import (
    DEFAULT_DB,
    DbOption,
    JsonOption,
    console,
    fail,
    open_existing,
    open_store,
    print_json,
)
from arena.submissions import SubmissionRefused

app = typer.Typer(
    no_args_is_help=True, help="Submitters: who may submit bots from elsewhere (RPC, web form)."
)


@app.command("add")
def submitters_add(name: str, db: DbOption = DEFAULT_DB) -> None:
    """Register a submitter and print its token (shown once; stored hashed)."""
    try:
        token = open_store(db).submissions.add_submitter(name)
    except SubmissionRefused as exc:
        raise fail(str(exc)) from exc
    console.print(f"submitter [bold]{name}[/] added; its token (shown only now):", highlight=False)
    sys.stdout.write(token + "\n")


@app.command("list")
def submitters_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List submitters (never their tokens)."""
    rows = open_existing(db).submissions.submitters()
    if as_json:
        print_json(rows)
        return
    table = Table("name", "created")
    for r in rows:
        table.add_row(r["name"], r["created"])
    console.print(table)
