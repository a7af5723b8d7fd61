"""A hostile bot for the security tests: it tries every way to cheat it can think of
without breaking the rules of the game, reports on stderr (one ``SPY {json}`` line) and
then plays random legal moves.

``python spy.py DATABASE OUTSIDE_FILE TCP_PORT``: the arena's database, a file outside the
bot's directory, and a loopback TCP port the test listens on.

What it tries: other processes' ARENA_TOKEN (from /proc/*/environ) and a forged token; the
admin RPCs of the referee it plays on, without a token; watching the other matches of its
tournament (every table of a round plays its deal) and its own, and asking their status;
reading the database and the outside file; a TCP connection to the port; the system calls
that reach across sandboxes (bots/kernel_probe.py, beside it); and rebuilding its
first deal from ARENA_BOT_SEED, seeds 0 and 1, and the schedule's seed functions, old and
new.
"""

from __future__ import annotations

import json
import os
import platform
import random
import socket
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import grpc

from referee.client import run_bot
from referee.game import get_game, parse_rules
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

database, outside, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
report: dict[str, Any] = {}
rng = random.Random()


def steal_tokens() -> None:
    own = os.environ.get("ARENA_TOKEN", "")
    found, pids = set(), 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pids += 1
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        for item in env:
            if item.startswith(b"ARENA_TOKEN=") and item[12:].decode() != own:
                found.add(item[12:].decode())
    report["processes_seen"] = pids
    report["tokens_stolen"] = len(found)


def rpc_code(call: Any) -> str:
    try:
        call()
    except grpc.RpcError as exc:
        return str(exc.code().name)
    return "OK"


def probe_referee() -> None:
    with grpc.insecure_channel(os.environ["ARENA_TARGET"]) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        report["create_match"] = rpc_code(
            lambda: stub.CreateMatch(pb.CreateMatchRequest(game="gin_rummy", seats=2), timeout=10)
        )
        report["issue_token"] = rpc_code(
            lambda: stub.IssuePlayerToken(pb.IssuePlayerTokenRequest(name="x"), timeout=10)
        )
        forged = iter([pb.BotMessage(hello=pb.Hello(token="forged-" + os.urandom(8).hex()))])
        replies = stub.Play(forged, timeout=10)
        try:
            first = next(iter(replies))
            report["forged_token"] = first.WhichOneof("kind") + ":" + first.error.code
        except grpc.RpcError as exc:
            report["forged_token"] = str(exc.code().name)


def watch_tables(own: str) -> None:
    """Watch every match of the tournament by its guessable id (``t<N>-<index>``), and ask
    for its status (who is to act, the decisions so far, a finished table's result)."""
    prefix = own.rsplit("-", 1)[0]
    codes, status = {}, {}
    with grpc.insecure_channel(os.environ["ARENA_TARGET"]) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        for idx in range(4):
            match_id = f"{prefix}-{idx:05d}"
            stream = stub.Watch(pb.WatchRequest(match_id=match_id), timeout=5)
            codes[match_id] = rpc_code(lambda s=stream: next(iter(s)))
            request = pb.MatchStatusRequest(match_id=match_id)
            status[match_id] = rpc_code(lambda r=request: stub.MatchStatus(r, timeout=5))
    report["watch"] = codes
    report["status"] = status


def read_files() -> None:
    for label, path in (
        ("database", database),
        ("database_wal", database + "-wal"),
        ("outside_file", outside),
    ):
        try:
            with open(path, "rb") as f:
                report[label] = f"read {len(f.read(100))} bytes"
        except OSError as exc:
            report[label] = type(exc).__name__
    try:  # where submitted bots are unpacked: other authors' code
        report["submitted_bots"] = sorted(os.listdir(database + ".bots"))
    except OSError as exc:
        report["submitted_bots"] = type(exc).__name__
    report["root_listing"] = sorted(os.listdir("/"))


def connect_out() -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            report["tcp"] = "connected"
    except OSError as exc:
        report["tcp"] = type(exc).__name__


def old_match_seed(tournament_seed: Any, deal: int) -> int:
    return random.Random(f"arena/{tournament_seed}/{deal}").getrandbits(63)


def candidate_seeds() -> list[int]:
    bot_seed = os.environ.get("ARENA_BOT_SEED", "0")
    seeds = {0, 1, 2}
    if bot_seed.isdigit():
        seeds.add(int(bot_seed))
    for base in (0, 1, 2, 2026, bot_seed, bot_seed.split("-")[0]):
        seeds.update(old_match_seed(base, deal) for deal in range(4))
    try:
        from arena.schedule import deal_seed, tournament_secret
    except ImportError:
        report["arena_importable"] = False  # the arena is not in its sandbox: rebuild by hand
        import hashlib
        import hmac

        def tournament_secret(seed: int | None = None) -> bytes:
            return hashlib.sha256(f"card-arena/tournament-seed/{seed}".encode()).digest()

        def deal_seed(secret: bytes, deal: int) -> int:
            digest = hmac.new(secret, f"deal/{deal}".encode(), hashlib.sha256).digest()
            return int.from_bytes(digest[:8], "big") >> 1

    for base in (0, 1, 2, 2026):
        seeds.update(deal_seed(tournament_secret(base), deal) for deal in range(4))
    if bot_seed.isdigit():
        seeds.update(deal_seed(tournament_secret(int(bot_seed)), d) for d in range(4))
        seeds.update(deal_seed(bot_seed.encode(), d) for d in range(4))
    return sorted(seeds)


start: pb.MatchStart | None = None
oracle_done = False


def rebuild_deal(hand: set[str]) -> None:
    assert start is not None
    engine = get_game(start.game)
    rules = parse_rules(engine.Rules, dict(start.rules))
    best = 0
    for seed in candidate_seeds():
        state = engine.initial_state(rules, start.seats, seed)
        for seat in range(start.seats):
            predicted = {c.code for c in engine.observation(state, seat).hand}
            best = max(best, len(predicted & hand))
    report["deal_cards_matched"] = best  # of its 10: a rebuilt deal matches all of them
    report["hand_size"] = len(hand)


def choose(observation: Any, legal: Sequence[str]) -> str:
    global oracle_done
    if not oracle_done:
        oracle_done = True
        rebuild_deal({c.code for c in observation.hand})
        assert start is not None
        watch_tables(start.match_id)
        print("SPY " + json.dumps(report, sort_keys=True), file=sys.stderr, flush=True)
    return rng.choice(legal)


def on_start(message: pb.MatchStart) -> None:
    global start
    start = message


def ask_the_kernel() -> None:
    """The calls that reach across sandboxes (kernel_probe.py), as the arena launched it."""
    if platform.machine() != "x86_64":
        return
    if TYPE_CHECKING:  # mypy checks this file in the tests package; a bot runs here
        from tests.security.bots.kernel_probe import each_call
    else:
        from kernel_probe import each_call  # beside this file

    report["kernel"] = each_call()


steal_tokens()
probe_referee()
read_files()
connect_out()
ask_the_kernel()
run_bot(choose, name="spy", on_match_start=on_start)
