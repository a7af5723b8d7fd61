"""``arena matches``: list stored matches."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import DEFAULT_DB, DbOption, JsonOption, console, open_store, print_json

app = typer.Typer(no_args_is_help=True, help="List stored matches.")


@app.command("list")
def matches_list(
    game: Annotated[str | None, typer.Option(help="Only this game.")] = None,
    tournament: Annotated[int | None, typer.Option(help="Only this tournament.")] = None,
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """List stored matches."""
    rows = open_store(db).matches(game, tournament, bot, limit)
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
