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
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.bots import BotLimits, BotLog, MatchSeat
from arena.distributed import ClusterOptions as ClusterOptions  # its home; imported from here too
from arena.matchplay import HostSettings, MatchHost, MatchJob, MatchNotPlayed, PlayedMatch
from arena.rating import compute_ratings
from arena.sandbox import SANDBOX_MODES, Sandbox, resolve
from arena.schedule import MatchPlan, round_robin, tournament_secret
from arena.store import Store, StoreError, TournamentRecord
from referee.game import get_game, parse_rules
from referee.match import MatchConfig, MatchResult
from referee.rules import rules_to_dict
from referee.service import RefereeCore


class TournamentError(ValueError):
    """A tournament that cannot be run as asked."""


def rules_key(game: str, rules: Any) -> str:
    """A short canonical name for a rule set: "default" or the options that differ from it."""
    defaults = rules_to_dict(get_game(game).Rules())
    current = rules_to_dict(rules)
    changed = [f"{k}={current[k]}" for k in sorted(current) if current[k] != defaults[k]]
    return ",".join(changed) or "default"


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    plan: MatchPlan | None
    result: MatchResult | None


ProgressCallback = Callable[[Progress], None]


def settings_limits(settings: dict[str, Any]) -> BotLimits:
    defaults = BotLimits()
    return BotLimits(
        cpu_seconds=settings.get("bot_cpu_seconds", defaults.cpu_seconds),
        memory_mb=settings.get("bot_memory_mb", defaults.memory_mb),
        output_bytes=int(settings.get("bot_output_bytes", defaults.output_bytes)),
        max_processes=settings.get("bot_max_processes", defaults.max_processes),
    )


def settings_config(settings: dict[str, Any]) -> MatchConfig:
    return MatchConfig(
        move_seconds=float(settings.get("move_seconds", 5.0)),
        time_bank_seconds=float(settings.get("time_bank_seconds", 0.0)),
        fault_policy=settings.get("fault_policy", "forfeit"),
        max_strikes=int(settings.get("max_strikes", 3)),
    )


def create_tournament(
    store: Store,
    game: str,
    bots: Sequence[str],
    rules: dict[str, str],
    rounds: int,
    seed: int | None,
    concurrency: int,
    seats: int | None,
    settings: dict[str, Any],
) -> TournamentRecord:
    """Validate and record a new tournament (nothing is played yet). Without ``seed`` its
    deals come from a fresh random secret; with one they can be rebuilt by anyone who
    knows it. ``settings["sandbox"]`` is the mode its bots run under (default ``auto``)."""
    engine = get_game(game)
    parsed = parse_rules(engine.Rules, rules)
    allowed = engine.seats(parsed)
    seats = seats if seats is not None else allowed.start
    if seats not in allowed:
        raise TournamentError(
            f"{game} with these rules seats {allowed.start}-{allowed.stop - 1} players, not {seats}"
        )
    if concurrency < 1:
        raise TournamentError("concurrency must be at least 1")
    # Names resolve now (NAME -> its latest version, NAME@v), so the tournament and any
    # resume of it play exactly the versions it started with.
    entrants = [store.entrant(name) for name in bots]
    bots = [entrant.name for entrant in entrants]
    for entrant in entrants:
        if entrant.removed:
            raise TournamentError(f"bot {entrant.name!r} has been removed; it is not scheduled")
        if not entrant.plays(game):
            raise TournamentError(
                f"bot {entrant.name!r} declares {', '.join(entrant.games)}, not {game}"
            )
    settings_config(settings)  # validates
    settings_limits(settings)
    if settings.get("sandbox", "auto") not in SANDBOX_MODES:
        raise TournamentError(f"sandbox must be one of {', '.join(SANDBOX_MODES)}")
    secret = tournament_secret(seed)
    plans = round_robin(list(bots), seats, rounds, secret)
    return store.create_tournament(
        game,
        rules_to_dict(parsed),
        rules_key(game, parsed),
        list(bots),
        seats,
        rounds,
        seed,
        concurrency,
        settings,
        len(plans),
        secret,
    )


@dataclass(frozen=True)
class RunSummary:
    tournament: TournamentRecord
    played: int
    skipped: int
    errors: tuple[str, ...]
    seconds: float


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
    SandboxError if unusable)."""
    record = store.tournament(tournament_id)
    if record.secret is None:
        raise TournamentError(
            f"tournament {tournament_id} was made by an older arena whose deals are not "
            "secret; start a new tournament instead of resuming it"
        )
    config = settings_config(record.settings)
    mode = sandbox.mode if sandbox is not None else record.settings.get("sandbox", "auto")
    if cluster is None:
        sandbox = sandbox or resolve(mode)  # refuse before anything is marked running
    plans = round_robin(list(record.bots), record.seats, record.rounds, record.secret)
    finished = store.finished_indexes(tournament_id)
    entrants = {name: store.entrant(name) for name in record.bots}
    jobs = [
        MatchJob(
            tournament_id,
            plan,
            record.game,
            record.rules,
            record.seats,
            config,
            tuple(entrants[name] for name in plan.lineup),
        )
        for plan in plans
        if plan.idx not in finished
    ]
    host_settings = HostSettings(record.secret, settings_limits(record.settings), mode)
    store.set_tournament_status(tournament_id, "running")
    started = time.monotonic()
    errors: list[str] = []
    done = len(finished)
    if on_progress:
        on_progress(Progress(done, len(plans), None, None))

    def save(played: PlayedMatch) -> None:
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

    try:
        if cluster is None:

            def late_output(match: MatchSeat, log: BotLog) -> None:
                with contextlib.suppress(StoreError):  # a match that failed is not stored
                    store.append_bot_output(match[0], match[1], log.text, log.dropped_bytes)

            database = os.path.abspath(store.path)
            host = MatchHost(
                host_settings,
                core,
                sandbox=sandbox,
                hidden=tuple(database + sfx for sfx in ("", "-wal", "-shm", "-journal")),
                on_late_output=late_output,
            )
            await _play_in_process(jobs, host, record.concurrency, save, errors)
        else:
            from arena.distributed import play_on_dask

            await play_on_dask(jobs, host_settings, cluster, store, save, errors)
    except BaseException:
        store.set_tournament_status(tournament_id, "interrupted")
        raise
    update_ratings(store, record.game, record.rules_key)
    complete = len(store.finished_indexes(tournament_id)) == len(plans)
    store.set_tournament_status(tournament_id, "finished" if complete else "incomplete")
    return RunSummary(
        store.tournament(tournament_id),
        len(jobs) - len(errors),
        len(finished),
        tuple(errors),
        time.monotonic() - started,
    )


async def _play_in_process(
    jobs: Sequence[MatchJob],
    host: MatchHost,
    concurrency: int,
    save: Callable[[PlayedMatch], None],
    errors: list[str],
) -> None:
    await host.start()
    semaphore = asyncio.Semaphore(concurrency)

    async def play(job: MatchJob) -> None:
        async with semaphore:
            try:
                played = await host.play(job)
            except MatchNotPlayed as exc:
                errors.append(str(exc))
                return
            save(played)

    tasks = [asyncio.get_running_loop().create_task(play(job)) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        await host.close()


def update_ratings(store: Store, game: str, key: str) -> None:
    """Recompute a game's ratings for one rule set from every stored match, in order."""
    lower = bool(getattr(get_game(game), "lower_scores_win", False))
    state = compute_ratings(store.results_in_order(game, key), lower_scores_win=lower)
    store.replace_ratings(game, key, state.current, state.history)
