"""The referee over real gRPC on loopback with real bot processes, including bots that
sleep, crash, send garbage, play illegal moves, and try to act for other seats."""

from __future__ import annotations

import asyncio
import secrets
import signal
from pathlib import Path

import grpc
import pytest
from google.protobuf import text_format

from arena.rendering import event_text
from referee import client
from referee.match import MatchConfig
from referee.replay import parse_replay, simulate, verify_replay
from referee.service import MatchRuntime, RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from referee.views import observation_message
from tests.service.conftest import PY, RANDOM_BOT, misbehaving, play_match


def verified(replay: str) -> None:
    report = verify_replay(parse_replay(replay))
    assert report.ok, report.mismatches


def test_a_finished_match_keeps_its_replay_not_every_state(tmp_path: Path) -> None:
    runtimes: list[MatchRuntime] = []
    result = asyncio.run(play_match(tmp_path, [RANDOM_BOT, RANDOM_BOT], runtimes=runtimes))
    feed = runtimes[0].spectators
    assert feed.entries == [] and feed.messages == []  # nobody watched: no state, no message

    async def rebuild() -> list[bytes]:  # what spectators arriving now follow
        return await feed.finished(result)

    rebuilt = [pb.WatchMessage.FromString(m) for m in asyncio.run(rebuild())]
    assert len(rebuilt) > 2 and rebuilt[-1].match_over.ranks == list(result.outcome.ranks)
    # one rebuilt step per live one, each at the time it happened (for spectator delays)
    assert len(feed.times) == len(rebuilt) and all(t > 0 for t in feed.times)


def test_two_random_bots_play_a_whole_match(tmp_path: Path) -> None:
    result = asyncio.run(play_match(tmp_path, [RANDOM_BOT, RANDOM_BOT]))
    assert result.reason == "finished" and not result.faults
    assert sorted(result.outcome.ranks) in ([1, 2], [1, 1])
    verified(result.replay)


def test_bot_that_sleeps_past_its_deadline_forfeits(tmp_path: Path) -> None:
    config = MatchConfig(move_seconds=0.5)
    result = asyncio.run(play_match(tmp_path, [misbehaving("slow", 2), RANDOM_BOT], config))
    assert result.reason == "forfeit" and result.forfeited == (0,)
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "timeout")]
    assert result.outcome.ranks == (2, 1)
    verified(result.replay)


def test_under_default_policy_a_timeout_is_a_strike_and_play_goes_on(tmp_path: Path) -> None:
    config = MatchConfig(move_seconds=0.5, fault_policy="default", max_strikes=3)
    # Stalls 0.8 s on its 2nd turn: misses that deadline, answers it late (ignored), and is
    # back in time for the next one.
    result = asyncio.run(play_match(tmp_path, [misbehaving("slow", 2, "0.8"), RANDOM_BOT], config))
    assert result.reason == "finished"
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "timeout")]
    decisions = parse_replay(result.replay).decisions
    assert [d["status"] for d in decisions].count("default:timeout") == 1
    verified(result.replay)


def test_sdk_answers_for_a_choose_that_overruns_its_deadline(tmp_path: Path) -> None:
    config = MatchConfig(move_seconds=1.0)
    result = asyncio.run(play_match(tmp_path, [misbehaving("slow_choose", 2), RANDOM_BOT], config))
    assert result.reason == "finished" and not result.faults
    slow = [d for d in parse_replay(result.replay).decisions if d["ms"] > 600]
    assert [d["seat"] for d in slow] == [0] and slow[0]["ms"] < 1000  # answered by the SDK in time


@pytest.mark.parametrize("seconds", [1e10, 1e300, float("inf"), float("nan"), -5.0])
def test_the_sdks_alarm_takes_whatever_time_a_turn_gives(seconds: float) -> None:
    """A Turn's seconds_left past about 9e9 overflowed setitimer, so the SDK never called
    choose() and played its fallback every turn; nan (no time) arms the shortest alarm."""
    rang: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda number, frame: rang.append(number))
    try:
        with client._deadline(seconds, armed=True):
            armed = signal.getitimer(signal.ITIMER_REAL)[0]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert rang or 0 < armed <= client.MOST_ALARM_SECONDS, armed  # or it rang already
    assert (armed > 1) == (seconds > 1)


def test_time_bank_absorbs_a_slow_move(tmp_path: Path) -> None:
    config = MatchConfig(move_seconds=0.5, time_bank_seconds=5.0)
    result = asyncio.run(play_match(tmp_path, [misbehaving("slow", 2), RANDOM_BOT], config))
    assert result.reason == "finished" and not result.faults


def test_bot_that_exits_mid_match_is_a_crash_fault(tmp_path: Path) -> None:
    result = asyncio.run(
        play_match(tmp_path, [RANDOM_BOT, misbehaving("crash", 3)], MatchConfig(move_seconds=30))
    )
    assert result.reason == "forfeit" and result.forfeited == (1,)
    assert len(result.faults) == 1
    fault = result.faults[0]
    assert fault.kind == "crash" and "exited with code 3" in fault.reason
    verified(result.replay)


def test_bot_that_sends_garbage_bytes_is_a_malformed_fault(tmp_path: Path) -> None:
    result = asyncio.run(
        play_match(tmp_path, [[PY, "-m", "tests.service.bots.garbage"], RANDOM_BOT])
    )
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "malformed")]
    assert result.forfeited == (0,)


def test_code_that_is_no_action_is_malformed(tmp_path: Path) -> None:
    result = asyncio.run(play_match(tmp_path, [RANDOM_BOT, misbehaving("malformed", 2)]))
    assert [(f.seat, f.kind) for f in result.faults] == [(1, "malformed")]


def test_illegal_actions_strike_until_forfeit(tmp_path: Path) -> None:
    config = MatchConfig(fault_policy="default", max_strikes=2)
    result = asyncio.run(play_match(tmp_path, [misbehaving("illegal", 3), RANDOM_BOT], config))
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "illegal"), (0, "illegal")]
    assert result.reason == "forfeit" and result.outcome.ranks == (2, 1)
    verified(result.replay)


def test_answers_with_other_request_ids_change_nothing(tmp_path: Path) -> None:
    config = MatchConfig(move_seconds=0.5)
    result = asyncio.run(
        play_match(tmp_path, [RANDOM_BOT, misbehaving("wrong_request", 2)], config)
    )
    assert [(f.seat, f.kind) for f in result.faults] == [(1, "timeout")]
    verified(result.replay)


def test_forged_token_is_refused(tmp_path: Path) -> None:
    async def scenario() -> list[pb.RefereeMessage]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        core.issue_player_token("real")
        async with grpc.aio.insecure_channel(address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            hello = pb.BotMessage(hello=pb.Hello(token=secrets.token_urlsafe(24)))
            replies = [m async for m in stub.Play(iter([hello]))]
        await server.stop(0)
        return replies

    replies = asyncio.run(scenario())
    assert len(replies) == 1 and replies[0].error.code == "unauthenticated"


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_receives_exactly_its_own_observations_and_event_texts(
    tmp_path: Path, seat: int
) -> None:
    """Wire-level leak test: every Turn carries exactly the engine's observation for this seat
    at that decision, and every event text is the one this seat may read."""
    log = tmp_path / "messages.txt"
    commands = [RANDOM_BOT, RANDOM_BOT]
    commands[seat] = [PY, "-m", "tests.service.bots.recorder", str(log)]
    result = asyncio.run(play_match(tmp_path, commands, rules={"max_hands": "3"}))
    received = [
        text_format.Parse(chunk, pb.RefereeMessage())
        for chunk in log.read_text().split("\n=====\n")
        if chunk.strip()
    ]
    turns = [m.turn for m in received if m.WhichOneof("kind") == "turn"]
    texts: list[str] = []  # events arrive batched on their own or with the next Turn
    for m in received:
        if m.WhichOneof("kind") in ("events", "turn"):
            texts.extend(
                e.text for e in (m.events.events if m.HasField("events") else m.turn.events)
            )
    assert all(t.seat == seat for t in turns)

    replay = parse_replay(result.replay)
    game, _, steps = simulate(replay)
    expected_views, expected_texts, state = [], [], None
    for step in steps:
        line = step.line
        if line["type"] == "decision" and line["seat"] == seat:
            expected_views.append(observation_message("gin_rummy", game.observation(state, seat)))
        if line["type"] == "event":
            expected_texts.append(event_text(line, seat))
        state = step.state
    assert [t.observation for t in turns] == expected_views
    assert texts == expected_texts
    assert any(line.get("private_text") for line in replay.lines), "the match had private events"
