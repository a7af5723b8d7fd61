"""The ``arena`` command line: bots, tournaments, leaderboards, matches, replays, the
referee server and the demo."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena import checks, runner, sandbox, watching
from arena.artifacts import Artifact, SubmissionError, read_submission
from arena.distributed import ClusterError, check_placement, require_dask
from arena.leaderboard import latest_versions, leaderboard
from arena.schedule import ScheduleError
from arena.store import Entrant, Store, StoreError, TournamentRecord
from arena.submissions import SubmissionRefused, split_ref
from arena.viewer import replay_show
from referee.game import RulesError, UnknownGame, game_names, get_game, parse_rules
from referee.match import MatchConfig, MatchConfigError
from referee.replay import ReplayError, parse_replay, verify_replay
from referee.rules import describe_rules, parse_option_strings
from referee.service import tune_gc

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
bots_app = typer.Typer(no_args_is_help=True, help="Register and list bots (entrants).")
tournament_app = typer.Typer(no_args_is_help=True, help="Run and resume round-robin tournaments.")
matches_app = typer.Typer(no_args_is_help=True, help="List stored matches.")
replay_app = typer.Typer(no_args_is_help=True, help="Show, export and verify match replays.")
submitters_app = typer.Typer(
    no_args_is_help=True, help="Submitters: who may submit bots from elsewhere (RPC, web form)."
)
app.add_typer(bots_app, name="bots")
app.add_typer(submitters_app, name="submitters")
app.add_typer(tournament_app, name="tournament")
app.add_typer(matches_app, name="matches")
app.add_typer(replay_app, name="replay")
solitaire_app = typer.Typer(no_args_is_help=True, help="Golf solitaire tools.")
app.add_typer(solitaire_app, name="solitaire")

# Wide enough for the tables when the output is a file or a pipe (rich assumes 80 there).
console = Console(width=None if sys.stdout.isatty() else 132)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 132)

DbOption = Annotated[Path, typer.Option("--db", envvar="ARENA_DB", help="SQLite database file.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
RulesOption = Annotated[
    list[str] | None,
    typer.Option("--rules", help="Rule option key=value (repeat, or several separated by spaces)."),
]
SANDBOX_HELP = "auto | bwrap | none: how bot processes are confined (docs/security.md)."
WorkersOption = Annotated[
    int | None,
    typer.Option(help="Play on N local Dask worker processes (needs card-arena[dask])."),
]
ClusterOption = Annotated[
    str | None, typer.Option(help="Play on the Dask scheduler at this address (tcp://...).")
]
MatchesPerWorkerOption = Annotated[
    int | None, typer.Option(help="Matches a local worker plays at once (default: cores - 1).")
]
SharedBotsOption = Annotated[
    bool,
    typer.Option("--shared-bots", help="With --cluster: plain-command bots exist on every worker."),
]
DEFAULT_DB = Path("arena.db")
USER_ERRORS = (
    sandbox.SandboxError,
    StoreError,
    RulesError,
    UnknownGame,
    ScheduleError,
    runner.TournamentError,
    MatchConfigError,
    ReplayError,
    SubmissionError,
    SubmissionRefused,
    ClusterError,
)


def _sandbox(mode: str, demo: bool = False) -> sandbox.Sandbox:
    """The sandbox for ``mode``, or a clear error; says so when bots will run unconfined."""
    try:
        box = sandbox.resolve(mode, demo=demo)
    except sandbox.SandboxError as exc:
        raise _fail(str(exc)) from exc
    if box.note:
        err.print(f"[yellow]note:[/] {box.note}", highlight=False)
    return box


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(2)


def _open(db: Path) -> Store:
    try:
        return Store(db)
    except StoreError as exc:
        raise _fail(str(exc)) from exc


def _rules(pairs: list[str] | None, ctx: typer.Context | None = None) -> dict[str, str]:
    """Rule options from --rules values, plus bare key=value words that follow them on the
    command line (``--rules a=1 b=2``)."""
    items = [item for pair in pairs or [] for item in pair.split()]
    extra = list(ctx.args) if ctx is not None else []
    stray = [a for a in extra if "=" not in a]
    if stray:
        raise RulesError(
            f"unexpected argument(s) {' '.join(stray)}; rule options look like key=value"
        )
    return parse_option_strings(items + extra)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


# ---- bots ---------------------------------------------------------------------


@bots_app.command(
    "add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def bots_add(
    ctx: typer.Context,
    name: str,
    game: Annotated[
        list[str], typer.Option("--game", help="A game the bot plays (repeat); '*' for any.")
    ],
    cwd: Annotated[
        Path | None, typer.Option(help="Directory the bot runs in (default: here).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Register a bot: arena bots add NAME --game G -- COMMAND..."""
    command = list(ctx.args)
    store = _open(db)
    for g in game:
        if g != "*" and g not in game_names():
            raise _fail(f"unknown game {g!r}; games: {', '.join(game_names())}")
    try:
        entrant = store.add_entrant(name, game, command, str((cwd or Path.cwd()).resolve()))
    except StoreError as exc:
        raise _fail(str(exc)) from exc
    console.print(
        f"added bot [bold]{entrant.name}[/] for {', '.join(entrant.games)}: {' '.join(entrant.command)}"
    )


def _entrant_row(e: Entrant) -> dict[str, Any]:
    return {
        "name": e.name,
        "kind": e.kind,
        "games": list(e.games),
        "command": list(e.command),
        "cwd": e.cwd or None,
        "sha256": e.sha256,
        "submitter": e.submitter or None,
        "created": e.created,
        "removed": e.removed,
    }


@bots_app.command("list")
def bots_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List bots: plain commands, and every version of each submitted bot."""
    store = _open(db)
    plain = [e for e in store.entrants() if e.kind == "command"]
    versions = store.submissions.versions()
    if as_json:
        _print_json(
            [_entrant_row(e) for e in plain]
            + [{**dataclasses.asdict(v), "ref": v.ref, "kind": "submitted"} for v in versions]
        )
        return
    table = Table("name", "kind", "games", "command", "size", "sha256", "by", "submitted", "status")
    for e in plain:
        status = "removed" if e.removed else ""
        table.add_row(
            e.name,
            "command",
            ", ".join(e.games),
            " ".join(e.command),
            "",
            "",
            "",
            e.created,
            status,
        )
    for v in versions:
        table.add_row(
            v.ref,
            "submitted",
            ", ".join(v.games),
            " ".join(v.command),
            f"{v.size / 1024:.1f} KB",
            v.sha256[:12],
            v.submitter,
            v.created,
            "removed" if v.removed else "",
        )
    console.print(table)


@bots_app.command(
    "submit", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def bots_submit(
    ctx: typer.Context,
    name: str,
    path: Annotated[Path, typer.Argument(help="A directory, .zip or .tar.gz with bot.toml.")],
    game: Annotated[
        list[str] | None,
        typer.Option("--game", help="A game the bot plays (repeat); overrides the manifest."),
    ] = None,
    submitter: Annotated[
        str, typer.Option(help="Who submits (a bot name belongs to its first submitter).")
    ] = "operator",
    check: Annotated[
        bool, typer.Option("--check", help="Play a short match per game first; refuse on failure.")
    ] = False,
    move_seconds: Annotated[float, typer.Option(help="Time per decision for --check.")] = 5.0,
    sandbox_mode: Annotated[str, typer.Option("--sandbox", help=SANDBOX_HELP)] = "auto",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Submit a bot: arena bots submit NAME PATH [--game G] [-- COMMAND...]. Its files are
    copied into the arena; each submission under NAME is a new version (NAME@v)."""
    store = _open(db)
    try:
        artifact = read_submission(path, command=list(ctx.args) or None, games=game)
        if check:
            _check_submission(name, artifact, move_seconds, _sandbox(sandbox_mode))
        entrant = store.submit_bot(name, artifact, submitter)
    except USER_ERRORS as exc:
        raise _fail(str(exc)) from exc
    console.print(
        f"submitted [bold]{entrant.name}[/] ({len(artifact.files)} files, "
        f"{artifact.size / 1024:.1f} KB, sha256 {artifact.sha256[:12]}) for "
        f"{', '.join(entrant.games)}: {' '.join(entrant.command)}",
        highlight=False,
    )


def _check_submission(
    name: str, artifact: Artifact, move_seconds: float, box: sandbox.Sandbox
) -> None:
    """bots check on a submission before it is stored; a failure refuses it."""
    reports = checks.check_artifact(name, artifact, move_seconds, box)
    _print_check_reports(name, reports)
    if not reports or not all(r.ok for r in reports):
        raise SubmissionError(f"{name} failed its check; nothing was stored")


@bots_app.command("show")
def bots_show(
    name: Annotated[str, typer.Argument(help="NAME or NAME@v.")],
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Show a bot: every version of a submitted bot (or one, NAME@v), or a plain command."""
    store = _open(db)
    try:
        base, version = split_ref(name)
        if version is not None or store.submissions.is_submitted(base):
            found = store.submissions.versions(base)
            shown = [store.submissions.version(base, version)] if version else found
            rows = [{**dataclasses.asdict(v), "ref": v.ref, "kind": "submitted"} for v in shown]
        else:
            rows = [_entrant_row(store.entrant(name))]
    except USER_ERRORS as exc:
        raise _fail(str(exc)) from exc
    for row in rows:
        row["matches"] = len(store.matches(entrant=row.get("ref", row["name"])))
    if as_json:
        _print_json(rows)
        return
    for row in rows:
        console.print(f"[bold]{row.get('ref', row['name'])}[/] ({row['kind']})", highlight=False)
        for key, value in row.items():
            if key not in ("ref", "name", "kind"):
                shown_value = " ".join(value) if isinstance(value, list | tuple) else value
                console.print(f"  {key}: {shown_value}", highlight=False)


@bots_app.command("remove")
def bots_remove(
    name: Annotated[str, typer.Argument(help="NAME (every version) or NAME@v.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Stop scheduling a bot or one version; its matches, results and ratings stay."""
    try:
        removed = _open(db).remove_entrant(name)
    except USER_ERRORS as exc:
        raise _fail(str(exc)) from exc
    console.print(f"removed {', '.join(removed)} (history kept)", highlight=False)


@submitters_app.command("add")
def submitters_add(name: str, db: DbOption = DEFAULT_DB) -> None:
    """Register a submitter and print its token (shown once; stored hashed)."""
    try:
        token = _open(db).submissions.add_submitter(name)
    except SubmissionRefused as exc:
        raise _fail(str(exc)) from exc
    console.print(f"submitter [bold]{name}[/] added; its token (shown only now):", highlight=False)
    sys.stdout.write(token + "\n")


@submitters_app.command("list")
def submitters_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List submitters (never their tokens)."""
    rows = _open(db).submissions.submitters()
    if as_json:
        _print_json(rows)
        return
    table = Table("name", "created")
    for r in rows:
        table.add_row(r["name"], r["created"])
    console.print(table)


@bots_app.command("check")
def bots_check(
    name: str,
    game: Annotated[
        list[str] | None, typer.Option("--game", help="Check only this game (repeat).")
    ] = None,
    move_seconds: Annotated[float, typer.Option(help="Time per decision.")] = 5.0,
    sandbox_mode: Annotated[str, typer.Option("--sandbox", help=SANDBOX_HELP)] = "auto",
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Play one short match of each game the bot declares against random bots and report
    protocol errors, illegal actions, timeouts and crashes in plain words."""
    store = _open(db)
    try:
        entrant = store.entrant(name)
        for g in game or []:
            get_game(g)
        MatchConfig(move_seconds=move_seconds)  # refuses nan, inf, 0 and negatives
    except USER_ERRORS as exc:
        raise _fail(str(exc)) from exc
    box = _sandbox(sandbox_mode)
    reports = checks.run_checks(entrant, game, move_seconds, box, _database_files(db))
    if as_json:
        _print_json([dataclasses.asdict(r) for r in reports])
    else:
        _print_check_reports(name, reports)
    if not reports or not all(r.ok for r in reports):
        raise typer.Exit(1)


def _print_check_reports(name: str, reports: list[checks.CheckReport]) -> None:
    for r in reports:
        first, *rest = checks.report_lines(name, r)
        color = "green" if r.ok else "red"
        word, _, text = first.partition(" ")
        console.print(f"[{color}]{word}[/] {text}", highlight=False)
        for line in rest:
            console.print(line, highlight=False)
        if r.stderr_tail and not r.ok:
            console.print(
                "  its last stderr lines:\n"
                + "\n".join(f"    {x}" for x in r.stderr_tail.splitlines()),
                highlight=False,
            )


# ---- tournaments -----------------------------------------------------------------


def _database_files(db: Path) -> tuple[str, ...]:
    path = str(db.resolve())
    return tuple(path + suffix for suffix in ("", "-wal", "-shm", "-journal"))


def _cluster(
    workers: int | None, cluster: str | None, per_worker: int | None, shared_bots: bool
) -> runner.ClusterOptions | None:
    if workers is not None and cluster is not None:
        raise _fail("give --workers (a local cluster) or --cluster (a scheduler), not both")
    if workers is not None and workers < 1:
        raise _fail("--workers must be at least 1")
    if per_worker is not None and per_worker < 1:
        raise _fail("--matches-per-worker must be at least 1")
    if workers is None and cluster is None:
        return None
    try:
        require_dask()
    except ClusterError as exc:
        raise _fail(str(exc)) from exc
    return runner.ClusterOptions(workers, cluster, per_worker, shared_bots)


def _run(
    store: Store,
    tournament_id: int,
    quiet: bool = False,
    cluster: runner.ClusterOptions | None = None,
    box: sandbox.Sandbox | None = None,
) -> runner.RunSummary:
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
            summary = asyncio.run(
                runner.run_tournament(
                    store, tournament_id, on_progress, sandbox=box, cluster=cluster
                )
            )
        except ClusterError as exc:
            store.set_tournament_status(tournament_id, "interrupted")
            raise _fail(str(exc)) from exc
        except KeyboardInterrupt:
            err.print(f"interrupted: resume with [bold]arena tournament resume {tournament_id}[/]")
            raise typer.Exit(130) from None
    for problem in summary.errors:
        err.print(f"[yellow]match error:[/] {problem}")
    return summary


_EXTRA_RULES = {"allow_extra_args": True, "ignore_unknown_options": False}


@tournament_app.command("run", context_settings=_EXTRA_RULES)
def tournament_run(
    ctx: typer.Context,
    game: Annotated[str, typer.Option(help="Game name (see 'arena games').")],
    bots: Annotated[str, typer.Option(help="Comma-separated bot names.")],
    rounds: Annotated[int, typer.Option(help="Repetitions of the whole round robin.")] = 1,
    concurrency: Annotated[int, typer.Option(help="Matches played at once.")] = 2,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Make the deals reproducible: anyone who knows the seed can rebuild them."
        ),
    ] = None,
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
    bot_max_processes: Annotated[
        int | None, typer.Option(help="Processes and threads per bot (all of them).")
    ] = 128,
    sandbox_mode: Annotated[str, typer.Option("--sandbox", help=SANDBOX_HELP)] = "auto",
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    matches_per_worker: MatchesPerWorkerOption = None,
    shared_bots: SharedBotsOption = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Run a round-robin tournament and print its leaderboard."""
    box = _sandbox(sandbox_mode)
    where = _cluster(workers, cluster, matches_per_worker, shared_bots)
    store = _open(db)
    settings = {
        "move_seconds": move_seconds,
        "time_bank_seconds": time_bank,
        "fault_policy": fault_policy,
        "max_strikes": max_strikes,
        "bot_cpu_seconds": bot_cpu_seconds,
        "bot_memory_mb": bot_memory_mb,
        "bot_output_bytes": bot_output_kb * 1024,
        "bot_max_processes": bot_max_processes,
        "sandbox": box.mode,
    }
    names = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        if where is not None:
            check_placement([store.entrant(n) for n in names], where)
        record = runner.create_tournament(
            store,
            game,
            names,
            _rules(rules),
            rounds,
            seed,
            concurrency,
            seats,
            settings,
        )
    except USER_ERRORS as exc:
        raise _fail(str(exc)) from exc
    summary = _run(store, record.id, quiet=as_json, box=box, cluster=where)
    _show_leaderboard(store, record.game, record.rules_key, as_json, summary)


@tournament_app.command("resume")
def tournament_resume(
    tournament_id: int,
    sandbox_mode: Annotated[
        str | None, typer.Option("--sandbox", help=SANDBOX_HELP + " Default: as stored.")
    ] = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    matches_per_worker: MatchesPerWorkerOption = None,
    shared_bots: SharedBotsOption = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Finish a tournament that was stopped: finished matches are not played again."""
    where = _cluster(workers, cluster, matches_per_worker, shared_bots)
    store = _open(db)
    try:
        record = store.tournament(tournament_id)
    except StoreError as exc:
        raise _fail(str(exc)) from exc
    box = _sandbox(sandbox_mode or record.settings.get("sandbox", "auto"))
    if box.mode != record.settings.get("sandbox"):
        store.set_tournament_settings(tournament_id, {**record.settings, "sandbox": box.mode})
    try:
        summary = _run(store, tournament_id, quiet=as_json, box=box, cluster=where)
    except runner.TournamentError as exc:
        raise _fail(str(exc)) from exc
    _show_leaderboard(store, record.game, record.rules_key, as_json, summary)


def _public_record(record: TournamentRecord) -> dict[str, Any]:
    """A tournament as JSON, never with the deals' secret: listings get pasted into
    issues and chats while a tournament is still being played."""
    out = dataclasses.asdict(record)
    del out["secret"]
    out["bots"] = list(record.bots)
    return out


@tournament_app.command("show")
def tournament_show(
    tournament_id: int,
    logs: Annotated[bool, typer.Option("--logs", help="Print the Dask workers' logs too.")] = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """A tournament's settings and progress, and where its matches were played."""
    store = _open(db)
    try:
        record = store.tournament(tournament_id)
    except StoreError as exc:
        raise _fail(str(exc)) from exc
    per_worker: dict[str, int] = {}
    for m in store.matches(tournament_id=tournament_id):
        per_worker[m.get("worker") or "local"] = per_worker.get(m.get("worker") or "local", 0) + 1
    worker_logs = store.worker_logs(tournament_id)
    if as_json:
        _print_json(
            {
                **_public_record(record),
                "matches_done": sum(per_worker.values()),
                "matches_per_worker": per_worker,
                "worker_logs": worker_logs if logs else sorted(worker_logs),
            }
        )
        return
    console.print(
        f"tournament {record.id}: {record.game} ({record.rules_key}), {', '.join(record.bots)}; "
        f"{sum(per_worker.values())}/{record.total_matches} matches, {record.status}",
        highlight=False,
    )
    table = Table("played on", "matches")
    for worker, count in sorted(per_worker.items()):
        table.add_row(worker, str(count))
    console.print(table)
    if logs:
        for worker, text in sorted(worker_logs.items()):
            console.print(f"[bold]log of {escape(worker)}[/]")
            console.print(text, highlight=False, markup=False)
    elif worker_logs:
        console.print(f"{len(worker_logs)} worker logs kept: --logs prints them")


@tournament_app.command("list")
def tournament_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List tournaments and how far they got."""
    store = _open(db)
    records = store.tournaments()
    done = {r.id: len(store.finished_indexes(r.id)) for r in records}
    if as_json:
        _print_json([{**_public_record(r), "matches_done": done[r.id]} for r in records])
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


# ---- leaderboard, matches ---------------------------------------------------------


def _show_leaderboard(
    store: Store,
    game: str,
    key: str,
    as_json: bool,
    summary: runner.RunSummary | None = None,
    latest: bool = False,
) -> None:
    rows = leaderboard(store, game, key)
    if latest:
        rows = latest_versions(rows)
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
        _print_json(out)
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


@app.command("leaderboard", context_settings=_EXTRA_RULES)
def leaderboard_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Option(help="Game name.")],
    rules: RulesOption = None,
    latest: Annotated[
        bool,
        typer.Option(
            "--latest", help="One row per bot name: its latest version, earlier ones as history."
        ),
    ] = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Ratings per game and rule set (every rule set played, unless --rules picks one).
    Each version of a submitted bot is rated on its own (NAME@v)."""
    store = _open(db)
    try:
        engine = get_game(game)
        keys = store.rules_keys(game)
        if rules or ctx.args:
            keys = [runner.rules_key(game, parse_rules(engine.Rules, _rules(rules, ctx)))]
    except USER_ERRORS as exc:
        raise _fail(str(exc)) from exc
    if not keys:
        raise _fail(f"no {game} matches stored in {db} yet")
    for key in keys:
        _show_leaderboard(store, game, key, as_json, latest=latest)


@matches_app.command("list")
def matches_list(
    game: Annotated[str | None, typer.Option(help="Only this game.")] = None,
    tournament: Annotated[int | None, typer.Option(help="Only this tournament.")] = None,
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """List stored matches."""
    rows = _open(db).matches(game, tournament, bot, limit)
    if as_json:
        _print_json(rows)
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


# ---- replays ---------------------------------------------------------------------------


def _replay_text(db: Path, match_id: str | None, file: Path | None) -> str:
    if file is not None:
        try:
            return file.read_text()
        except OSError as exc:
            raise _fail(f"cannot read {file}: {exc}") from exc
    if match_id is None:
        raise _fail("give a MATCH_ID or --file")
    try:
        return _open(db).replay_text(match_id)
    except StoreError as exc:
        raise _fail(str(exc)) from exc


@replay_app.command("show")
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
    text = _replay_text(db, match_id, file)
    try:
        replay = parse_replay(text)
        replay_show(replay, seat, console, interactive=sys.stdin.isatty() if step is None else step)
    except (ReplayError, ValueError) as exc:
        raise _fail(str(exc)) from exc


@replay_app.command("export")
def replay_export(
    match_id: str,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write a stored replay as JSON Lines."""
    text = _replay_text(db, match_id, None)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)
        err.print(f"wrote {output}")


@replay_app.command("verify")
def replay_verify(
    match_ids: Annotated[
        list[str] | None, typer.Argument(help="Stored matches (default: all).")
    ] = None,
    file: Annotated[Path | None, typer.Option(help="Verify a replay file instead.")] = None,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Re-simulate replays from their headers and decisions; report any mismatch."""
    targets: list[tuple[str, str]]
    if file is not None:
        targets = [(str(file), _replay_text(db, None, file))]
    else:
        store = _open(db)
        ids = list(match_ids or store.replay_ids())
        targets = []
        for mid in ids:
            try:
                targets.append((mid, store.replay_text(mid)))
            except StoreError as exc:
                targets.append((mid, f"<{exc}>"))
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
                console.print(f"[red]MISMATCH[/] {name}")
                for p in problems:
                    console.print(f"  {p}")
            else:
                console.print(f"[green]ok[/] {name}")
    if as_json:
        _print_json(report)
    else:
        console.print(f"{len(targets) - bad} of {len(targets)} replays verified")
    if bad:
        raise typer.Exit(1)


# ---- games, serve, demo -------------------------------------------------------------


@app.command("games")
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
                "presets": sorted(getattr(engine.Rules, "presets", {})),
            }
        )
    if as_json:
        _print_json(data)
        return
    for g in data:
        console.print(
            f"[bold]{g['name']}[/] (version {g['version']}, seats {g['seats'][0]}-{g['seats'][1]})"
            + (f", presets: {', '.join(g['presets'])}" if g["presets"] else "")
        )
        for o in g["options"]:
            choices = f" [{' | '.join(o['choices'])}]" if o["choices"] else ""
            console.print(f"  {o['name']}={o['default']}{choices}  {o['doc']}")


@app.command("serve")
def serve(
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
) -> None:
    """Run the referee alone, for bots and tools that connect from elsewhere. It listens
    only where told: TCP (--host/--port), a Unix socket (--unix), or both."""
    import signal

    from arena.intake import UPLOAD_LIMITS
    from arena.submission_service import TOKEN_METADATA, add_submission_service
    from referee.service import RefereeCore, RefereeError, start_server

    if port is not None and not 0 <= port <= 65535:
        raise _fail(f"--port must be 0-65535, not {port}")
    if not player_idle_seconds > 0:
        raise _fail(f"--player-idle-seconds must be positive, not {player_idle_seconds}")
    token = admin_token or secrets.token_urlsafe(18)
    tcp = port is not None or unix is None
    addresses = ([f"{host}:{50051 if port is None else port}"] if tcp else []) + (
        [f"unix:{unix}"] if unix else []
    )
    services = []
    if submissions_db is not None:
        _open(submissions_db).close()  # a usable database, before anyone submits
        db_path = submissions_db

        def add_submissions(server: Any) -> None:
            add_submission_service(server, db_path)

        services.append(add_submissions)
    # An archive arrives in one message; Play keeps its own, smaller cap.
    message_limit = (
        {"max_message_bytes": UPLOAD_LIMITS.max_upload_bytes + 64 * 1024} if services else {}
    )

    async def main() -> None:
        core = RefereeCore()
        server = await start_server(
            core,
            addresses,
            admin_token=token,
            services=services,
            **message_limit,
        )
        print(f"referee listening on {' '.join(server.bound_addresses)}", flush=True)  # type: ignore[attr-defined]
        print(f"admin token (metadata x-admin-token): {token}", flush=True)
        if services:
            print(
                f"accepting bot submissions into {submissions_db} "
                f"(SubmitBot, metadata {TOKEN_METADATA})",
                flush=True,
            )
        loop = asyncio.get_running_loop()
        expiry = loop.create_task(core.expire_idle_players(player_idle_seconds))
        stopping = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stopping.set)
        await stopping.wait()
        expiry.cancel()
        await server.stop(grace=2.0)  # health checks see NOT_SERVING, then streams end

    try:
        asyncio.run(main())
    except RefereeError as exc:
        raise _fail(str(exc)) from exc


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
    root = str(Path(__file__).resolve().parent.parent)
    for name, (game, module) in SAMPLE_BOTS.items():
        if name not in existing:
            store.add_entrant(name, [game], [sys.executable, "-m", module], root)
    return list(SAMPLE_BOTS)


@app.command("demo")
def demo(
    rounds: Annotated[int, typer.Option(help="Repetitions of the round robin.")] = 5,
    concurrency: Annotated[int, typer.Option(help="Matches at once.")] = 2,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Make the deals reproducible: anyone who knows the seed can rebuild them."
        ),
    ] = None,
    sandbox_mode: Annotated[str, typer.Option("--sandbox", help=SANDBOX_HELP)] = "auto",
    replays: Annotated[
        Path, typer.Option(help="Folder the demo's replays are exported to.")
    ] = Path("replays"),
    db: DbOption = DEFAULT_DB,
) -> None:
    """The main job on defaults: the sample bots play a Gin Rummy round robin."""
    box = _sandbox(sandbox_mode, demo=True)
    store = _open(db)
    bots = ensure_sample_bots(store)
    gin_bots = [b for b in bots if store.entrant(b).plays("gin_rummy")]
    record = runner.create_tournament(
        store,
        "gin_rummy",
        gin_bots,
        {},
        rounds,
        seed,
        concurrency,
        None,
        {
            "move_seconds": 5.0,
            "time_bank_seconds": 0.0,
            "fault_policy": "forfeit",
            "max_strikes": 3,
            "sandbox": box.mode,
        },
    )
    summary = _run(store, record.id, box=box)
    _show_leaderboard(store, record.game, record.rules_key, False, summary)
    folder = replays / f"tournament-{record.id}"
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for m in store.matches(tournament_id=record.id):
        (folder / f"{m['id']}.jsonl").write_text(store.replay_text(m["id"]))
        count += 1
    console.print(f"{count} replays stored in {db} and exported to {folder}/")
    first = store.matches(tournament_id=record.id, limit=1)
    if first:
        console.print(
            f"watch one: arena replay show {first[0]['id']} --seat 0    "
            f"check them all: arena replay verify"
        )


@solitaire_app.command("solve", context_settings=_EXTRA_RULES)
def solitaire_solve(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help="A deal: JSON, or the board text Golf solvers read.")
    ],
    rules: RulesOption = None,
    as_json: JsonOption = False,
) -> None:
    """The best achievable score of one Golf solitaire deal with every card known, whether
    the tableau can be cleared, and a line of play that gets there."""
    from referee.games.golf_solitaire import BoardError, GolfSolitaireRules, solve_file_text

    try:
        text = file.read_text()
        result = solve_file_text(text, parse_rules(GolfSolitaireRules, _rules(rules, ctx)))
    except OSError as exc:
        raise _fail(f"cannot read {file}: {exc}") from exc
    except (BoardError, *USER_ERRORS) as exc:
        raise _fail(str(exc)) from exc
    if as_json:
        _print_json(result.to_json())
        return
    verdict = "the tableau can be cleared" if result.clearable else "the tableau cannot be cleared"
    console.print(f"best score {result.best_score}: {verdict}")
    for number, step in enumerate(result.steps, start=1):
        console.print(f"{number:3d}. {step}", highlight=False)


watching.register(app, replay_app)


def main() -> None:
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    tune_gc()  # the referee runs in this process (or `arena serve` is this process)
    app()


if __name__ == "__main__":
    main()
