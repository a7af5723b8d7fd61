"""`arena watch` against a real referee (`arena serve`) while real bot processes play:
public information only, the configured delay, and clear errors."""

from __future__ import annotations

import subprocess
import sys
import time

import grpc

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.conftest import ADMIN, ADMIN_TOKEN, dies_with_tests, random_bots, serving
from tests.watching.helpers import ROOT

ARENA = [sys.executable, "-m", "arena.cli"]


def test_watch_follows_a_live_match_with_public_information_only(served: str) -> None:
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        created = stub.CreateMatch(
            pb.CreateMatchRequest(
                game="gin_rummy",
                seats=2,
                seed=9,
                rules={"max_hands": "2"},
                names=["north", "south"],
                spectator_delay_seconds=0.3,
            ),
            metadata=ADMIN,
        )
    watcher = subprocess.Popen(
        [
            *dies_with_tests(),
            *ARENA,
            "watch",
            created.match_id,
            "--target",
            served,
            "--delay",
            "1.5",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    bots = random_bots(served, created.seat_tokens)
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        deadline = time.monotonic() + 120
        while stub.MatchStatus(pb.MatchStatusRequest(match_id=created.match_id)).state != "over":
            assert time.monotonic() < deadline, "the match did not finish"
            time.sleep(0.02)
    over = time.monotonic()
    out, errors = watcher.communicate(timeout=120)
    behind = time.monotonic() - over
    assert [bot.wait(30) for bot in bots] == [0, 0]
    assert watcher.returncode == 0, errors
    lines = out.splitlines()
    assert lines[0].startswith(f"watching gin_rummy match {created.match_id}")
    assert "seat 0: north, seat 1: south" in lines[0] and "max_hands=2" in lines[0]
    events = [line[2:] for line in lines if line.startswith("· ")]
    assert any("deals" in e for e in events) and any("discards" in e for e in events)
    assert not any(e.startswith("you ") or " you " in e for e in events)  # no private texts
    assert "  public view:" in lines and "  changed:" in lines
    assert "  seat: -1" in lines and "  hand: -" in lines  # a spectator's view: no hand
    assert lines[-3] == "■ finished"
    assert lines[-2].startswith("  seat 0 (north): score") and lines[-1].startswith(
        "  seat 1 (south)"
    )
    assert behind >= 1.2  # the requested delay (1.5 s) holds the stream back


def test_watch_errors(served: str) -> None:
    unknown = subprocess.run(
        [*ARENA, "watch", "nope", "--target", served],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert unknown.returncode == 2 and "has no match 'nope'" in unknown.stderr
    nobody = subprocess.run(
        [*ARENA, "watch", "m1", "--target", "127.0.0.1:9"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert nobody.returncode == 2 and "cannot reach a referee at 127.0.0.1:9" in nobody.stderr
    for delay in ("86401", "nan", "-1"):  # the referee refuses those too (INVALID_ARGUMENT)
        late = subprocess.run(
            [*ARENA, "watch", "m1", "--target", served, "--delay", delay],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert late.returncode == 2 and "--delay must be from 0 to 86400" in late.stderr


def test_watch_on_a_referee_with_private_watch_takes_the_admin_token() -> None:
    with serving("--private-watch") as address, grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        created = stub.CreateMatch(
            pb.CreateMatchRequest(game="gin_rummy", seats=2, seed=4, rules={"max_hands": "1"}),
            metadata=ADMIN,
        )
        watch = [*ARENA, "watch", created.match_id, "--target", address]
        refused = subprocess.run(watch, cwd=ROOT, capture_output=True, text=True, timeout=60)
        bots = random_bots(address, created.seat_tokens)
        allowed = subprocess.run(
            [*watch, "--admin-token", ADMIN_TOKEN],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert [bot.wait(30) for bot in bots] == [0, 0]
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"error: the referee at {address} serves Watch only with its admin token "
        "(--admin-token or ARENA_ADMIN_TOKEN)"
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "■ finished" in allowed.stdout.splitlines()
