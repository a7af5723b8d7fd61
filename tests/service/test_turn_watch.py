"""A session tells whoever watches its turns when it begins to owe a decision and when it
owes none again: the arena lowers a bot's CPU weight between its turns by it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.bots import BotPool
from referee.match import MatchConfig
from referee.service import RefereeCore, start_server
from referee.service.batching import EventBatcher
from referee.service.sessions import PlayerSession
from tests.service.conftest import RANDOM_BOT, SHORT_GIN, entrant


def test_each_turn_is_told_as_it_begins_and_as_it_ends(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[tuple[int, bool, int]], list[int], list[int]]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: f"1-{name}")
        told: list[tuple[int, bool, int]] = []  # (seat, on turn, decisions asked of it so far)
        asked = [0, 0]
        try:
            bots = [await pool.acquire(entrant(f"bot{i}", RANDOM_BOT)) for i in range(2)]
            runtime, _ = core.create_match(
                "gin_rummy", SHORT_GIN, 2, 1, [b.token for b in bots],
                config=MatchConfig(move_seconds=5.0), start_timeout=30.0,
            )  # fmt: skip
            sessions = [core.session(b.token) for b in bots]
            for seat, session in enumerate(sessions):
                assert session is not None
                original = session.send

                def send(message, turn_id=0, seat=seat, original=original):  # type: ignore[no-untyped-def]
                    if message.HasField("turn"):
                        asked[seat] += 1
                        # the watcher heard of this turn before the bot could
                        assert told[-1][:2] == (seat, True)
                    original(message, turn_id)

                session.send = send  # type: ignore[method-assign]

                def heard(on: bool, seat: int = seat) -> None:
                    told.append((seat, on, asked[seat]))

                session.watch_turns(heard)
            result = await asyncio.wait_for(runtime.wait(), 180)
            assert not result.faults
            return told, asked, [s.turns for s in sessions if s is not None]
        finally:
            await pool.close()
            await server.stop(0)

    told, asked, owed = asyncio.run(scenario())
    assert told[:2] == [(0, False, 0), (1, False, 0)]  # told at once: no turn yet
    assert owed == [0, 0]
    for seat in (0, 1):
        mine = [(on, n) for s, on, n in told[2:] if s == seat]
        if mine[0] == (False, 0):  # told again as its bot connected, if it had not yet
            mine.pop(0)
        # on, off, on, off ...: each turn told once as it began and once as it ended
        assert [on for on, _ in mine] == [True, False] * asked[seat]
        assert [n for on, n in mine if on] == list(range(asked[seat]))
    assert sum(asked) > 20
    # gin asks one seat at a time: never both on turn
    on_turn: set[int] = set()
    for seat, on, _ in told[2:]:
        (on_turn.add if on else on_turn.discard)(seat)
        assert len(on_turn) <= 1


def test_a_session_is_told_again_as_it_connects() -> None:
    """The arena keeps a process that is still starting at full weight: it is told when
    the process connects (and on a reconnect), with whether a turn is owed."""
    session = PlayerSession("token", "bot", EventBatcher())
    told: list[bool] = []
    session.watch_turns(told.append)
    session.attach()
    session.turn_begins()
    session.attach()  # a reconnect mid-turn
    session.turn_ends()
    session.watch_turns(None)
    session.attach()
    assert told == [False, False, True, True, False]
