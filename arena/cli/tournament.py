"""``arena tournament``: run (from flags or a tournament file), SPRT, resume and list
tournaments, with a progress display and an end that says what went wrong."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from arena import runner
from arena.cli.bots import check_ref
from arena.cli.common import (
    DEFAULT_DB,
    EXTRA_ARGS,
    SANDBOX_HELP,
    USER_ERRORS,
    ClusterOption,
    DbOption,
    JsonOption,
    MatchesPerWorkerOption,
    RulesOption,
    SharedBotsOption,
    TournamentIdArg,
    WorkersOption,
    cluster_options,
    console,
    db_words,
    err,
    fail,
    invoked_as,
    open_existing,
    open_store,
    print_json,
    public_record,
    resolve_sandbox,
    rule_options,
    said_when_interrupted,
)
from arena.cli.leaderboard import show_rows
from arena.distributed import ClusterError, check_placement
from arena.leaderboard import RunningWins, tournament_leaderboard
from arena.lifecycle import run_stoppable, stops_held
from arena.rendering import terminal_text
from arena.sandbox import Sandbox
from arena.settings import DEFAULTS, SprtSettings, TournamentSettings, layered, load_file
from arena.sprt import SprtStatus, sprt_status
from arena.stats import fmt_elo_interval
from arena.store import Store, StoreError, deal_name

app = typer.Typer(no_args_is_help=True, help="Run, resume and list tournaments; run SPRTs.")

_SPRTDEFAULTS = SprtSettings()


def _default(name: str) -> str:
    return f" (default: {getattr(DEFAULTS, name)})"


def run_with_progress(
    store: Store,
    tournament_id: int,
    quiet: bool = False,
    box: Sandbox | None = None,
    cluster: runner.ClusterOptions | None = None,
) -> runner.RunSummary:
    """Play a tournament's remaining matches (here in ``box``, or on ``cluster``) with a
    progress bar on stderr: matches done, the running top of the standings (wins) and the
    faults so far. Stopped (Ctrl-C, SIGTERM) at any point from its creation on, it says
    how to resume it."""
    resume = _resume_command(store, tournament_id)
    with said_when_interrupted(f"resume with [bold]{escape(resume)}[/]"):
        return _play_with_progress(store, tournament_id, quiet, box, cluster)


def _play_with_progress(
    store: Store,
    tournament_id: int,
    quiet: bool,
    box: Sandbox | None,
    cluster: runner.ClusterOptions | None,
) -> runner.RunSummary:
    record = store.tournament(tournament_id)
    columns = (
        TextColumn(f"tournament {tournament_id} · {record.game}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
    )
    wins = RunningWins(record.game)  # from the matches a resumed tournament played before
    wins.add_stored(store.results_in_order(record.game, record.rules_key, tournament_id))
    faults: Counter[str] = Counter()
    # Drawn from the first progress on: a run refused at once (another arena plays the
    # tournament) shows its error alone, not an empty bar before it.
    progress = Progress(*columns, console=err, disable=quiet)
    try:
        task = progress.add_task("matches", total=record.total_matches, last="")

        def on_progress(p: runner.Progress) -> None:
            last = ""
            if p.result is not None and p.plan is not None:
                deal = deal_name(tournament_id, p.plan.seed)
                wins.add(p.plan.lineup, deal, p.result.outcome, p.result.forfeited)
                for fault in p.result.faults:
                    faults[p.plan.lineup[fault.seat]] += 1
                top = ", ".join(f"{n} {w}" for n, w in wins.wins.most_common(3))
                last = f"wins: {top}" + (
                    f" · faults: {', '.join(f'{n} {c}' for n, c in faults.most_common())}"
                    if faults
                    else ""
                )
            if not progress.live.is_started:
                progress.start()
            progress.update(task, completed=p.done, last=last)

        try:
            summary = run_stoppable(
                runner.run_tournament(
                    store, tournament_id, on_progress, sandbox=box, cluster=cluster
                )
            )
        except ClusterError as exc:
            store.set_tournament_status(tournament_id, "interrupted")
            raise fail(str(exc)) from exc
        except runner.TournamentError as exc:
            raise fail(str(exc)) from exc
        except sqlite3.DatabaseError as exc:  # a full disk, a damaged file: mend, resume
            with contextlib.suppress(sqlite3.Error, StoreError):
                store.set_tournament_status(tournament_id, "interrupted")
            raise fail(
                f"the database: {exc}; tournament {tournament_id} stopped (free space or mend "
                f"the file, then resume it: {_resume_command(store, tournament_id)})"
            ) from exc
    finally:
        progress.stop()
    for problem in summary.errors:
        err.print(f"[yellow]match error:[/] {problem}", highlight=False)
    return summary


def finish(store: Store, summary: runner.RunSummary, as_json: bool) -> None:
    """Print this tournament's result (leaderboard, SPRT verdict) with any warning at the
    top, and exit non-zero, with the reason, when it played nothing or stopped incomplete."""
    record = summary.tournament
    rows = tournament_leaderboard(store, record.id)
    warnings = [
        f"{r.entrant} forfeited every one of its {r.games} matches"
        for r in rows
        if r.games and r.forfeits == r.games
    ]
    stored = len(store.finished_indexes(record.id))
    problem = None
    if stored == 0:
        problem = "no match was played" + (f": {summary.errors[0]}" if summary.errors else "")
    elif store.first_match_id(record.id, moved=True) is None:
        # Every match ended at its first question (each bot crashed or forfeited when
        # asked): the results, and an SPRT's verdict, say nothing of how the bots play.
        problem = (
            f"no bot made a move in any of the {stored} matches: each ended with a fault at "
            f"once (what the bots wrote is in the replays: {invoked_as()} replay show "
            f"{store.first_match_id(record.id)}{db_words(store.path)})"
        )
    elif record.status != "finished":
        problem = (
            f"tournament {record.id} stopped incomplete ({stored} of {record.total_matches} "
            f"matches); resume with {_resume_command(store, record.id)}"
        )
    status = sprt_status(store, record) if record.settings.format == "sprt" else None
    if as_json:
        out: dict[str, Any] = {
            "tournament": record.id,
            "game": record.game,
            "rules": record.rules_key,
            "format": record.settings.format,
            "status": record.status,
            "played": summary.played,
            "discarded": summary.discarded,
            "errors": list(summary.errors),
            "warnings": warnings,
            "leaderboard": [r.to_json() for r in rows],
        }
        if status is not None:
            out["sprt"] = status.to_json()
        if problem:
            out["problem"] = problem
        print_json(out)
    else:
        for warning in warnings:
            console.print(f"[bold yellow]warning:[/] {warning}", highlight=False)
        show_rows(rows, f"tournament {record.id} · {record.game} · rules: {record.rules_key}")
        if status is not None:
            show_sprt(status)
        beyond = f" ({summary.discarded} beyond the verdict discarded)" if summary.discarded else ""
        console.print(
            f"tournament {record.id}: {summary.played} matches played in "
            f"{summary.seconds:.1f}s{beyond}, status {record.status}"
        )
    if problem:
        raise fail(problem, code=1)


def show_sprt(status: SprtStatus) -> None:
    s = status.summary
    console.print(
        f"SPRT {status.new} vs {status.base}: [bold]{status.verdict}[/] · "
        f"LLR {status.test.llr:.2f} ({status.test.lower:.2f}, {status.test.upper:.2f}) · "
        f"Elo {fmt_elo_interval(s.elo, s.elo_low, s.elo_high)} · "
        f"LOS {100 * s.los:.1f}% · {status.pairs} pairs "
        + " ".join(f"{k}:{v}" for k, v in status.pair_counts.items()),
        highlight=False,
    )


def _settings(
    file: Path | None, given: dict[str, Any], sprt: dict[str, Any] | None = None
) -> TournamentSettings:
    """The file's settings (if any) with the flags given on the command line over them."""
    base: dict[str, Any] = load_file(file) if file is not None else {}
    overrides = {k: v for k, v in given.items() if v is not None}
    if sprt is not None:
        overrides["sprt"] = {k: v for k, v in sprt.items() if v is not None}
    settings = TournamentSettings.from_mapping(layered(base, overrides))
    for ref in (*settings.entrants(), *settings.teams):
        check_ref(ref)
    return settings


def _resume_command(store: Store, tournament_id: int) -> str:
    """The command that resumes a tournament, as this one was invoked, on its database."""
    return f"{invoked_as()} tournament resume {tournament_id}{db_words(store.path)}"


def _sandbox_here(mode: str, cluster: runner.ClusterOptions | None) -> Sandbox | None:
    """The sandbox resolved on this machine, where the bots run; None when they run on a
    remote cluster's workers, which resolve ``mode`` themselves (``auto`` is bubblewrap
    there or the worker refuses): this machine need not have bubblewrap."""
    if cluster is not None and cluster.address is not None:
        return None
    return resolve_sandbox(mode)


def _start(
    store: Store,
    settings: TournamentSettings,
    as_json: bool,
    cluster: runner.ClusterOptions | None,
) -> None:
    box = _sandbox_here(settings.sandbox, cluster)
    if box is not None:
        settings = dataclasses.replace(settings, sandbox=box.mode)  # auto: what it resolved to
    with stops_held():  # a stop once it is stored interrupts its run, which says so
        try:
            if cluster is not None:  # before anything is recorded
                check_placement([store.entrant(n) for n in settings.entrants()], cluster)
            record = runner.create_tournament(store, settings)
        except USER_ERRORS as exc:
            raise fail(str(exc)) from exc
        summary = run_with_progress(store, record.id, quiet=as_json, box=box, cluster=cluster)
    finish(store, summary, as_json)


GameOpt = Annotated[str | None, typer.Option(help="Game name (see 'arena games').")]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        help="Make the deals reproducible: anyone who knows the seed can rebuild them "
        "(default: a secret random one)."
    ),
]
ConcurrencyOpt = Annotated[
    int | None, typer.Option(help="Matches played at once" + _default("concurrency"))
]
SeatsOpt = Annotated[
    int | None, typer.Option(help="Seats per match (default: the game's minimum).")
]
MoveOpt = Annotated[float | None, typer.Option(help="Time per decision" + _default("move_seconds"))]
BankOpt = Annotated[
    float | None,
    typer.Option(
        "--time-bank", help="Extra seconds per bot per match" + _default("time_bank_seconds")
    ),
]
PolicyOpt = Annotated[str | None, typer.Option(help="forfeit | default" + _default("fault_policy"))]
StrikesOpt = Annotated[
    int | None,
    typer.Option(help="Strikes before a forfeit under 'default'" + _default("max_strikes")),
]
SandboxOpt = Annotated[str | None, typer.Option(help=SANDBOX_HELP + _default("sandbox"))]
BotCpuOpt = Annotated[
    float | None,
    typer.Option(help="CPU seconds per bot per match" + _default("bot_cpu_seconds")),
]
BotMemoryOpt = Annotated[
    float | None,
    typer.Option(help="Memory per bot, all its processes" + _default("bot_memory_mb")),
]
BotOutputOpt = Annotated[
    int | None, typer.Option(help="Stderr kept per bot per match" + _default("bot_output_kb"))
]
BotProcessesOpt = Annotated[
    int | None,
    typer.Option(help="Processes and threads per bot, all of them" + _default("bot_max_processes")),
]


@app.command("run", context_settings=EXTRA_ARGS)
def tournament_run(
    ctx: typer.Context,
    file: Annotated[
        Path | None, typer.Argument(help="A tournament file (TOML); flags override it.")
    ] = None,
    game: GameOpt = None,
    bots: Annotated[
        str | None, typer.Option(help="Comma-separated bot names (a gauntlet's field).")
    ] = None,
    format: Annotated[
        str | None, typer.Option("--format", help="round_robin | gauntlet" + _default("format"))
    ] = None,
    challengers: Annotated[
        str | None, typer.Option(help="Gauntlet: comma-separated bots that play the field.")
    ] = None,
    rounds: Annotated[
        int | None, typer.Option(help="Repetitions of the whole schedule" + _default("rounds"))
    ] = None,
    concurrency: ConcurrencyOpt = None,
    seed: SeedOpt = None,
    seats: SeatsOpt = None,
    rules: RulesOption = None,
    move_seconds: MoveOpt = None,
    time_bank: BankOpt = None,
    fault_policy: PolicyOpt = None,
    max_strikes: StrikesOpt = None,
    bot_cpu_seconds: BotCpuOpt = None,
    bot_memory_mb: BotMemoryOpt = None,
    bot_output_kb: BotOutputOpt = None,
    bot_max_processes: BotProcessesOpt = None,
    sandbox: SandboxOpt = None,
    separate_submitters: Annotated[
        bool | None,
        typer.Option(
            "--separate-submitters",
            help="Never seat two bots of one submitter at a table (they could play for "
            'each other). A tournament file can name other teams: [teams] bot = "team".',
        ),
    ] = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    matches_per_worker: MatchesPerWorkerOption = None,
    shared_bots: SharedBotsOption = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Run a tournament (round robin or gauntlet) from flags or a tournament file, then print
    its leaderboard. Exits 1 when no match was played or it stopped incomplete."""
    # Click hands the first bare word to FILE even when it belongs to --rules (``--rules
    # a=1 b=2``): key=value words are rule options, one other word the file, nothing else.
    words = ([str(file)] if file is not None else []) + list(ctx.args)
    rule_words = [w for w in words if "=" in w]
    others = [w for w in words if "=" not in w]
    if rule_words and not rules:
        raise fail(
            f"unexpected argument(s) {' '.join(rule_words)}; give rule options after --rules"
        )
    looks_like_file = bool(others) and (others[0].endswith(".toml") or Path(others[0]).is_file())
    if len(others) > 1 or (others and not looks_like_file):
        stray = others[1:] if looks_like_file else others
        raise fail(f"unexpected argument(s) {' '.join(stray)}")
    file = Path(others[0]) if others else None
    where = cluster_options(workers, cluster, matches_per_worker, shared_bots)
    try:
        settings = _settings(
            file,
            {
                "game": game,
                "bots": bots,
                "format": format,
                "challengers": challengers,
                "rounds": rounds,
                "concurrency": concurrency,
                "seed": seed,
                "seats": seats,
                "rules": rule_options([*(rules or []), *rule_words]) if rules else None,
                "move_seconds": move_seconds,
                "time_bank_seconds": time_bank,
                "fault_policy": fault_policy,
                "max_strikes": max_strikes,
                "bot_cpu_seconds": bot_cpu_seconds,
                "bot_memory_mb": bot_memory_mb,
                "bot_output_kb": bot_output_kb,
                "bot_max_processes": bot_max_processes,
                "sandbox": sandbox,
                "separate_submitters": separate_submitters,
            },
        )
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    _start(open_store(db), settings, as_json, where)


@app.command("sprt", context_settings=EXTRA_ARGS)
def tournament_sprt(
    ctx: typer.Context,
    game: GameOpt = None,
    bots: Annotated[str | None, typer.Option(help="NEW,BASE: the two bots to compare.")] = None,
    elo0: Annotated[
        float | None,
        typer.Option(help=f"H0: NEW is this many Elo stronger (default: {_SPRTDEFAULTS.elo0})."),
    ] = None,
    elo1: Annotated[
        float | None,
        typer.Option(help=f"H1: NEW is this many Elo stronger (default: {_SPRTDEFAULTS.elo1})."),
    ] = None,
    alpha: Annotated[float | None, typer.Option(help="False H1 rate (default: 0.05).")] = None,
    beta: Annotated[float | None, typer.Option(help="False H0 rate (default: 0.05).")] = None,
    max_matches: Annotated[
        int | None,
        typer.Option(
            help=f"Stop inconclusive after this many matches (default: {_SPRTDEFAULTS.max_matches})."
        ),
    ] = None,
    field: Annotated[
        str | None,
        typer.Option(
            help="Games of more than two seats: the bots in the other seats (comma-separated)."
        ),
    ] = None,
    concurrency: ConcurrencyOpt = None,
    seed: SeedOpt = None,
    seats: SeatsOpt = None,
    rules: RulesOption = None,
    move_seconds: MoveOpt = None,
    time_bank: BankOpt = None,
    fault_policy: PolicyOpt = None,
    max_strikes: StrikesOpt = None,
    bot_cpu_seconds: BotCpuOpt = None,
    bot_memory_mb: BotMemoryOpt = None,
    bot_output_kb: BotOutputOpt = None,
    bot_max_processes: BotProcessesOpt = None,
    sandbox: SandboxOpt = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    matches_per_worker: MatchesPerWorkerOption = None,
    shared_bots: SharedBotsOption = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Is NEW better than BASE? A sequential probability ratio test over duplicate pairs
    (one deal played twice, seats swapped) that stops as soon as it can tell."""
    where = cluster_options(workers, cluster, matches_per_worker, shared_bots)
    try:
        settings = _settings(
            None,
            {
                "format": "sprt",
                "game": game,
                "bots": bots,
                "field": field,
                "concurrency": concurrency,
                "seed": seed,
                "seats": seats,
                "rules": rule_options(rules, ctx) if rules or ctx.args else None,
                "move_seconds": move_seconds,
                "time_bank_seconds": time_bank,
                "fault_policy": fault_policy,
                "max_strikes": max_strikes,
                "bot_cpu_seconds": bot_cpu_seconds,
                "bot_memory_mb": bot_memory_mb,
                "bot_output_kb": bot_output_kb,
                "bot_max_processes": bot_max_processes,
                "sandbox": sandbox,
            },
            {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "max_matches": max_matches},
        )
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    _start(open_store(db), settings, as_json, where)


@app.command("resume")
def tournament_resume(
    tournament_id: TournamentIdArg,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP + " Default: as stored.")] = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    matches_per_worker: MatchesPerWorkerOption = None,
    shared_bots: SharedBotsOption = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Finish a tournament that was stopped: finished matches are not played again."""
    where = cluster_options(workers, cluster, matches_per_worker, shared_bots)
    store = open_existing(db)
    try:
        record = store.tournament(tournament_id)
    except USER_ERRORS as exc:  # a stored row these settings refuse, too
        raise fail(str(exc)) from exc
    mode = sandbox or record.settings.sandbox
    # A stop during the sandbox's probe is held until the run takes it: the probe ends,
    # and the run stops at once saying how to resume.
    with stops_held():
        box = _sandbox_here(mode, where)
        if box is not None:
            mode = box.mode
        if mode != record.settings.sandbox:
            store.set_tournament_settings(
                tournament_id, dataclasses.replace(record.settings, sandbox=mode)
            )
        summary = run_with_progress(store, tournament_id, quiet=as_json, box=box, cluster=where)
    finish(store, summary, as_json)


@app.command("show")
def tournament_show(
    tournament_id: TournamentIdArg,
    logs: Annotated[bool, typer.Option("--logs", help="Print the Dask workers' logs too.")] = False,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """A tournament's settings and progress, and where its matches were played."""
    store = open_existing(db)
    try:
        record = store.tournament(tournament_id)
    except USER_ERRORS as exc:  # a stored row these settings refuse, too
        raise fail(str(exc)) from exc
    per_worker = store.matches_per_worker(tournament_id)
    worker_logs = store.worker_logs(tournament_id)
    status = sprt_status(store, record) if record.settings.format == "sprt" else None
    if as_json:
        print_json(
            {
                **public_record(record),
                "matches_done": sum(per_worker.values()),
                "matches_per_worker": dict(per_worker),
                "worker_logs": worker_logs if logs else sorted(worker_logs),
                **({"sprt": status.to_json()} if status is not None else {}),
            }
        )
        return
    console.print(
        f"tournament {record.id}: {record.game} ({record.rules_key}), "
        f"{record.settings.format}, {', '.join(record.bots)}; "
        f"{sum(per_worker.values())}/{record.total_matches} matches, {record.status}",
        highlight=False,
    )
    settings = Table("setting", "value")
    for key, value in record.settings.to_json().items():
        if key not in ("game", "format", "bots") and value not in (None, [], {}):
            shown = value if isinstance(value, str) else json.dumps(value)
            settings.add_row(key, Text(terminal_text(shown)))  # the operator's words, as text
    console.print(settings)
    if status is not None:
        show_sprt(status)
    table = Table("played on", "matches")
    for worker, count in sorted(per_worker.items()):
        table.add_row(worker, str(count))
    console.print(table)
    if logs:
        for worker, text in sorted(worker_logs.items()):
            console.print(f"log of {worker}", style="bold", highlight=False, markup=False)
            console.print(text, highlight=False, markup=False)
    elif worker_logs:
        console.print(f"{len(worker_logs)} worker logs kept: --logs prints them")


@app.command("list")
def tournament_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List tournaments and how far they got."""
    store = open_existing(db)
    try:
        records = store.tournaments()
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    done = {r.id: len(store.finished_indexes(r.id)) for r in records}
    if as_json:
        print_json([{**public_record(r), "matches_done": done[r.id]} for r in records])
        return
    table = Table("id", "game", "format", "rules", "bots", "seats", "matches", "status", "created")
    for r in records:
        table.add_row(
            str(r.id),
            r.game,
            r.settings.format,
            r.rules_key,
            ", ".join(r.bots),
            str(r.seats),
            f"{done[r.id]}/{r.total_matches}",
            r.status,
            r.created,
        )
    console.print(table)
