"""Watching matches, the CLI side: ``arena replay html`` (a self-contained HTML replay
page), ``arena watch`` (follow a live match through the referee's Watch RPC),
``arena report`` (a tournament's HTML report) and ``arena web`` (a local web server for
the database). The pages themselves are built in :mod:`arena.web`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arena.store import Store, StoreError
from referee.replay import ReplayError, parse_replay

err = Console(stderr=True, soft_wrap=True)  # paths and messages stay on one line

DbOption = Annotated[Path, typer.Option("--db", envvar="ARENA_DB", help="SQLite database file.")]
DEFAULT_DB = Path("arena.db")
DEFAULT_TARGET = "127.0.0.1:50051"


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(2)


def _store(db: Path) -> Store:
    if not db.exists():
        raise _fail(f"no database at {db} (give --db or set ARENA_DB)")
    try:
        return Store(db)
    except StoreError as exc:
        raise _fail(str(exc)) from exc


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

    if file is not None:
        try:
            text = file.read_text()
        except OSError as exc:
            raise _fail(f"cannot read {file}: {exc}") from exc
    elif match_id is not None:
        try:
            text = _store(db).replay_text(match_id)
        except StoreError as exc:
            raise _fail(str(exc)) from exc
    else:
        raise _fail("give a MATCH_ID or --file")
    try:
        replay = parse_replay(text)
        if seat != "all" and not (seat.isdigit() and int(seat) < int(replay.header["seats"])):
            raise _fail(f"--seat must be 'all' or a seat 0-{int(replay.header['seats']) - 1}")
        page = replay_html(replay, seat)
    except ReplayError as exc:
        raise _fail(str(exc)) from exc
    target = output or Path(f"{replay.header.get('match_id') or 'replay'}.html")
    target.write_text(page, encoding="utf-8")
    err.print(f"wrote {target} ({len(page) // 1024} KiB)")


def watch_cmd(
    match_id: Annotated[str, typer.Argument(help="The match to follow (its id on the referee).")],
    target: Annotated[
        str,
        typer.Option(envvar="ARENA_TARGET", help="The referee's address (host:port, unix:PATH)."),
    ] = DEFAULT_TARGET,
    delay: Annotated[
        float, typer.Option(help="Seconds behind the match (at least the referee's own delay).")
    ] = 0.0,
    full: Annotated[bool, typer.Option(help="Print the whole public view every step.")] = False,
) -> None:
    """Follow a live match in the terminal: public events and the public view as they come."""
    from arena.web.live import WatchError, watch_match

    def emit(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    try:
        over = watch_match(target, match_id, delay, emit, full=full)
    except WatchError as exc:
        raise _fail(str(exc)) from exc
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if over is None:
        raise _fail("the referee ended the stream before the match was over")


def report_cmd(
    tournament_id: Annotated[int, typer.Argument(help="The tournament.")],
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Folder to write (default: report-TOURNAMENT_ID)."),
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a tournament's HTML report, with a replay page for every match."""
    from arena.web.report import write_report

    store = _store(db)
    folder = output or Path(f"report-{tournament_id}")

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            err.print(f"replay pages: {done}/{total}", end="\r")

    try:
        index = write_report(store, tournament_id, folder, progress)
    except (StoreError, ReplayError) as exc:
        raise _fail(str(exc)) from exc
    finally:
        store.close()
    err.print(f"wrote {index}")


def web_cmd(
    port: Annotated[int, typer.Option(help="TCP port (0: any free port).")] = 8000,
    host: Annotated[str, typer.Option(help="Address to listen on (keep it local).")] = "127.0.0.1",
    quiet: Annotated[bool, typer.Option(help="Do not log requests.")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Serve the leaderboards, tournaments, matches and replay pages of the database."""
    from arena.web.server import make_server

    if not 0 <= port <= 65535:
        raise _fail(f"--port must be 0-65535, not {port}")
    try:
        server = make_server(
            db, host, port, None if quiet else lambda m: err.print(m, highlight=False)
        )
    except (StoreError, OSError) as exc:
        raise _fail(str(exc)) from exc
    bound_host, bound_port = server.server_address[:2]
    print(f"serving {db} on http://{bound_host!s}:{bound_port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def register(app: typer.Typer, replay_app: typer.Typer) -> None:
    """Add the watching commands to the CLI (``arena replay html``, ``arena watch``,
    ``arena report``, ``arena web``)."""
    replay_app.command("html")(replay_html_cmd)
    app.command("watch")(watch_cmd)
    app.command("report")(report_cmd)
    app.command("web")(web_cmd)
