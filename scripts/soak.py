"""A bounded hostile soak of the referee, and a Watch benchmark.

Soak (the default): a live tournament of random bots runs for ``--seconds`` quietly, then
for ``--seconds`` more beside hostile clients on the same referee (a second socket):
flooders that send Actions as fast as they can and never read, stallers that take a seat
and never answer, fuzzers that send random bytes, and watchers that follow live and
finished matches. It prints, for both phases side by side, the honest seats' p50/p99
turn latency (from the replays: the referee's time from sending a Turn to receiving the
answer), the referee process's peak memory and CPU, and the faults recorded. Everything
is local (Unix sockets in a temporary folder) and bounded in count and time.

Watch benchmark (``--watch-bench``): a referee process holds one long finished Gin
match; 20, then 100, watchers follow it at once while a client polls MatchStatus. It
prints the referee's CPU per watcher per step streamed and the worst MatchStatus latency.

Usage: scripts/soak [--seconds 30] [--matches 4] [--flooders 2] [--stallers 2]
                    [--fuzzers 2] [--watchers 8]
       scripts/soak --watch-bench [--watchers-list 20,100]
Not part of the test suite: it takes minutes and measures, it does not assert.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.v1 import referee_pb2 as pb  # noqa: E402
from referee.v1 import referee_pb2_grpc  # noqa: E402

PY = sys.executable
RANDOM_BOT = [PY, "-m", "sample_bots.random_bot"]
FLOODER = [PY, "-m", "tests.service.bots.flooder"]
STALLER = [PY, "-m", "tests.service.bots.misbehaving", "slow", "1", "100000"]


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---- hostile clients (each runs as its own process) --------------------------------


async def fuzz(address: str, count: int, seed: int) -> None:
    """Random bytes on Play (with and without a Hello first), random Watch and status
    requests: every one must be refused cleanly."""
    rng = random.Random(seed)
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream("/referee.v1.Referee/Play", None, None)
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        for _ in range(count):
            blobs = [rng.randbytes(rng.choice((0, 3, 40, 600, 70_000))) for _ in range(3)]
            if rng.random() < 0.5:
                hello = pb.BotMessage(hello=pb.Hello(token=rng.randbytes(12).hex()))
                blobs.insert(0, hello.SerializeToString())
            with contextlib.suppress(grpc.RpcError):
                call = play(iter(blobs), timeout=5)
                async for _reply in call:
                    pass
            with contextlib.suppress(grpc.RpcError):
                await stub.MatchStatus(pb.MatchStatusRequest(match_id=rng.randbytes(4).hex()))


async def watch_forever(address: str, ids_file: str, watchers: int, seed: int) -> None:
    """``watchers`` spectators, each following a random known match again and again."""
    rng = random.Random(seed)

    async def one(stub: Any) -> None:
        while True:
            ids = Path(ids_file).read_text().split() if Path(ids_file).exists() else []
            if not ids:
                await asyncio.sleep(0.5)
                continue
            with contextlib.suppress(grpc.RpcError):
                async for _m in stub.Watch(pb.WatchRequest(match_id=rng.choice(ids))):
                    pass
            await asyncio.sleep(0.05)

    async with grpc.aio.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        await asyncio.gather(*(one(stub) for _ in range(watchers)))


# ---- the soak ------------------------------------------------------------------------


async def soak(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from arena import runner
    from arena.bots import BotPool
    from arena.settings import TournamentSettings
    from arena.store import Entrant, Store
    from referee.match import MatchConfig
    from referee.service import RefereeCore, start_server

    store = Store(tmp / "soak.db")
    for name in ("random0", "random1"):
        store.add_entrant(name, ["*"], RANDOM_BOT, str(ROOT))
    core = RefereeCore()
    hostile_address = f"unix:{tmp}/hostile.sock"
    hostile_server = await start_server(core, [hostile_address])
    hostile_pool = BotPool(core, hostile_address, lambda name: "5")
    ids_file = tmp / "match-ids.txt"
    me = os.getpid()
    phases: dict[str, Any] = {}
    for phase in ("quiet", "hostile"):
        settings = TournamentSettings(
            "gin_rummy",
            ("random0", "random1"),
            {"max_hands": "2"},
            rounds=10_000,
            seed=len(phases) + 1,
            concurrency=args.matches,
            move_seconds=2.0,
        )
        record = runner.create_tournament(store, settings)
        helpers: list[subprocess.Popen[bytes]] = []
        hostile_matches: list[Any] = []
        stop = asyncio.Event()

        async def attack(stop: asyncio.Event, hostile_matches: list[Any]) -> None:
            """Seat flooders and stallers in matches of their own, again and again."""
            kinds = [("flooder", FLOODER)] * args.flooders + [("staller", STALLER)] * args.stallers
            while not stop.is_set():
                for kind, command in kinds:
                    bot = await hostile_pool.acquire(
                        Entrant(kind, ("*",), tuple(command), str(ROOT), "")
                    )
                    runtime, _ = core.create_match(
                        "gin_rummy", {"max_hands": "2"}, 2, random.randrange(1 << 30),
                        [bot.token, None], config=MatchConfig(move_seconds=2.0), start_timeout=2.0,
                    )  # fmt: skip
                    hostile_matches.append((runtime, bot))
                with ids_file.open("a") as f:
                    f.write(
                        "".join(f"{r.spec.match_id}\n" for r, _ in hostile_matches[-len(kinds) :])
                    )
                await asyncio.sleep(2.0)
                for runtime, bot in hostile_matches:
                    if runtime.done.is_set() and bot.process.returncode is None:
                        bot.process.kill()  # one match each: never handed out again

        if phase == "hostile":
            for i in range(args.fuzzers):
                helpers.append(
                    subprocess.Popen(
                        [PY, __file__, "--role", "fuzzer", hostile_address, "400", str(i)]
                    )
                )
            if args.watchers:
                helpers.append(subprocess.Popen(
                    [PY, __file__, "--role", "watchers", hostile_address, str(ids_file), str(args.watchers)]
                ))  # fmt: skip
        cpu0, peak = cpu_seconds(me), rss_mb(me)
        task = asyncio.get_running_loop().create_task(
            runner.run_tournament(store, record.id, core=core)
        )
        attacker = (
            asyncio.get_running_loop().create_task(attack(stop, hostile_matches))
            if phase == "hostile"
            else None
        )
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            await asyncio.sleep(0.25)
            peak = max(peak, rss_mb(me))
            # the tournament's own match ids, for watchers to follow live
            if phase == "hostile":
                live = [m for m in core.matches if m.startswith(f"t{record.id}-")]
                with ids_file.open("a") as f:
                    f.write("".join(f"{m}\n" for m in live[-2:]))
        stop.set()
        for helper in helpers:
            helper.kill()
            helper.wait()
        if attacker is not None:
            attacker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await attacker
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        cpu = cpu_seconds(me) - cpu0
        latencies, decisions = [], 0
        honest_faults: Counter[str] = Counter()
        for match in store.matches(tournament_id=record.id, limit=100_000):
            for line in store.replay_text(match["id"]).splitlines():
                entry = json.loads(line)
                if entry.get("type") == "decision":
                    latencies.append(float(entry["ms"]))
                    decisions += 1
                elif entry.get("type") == "fault":
                    honest_faults[entry["kind"]] += 1
        hostile_faults = Counter(
            f.kind for r, _ in hostile_matches if r.result for f in r.result.faults
        )
        phases[phase] = {
            "honest decisions": decisions,
            "honest p50 ms": percentile(latencies, 0.5),
            "honest p99 ms": percentile(latencies, 0.99),
            "honest faults": dict(honest_faults),
            "hostile matches": len(hostile_matches),
            "hostile faults": dict(hostile_faults),
            "referee peak RSS MB": peak,
            "referee CPU s": cpu,
            "referee CPU per honest decision us": cpu / max(decisions, 1) * 1e6,
        }
    await hostile_pool.close()
    await hostile_server.stop(0)
    phases["referee max RSS MB (getrusage)"] = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    )
    store.close()
    return phases


# ---- Watch benchmark -----------------------------------------------------------------


async def referee_for_watch(address: str, ready_file: str) -> None:
    """A referee process holding one long finished match; writes its id when ready."""
    from arena.bots import BotPool
    from arena.store import Entrant
    from referee.match import MatchConfig
    from referee.service import RefereeCore, start_server

    core = RefereeCore(watchers_per_match=1000, watchers_per_peer=1000)
    server = await start_server(core, [address])
    pool = BotPool(core, address, lambda name: "3")
    bots = [
        await pool.acquire(Entrant(f"r{i}", ("*",), tuple(RANDOM_BOT), str(ROOT), ""))
        for i in range(2)
    ]
    runtime, _ = core.create_match(
        "gin_rummy", {}, 2, 11, [b.token for b in bots], config=MatchConfig(move_seconds=10.0)
    )
    await runtime.wait()
    await pool.close()
    Path(ready_file).write_text(
        f"{runtime.spec.match_id} {runtime.driver.decisions if runtime.driver else 0}"
    )
    await server.wait_for_termination()


async def watch_bench(counts: list[int], tmp: Path) -> dict[str, Any]:
    address = f"unix:{tmp}/watch.sock"
    ready = tmp / "ready"
    referee = subprocess.Popen([PY, __file__, "--role", "watch-referee", address, str(ready)])
    try:
        while not ready.exists():
            await asyncio.sleep(0.2)
        match_id, decisions = ready.read_text().split()
        results: dict[str, Any] = {"match decisions": int(decisions)}
        async with grpc.aio.insecure_channel(address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            request = pb.WatchRequest(match_id=match_id)
            for n in counts:
                steps: list[int] = []

                async def watcher(steps: list[int]) -> None:
                    count = 0
                    async for _m in stub.Watch(request):
                        count += 1
                    steps.append(count)

                cpu0 = cpu_seconds(referee.pid)
                stop_file = tmp / f"stop-{n}"
                # MatchStatus from a process of its own: the watchers' client is busy.
                poller = subprocess.Popen(
                    [PY, __file__, "--role", "status-poller", address, match_id, str(stop_file)],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                await asyncio.sleep(1.0)  # the poller is up
                began = time.monotonic()
                await asyncio.gather(*(watcher(steps) for _ in range(n)))
                elapsed = time.monotonic() - began
                stop_file.touch()
                worst = float(poller.communicate(timeout=30)[0])
                cpu = cpu_seconds(referee.pid) - cpu0
                results[f"{n} watchers"] = {
                    "steps each": steps[0],
                    "seconds": round(elapsed, 2),
                    "referee CPU s": round(cpu, 2),
                    "referee CPU per watcher per step us": round(cpu / (n * steps[0]) * 1e6, 2),
                    "worst MatchStatus ms": round(worst, 1),
                }
        results["referee RSS MB"] = round(rss_mb(referee.pid), 1)
        return results
    finally:
        referee.kill()
        referee.wait()


async def poll_status(address: str, match_id: str, stop_file: str) -> None:
    """MatchStatus every 20 ms until ``stop_file`` exists; prints the worst latency (ms)."""
    worst = 0.0
    async with grpc.aio.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        while not Path(stop_file).exists():
            began = time.perf_counter()
            await stub.MatchStatus(pb.MatchStatusRequest(match_id=match_id))
            worst = max(worst, time.perf_counter() - began)
            await asyncio.sleep(0.02)
    print(worst * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--matches", type=int, default=4, help="honest matches at once")
    parser.add_argument("--flooders", type=int, default=2)
    parser.add_argument("--stallers", type=int, default=2)
    parser.add_argument("--fuzzers", type=int, default=2)
    parser.add_argument("--watchers", type=int, default=8)
    parser.add_argument("--watch-bench", action="store_true")
    parser.add_argument("--watchers-list", default="20,100")
    parser.add_argument("--role", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        role, *rest = args.role
        if role == "fuzzer":
            asyncio.run(fuzz(rest[0], int(rest[1]), int(rest[2])))
        elif role == "watchers":
            asyncio.run(watch_forever(rest[0], rest[1], int(rest[2]), 1))
        elif role == "status-poller":
            asyncio.run(poll_status(rest[0], rest[1], rest[2]))
        elif role == "watch-referee":
            asyncio.run(referee_for_watch(rest[0], rest[1]))
        return
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        if args.watch_bench:
            counts = [int(n) for n in args.watchers_list.split(",")]
            figures = asyncio.run(watch_bench(counts, Path(tmp)))
        else:
            figures = asyncio.run(soak(args, Path(tmp)))
    print(json.dumps(figures, indent=2, default=str))


if __name__ == "__main__":
    main()
