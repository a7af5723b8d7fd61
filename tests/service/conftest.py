"""Helpers for the service tests: a real referee on a Unix socket, real bot processes."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots import BotPool
from arena.store import Entrant
from referee.match import MatchConfig, MatchResult
from referee.service import MatchRuntime, RefereeCore, start_server

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
RANDOM_BOT = [PY, "-m", "sample_bots.random_bot"]
SHORT_GIN = {"max_hands": "2"}


def misbehaving(mode: str, n: int = 1, *extra: str) -> list[str]:
    return [PY, "-m", "tests.service.bots.misbehaving", mode, str(n), *extra]


def entrant(name: str, command: Sequence[str]) -> Entrant:
    return Entrant(name, ("*",), tuple(command), str(ROOT), "")


async def play_match(
    tmp: Path,
    commands: Sequence[Sequence[str]],
    config: MatchConfig | None = None,
    game: str = "gin_rummy",
    rules: dict[str, Any] | None = None,
    seed: int = 1,
    runtimes: list[MatchRuntime] | None = None,
) -> MatchResult:
    """One match between real bot processes through a real referee (its runtime is
    appended to ``runtimes`` when given)."""
    core = RefereeCore()
    address = f"unix:{tmp}/referee.sock"
    server = await start_server(core, [address])
    pool = BotPool(core, address, lambda name: f"{seed}-{name}")
    try:
        bots = [await pool.acquire(entrant(f"bot{i}", c)) for i, c in enumerate(commands)]
        runtime, _ = core.create_match(
            game,
            SHORT_GIN if rules is None else rules,
            len(commands),
            seed,
            [b.token for b in bots],
            names=[f"bot{i}" for i in range(len(commands))],
            config=config or MatchConfig(move_seconds=5.0),
            start_timeout=30.0,
        )
        if runtimes is not None:
            runtimes.append(runtime)
        return await asyncio.wait_for(runtime.wait(), 180)
    finally:
        await pool.close()
        await server.stop(0)
