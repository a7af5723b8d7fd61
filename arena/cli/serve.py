"""The commands around the referee and the web: ``arena games``, ``arena serve`` (the
referee alone), ``arena watch`` (follow a live match), ``arena report`` (a tournament's
HTML report) and ``arena web`` (a local web server for the database)."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import secrets
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.artifacts import ArtifactLimits
from arena.cli.common import (
    DEFAULT_DB,
    USER_ERRORS,
    DbOption,
    JsonOption,
    TournamentIdArg,
    console,
    err,
    fail,
    open_existing,
    open_store,
    print_json,
    warn,
)
from arena.store import StoreError
from referee.game import game_names, get_game
from referee.rules import describe_rules
from referee.service.peers import host_and_port

DEFAULT_TARGET = "127.0.0.1:50051"


def games_cmd(as_json: JsonOption = False) -> None:
    """List the games and their rule options."""
    data: list[dict[str, Any]] = []
    for name in game_names():
        engine = get_game(name)
        allowed = engine.seats(engine.Rules())
        data.append(
            {
                "name": name,
                "version": engine.version,
                "seats": [allowed.start, allowed.stop - 1],
                "options": [dataclasses.asdict(o) for o in describe_rules(engine.Rules)],
                "presets": sorted(engine.Rules.presets),
            }
        )
    if as_json:
        print_json(data)
        return
    for g in data:
        console.print(
            f"[bold]{g['name']}[/] (version {g['version']}, seats {g['seats'][0]}-{g['seats'][1]})"
            + (f", presets: {', '.join(g['presets'])}" if g["presets"] else "")
        )
        for o in g["options"]:
            choices = f" [{' | '.join(o['choices'])}]" if o["choices"] else ""
            console.print(f"  {o['name']}={o['default']}{choices}  {o['doc']}")


QuotaOption = Annotated[
    float,
    typer.Option(
        "--submitter-quota-mb",
        help="Room each submitter's bots may take in all (unpacked, every version kept).",
    ),
]
DEFAULT_QUOTA_MB = ArtifactLimits.max_stored_bytes / (1024 * 1024)
MAX_QUOTA_MB = 1024 * 1024


def _upload_limits(quota_mb: float) -> ArtifactLimits:
    """The upload limits with this per-submitter quota."""
    import dataclasses

    from arena.intake import UPLOAD_LIMITS

    # inf passed a check for > 0 and then failed as a traceback (OverflowError)
    if not 0 < quota_mb <= MAX_QUOTA_MB:
        raise fail(
            f"--submitter-quota-mb must be a number above 0 and at most {MAX_QUOTA_MB} "
            f"(1 TiB), not {quota_mb}"
        )
    stored_bytes = math.ceil(quota_mb * 1024 * 1024)  # 1e-320 MB is a byte, not none
    return dataclasses.replace(UPLOAD_LIMITS, max_stored_bytes=stored_bytes)


def serve_cmd(
    port: Annotated[
        int | None,
        typer.Option(help="TCP port (0: any free port; default 50051 unless --unix alone)."),
    ] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    unix: Annotated[Path | None, typer.Option(help="Listen on this Unix socket.")] = None,
    admin_token: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_ADMIN_TOKEN", help="Token for admin RPCs (default: random, printed)."
        ),
    ] = None,
    player_idle_seconds: Annotated[
        float,
        typer.Option(help="Retire a player token (Goodbye) after this long with no match."),
    ] = 600.0,
    submissions_db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            envvar="ARENA_DB",
            help="Also accept bot submissions (SubmitBot RPC) into this database.",
        ),
    ] = None,
    private_watch: Annotated[
        bool,
        typer.Option(
            "--private-watch",
            help="Serve Watch only with the admin token: for matches that share a deal "
            "(duplicate), where a bot watching another table would see its own cards.",
        ),
    ] = False,
    submitter_quota_mb: QuotaOption = DEFAULT_QUOTA_MB,
) -> None:
    """Run the referee alone, for bots and tools that connect from elsewhere. It listens
    only where told: TCP (--host/--port), a Unix socket (--unix), or both. Ctrl-C,
    SIGTERM or SIGHUP stop it (exit 0): checks under way are cancelled, calls get two
    seconds to end."""
    from arena.lifecycle import run_stoppable
    from arena.submission_service import (
        TOKEN_METADATA,
        SubmissionServicer,
        add_submission_service,
    )
    from referee.aio import to_the_end
    from referee.service import RefereeCore, RefereeError, bound_addresses, start_server

    if port is not None and not 0 <= port <= 65535:
        raise fail(f"--port must be 0-65535, not {port}")
    if not player_idle_seconds > 0:
        raise fail(f"--player-idle-seconds must be positive, not {player_idle_seconds}")
    token = admin_token or secrets.token_urlsafe(18)
    tcp = port is not None or unix is None
    addresses = ([host_and_port(host, 50051 if port is None else port)] if tcp else []) + (
        [f"unix:{unix}"] if unix else []
    )
    services = []
    submissions: list[SubmissionServicer] = []
    limits = _upload_limits(submitter_quota_mb)
    if submissions_db is not None:
        open_store(submissions_db).close()  # a usable database, before anyone submits
        db_path = submissions_db

        def add_submissions(server: Any) -> None:
            submissions.append(add_submission_service(server, db_path, limits))

        services.append(add_submissions)

    async def stop(server: Any) -> None:
        """Checks first, cancelled and cleaned up (their uploads answered "send it again"),
        then the server (health checks see NOT_SERVING, calls get two seconds to end),
        then the upload threads."""
        for servicer in submissions:
            servicer.checks.stop()
        for servicer in submissions:
            await asyncio.to_thread(servicer.checks.wait)
        await server.stop(grace=2.0)
        for servicer in submissions:
            await servicer.close()

    async def main() -> None:
        core = RefereeCore()
        server = await start_server(
            core,
            addresses,
            admin_token=token,
            services=services,
            private_watch=private_watch,
        )
        print(f"referee listening on {' '.join(bound_addresses(server))}", flush=True)
        print(f"admin token (metadata x-admin-token): {token}", flush=True)
        if services:
            print(
                f"accepting bot submissions into {submissions_db} "
                f"(SubmitBot, UploadBot; metadata {TOKEN_METADATA})",
                flush=True,
            )
        expiry = asyncio.get_running_loop().create_task(
            core.expire_idle_players(player_idle_seconds)
        )
        try:
            await asyncio.Event().wait()  # until a stop signal cancels it
        finally:
            expiry.cancel()
            await to_the_end(stop(server))

    try:
        run_stoppable(main())
    except KeyboardInterrupt:
        pass  # a stop signal: how a server ends
    except RefereeError as exc:
        raise fail(str(exc)) from exc


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
    admin_token: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_ADMIN_TOKEN",
            help="The referee's admin token, for a referee with private Watch (--private-watch).",
        ),
    ] = None,
) -> None:
    """Follow a live match in the terminal: public events and the public view as they come."""
    from arena.rendering import terminal_text
    from arena.web.live import WatchError, watch_match
    from referee.matchspec import MAX_MATCH_SECONDS

    if not 0 <= delay <= MAX_MATCH_SECONDS:  # the referee's bound on any lag; nan too
        raise fail(f"--delay must be from 0 to {MAX_MATCH_SECONDS} seconds")

    def emit(line: str) -> None:  # the referee's words, maybe a remote one: never obeyed
        sys.stdout.write(terminal_text(line) + "\n")
        sys.stdout.flush()

    try:
        over = watch_match(target, match_id, delay, emit, full=full, admin_token=admin_token)
    except WatchError as exc:
        raise fail(str(exc)) from exc
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if over is None:
        raise fail("the referee ended the stream before the match was over")


def report_cmd(
    tournament_id: TournamentIdArg,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Folder to write (default: report-TOURNAMENT_ID)."),
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a tournament's HTML report, with a replay page for every match."""
    from arena.web.report import write_report

    store = open_existing(db)
    folder = output or Path(f"report-{tournament_id}")

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            err.print(f"replay pages: {done}/{total}", end="\r")

    try:
        written = write_report(store, tournament_id, folder, progress)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:  # the folder cannot be written
        raise fail(f"cannot write the report to {folder}: {exc.strerror or exc}") from exc
    finally:
        store.close()
    for match_id, reason in written.unreadable.items():
        warn(f"no replay page for {match_id}: {reason} (arena replay verify {match_id})")
    err.print(f"wrote {folder / 'index.html'}")


def web_cmd(
    port: Annotated[int, typer.Option(help="TCP port (0: any free port).")] = 8000,
    host: Annotated[str, typer.Option(help="Address to listen on (keep it local).")] = "127.0.0.1",
    quiet: Annotated[bool, typer.Option(help="Do not log requests.")] = False,
    submitter_quota_mb: QuotaOption = DEFAULT_QUOTA_MB,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Serve the leaderboards, tournaments, matches and replay pages of the database.
    Ctrl-C, SIGTERM or SIGHUP stop it (exit 0): bot checks under way are cancelled and
    their uploads answered 503, nothing stored."""
    from arena.web.server import make_server, server_url

    if not 0 <= port <= 65535:
        raise fail(f"--port must be 0-65535, not {port}")
    limits = _upload_limits(submitter_quota_mb)
    open_existing(db).close()  # a missing database is an error, not a new empty one
    try:
        server = make_server(
            db,
            host,
            port,
            # Plain text: the lines quote requests, which must not be read as markup.
            None if quiet else lambda m: err.out(m, highlight=False),
            upload_limits=limits,
        )
    except StoreError as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:  # a name that does not resolve, a port in use or not ours
        raise fail(f"cannot listen on {host_and_port(host, port)}: {exc.strerror or exc}") from exc
    print(f"serving {db} on {server_url(server)}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass  # a stop signal (SIGTERM and SIGHUP too: arena.cli.main): how a server ends
    finally:
        server.stop_uploads()
        server.server_close()


def register(app: typer.Typer) -> None:
    app.command("games")(games_cmd)
    app.command("serve")(serve_cmd)
    app.command("watch")(watch_cmd)
    app.command("report")(report_cmd)
    app.command("web")(web_cmd)
