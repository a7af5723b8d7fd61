"""Watch under load, over real gRPC: many spectators of a finished match share one feed
built once, a live match beside them is not held up, and Watch streams past the caps
are refused with RESOURCE_EXHAUSTED."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import grpc
import pytest

from arena.bots import BotPool
from referee.match import MatchConfig, MatchResult
from referee.matchspec import MAX_MATCH_SECONDS
from referee.service import RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.service.conftest import RANDOM_BOT, entrant

WATCHERS = 30


def test_spectators_of_a_finished_match_share_one_feed_built_once(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[list[bytes]], int, MatchResult]:
        core = RefereeCore(watchers_per_peer=WATCHERS)
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        pool = BotPool(core, address, lambda name: "1")
        try:
            bots = [await pool.acquire(entrant(f"bot{i}", RANDOM_BOT)) for i in range(4)]
            config = MatchConfig(move_seconds=2.0)
            finished, _ = core.create_match(
                "gin_rummy", {"max_hands": "4"}, 2, 1, [bots[0].token, bots[1].token],
                config=config, start_timeout=30.0,
            )  # fmt: skip
            await finished.wait()
            live, _ = core.create_match(
                "gin_rummy", {"max_hands": "4"}, 2, 2, [bots[2].token, bots[3].token],
                config=config, start_timeout=30.0,
            )  # fmt: skip
            async with grpc.aio.insecure_channel(address) as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
                request = pb.WatchRequest(match_id=finished.spec.match_id)

                async def watch() -> list[bytes]:
                    return [m.SerializeToString() async for m in stub.Watch(request)]

                feeds = await asyncio.gather(*(watch() for _ in range(WATCHERS)))
            return feeds, finished.spectators.rebuilds, await asyncio.wait_for(live.wait(), 120)
        finally:
            await pool.close()
            await server.stop(0)

    feeds, rebuilds, live = asyncio.run(scenario())
    assert rebuilds == 1
    assert len(feeds[0]) > 10 and all(feed == feeds[0] for feed in feeds)
    assert pb.WatchMessage.FromString(feeds[0][-1]).match_over.reason == "finished"
    assert live.reason == "finished" and not live.faults  # no seat was held past its deadline


@pytest.mark.parametrize(
    ("per_match", "per_peer", "refusal"),
    [(3, 100, "already has 3 watchers"), (100, 3, "3 Watch streams are open from unix")],
)
def test_watch_streams_past_the_caps_are_refused(
    tmp_path: Path, per_match: int, per_peer: int, refusal: str
) -> None:
    async def scenario() -> tuple[grpc.StatusCode, str]:
        core = RefereeCore(watchers_per_match=per_match, watchers_per_peer=per_peer)
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        # Nobody connects to its seats: the match waits, and its watchers with it.
        runtime, _ = core.create_match("gin_rummy", {}, 2, 1, [None, None], start_timeout=60)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            request = pb.WatchRequest(match_id=runtime.spec.match_id)
            open_calls = [stub.Watch(request) for _ in range(3)]
            for call in open_calls:
                assert (await call.read()).HasField("match_start")
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.Watch(request).read()
            for call in open_calls:
                call.cancel()
        await server.stop(0)
        assert runtime.task is not None
        runtime.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runtime.task
        return refused.value.code(), refused.value.details() or ""

    code, details = asyncio.run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and refusal in details


def test_a_watcher_may_ask_to_lag_a_day_at_most(tmp_path: Path) -> None:
    """A Watch asking to lag forever (1e9 s, inf) kept its place among the match's
    watchers, and the match in memory, for as long as it liked: five addresses of such
    calls shut every other spectator out. Past a day, or not a number, it is refused."""

    async def scenario() -> dict[float, grpc.StatusCode | None]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [address])
        runtime, _ = core.create_match("gin_rummy", {}, 2, 1, [None, None], start_timeout=60)
        answers: dict[float, grpc.StatusCode | None] = {}
        async with grpc.aio.insecure_channel(address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            # The start comes at once, whatever the delay: it was stamped 0 on the
            # monotonic clock (the machine's boot), so a delay longer than the machine's
            # uptime (here the match's own, up to the most a delay may be) held even it
            # back.
            slow, _ = core.create_match(
                "gin_rummy", {}, 2, 2, [None, None], start_timeout=60,
                spectator_delay=min(time.monotonic() + 3600, MAX_MATCH_SECONDS),
            )  # fmt: skip
            start = await asyncio.wait_for(
                stub.Watch(pb.WatchRequest(match_id=slow.spec.match_id)).read(), 30
            )
            assert start.HasField("match_start")
            for delay in (0.0, 86_400.0, 86_400.5, 1e9, float("inf"), float("nan"), -1.0):
                call = stub.Watch(
                    pb.WatchRequest(match_id=runtime.spec.match_id, delay_seconds=delay)
                )
                try:
                    assert (await call.read()).HasField("match_start")
                    answers[delay] = None
                except grpc.aio.AioRpcError as exc:
                    answers[delay] = exc.code()
                    assert "delay_seconds must be a finite number from 0 to 86400" in (
                        exc.details() or ""
                    )
                call.cancel()
        await server.stop(0)
        for match in (runtime, slow):
            assert match.task is not None
            match.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await match.task
        return answers

    answers = asyncio.run(scenario())
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    assert [answers[d] for d in (0.0, 86_400.0, 86_400.5, 1e9, float("inf"), -1.0)] == [
        None, None, invalid, invalid, invalid, invalid
    ]  # fmt: skip
    assert [code for delay, code in answers.items() if delay != delay] == [invalid]  # NaN
