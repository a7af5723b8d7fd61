"""``arena replay``: step through, export, verify and write HTML pages of match replays."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
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
from arena.outputs import write_text_whole
from arena.rendering import terminal_text
from arena.store import Store, StoreError
from arena.viewer import replay_show
from referee.numbers import whole_number
from referee.replay import Replay, ReplayError, parse_replay, verify_replay

app = typer.Typer(no_args_is_help=True, help="Show, export and verify match replays.")


@contextlib.contextmanager
def _replay_errors() -> Iterator[None]:
    """show and html: a replay that cannot be parsed or re-simulated is a one-line error.
    referee.replay checks every field the viewers read and every decision, so all of it
    is a ReplayError (verify lists the same errors as that replay's problem instead)."""
    try:
        yield
    except ReplayError as exc:
        raise fail(str(exc)) from exc


def _check_seat(seat: str, replay: Replay) -> None:
    """--seat: 'all' or a seat of this match."""
    seats = int(replay.header["seats"])
    number = whole_number(seat)
    if seat != "all" and not (number is not None and number < seats):
        raise fail(f"--seat must be 'all' or a seat 0-{seats - 1}")


def _write(target: Path, text: str) -> None:
    """Write an output file, with a one-line error when it cannot be (no such folder,
    no permission, a directory)."""
    try:
        write_text_whole(target, text)
    except OSError as exc:
        raise fail(f"cannot write {target}: {exc.strerror or exc}") from exc


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
    with _replay_errors():
        replay = parse_replay(text)
        _check_seat(seat, replay)
        replay_show(replay, seat, console, interactive=sys.stdin.isatty() if step is None else step)


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
        _write(output, text)
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
    results: Iterable[tuple[str, list[str]]]
    if file is not None:
        text = replay_text(db, None, file)  # an unreadable file: exit 2, as for show and html
        results = [(str(file), _problems(lambda: text))]
    else:
        store = open_existing(db)
        # Read and verified one at a time: one corrupt replay is that match's failure, and
        # not every replay is in memory at once.
        results = (
            (mid, _problems(partial(store.replay_text, mid)))
            for mid in _stored_ids(store, match_ids, tournament)
        )
    report = []
    for name, problems in results:
        report.append({"match": name, "ok": not problems, "problems": problems})
        if not as_json:
            if problems:
                console.print(f"[red]MISMATCH[/] {escape(terminal_text(name))}")
                for p in problems:  # they quote the replay, whoever wrote it
                    console.print(f"  {terminal_text(p)}", markup=False, highlight=False)
            else:
                console.print(f"[green]ok[/] {escape(terminal_text(name))}")
    bad = sum(not r["ok"] for r in report)
    if as_json:
        print_json(report)
    else:
        console.print(f"{len(report) - bad} of {len(report)} replays verified")
    if bad:
        raise typer.Exit(1)


def _stored_ids(store: Store, match_ids: list[str] | None, tournament: int | None) -> list[str]:
    """The stored matches to verify; a match with no replay is an error, not a mismatch."""
    if tournament is not None:
        try:
            store.tournament(tournament)
        except StoreError as exc:
            raise fail(str(exc)) from exc
        ids = [m["id"] for m in store.matches(tournament_id=tournament)]
    elif not match_ids:
        return store.replay_ids()
    else:
        ids = match_ids
    stored = set(store.replay_ids(ids))
    missing = [mid for mid in ids if mid not in stored]
    if missing:
        raise fail(f"no replay for match {missing[0]!r}")
    return ids


def _problems(read: Callable[[], str]) -> list[str]:
    """Why a replay does not verify (nothing: it does). One that cannot be read, parsed or
    re-simulated is a problem of that replay, as a mismatch is."""
    try:
        return list(verify_replay(parse_replay(read())).mismatches)
    except ReplayError as exc:
        return [f"corrupt replay: {exc}"]


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
    with _replay_errors():
        replay = parse_replay(text)
        _check_seat(seat, replay)
        page = replay_html(replay, seat)
    target = output or Path(f"{_file_name(replay.header.get('match_id'))}.html")
    _write(target, page)
    err.print(f"wrote {target} ({len(page) // 1024} KiB)")


def _file_name(match_id: str | None) -> str:
    """A file name in this folder from a match id read from a replay file, which could
    be '../x' or an absolute path."""
    return re.sub(r"[^\w.-]", "_", match_id or "").lstrip(".") or "replay"
