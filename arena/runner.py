"""Runs a tournament: launches bot processes once and reuses them, plays the scheduled
matches concurrently through an in-process referee, and stores each match as it finishes.

Bots connect to the referee over a Unix socket in a private temporary directory, from
the sandbox the tournament stores (``settings["sandbox"]``). Each bot process gets its own
player token (ARENA_TOKEN) and the referee seats it in one match after another; the
referee's admin RPCs need a random admin token that no bot ever sees. A process that dies
faults only the match it was in; the next match that needs its entrant launches a fresh one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena import cgroups, run_locks
from arena.bots import BotLog, MatchSeat
from arena.distributed import ClusterOptions as ClusterOptions  # its home; imported from here too
from arena.matchplay import (
    DealTurns,
    HostSettings,
    MatchHost,
    MatchJob,
    MatchNotPlayed,
    PlayedMatch,
)
from arena.rating import compute_ratings
from arena.sandbox import Sandbox, resolve
from arena.schedule import (
    SCHEDULE_VERSION,
    MatchPlan,
    fixed_deal,
    gauntlet,
    match_deal,
    round_robin,
    sprt_pairs,
    tournament_secret,
)
from arena.settings import TournamentSettings
from arena.store import Store, StoreError, TournamentRecord, database_files
from referee.aio import to_the_end
from referee.game import get_game, parse_rules, seats_refused
from referee.match import MatchResult
from referee.rules import rules_to_dict, secret_options
from referee.service import RefereeCore, RefereeError


class TournamentError(ValueError):
    """A tournament that cannot be run as asked."""


def rules_key(game: str, rules: Any) -> str:
    """A short canonical name for a rule set, which ratings are pooled by: "default" or the
    options that differ from it. Secret options are left out: they choose the deals, as a
    seed does, and a rule set's name is on every page spectators read (golf solitaire's
    deal numbers would give every stock order away)."""
    defaults = rules_to_dict(get_game(game).Rules())
    current = rules_to_dict(rules)
    secret = secret_options(rules)
    changed = [
        f"{k}={current[k]}"
        for k in sorted(current)
        if current[k] != defaults[k] and k not in secret
    ]
    return ",".join(changed) or "default"


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    plan: MatchPlan | None
    result: MatchResult | None


ProgressCallback = Callable[[Progress], None]


def schedule(
    settings: TournamentSettings, seats: int, secret: bytes, version: int = SCHEDULE_VERSION
) -> list[MatchPlan]:
    """Every match a tournament with these settings may play, in rating order (an SPRT
    stops early: its schedule is the cap). Deals derive from the tournament's ``secret``;
    ``version`` is the schedule version the tournament was created with
    (:data:`arena.schedule.SCHEDULE_VERSION`)."""
    if settings.format == "sprt":
        assert settings.sprt is not None  # TournamentSettings checks it
        new, base = settings.bots
        return sprt_pairs(new, base, settings.field, seats, settings.sprt.max_matches, secret)
    partners = None
    if version >= 2:
        engine = get_game(settings.game)
        partners = engine.fixed_teams(parse_rules(engine.Rules, dict(settings.rules)), seats)
    common: dict[str, Any] = {
        "seats": seats,
        "rounds": settings.rounds,
        "secret": secret,
        "teams": settings.teams,
        "partners": partners,
        "vary": version >= 3,  # version 3: past the limit, each round its own tables
    }
    if settings.format == "gauntlet":
        return gauntlet(settings.challengers, settings.bots, **common)
    return round_robin(list(settings.bots), **common)


def create_tournament(store: Store, settings: TournamentSettings) -> TournamentRecord:
    """Validate and record a new tournament (nothing is played yet). Without a seed its
    deals come from a fresh random secret; with one they can be rebuilt by anyone who
    knows it."""
    game = settings.game
    engine = get_game(game)
    parsed = parse_rules(engine.Rules, dict(settings.rules))
    seats = settings.seats if settings.seats is not None else engine.seats(parsed).start
    refused = seats_refused(game, parsed, seats)
    if refused is not None:
        raise TournamentError(refused)

    # Names resolve now (NAME -> its latest version, NAME@v), so the tournament and any
    # resume of it play exactly the versions it started with.
    def resolved(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(store.entrant(name).name for name in names)

    settings = replace(
        settings,
        bots=resolved(settings.bots),
        challengers=resolved(settings.challengers),
        field=resolved(settings.field),
        teams=_teams(store, settings),
    )
    for entrant in [store.entrant(name) for name in settings.entrants()]:
        if entrant.removed:
            raise TournamentError(f"bot {entrant.name!r} has been removed; it is not scheduled")
        if not entrant.plays(game):
            raise TournamentError(
                f"bot {entrant.name!r} declares {', '.join(entrant.games)}, not {game}"
            )
    settings = replace(settings, seats=seats)
    secret = tournament_secret(settings.seed)
    plans = schedule(settings, seats, secret)
    return store.create_tournament(
        settings,
        rules_to_dict(parsed),
        rules_key(game, parsed),
        len(plans),
        secret,
        SCHEDULE_VERSION,
    )


def _teams(store: Store, settings: TournamentSettings) -> dict[str, str]:
    """The tournament's teams by resolved bot name: those given, and with
    ``separate_submitters`` every other submitted bot in its submitter's team."""
    entrants = [store.entrant(name) for name in settings.entrants()]
    playing = {e.name for e in entrants}
    teams = {}
    for name, team in settings.teams.items():
        bot = store.entrant(name)
        if bot.name not in playing:
            raise TournamentError(f"teams name {name!r}, which is not in this tournament")
        teams[bot.name] = team
    if settings.separate_submitters:
        for entrant in entrants:
            if entrant.submitter and entrant.name not in teams:
                teams[entrant.name] = f"submitter {entrant.submitter}"
    return teams


@dataclass(frozen=True)
class RunSummary:
    tournament: TournamentRecord
    played: int
    skipped: int
    errors: tuple[str, ...]
    seconds: float
    discarded: int = 0  # an SPRT's matches played beyond its verdict, not kept


async def run_tournament(
    store: Store,
    tournament_id: int,
    on_progress: ProgressCallback | None = None,
    core: RefereeCore | None = None,
    cluster: ClusterOptions | None = None,
    sandbox: Sandbox | None = None,
) -> RunSummary:
    """Play every scheduled match of a tournament that is not stored yet, then rate.
    Matches run on this process's referee, or with ``cluster`` on Dask workers, each
    with its own referee and bots; either way this process alone writes the database.
    ``core`` lets a caller (the benchmark) observe the in-process referee while it runs;
    ``sandbox`` overrides the stored mode (resolved where the bots run otherwise:
    SandboxError if unusable). TournamentError when another arena process is playing
    the tournament now."""
    try:
        with run_locks.claim(store.path, tournament_id):
            return await _run_claimed(store, tournament_id, on_progress, core, cluster, sandbox)
    except run_locks.RunClaimed as exc:
        raise TournamentError(str(exc)) from exc


async def _run_claimed(
    store: Store,
    tournament_id: int,
    on_progress: ProgressCallback | None,
    core: RefereeCore | None,
    cluster: ClusterOptions | None,
    sandbox: Sandbox | None,
) -> RunSummary:
    # The cgroups an arena killed outright left, and any bot process still in them, are
    # removed by the next arena that finds where to make its own: this one, even if it
    # starts no bot (a resume with nothing left to play).
    cgroups.available()
    record = store.tournament(tournament_id)
    if record.secret is None:
        raise TournamentError(
            f"tournament {tournament_id} was made by an older arena whose deals are not "
            "secret; start a new tournament instead of resuming it"
        )
    settings = record.settings
    config = settings.match_config()
    mode = sandbox.mode if sandbox is not None else settings.sandbox
    if cluster is None:
        sandbox = sandbox or resolve(mode)  # refuse before anything is marked running
    plans = schedule(settings, record.seats, record.secret, record.schedule_version)
    finished = store.finished_indexes(tournament_id)
    stop = early_stop(store, record)
    todo = [] if stop is not None and stop() else [p for p in plans if p.idx not in finished]
    names = dict.fromkeys(name for p in todo for name in p.lineup)
    entrants = {name: store.entrant(name) for name in names}
    fixed = fixed_deal(record.game, record.rules)
    jobs = [
        MatchJob(
            tournament_id,
            plan,
            record.game,
            record.rules,
            record.seats,
            config,
            tuple(entrants[name] for name in plan.lineup),
            match_deal(plan.seed, fixed),
        )
        for plan in todo
    ]
    host_settings = HostSettings(
        record.secret, settings.bot_limits(), mode, hidden=database_files(store.path)
    )
    store.set_tournament_status(tournament_id, "running")
    started = time.monotonic()
    errors: list[str] = []
    done = len(finished)
    if on_progress:
        on_progress(Progress(done, len(plans), None, None))

    def save(played: PlayedMatch) -> bool:
        """Store a match; True once no more matches are needed (an SPRT's verdict)."""
        nonlocal done
        plan = played.job.plan
        store.save_match(
            tournament_id,
            plan.idx,
            record.rules_key,
            plan.lineup,
            played.result,
            played.started,
            played.seconds,
            worker=played.worker,
        )
        done += 1
        if on_progress:
            on_progress(Progress(done, len(plans), plan, played.result))
        return stop is not None and stop()

    try:
        if cluster is None:

            def late_output(match: MatchSeat, log: BotLog) -> None:
                with contextlib.suppress(StoreError):  # a match that failed is not stored
                    store.append_bot_output(match[0], match[1], log.text, log.dropped_bytes)

            host = MatchHost(
                host_settings,
                core,
                sandbox=sandbox,
                on_late_output=late_output,
            )
            await _play_in_process(jobs, host, record.concurrency, save, errors)
        else:
            from arena.distributed import play_on_dask

            await play_on_dask(jobs, host_settings, cluster, store, save, errors)
    except BaseException:
        store.set_tournament_status(tournament_id, "interrupted")
        raise
    discarded = discard_beyond_verdict(store, record)
    update_ratings(store, record.game, record.rules_key)
    complete = len(store.finished_indexes(tournament_id)) == len(plans) or (
        stop is not None and stop()
    )
    store.set_tournament_status(tournament_id, "finished" if complete else "incomplete")
    return RunSummary(
        store.tournament(tournament_id),
        done - len(finished),
        len(finished),
        tuple(errors),
        time.monotonic() - started,
        discarded,
    )


def early_stop(store: Store, record: TournamentRecord) -> Callable[[], bool] | None:
    """For an SPRT: whether its verdict is reached (from the stored matches)."""
    if record.settings.format != "sprt":
        return None
    from arena.sprt import sprt_status

    return lambda: sprt_status(store, record).decided


def discard_beyond_verdict(store: Store, record: TournamentRecord) -> int:
    """Drop an SPRT's stored matches beyond the pair that reached its verdict. They were
    played alongside the deciding pair, and how many of them finished first is timing;
    without them the stored test is the one a serial run stores, whatever was in flight
    (and a resume after a kill drops them too). Returns how many."""
    if record.settings.format != "sprt":
        return 0
    from arena.sprt import sprt_status

    status = sprt_status(store, record)
    if status.test.verdict is None:
        return 0
    return store.discard_matches(record.id, 2 * status.pairs)


SaveMatch = Callable[[PlayedMatch], bool]  # stores a match; True: start no more


async def _play_in_process(
    jobs: Sequence[MatchJob],
    host: MatchHost,
    concurrency: int,
    save: SaveMatch,
    errors: list[str],
) -> None:
    """Play ``jobs``, ``concurrency`` at once, never two of one deal at once
    (:class:`DealTurns`): with rounds to spare, the next round's matches fill the places;
    a tournament of one round plays one at a time."""
    enough = asyncio.Event()  # an SPRT reached its verdict: start no more matches

    async def play(job: MatchJob) -> None:
        try:
            played = await host.play(job)
        except MatchNotPlayed as exc:
            errors.append(str(exc))
            return
        if save(played):
            enough.set()

    turns = DealTurns(jobs)
    running: dict[asyncio.Task[None], int] = {}  # each with its deal
    try:
        try:
            await host.start()
        except RefereeError as exc:  # e.g. its socket cannot be made
            raise TournamentError(f"cannot start the referee: {exc}") from exc
        loop = asyncio.get_running_loop()
        while turns or running:
            while not enough.is_set() and len(running) < concurrency:
                job = turns.take(running.values())
                if job is None:
                    break
                running[loop.create_task(play(job))] = job.deal
            if not running:
                break  # enough: the rest is not played
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                del running[task]
                task.result()  # a bug in play() stops the run, as gather did
            if enough.is_set():
                break
        # Matches still running at an SPRT's verdict are not needed; a bug in one still
        # stops the run.
        for outcome in await _cancelled(running):
            if isinstance(outcome, Exception):
                raise outcome
    except BaseException:
        await _cancelled(running)
        raise
    finally:
        await to_the_end(host.close())


async def _cancelled(running: dict[asyncio.Task[None], int]) -> list[BaseException | None]:
    """Cancel the running matches and wait for each to end; what each ended with."""
    for task in running:
        task.cancel()
    outcomes = await asyncio.gather(*running, return_exceptions=True)
    running.clear()
    return outcomes


def update_ratings(store: Store, game: str, key: str) -> None:
    """Recompute a game's ratings for one rule set from every stored match, in order."""
    lower = get_game(game).lower_scores_win
    results = store.results_in_order(game, key)
    state = compute_ratings(results, lower_scores_win=lower)
    store.replace_ratings(game, key, state.current, state.history, len(results))
