"""``arena tournament``: run, resume and list tournaments, with a progress display."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena import runner
from arena.cli.common import (
    DEFAULT_DB,
    EXTRA_ARGS,
    USER_ERRORS,
    DbOption,
    JsonOption,
    RulesOption,
    console,
    err,
    fail,
    open_store,
    print_json,
    rule_options,
)
from arena.cli.leaderboard import show_leaderboard
from arena.store import Store, StoreError

app = typer.Typer(no_args_is_help=True, help="Run and resume round-robin tournaments.")


def run_with_progress(store: Store, tournament_id: int, quiet: bool = False) -> runner.RunSummary:
    """Play a tournament's remaining matches with a progress bar on stderr."""
    record = store.tournament(tournament_id)
    columns = (
        TextColumn(f"tournament {tournament_id} · {record.game}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
    )
    with Progress(*columns, console=err, disable=quiet) as progress:
        task = progress.add_task("matches", total=record.total_matches, last="")

        def on_progress(p: runner.Progress) -> None:
            last = ""
            if p.result is not None and p.plan is not None:
                winners = [
                    n for n, r in zip(p.plan.lineup, p.result.outcome.ranks, strict=True) if r == 1
                ]
                last = f"{p.result.spec.match_id}: {'/'.join(winners)} first" + (
                    f" ({p.result.reason})" if p.result.reason != "finished" else ""
                )
            progress.update(task, completed=p.done, last=last)

        try:
            summary = asyncio.run(runner.run_tournament(store, tournament_id, on_progress))
        except KeyboardInterrupt:
            err.print(f"interrupted: resume with [bold]arena tournament resume {tournament_id}[/]")
            raise typer.Exit(130) from None
    for problem in summary.errors:
        err.print(f"[yellow]match error:[/] {problem}")
    return summary


@app.command("run", context_settings=EXTRA_ARGS)
def tournament_run(
    ctx: typer.Context,
    game: Annotated[str, typer.Option(help="Game name (see 'arena games').")],
    bots: Annotated[str, typer.Option(help="Comma-separated bot names.")],
    rounds: Annotated[int, typer.Option(help="Repetitions of the whole round robin.")] = 1,
    concurrency: Annotated[int, typer.Option(help="Matches played at once.")] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the deals.")] = 1,
    seats: Annotated[
        int | None, typer.Option(help="Seats per match (default: the game's minimum).")
    ] = None,
    rules: RulesOption = None,
    move_seconds: Annotated[float, typer.Option(help="Time per decision.")] = 5.0,
    time_bank: Annotated[float, typer.Option(help="Extra seconds per bot per match.")] = 0.0,
    fault_policy: Annotated[str, typer.Option(help="forfeit | default")] = "forfeit",
    max_strikes: Annotated[int, typer.Option(help="Strikes before a forfeit under 'default'.")] = 3,
    bot_cpu_seconds: Annotated[
        float | None, typer.Option(help="CPU seconds per bot per match.")
    ] = 60.0,
    bot_memory_mb: Annotated[
        float | None, typer.Option(help="Memory per bot (all its processes).")
    ] = 1024.0,
    bot_output_kb: Annotated[int, typer.Option(help="Stderr kept per bot per match.")] = 64,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Run a round-robin tournament and print its leaderboard."""
    store = open_store(db)
    settings = {
        "move_seconds": move_seconds,
        "time_bank_seconds": time_bank,
        "fault_policy": fault_policy,
        "max_strikes": max_strikes,
        "bot_cpu_seconds": bot_cpu_seconds,
        "bot_memory_mb": bot_memory_mb,
        "bot_output_bytes": bot_output_kb * 1024,
    }
    try:
        record = runner.create_tournament(
            store,
            game,
            [b.strip() for b in bots.split(",") if b.strip()],
            rule_options(rules),
            rounds,
            seed,
            concurrency,
            seats,
            settings,
        )
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    summary = run_with_progress(store, record.id, quiet=as_json)
    show_leaderboard(store, record.game, record.rules_key, as_json, summary)


@app.command("resume")
def tournament_resume(
    tournament_id: int, db: DbOption = DEFAULT_DB, as_json: JsonOption = False
) -> None:
    """Finish a tournament that was stopped: finished matches are not played again."""
    store = open_store(db)
    try:
        record = store.tournament(tournament_id)
    except StoreError as exc:
        raise fail(str(exc)) from exc
    summary = run_with_progress(store, tournament_id, quiet=as_json)
    show_leaderboard(store, record.game, record.rules_key, as_json, summary)


@app.command("list")
def tournament_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List tournaments and how far they got."""
    store = open_store(db)
    records = store.tournaments()
    done = {r.id: len(store.finished_indexes(r.id)) for r in records}
    if as_json:
        print_json(
            [{**r.__dict__, "bots": list(r.bots), "matches_done": done[r.id]} for r in records]
        )
        return
    table = Table("id", "game", "rules", "bots", "seats", "matches", "status", "created")
    for r in records:
        table.add_row(
            str(r.id),
            r.game,
            r.rules_key,
            ", ".join(r.bots),
            str(r.seats),
            f"{done[r.id]}/{r.total_matches}",
            r.status,
            r.created,
        )
    console.print(table)
