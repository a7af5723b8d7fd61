"""The SDK reconnects after the connection drops, and the referee picks the seat up where
it was: the current MatchStart and the pending Turn are sent again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.bots import BotPool
from referee.match import MatchConfig, MatchResult
from referee.replay import parse_replay, verify_replay
from referee.service import RefereeCore, start_server
from tests.service.conftest import RANDOM_BOT, entrant


def test_bots_reconnect_after_the_server_drops_every_connection(tmp_path: Path) -> None:
    async def scenario() -> tuple[MatchResult, int]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "3")
        bots = [await pool.acquire(entrant(f"bot{i}", RANDOM_BOT)) for i in range(2)]
        runtime, _ = core.create_match(
            "gin_rummy",
            {"max_hands": "3"},
            2,
            9,
            [b.token for b in bots],
            config=MatchConfig(move_seconds=10.0),
            start_timeout=30.0,
        )
        while runtime.driver is None or runtime.driver.decisions < 20:
            await asyncio.sleep(0.01)
        await server.stop(0)  # every stream breaks mid-match
        await asyncio.sleep(0.3)
        server = await start_server(core, [address])
        result = await asyncio.wait_for(runtime.wait(), 120)
        alive = sum(1 for b in bots if b.process.returncode is None)
        await pool.close()
        await server.stop(0)
        return result, alive

    result, alive = asyncio.run(scenario())
    assert alive == 2  # the same processes carried on
    assert result.reason == "finished" and not result.faults
    assert verify_replay(parse_replay(result.replay)).ok
