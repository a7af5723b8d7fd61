"""A process of a bot never plays a deal it may know. Two processes of one bot alive at
once can pass what they saw (a futex on a shared read-only file: a red-team bot read its
opponent's hand so), and a process told to go lived on for its grace beside its
replacement. So a deal played again goes to a process that was not alive while any
process of the bot played it, and every idle process that was is gone before it starts."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.bots import BotPool, BotProcess
from referee.service import RefereeCore, start_server
from tests.service.conftest import RANDOM_BOT, entrant


def test_a_deal_played_again_goes_to_a_process_that_never_lived_beside_it(
    tmp_path: Path,
) -> None:
    async def scenario() -> list[tuple[str, bool, bool]]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1")
        bot = entrant("x", RANDOM_BOT)
        seen: list[tuple[str, bool, bool]] = []

        def note(name: str, process: BotProcess, others: list[BotProcess]) -> None:
            gone = all(o.process.returncode is not None for o in others)
            seen.append((name, any(process is o for o in others), gone))

        try:
            first = await pool.acquire(bot, deal=1)
            beside = await pool.acquire(bot, deal=2)  # alive while deal 1 is played
            pool.release(first)
            pool.release(beside)
            again = await pool.acquire(bot, deal=1)
            note("deal 1 again", again, [first, beside])
            other = await pool.acquire(bot, deal=3)  # a new deal: a new process beside
            pool.release(other)
            pool.release(again)
            reused = await pool.acquire(bot, deal=4)  # neither knows deal 4: one is reused
            seen.append(("deal 4", reused in (again, other), True))
            # What busy processes know passes to one started beside them: both know deal
            # 3 (one played it, the other lived beside that), and `late` starts while both
            # are in matches of other deals.
            idle = other if reused is again else again
            both = [reused, await pool.acquire(bot, deal=6)]
            assert both[1] is idle  # reused: it knows neither 6 nor anything but 1, 3, 4
            late = await pool.acquire(bot, deal=7)
            for process in [*both, late]:
                pool.release(process)
            again_3 = await pool.acquire(bot, deal=3)
            note("deal 3 again", again_3, [*both, late])
            return seen
        finally:
            await pool.close()
            await server.stop(0)

    assert asyncio.run(scenario()) == [
        ("deal 1 again", False, True),
        ("deal 4", True, True),
        ("deal 3 again", False, True),
    ]
