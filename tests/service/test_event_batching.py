"""Events a seat may see wait for company: a Turn takes them along, or they go on their own
once they are old enough, never later than EVENT_FLUSH_SECONDS."""

from __future__ import annotations

import asyncio

from referee.service import EVENT_FLUSH_SECONDS, EventBatcher, PlayerSession
from referee.v1 import referee_pb2 as pb


def notice(text: str) -> list[pb.EventNotice]:
    return [pb.EventNotice(match_id="m", kind="test", text=text)]


def test_held_events_are_sent_on_their_own_when_no_turn_takes_them() -> None:
    async def scenario() -> tuple[list[str], float]:
        session = PlayerSession("token", "bot", EventBatcher())
        conn = session.attach()
        loop = asyncio.get_running_loop()
        held_at = loop.time()
        session.add_events(notice("first"))
        session.add_events(notice("second"))
        item = await asyncio.wait_for(conn.get(), 5 * EVENT_FLUSH_SECONDS)
        assert item is not None
        message = pb.RefereeMessage.FromString(item[0])
        return [e.text for e in message.events.events], loop.time() - held_at

    texts, waited = asyncio.run(scenario())
    assert texts == ["first", "second"]  # one message, in order
    assert waited >= EVENT_FLUSH_SECONDS / 2  # they waited for company first


def test_a_turn_takes_held_events_and_nothing_is_sent_twice() -> None:
    async def scenario() -> tuple[list[str], int]:
        batcher = EventBatcher()
        taker = PlayerSession("a", "taker", batcher)
        waiter = PlayerSession("b", "waiter", batcher)
        taker_conn, waiter_conn = taker.attach(), waiter.attach()
        taker.add_events(notice("for the turn"))
        waiter.add_events(notice("on its own"))
        taken = [e.text for e in taker.take_events()]
        await asyncio.sleep(3 * EVENT_FLUSH_SECONDS)
        assert len(taker_conn) == 0  # the Turn carried them: no separate message
        item = await waiter_conn.get()
        assert item is not None
        message = pb.RefereeMessage.FromString(item[0])
        assert message.events.events[0].text == "on its own"
        return taken, len(waiter_conn)

    taken, left = asyncio.run(scenario())
    assert taken == ["for the turn"]
    assert left == 0
