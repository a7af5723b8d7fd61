"""``arena leaderboard`` and the leaderboard table other commands print at their end."""

from __future__ import annotations

from typing import Annotated

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
    open_existing,
    print_json,
    rule_options,
    whole,
)
from arena.leaderboard import (
    Row,
    SeatRows,
    latest_versions,
    leaderboard,
    tournament_leaderboard,
)
from arena.stats import PairRow, fmt_elo_interval, head_to_head
from referee.game import get_game, parse_rules


def show_rows(rows: list[Row], title: str, latest: bool = False) -> None:
    """The leaderboard table (``latest``: with each name's earlier versions)."""
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
        title=title,
    )
    hindsight = any(r.hindsight_best is not None for r in rows)
    if hindsight:
        table.add_column("best possible (mean)")
    if latest:
        table.add_column("earlier versions (mu-3σ)")
    for r in rows:
        extra = [f"{r.hindsight_best:.1f}"] if r.hindsight_best is not None else []
        if latest:
            extra.append(", ".join(r.history))
        table.add_row(
            str(r.rank),
            r.entrant,
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            f"{r.conservative:.2f}",
            str(r.games),
            str(r.wins),
            r.score_text,
            f"{r.mean_rank:.2f}",
            r.faults_text,
            *extra,
        )
    console.print(table)
    if hindsight:
        console.print(
            "best possible: the mean over the same matches of the best score achievable with "
            "every card known (the solver), to set each bot's mean score against"
        )


def show_pairs(pairs: list[PairRow], title: str) -> None:
    """The head-to-head table: each pair once, from the first bot's point of view."""
    table = Table("bot", "vs", "games", "W-D-L", "score", "Elo ± 95%", "LOS", title=title)
    for p in pairs:
        if p.a > p.b:
            continue
        table.add_row(
            p.a,
            p.b,
            str(p.games),
            f"{p.wins}-{p.draws}-{p.losses}",
            f"{100 * p.score:.1f}%",
            fmt_elo_interval(p.elo, p.elo_low, p.elo_high),
            f"{100 * p.los:.1f}%",
        )
    console.print(table)


def leaderboard_cmd(
    ctx: typer.Context,
    game: Annotated[str | None, typer.Option(help="Game name.")] = None,
    rules: RulesOption = None,
    tournament: Annotated[
        int | None,
        typer.Option(
            parser=whole("--tournament"),
            help="One tournament's ratings, over its own matches only.",
        ),
    ] = None,
    pairs: Annotated[
        bool, typer.Option("--pairs", help="Add the head-to-head table (score, Elo, LOS).")
    ] = False,
    latest: Annotated[
        bool,
        typer.Option(
            "--latest", help="One row per bot name: its latest version, earlier ones as history."
        ),
    ] = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Ratings per game and rule set (every rule set played, unless --rules picks one), or of
    one tournament (--tournament). Each version of a submitted bot is rated on its own
    (NAME@v)."""
    store = open_existing(db)
    boards: list[tuple[str, dict[str, object], list[Row], SeatRows]] = []
    try:
        if tournament is not None:
            if game or rules or ctx.args:
                raise fail("--tournament picks the game and rules itself")
            record = store.tournament(tournament)
            boards.append(
                (
                    f"tournament {record.id} · {record.game} · rules: {record.rules_key}",
                    {"tournament": record.id, "game": record.game, "rules": record.rules_key},
                    tournament_leaderboard(store, tournament),
                    store.results_in_order(record.game, record.rules_key, tournament),
                )
            )
        else:
            if game is None:
                raise fail("give --game (or --tournament)")
            engine = get_game(game)
            played = store.rules_keys(game)
            if not played:
                raise fail(f"no {game} matches stored in {db} yet")
            keys = played
            if rules or ctx.args:
                key = runner.rules_key(game, parse_rules(engine.Rules, rule_options(rules, ctx)))
                if key not in played:
                    raise fail(
                        f"no {game} matches with rules {key} in {db}; "
                        f"rule sets played: {', '.join(played)}"
                    )
                keys = [key]
            for key in keys:
                boards.append(
                    (
                        f"{game} · rules: {key}",
                        {"game": game, "rules": key},
                        leaderboard(store, game, key),
                        store.results_in_order(game, key),
                    )
                )
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    if latest:
        boards = [(t, k, latest_versions(rows), res) for t, k, rows, res in boards]
    if as_json:
        docs = [
            {
                **key,
                "leaderboard": [r.to_json() for r in rows],
                **({"pairs": [p.to_json() for p in head_to_head(results)]} if pairs else {}),
            }
            for (_, key, rows, results) in boards
        ]
        print_json(docs[0] if len(docs) == 1 else docs)  # several rule sets: a list
        return
    for title, _, rows, results in boards:
        show_rows(rows, title, latest)
        if pairs:
            show_pairs(head_to_head(results), f"head to head · {title}")


def register(app: typer.Typer) -> None:
    app.command("leaderboard", context_settings=EXTRA_ARGS)(leaderboard_cmd)
