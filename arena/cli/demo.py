"""``arena demo``: the sample bots play a Gin Rummy round robin on defaults."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena import runner
from arena.cli.common import (
    DEFAULT_DB,
    PROJECT_ROOT,
    SANDBOX_HELP,
    USER_ERRORS,
    DbOption,
    console,
    db_words,
    fail,
    invoked_as,
    open_store,
    resolve_sandbox,
)
from arena.cli.tournament import finish, run_with_progress
from arena.lifecycle import stops_held
from arena.outputs import write_text_whole
from arena.settings import DEFAULTS, TournamentSettings
from arena.store import Store

SAMPLE_BOTS = {
    "random": ("*", "sample_bots.random_bot"),
    "gin_strategy": ("gin_rummy", "sample_bots.gin_strategy"),
    "golf_strategy": ("golf", "sample_bots.golf_strategy"),
    "golf_solitaire_strategy": ("golf_solitaire", "sample_bots.golf_solitaire_strategy"),
    "dingo_strategy": ("dingo", "sample_bots.dingo_strategy"),
    "goninkan_strategy": ("goninkan", "sample_bots.goninkan_strategy"),
}


def ensure_sample_bots(store: Store) -> list[str]:
    """Register the sample bots (run with this Python) unless bots of those names exist."""
    existing = {e.name for e in store.entrants()}
    for name, (game, module) in SAMPLE_BOTS.items():
        if name not in existing:
            store.add_entrant(name, [game], [sys.executable, "-m", module], str(PROJECT_ROOT))
    return list(SAMPLE_BOTS)


def demo_cmd(
    rounds: Annotated[int, typer.Option(help="Repetitions of the round robin.")] = 5,
    concurrency: Annotated[int, typer.Option(help="Matches at once.")] = 2,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Make the deals reproducible: anyone who knows the seed can rebuild them."
        ),
    ] = None,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = DEFAULTS.sandbox,
    replays: Annotated[
        Path, typer.Option(help="Folder the demo's replays are exported to.")
    ] = Path("replays"),
    db: DbOption = DEFAULT_DB,
) -> None:
    """The main job on defaults: the sample bots play a Gin Rummy round robin."""
    try:  # before anything is stored; the bots are filled in once they are registered
        settings = TournamentSettings(
            "gin_rummy", (), rounds=rounds, seed=seed, concurrency=concurrency, sandbox=sandbox
        )
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    try:  # a folder the replays cannot go to is refused before the matches are played
        replays.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot make the replays folder {replays}: {exc.strerror or exc}") from exc
    box = resolve_sandbox(sandbox, demo=True)
    store = open_store(db)
    bots = ensure_sample_bots(store)
    gin_bots = [b for b in bots if store.entrant(b).plays("gin_rummy")]
    with stops_held():  # a stop once it is stored interrupts its run, which says so
        try:
            settings = dataclasses.replace(settings, bots=tuple(gin_bots), sandbox=box.mode)
            record = runner.create_tournament(store, settings)
        except USER_ERRORS as exc:
            raise fail(str(exc)) from exc
        summary = run_with_progress(store, record.id, box=box)
    folder = replays / f"tournament-{record.id}"
    count = 0
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for m in store.matches(tournament_id=record.id):
            write_text_whole(folder / f"{m['id']}.jsonl", store.replay_text(m["id"]))
            count += 1
    except OSError as exc:  # the matches are stored: say where, and how to export them
        raise fail(
            f"cannot export the replays to {folder}: {exc.strerror or exc}; they are stored "
            f"in {db} (arena replay export MATCH_ID -o FILE)"
        ) from exc
    # This tournament's own leaderboard (earlier demos in the same database do not count),
    # and hints that work as printed: the command as it was run, the database named.
    finish(store, summary, as_json=False)
    console.print(f"{count} replays stored in {db} and exported to {folder}/", highlight=False)
    first = store.first_match_id(record.id)
    if first is not None:
        arena, on_db = invoked_as(), db_words(db)
        console.print(
            f"watch one: {arena} replay show {first} --seat 0{on_db}\n"
            f"check them: {arena} replay verify --tournament {record.id}{on_db}\n"
            f"its report: {arena} report {record.id}{on_db}",
            highlight=False,
            soft_wrap=True,
        )


def register(app: typer.Typer) -> None:
    app.command("demo")(demo_cmd)
