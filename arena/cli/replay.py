"""``arena replay``: step through, export, verify and write HTML pages of match replays."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.cli.common import (
    DEFAULT_DB,
    DbOption,
    JsonOption,
    console,
    err,
    fail,
    open_existing,
    print_json,
    replay_text,
)
from arena.store import StoreError
from arena.viewer import replay_show
from referee.numbers import whole_number
from referee.replay import ReplayError, parse_replay, verify_replay

app = typer.Typer(no_args_is_help=True, help="Show, export and verify match replays.")


@app.command("show")
def replay_show_cmd(
    match_id: Annotated[str | None, typer.Argument()] = None,
    file: Annotated[
        Path | None, typer.Option(help="A replay .jsonl file instead of a stored match.")
    ] = None,
    seat: Annotated[
        str, typer.Option(help="Whose view: a seat number, or 'all' for every hand.")
    ] = "all",
    step: Annotated[
        bool | None, typer.Option(help="Step with the keyboard (default: when interactive).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Step through a match in the terminal, from one seat's point of view or all hands."""
    text = replay_text(db, match_id, file)
    try:
        replay = parse_replay(text)
        replay_show(replay, seat, console, interactive=sys.stdin.isatty() if step is None else step)
    except (ReplayError, ValueError) as exc:
        raise fail(str(exc)) from exc


@app.command("export")
def replay_export(
    match_id: str,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a stored replay as JSON Lines."""
    text = replay_text(db, match_id, None)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)
        err.print(f"wrote {output}")


@app.command("verify")
def replay_verify(
    match_ids: Annotated[
        list[str] | None, typer.Argument(help="Stored matches (default: all).")
    ] = None,
    file: Annotated[Path | None, typer.Option(help="Verify a replay file instead.")] = None,
    tournament: Annotated[int | None, typer.Option(help="Every match of this tournament.")] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Re-simulate replays from their headers and decisions; report any mismatch."""
    targets: list[tuple[str, str]]
    if file is not None:
        targets = [(str(file), replay_text(db, None, file))]
    else:
        store = open_existing(db)
        if tournament is not None:
            try:
                store.tournament(tournament)
            except StoreError as exc:
                raise fail(str(exc)) from exc
            ids = [m["id"] for m in store.matches(tournament_id=tournament)]
        else:
            ids = list(match_ids or store.replay_ids())
        targets = []
        for mid in ids:
            try:
                targets.append((mid, store.replay_text(mid)))
            except StoreError as exc:
                raise fail(str(exc)) from exc  # no such match: not a mismatch, an error
    bad = 0
    report = []
    for name, text in targets:
        try:
            result = verify_replay(parse_replay(text))
            problems = list(result.mismatches)
        except ReplayError as exc:
            problems = [f"corrupt replay: {exc}"]
        bad += bool(problems)
        report.append({"match": name, "ok": not problems, "problems": problems})
        if not as_json:
            if problems:
                console.print(f"[red]MISMATCH[/] {escape(name)}")
                for p in problems:
                    console.print(f"  {p}", markup=False, highlight=False)
            else:
                console.print(f"[green]ok[/] {escape(name)}")
    if as_json:
        print_json(report)
    else:
        console.print(f"{len(targets) - bad} of {len(targets)} replays verified")
    if bad:
        raise typer.Exit(1)


@app.command("html")
def replay_html_cmd(
    match_id: Annotated[str | None, typer.Argument(help="A stored match.")] = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="HTML file to write (default: MATCH.html)."),
    ] = None,
    file: Annotated[
        Path | None, typer.Option(help="A replay .jsonl file instead of a stored match.")
    ] = None,
    seat: Annotated[str, typer.Option(help="The view the page opens on: a seat or 'all'.")] = "all",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a self-contained HTML page that plays a match back (no network, no server)."""
    from arena.web.replay_page import replay_html

    text = replay_text(db, match_id, file)
    try:
        replay = parse_replay(text)
        number = whole_number(seat)
        if seat != "all" and not (number is not None and number < int(replay.header["seats"])):
            raise fail(f"--seat must be 'all' or a seat 0-{int(replay.header['seats']) - 1}")
        page = replay_html(replay, seat)
    except ReplayError as exc:
        raise fail(str(exc)) from exc
    target = output or Path(f"{replay.header.get('match_id') or 'replay'}.html")
    target.write_text(page, encoding="utf-8")
    err.print(f"wrote {target} ({len(page) // 1024} KiB)")
