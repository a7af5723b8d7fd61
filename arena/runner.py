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
import functools
import os
import secrets
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.bots import BotLaunchError, BotLimits, BotLog, BotPool, MatchSeat
from arena.rating import compute_ratings
from arena.sandbox import SANDBOX_MODES, Sandbox, resolve
from arena.schedule import MatchPlan, bot_seed, round_robin, tournament_secret
from arena.store import Store, StoreError, TournamentRecord
from referee.game import get_game, parse_rules
from referee.match import MatchConfig, MatchResult
from referee.replay import now_iso, with_bot_logs
from referee.rules import rules_to_dict
from referee.service import RefereeCore, RefereeError, start_server


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
    sandbox: Sandbox | None = None,
) -> RunSummary:
    """Play every scheduled match of a tournament that is not stored yet, then rate.
    ``core`` lets a caller (the benchmark) observe the referee while it runs; ``sandbox``
    overrides the stored mode (resolved here otherwise: SandboxError if unusable)."""
    record = store.tournament(tournament_id)
    if record.secret is None:
        raise TournamentError(
            f"tournament {tournament_id} was made by an older arena whose deals are not "
            "secret; start a new tournament instead of resuming it"
        )
    engine = get_game(record.game)
    rules = parse_rules(engine.Rules, record.rules)
    config = settings_config(record.settings)
    sandbox = sandbox or resolve(record.settings.get("sandbox", "auto"))
    secret = record.secret
    plans = round_robin(list(record.bots), record.seats, record.rounds, secret)
    finished = store.finished_indexes(tournament_id)
    todo = [p for p in plans if p.idx not in finished]
    entrants = {name: store.entrant(name) for name in record.bots}
    store.set_tournament_status(tournament_id, "running")
    started = time.monotonic()
    errors: list[str] = []
    done = len(finished)
    if on_progress:
        on_progress(Progress(done, len(plans), None, None))

    def late_output(match: MatchSeat, log: BotLog) -> None:
        with contextlib.suppress(StoreError):  # a match that failed is not stored
            store.append_bot_output(match[0], match[1], log.text, log.dropped_bytes)

    database = os.path.abspath(store.path)
    core = core or RefereeCore()
    with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
        address = f"unix:{tmp}/referee.sock"
        server = await start_server(core, [address], admin_token=secrets.token_urlsafe(24))
        pool = BotPool(
            core,
            address,
            lambda name: bot_seed(secret, name),
            settings_limits(record.settings),
            sandbox,
            visible=(tmp,),
            hidden=tuple(database + suffix for suffix in ("", "-wal", "-shm", "-journal")),
            on_late_output=late_output,
        )
        semaphore = asyncio.Semaphore(record.concurrency)

        async def play(plan: MatchPlan) -> None:
            nonlocal done
            async with semaphore:
                bots = []
                try:
                    for name in plan.lineup:
                        bots.append(await pool.acquire(entrants[name]))
                except BotLaunchError as exc:
                    errors.append(str(exc))
                    for bot in bots:
                        pool.release(bot)
                    return
                began, clock = now_iso(), time.monotonic()
                try:
                    runtime, _ = core.create_match(
                        record.game,
                        rules,
                        record.seats,
                        plan.seed,
                        [b.token for b in bots],
                        names=plan.lineup,
                        config=config,
                        match_id=f"t{tournament_id}-{plan.idx:05d}",
                        start_timeout=30.0,
                    )
                    for seat, bot in enumerate(bots):
                        pool.playing(bot, functools.partial(_answered, runtime, seat))
                    result = await runtime.wait()
                except RefereeError as exc:
                    errors.append(str(exc))
                    return
                finally:
                    match_id = f"t{tournament_id}-{plan.idx:05d}"
                    logs = [pool.release(bot, (match_id, seat)) for seat, bot in enumerate(bots)]
                result = replace(result, replay=with_bot_logs(result.replay, logs))
                store.save_match(
                    tournament_id,
                    plan.idx,
                    record.rules_key,
                    plan.lineup,
                    result,
                    began,
                    time.monotonic() - clock,
                )
                core.forget_match(result.spec.match_id)
                done += 1
                if on_progress:
                    on_progress(Progress(done, len(plans), plan, result))

        tasks = [asyncio.get_running_loop().create_task(play(p)) for p in todo]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            store.set_tournament_status(tournament_id, "interrupted")
            raise
        finally:
            await pool.close()
            await server.stop(grace=0.5)
    update_ratings(store, record.game, record.rules_key)
    complete = len(store.finished_indexes(tournament_id)) == len(plans)
    store.set_tournament_status(tournament_id, "finished" if complete else "incomplete")
    return RunSummary(
        store.tournament(tournament_id),
        len(todo) - len(errors),
        len(finished),
        tuple(errors),
        time.monotonic() - started,
    )


def _answered(runtime: Any, seat: int) -> bool:
    driver = runtime.driver
    return runtime.done.is_set() or (driver is not None and driver.answered[seat] > 0)


def update_ratings(store: Store, game: str, key: str) -> None:
    """Recompute a game's ratings for one rule set from every stored match, in order."""
    lower = bool(getattr(get_game(game), "lower_scores_win", False))
    state = compute_ratings(store.results_in_order(game, key), lower_scores_win=lower)
    store.replace_ratings(game, key, state.current, state.history)
