"""`arena bots check`: a submitted bot plays one short match of each game it declares,
against the random sample bot, before it enters a tournament; problems come back in
plain words."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
import threading
from collections import Counter
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.artifacts import Artifact, unpack
from arena.bots import STOP_GRACE_SECONDS, BotLaunchError, BotLimits, BotPool
from arena.lifecycle import REFEREE_SOCKET, run_stoppable
from arena.sandbox import Sandbox, SandboxError, resolve
from arena.settings import DEFAULTS
from arena.store import Entrant
from referee.aio import all_to_the_end
from referee.client import FALLBACK_MARK
from referee.game import game_names, get_game, parse_rules
from referee.match import MatchConfig, MatchResult
from referee.owned_dirs import tagged_temp_dir
from referee.replay import parse_replay
from referee.rules import describe_rules
from referee.service import RefereeCore, RefereeError, start_server

# Short matches: one hand, hole or deal where the game has such an option.
QUICK_RULES: dict[str, dict[str, str]] = {
    "gin_rummy": {"max_hands": "2"},
    "golf": {"holes": "1"},
    "golf_solitaire": {"holes": "1"},
    "dingo": {"deals": "1"},
    "goninkan": {"yaku_count": "1"},
}
RANDOM_BOT = Entrant(
    "random",
    ("*",),
    (sys.executable, "-m", "sample_bots.random_bot"),
    str(Path(__file__).resolve().parent.parent),
    "",
)
_FAULT_WORDS = {
    "timeout": "did not answer in time",
    "illegal": "answered with an illegal action",
    "malformed": "sent something that is not a valid answer",
    "disconnect": "was not connected when a decision was due",
    "crash": "stopped running",
    "limit": "was stopped for going over a resource limit",
}


T = TypeVar("T")
# How long a stopping server waits for its cancelled checks to clean up (bots are killed
# at once; their cgroups and folders removed).
CLEAN_UP_SECONDS = 10.0


class ChecksStopped(Exception):
    """A check cancelled, or not begun, because its server is stopping."""


class CheckRuns:
    """The checks a server runs in its request threads, so that the server, as it stops,
    cuts them short and waits for their clean-up (bot processes killed, cgroups and
    folders removed). A check's matches run on an event loop of its own, whose task is
    cancelled; its unpacking stops before the next file. Left to run to its end, a check
    held the stopping process for up to a minute; killed with the process, it left its
    litter (an unpacking one, its half-written folder)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._under_way = 0
        self._tasks: dict[asyncio.Task[Any], asyncio.AbstractEventLoop] = {}
        self._stopping = False

    @contextlib.contextmanager
    def under_way(self) -> Iterator[None]:
        """A check from its first step (its submission unpacked) to its last clean-up;
        ChecksStopped at once if the server is stopping."""
        with self._changed:
            self.raise_if_stopping()
            self._under_way += 1
        try:
            yield
        finally:
            with self._changed:
                self._under_way -= 1
                self._changed.notify_all()

    def raise_if_stopping(self) -> None:
        """ChecksStopped once the server stops: between steps that no cancel reaches."""
        if self._stopping:
            raise ChecksStopped

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """``asyncio.run(work)`` in this thread; ChecksStopped if the server stops first."""

        async def tracked() -> T:
            task = asyncio.current_task()
            assert task is not None
            with self._changed:
                if self._stopping:
                    work.close()
                    raise ChecksStopped
                self._tasks[task] = asyncio.get_running_loop()
            try:
                return await work
            finally:
                with self._changed:
                    del self._tasks[task]
                    self._changed.notify_all()

        try:
            return asyncio.run(tracked())
        except asyncio.CancelledError:
            raise ChecksStopped from None

    def stop(self) -> None:
        """Cancel every check under way, and refuse those that would begin."""
        with self._changed:
            self._stopping = True
            for task, loop in self._tasks.items():
                loop.call_soon_threadsafe(task.cancel)

    def wait(self, timeout: float = CLEAN_UP_SECONDS) -> bool:
        """Wait up to ``timeout`` seconds for the checks to end; True if they did."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._under_way and not self._tasks, timeout)


@dataclass(frozen=True)
class CheckReport:
    game: str
    ok: bool
    decisions: int
    problems: tuple[str, ...]
    stderr_excerpt: str  # its stderr's first and last lines


def quick_rules(game: str) -> dict[str, str]:
    known = {o.name for o in describe_rules(get_game(game).Rules)}
    return {k: v for k, v in QUICK_RULES.get(game, {}).items() if k in known}


def describe(result: MatchResult, seat: int) -> list[str]:
    """The bot's faults in plain words, grouped by kind."""
    mine = [f for f in result.faults if f.seat == seat]
    counts = Counter(f.kind for f in mine)
    lines = []
    for kind, count in counts.items():
        first = next(f for f in mine if f.kind == kind)
        times = f" ({count} times)" if count > 1 else ""
        lines.append(
            f"{_FAULT_WORDS[kind]}{times}: {first.reason} (first at decision {first.decision})"
        )
    if result.reason == "forfeit" and seat in result.forfeited:
        lines.append("forfeited the match")
    return lines


def sdk_fallbacks(stderr: str) -> list[str]:
    """Answers the Python SDK made up for the bot (its choose() missed the deadline, raised,
    or returned something else than a code): the referee saw a legal action in time, but
    the bot did not choose it. The SDK marks each on stderr with ``FALLBACK_MARK``."""
    lines = [line for line in stderr.splitlines() if FALLBACK_MARK in line]
    if not lines:
        return []
    first = lines[0].split(FALLBACK_MARK, 1)[1].strip()
    times = f" ({len(lines)} times)" if len(lines) > 1 else ""
    return [f"let the SDK answer for it{times}: {first}"]


# A check match may not ask the bot at all (Goninkan's dealer sits out every deal of its
# round): another is played, each with a new deal, this many in all.
MATCHES_TO_BE_ASKED = 4


async def check_bot(
    entrant: Entrant,
    games: list[str] | None = None,
    move_seconds: float = DEFAULTS.move_seconds,
    limits: BotLimits | None = None,
    sandbox: Sandbox | None = None,
    hidden: tuple[str, ...] = (),
) -> list[CheckReport]:
    """Short matches per game, the bot in seat 0 against random bots, in ``sandbox``
    (default: none), until it has been asked to decide (at most MATCHES_TO_BE_ASKED)."""
    chosen = games or [g for g in game_names() if entrant.plays(g)]
    reports = []
    core = RefereeCore()
    with tagged_temp_dir("arena-check", REFEREE_SOCKET) as tmp:
        address = f"unix:{tmp}/{REFEREE_SOCKET}"
        server = await start_server(core, [address], admin_token=secrets.token_urlsafe(24))
        pool = BotPool(
            core,
            address,
            lambda name: str(secrets.randbits(63)),
            limits or BotLimits(),
            sandbox or Sandbox("none"),
            hidden=hidden,
        )
        try:
            for game in chosen:
                for _ in range(MATCHES_TO_BE_ASKED):
                    report = await _check_match(core, pool, entrant, game, move_seconds)
                    if report.decisions or report.problems:
                        break
                else:
                    never = f"was never asked to decide in {MATCHES_TO_BE_ASKED} matches"
                    report = CheckReport(game, False, 0, (never,), report.stderr_excerpt)
                reports.append(report)
        finally:
            # Cancelled (a stop signal, its server stopping), no bot gets a grace to exit.
            task = asyncio.current_task()
            grace = 0.0 if task is not None and task.cancelling() else STOP_GRACE_SECONDS
            await all_to_the_end(pool.close(grace), server.stop(0))
    return reports


async def _check_match(
    core: RefereeCore, pool: BotPool, entrant: Entrant, game: str, move_seconds: float
) -> CheckReport:
    """One short match of ``game``, the bot in seat 0; its process stopping counts even
    if it was never asked to decide."""
    engine = get_game(game)
    rules = parse_rules(engine.Rules, quick_rules(game))
    seats = engine.seats(rules).start
    try:
        bots = [await pool.acquire(entrant)]
        bots += [await pool.acquire(RANDOM_BOT) for _ in range(seats - 1)]
    except BotLaunchError as exc:
        return CheckReport(game, False, 0, (str(exc),), "")
    config = MatchConfig(move_seconds=move_seconds, fault_policy="default", max_strikes=5)
    try:
        runtime, _ = core.create_match(
            game,
            rules,
            seats,
            secrets.randbits(63),
            [b.token for b in bots],
            names=[entrant.name] + ["random"] * (seats - 1),
            config=config,
            start_timeout=30.0,
        )
        result = await runtime.wait()
    except RefereeError as exc:
        return CheckReport(game, False, 0, (f"the referee failed: {exc}",), "")
    finally:
        logs = [pool.release(b) for b in bots]
    problems = describe(result, 0) + sdk_fallbacks(logs[0].text)
    bot = bots[0]
    if not problems and not bot.alive and not (bot.faulted or bot.retiring):
        # It exited where no decision was due: no fault, but no bot either.
        problems.append(f"{_FAULT_WORDS['crash']}: {bot.exit_text()}")
    decisions = sum(1 for d in parse_replay(result.replay).decisions if d["seat"] == 0)
    return CheckReport(game, not problems, decisions, tuple(problems), stderr_excerpt(logs[0].text))


def stderr_excerpt(text: str, first: int = 3, last: int = 5) -> str:
    """A bot's stderr, its ``first`` and ``last`` lines: the cause often comes first (the
    JavaScript bot's missing .proto file) and a stack trace after it."""
    lines = text.strip().splitlines()
    if len(lines) <= first + last:
        return "\n".join(lines)
    skipped = len(lines) - first - last
    return "\n".join([*lines[:first], f"… ({skipped} lines)", *lines[-last:]])


def run_checks(
    entrant: Entrant,
    games: list[str] | None,
    move_seconds: float,
    sandbox: Sandbox | None = None,
    hidden: tuple[str, ...] = (),
) -> list[CheckReport]:
    return run_stoppable(check_bot(entrant, games, move_seconds, sandbox=sandbox, hidden=hidden))


def check_artifact(
    name: str,
    artifact: Artifact,
    move_seconds: float = DEFAULTS.move_seconds,
    sandbox: Sandbox | None = None,
    runs: CheckRuns | None = None,
) -> list[CheckReport]:
    """``bots check`` on a submission before it is stored: its files unpacked in a
    temporary folder, one short match per game its manifest declares, in ``sandbox``
    (default: bwrap; SandboxError when it does not work here). A server passes its
    ``runs``, which cancel the check when it stops (ChecksStopped); otherwise a stop
    signal does (KeyboardInterrupt)."""
    under_way = runs.under_way() if runs is not None else contextlib.nullcontext()
    with under_way, tagged_temp_dir("arena-check") as tmp:
        where = unpack(
            artifact.archive(),
            artifact.sha256,
            Path(tmp),
            each_file=runs.raise_if_stopping if runs is not None else None,
        )
        manifest = artifact.manifest
        entrant = Entrant(name, manifest.games, manifest.command, str(where), "")
        try:
            box = sandbox or resolve("auto")
        except SandboxError as exc:  # a stranger's code is not run unconfined
            return [CheckReport("sandbox", False, 0, (str(exc),), "")]
        if runs is not None:
            return runs.run(check_bot(entrant, None, move_seconds, sandbox=box))
        return run_checks(entrant, None, move_seconds, box)


def report_lines(name: str, report: CheckReport) -> list[str]:
    """A check report in plain words, one line per problem."""
    if report.ok:
        return [f"ok {report.game}: {report.decisions} decisions, no faults"]
    return [f"problem {report.game}:", *(f"  - {name} {p}" for p in report.problems)]
