"""`arena serve` as a separate process: admin RPCs, seat tokens for remote bots, match
status, and a spectator on Watch seeing public information only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.conftest import ADMIN

ROOT = Path(__file__).resolve().parents[2]


def test_admin_rpcs_need_the_admin_token(served: str) -> None:
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        with pytest.raises(grpc.RpcError) as denied:
            stub.CreateMatch(pb.CreateMatchRequest(game="gin_rummy", seats=2))
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as bad:
            stub.CreateMatch(
                pb.CreateMatchRequest(game="gin_rummy", seats=2, rules={"knock": "3"}),
                metadata=ADMIN,
            )
        assert (
            bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            and "unknown rule option knock" in bad.value.details()
        )
        games = stub.ListGames(pb.ListGamesRequest())
        gin = next(g for g in games.games if g.name == "gin_rummy")
        assert (gin.min_seats, gin.max_seats) == (2, 2)
        assert {"knock_limit", "target_score", "max_hands"} <= {o.name for o in gin.options}


def test_remote_bots_play_a_created_match_while_a_spectator_watches(served: str) -> None:
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        created = stub.CreateMatch(
            pb.CreateMatchRequest(
                game="gin_rummy", seats=2, seed=5, rules={"max_hands": "2"}, names=["x", "y"]
            ),
            metadata=ADMIN,
        )
        assert len(created.seat_tokens) == 2 and len(set(created.seat_tokens)) == 2
        watch = stub.Watch(pb.WatchRequest(match_id=created.match_id))
        bots = [
            subprocess.Popen(
                [sys.executable, "-m", "sample_bots.random_bot"],
                cwd=ROOT,
                env={**os.environ, "ARENA_TARGET": served, "ARENA_TOKEN": token},
            )
            for token in created.seat_tokens
        ]
        seen = list(watch)
        status = stub.MatchStatus(pb.MatchStatusRequest(match_id=created.match_id))
        for _ in range(50):
            if status.state == "over":
                break
            time.sleep(0.1)
            status = stub.MatchStatus(pb.MatchStatusRequest(match_id=created.match_id))
        exits = [bot.wait(30) for bot in bots]  # seat tokens end with their match
        # A finished match's feed is rebuilt from its replay: the same messages as live.
        again = list(stub.Watch(pb.WatchRequest(match_id=created.match_id)))
    assert exits == [0, 0]
    assert [m.SerializeToString(deterministic=True) for m in again] == [
        m.SerializeToString(deterministic=True) for m in seen
    ]
    assert status.state == "over" and status.decisions > 0 and len(status.result.ranks) == 2
    assert seen[0].match_start.game == "gin_rummy" and seen[0].match_start.seat == -1
    assert seen[-1].match_over.reason == "finished"
    views = [m.view.gin_rummy for m in seen if m.HasField("view")]
    assert views and all(v.seat == -1 for v in views)
    texts = [e.text for m in seen for e in m.events]
    assert texts and not any(t.startswith("you ") for t in texts)
