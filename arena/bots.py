"""Bot processes: launching submitted bots with the limits a tournament sets, reusing
them across matches, capturing their stderr per match, and stopping those that go
over their limits.

Each process runs in its own process group with a minimal environment (no inherited
secrets), connects to the referee with its own player token (ARENA_TOKEN at
ARENA_TARGET), and plays one match at a time. CPU time and memory are measured over
the whole process group from /proc (Linux), so a bot that forks helpers is still
held to its limits; a bot over a limit is killed and its seat faults with kind "limit".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections import defaultdict
from dataclasses import dataclass, field

from arena.store import Entrant
from referee.service import RefereeCore

# What a bot process inherits: nothing secret, just enough to run interpreters.
_ENV_PASSTHROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT")
STOP_GRACE_SECONDS = 3.0
MONITOR_SECONDS = 0.25
_TAIL_BYTES = 2048
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


class BotLaunchError(ValueError):
    """A bot program that cannot be started."""


@dataclass(frozen=True)
class BotLimits:
    """Per-bot limits. None switches a limit off."""

    cpu_seconds: float | None = 60.0  # CPU time per match, whole process group
    memory_mb: float | None = 1024.0  # resident memory, whole process group
    output_bytes: int = 64 * 1024  # stderr kept per match; the rest is counted, not kept

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "cpu_seconds": self.cpu_seconds,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
        }


@dataclass(frozen=True)
class BotLog:
    """What a bot wrote to stderr during one match."""

    text: str
    dropped_bytes: int


@dataclass(eq=False)
class BotProcess:
    entrant: Entrant
    token: str
    process: asyncio.subprocess.Process
    limits: BotLimits
    alive: bool = True
    busy: bool = False
    capture: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    tail: bytes = b""
    cpu_baseline: float = 0.0

    @property
    def pid(self) -> int:
        return self.process.pid

    def take_log(self) -> BotLog:
        log = BotLog(self.capture.decode(errors="replace"), self.dropped)
        self.capture = bytearray()
        self.dropped = 0
        return log

    def last_line(self) -> str:
        lines = self.tail.decode(errors="replace").strip().splitlines()
        return lines[-1][-300:] if lines else ""


def group_usage() -> dict[int, tuple[float, float]]:
    """CPU seconds and resident MB per process group, from /proc."""
    usage: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue  # gone meanwhile
        fields = raw[raw.rindex(b")") + 2 :].split()
        pgrp = int(fields[2])
        entry = usage[pgrp]
        entry[0] += (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
        entry[1] += int(fields[21]) * _PAGE_BYTES / 1e6
    return {k: (v[0], v[1]) for k, v in usage.items()}


@dataclass
class BotPool:
    """Long-lived bot processes per entrant, handed out one match at a time."""

    core: RefereeCore
    address: str
    seed: int
    limits: BotLimits = BotLimits()
    processes: dict[str, list[BotProcess]] = field(default_factory=lambda: defaultdict(list))
    closing: bool = False
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _monitor: asyncio.Task[None] | None = None

    async def acquire(self, entrant: Entrant) -> BotProcess:
        """A free live process of this entrant (launching one if needed), marked busy,
        with its per-match stderr capture and CPU baseline reset."""
        if self._monitor is None:
            self._monitor = asyncio.get_running_loop().create_task(self._watch_limits())
        bot = next((b for b in self.processes[entrant.name] if b.alive and not b.busy), None)
        if bot is None:
            bot = await self._launch(entrant)
        bot.busy = True
        bot.take_log()
        bot.cpu_baseline = group_usage().get(bot.pid, (0.0, 0.0))[0]
        return bot

    def release(self, bot: BotProcess) -> BotLog:
        """Hand a process back after a match; returns what it wrote to stderr meanwhile."""
        bot.busy = False
        return bot.take_log()

    async def _launch(self, entrant: Entrant) -> BotProcess:
        token = self.core.issue_player_token(entrant.name)
        env = {k: os.environ[k] for k in _ENV_PASSTHROUGH if k in os.environ}
        env.update(
            ARENA_TARGET=self.address,
            ARENA_TOKEN=token,
            ARENA_BOT_SEED=f"{self.seed}-{entrant.name}",
            PYTHONUNBUFFERED="1",
        )
        try:
            process = await asyncio.create_subprocess_exec(
                *entrant.command,
                cwd=entrant.cwd or None,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            self.core.retire_player(token)
            command = " ".join(entrant.command)
            raise BotLaunchError(f"cannot start bot {entrant.name!r} ({command}): {exc}") from exc
        bot = BotProcess(entrant, token, process, self.limits)
        self.processes[entrant.name].append(bot)
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._read_stderr(bot)))
        self._tasks.append(loop.create_task(self._wait_exit(bot)))
        return bot

    async def _read_stderr(self, bot: BotProcess) -> None:
        stream = bot.process.stderr
        assert stream is not None
        while chunk := await stream.read(4096):
            bot.tail = (bot.tail + chunk)[-_TAIL_BYTES:]
            room = bot.limits.output_bytes - len(bot.capture)
            if room > 0:
                bot.capture += chunk[:room]
            bot.dropped += max(0, len(chunk) - max(room, 0))

    async def _wait_exit(self, bot: BotProcess) -> None:
        code = await bot.process.wait()
        bot.alive = False
        if not self.closing:
            await asyncio.sleep(0.05)  # let the stderr reader catch the last words
            last = bot.last_line()
            self.core.player_gone(
                bot.token, f"bot process exited with code {code}" + (f": {last}" if last else "")
            )

    async def _watch_limits(self) -> None:
        limits = self.limits
        if limits.cpu_seconds is None and limits.memory_mb is None:
            return
        while not self.closing:
            await asyncio.sleep(MONITOR_SECONDS)
            busy = [b for group in self.processes.values() for b in group if b.busy and b.alive]
            if not busy:
                continue
            usage = await asyncio.to_thread(group_usage)
            for bot in busy:
                cpu, rss = usage.get(bot.pid, (bot.cpu_baseline, 0.0))
                reason = None
                if limits.memory_mb is not None and rss > limits.memory_mb:
                    reason = f"used {rss:.0f} MB of memory, over its {limits.memory_mb:g} MB limit"
                elif limits.cpu_seconds is not None and cpu - bot.cpu_baseline > limits.cpu_seconds:
                    spent = cpu - bot.cpu_baseline
                    reason = f"used {spent:.1f} s of CPU in this match, over its {limits.cpu_seconds:g} s limit"
                if reason is not None and bot.alive:
                    self.core.player_gone(bot.token, reason, kind="limit")
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(bot.pid, signal.SIGKILL)

    async def close(self) -> None:
        """Close every stream (bots exit by themselves), then stop stragglers."""
        self.closing = True
        bots = [b for group in self.processes.values() for b in group]
        for bot in bots:
            self.core.retire_player(bot.token)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for bot in bots:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bot.process.wait(), max(0.01, deadline - time.monotonic()))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(bot.pid, signal.SIGKILL)  # the leader may be gone, helpers not
            await bot.process.wait()
        for task in [*self._tasks, *([self._monitor] if self._monitor else [])]:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
