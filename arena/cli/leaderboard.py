"""``arena leaderboard`` and the leaderboard table other commands print at their end."""

from __future__ import annotations

from typing import Annotated, Any

import typer
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
    fail,
    open_store,
    print_json,
    rule_options,
)
from arena.leaderboard import leaderboard
from arena.store import Store
from referee.game import get_game, parse_rules


def show_leaderboard(
    store: Store, game: str, key: str, as_json: bool, summary: runner.RunSummary | None = None
) -> None:
    rows = leaderboard(store, game, key)
    if as_json:
        out: dict[str, Any] = {
            "game": game,
            "rules": key,
            "leaderboard": [r.to_json() for r in rows],
        }
        if summary is not None:
            out["tournament"] = summary.tournament.id
            out["played"] = summary.played
            out["errors"] = list(summary.errors)
        print_json(out)
        return
    table = Table(
        "#",
        "bot",
        "mu",
        "sigma",
        "mu-3σ",
        "games",
        "wins",
        "mean score ± 95% CI",
        "mean rank",
        "faults",
        title=f"{game} · rules: {key}",
    )
    hindsight = any(r.hindsight_best is not None for r in rows)
    if hindsight:
        table.add_column("best possible (mean)")
    for r in rows:
        extra = [f"{r.hindsight_best:.1f}"] if r.hindsight_best is not None else []
        table.add_row(
            str(r.rank),
            r.entrant,
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            f"{r.conservative:.2f}",
            str(r.games),
            str(r.wins),
            f"{r.mean_score:.1f} ± {r.score_ci95:.1f}",
            f"{r.mean_rank:.2f}",
            f"{r.faults}" + (f" ({r.forfeits} forfeits)" if r.forfeits else ""),
            *extra,
        )
    console.print(table)
    if hindsight:
        console.print(
            "best possible: the mean over the same matches of the best score achievable with "
            "every card known (the solver), to set each bot's mean score against"
        )
    if summary is not None:
        console.print(
            f"tournament {summary.tournament.id}: {summary.played} matches played in "
            f"{summary.seconds:.1f}s, status {summary.tournament.status}"
        )


def leaderboard_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Option(help="Game name.")],
    rules: RulesOption = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Ratings per game and rule set (every rule set played, unless --rules picks one)."""
    store = open_store(db)
    try:
        engine = get_game(game)
        keys = store.rules_keys(game)
        if rules or ctx.args:
            keys = [runner.rules_key(game, parse_rules(engine.Rules, rule_options(rules, ctx)))]
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    if not keys:
        raise fail(f"no {game} matches stored in {db} yet")
    for key in keys:
        show_leaderboard(store, game, key, as_json)


def register(app: typer.Typer) -> None:
    app.command("leaderboard", context_settings=EXTRA_ARGS)(leaderboard_cmd)
