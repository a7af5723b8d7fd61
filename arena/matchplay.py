"""Playing scheduled matches on one referee with long-lived bot processes: the piece the
in-process runner and every Dask worker share.

A :class:`MatchHost` owns a referee (its core and a gRPC server on a private Unix
socket) and a pool of bot processes, all on one event loop. It plays a
:class:`MatchJob` (everything a match needs, picklable, so it can travel to a worker)
and returns a :class:`PlayedMatch` (the result and replay, picklable, so it can travel
back). It never writes the database: the arena process alone does.
"""

from __future__ import annotations

import collections
import functools
import os
import secrets
import socket
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.bots import BotLaunchError, BotLimits, BotPool, LateOutput
from arena.lifecycle import REFEREE_SOCKET
from arena.sandbox import Sandbox, resolve
from arena.schedule import MatchPlan, bot_seed
from arena.store import Entrant
from referee.game import get_game, parse_rules
from referee.match import MatchConfig, MatchResult
from referee.owned_dirs import tagged_temp_dir
from referee.replay import now_iso, with_bot_logs
from referee.service import RefereeCore, RefereeError, start_server


class MatchNotPlayed(RuntimeError):
    """A match that could not be played here (a bot that cannot start, a referee
    refusal); the message says why. Nothing is stored for it."""


@dataclass(frozen=True)
class HostSettings:
    """What the bot processes of a host are launched with; a worker keeps one host per
    distinct value."""

    secret: bytes  # the tournament's secret: each bot's ARENA_BOT_SEED derives from it
    limits: BotLimits
    sandbox: str = "auto"  # the mode, resolved where the bots run
    # Paths no bot may see (the database's files, store.database_files), on every host:
    # a worker's bots run from the same folders, beside the database.
    hidden: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatchJob:
    tournament_id: int
    plan: MatchPlan
    game: str
    rules: dict[str, Any]
    seats: int
    config: MatchConfig
    entrants: tuple[Entrant, ...]  # one per seat, in the plan's lineup order
    deal: int  # the deal it plays: its seed, or the rules' fixed deal (schedule.fixed_deal)

    @property
    def match_id(self) -> str:
        return f"t{self.tournament_id}-{self.plan.idx:05d}"


class DealTurns:
    """Which match to start next, so that two matches of one deal are never in play at
    once: the processes of two tables of a deal could tell each other their hands (a
    red-team bot passed its opponent's ten cards to its own process at the other table
    through file locks on the read-only files every sandbox shares). Each deal's matches
    go in schedule order; deals are taken in the order they first come. A deal is a job's
    ``deal``: its seed, or the fixed deal every match of its rules plays."""

    def __init__(self, jobs: Sequence[MatchJob]) -> None:
        self._waiting: dict[int, collections.deque[MatchJob]] = {}
        for job in jobs:
            self._waiting.setdefault(job.deal, collections.deque()).append(job)

    def take(self, in_play: Collection[int]) -> MatchJob | None:
        """The next match of a deal not ``in_play``, or None."""
        for deal, queue in self._waiting.items():
            if deal not in in_play:
                job = queue.popleft()
                if not queue:
                    del self._waiting[deal]
                return job
        return None

    def __bool__(self) -> bool:
        return bool(self._waiting)


@dataclass(frozen=True)
class PlayedMatch:
    job: MatchJob
    result: MatchResult
    started: str
    seconds: float
    worker: str  # where it was played: "local", or the Dask worker's name


def host_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class MatchHost:
    """A referee and its bot processes on the running event loop. The referee's admin
    RPCs need a random token no bot ever sees; bots run in the settings' sandbox (or
    ``sandbox``), never see the settings' ``hidden`` files, and what they write after a
    match goes to ``on_late_output``."""

    def __init__(
        self,
        settings: HostSettings,
        core: RefereeCore | None = None,
        sandbox: Sandbox | None = None,
        on_late_output: LateOutput | None = None,
    ) -> None:
        self.settings = settings
        self.core = core or RefereeCore()
        self._tmp = tagged_temp_dir("arena", REFEREE_SOCKET)
        self.address = f"unix:{self._tmp.name}/{REFEREE_SOCKET}"
        self._server: Any = None
        secret = settings.secret
        self.pool = BotPool(
            self.core,
            self.address,
            lambda name: bot_seed(secret, name),
            settings.limits,
            sandbox or resolve(settings.sandbox),
            hidden=settings.hidden,
            on_late_output=on_late_output,
        )

    async def start(self) -> None:
        # Its bots reach this referee, and every table of a round plays the same deal: a
        # bot watching another table would see cards of its own deal. Watch is the
        # operator's only (the admin token, never given to a bot).
        self._server = await start_server(
            self.core, [self.address], admin_token=secrets.token_urlsafe(24), private_watch=True
        )

    async def play(self, job: MatchJob, worker: str = "local") -> PlayedMatch:
        """Play one match; raises MatchNotPlayed when it cannot be played here."""
        engine = get_game(job.game)
        rules = parse_rules(engine.Rules, job.rules)
        bots = []
        try:
            for entrant in job.entrants:
                bots.append(await self.pool.acquire(entrant, deal=job.deal))
        except BotLaunchError as exc:
            for bot in bots:
                self.pool.release(bot)
            raise MatchNotPlayed(str(exc)) from exc
        began, clock = now_iso(), time.monotonic()
        try:
            runtime, _ = self.core.create_match(
                job.game,
                rules,
                job.seats,
                job.plan.seed,
                [b.token for b in bots],
                names=job.plan.lineup,
                config=job.config,
                match_id=job.match_id,
                start_timeout=30.0,
            )
            for seat, bot in enumerate(bots):
                self.pool.playing(bot, functools.partial(_answered, runtime, seat))
            result = await runtime.wait()
        except RefereeError as exc:
            raise MatchNotPlayed(str(exc)) from exc
        finally:
            logs = [self.pool.release(bot, (job.match_id, seat)) for seat, bot in enumerate(bots)]
        self.core.forget_match(result.spec.match_id)
        result = replace(result, replay=with_bot_logs(result.replay, logs))
        return PlayedMatch(job, result, began, time.monotonic() - clock, worker)

    async def close(self) -> None:
        await self.pool.close()
        if self._server is not None:
            await self._server.stop(grace=0.5)
        self._tmp.cleanup()


def _answered(runtime: Any, seat: int) -> bool:
    """Whether a seat has answered in its match (its late output from the previous
    match stops there)."""
    driver = runtime.driver
    return runtime.done.is_set() or (driver is not None and driver.answered[seat] > 0)
