"""Benchmarks for Card Arena, measured in one run so their ratios mean something.

1. A bare grpc.aio bidirectional ping-pong on loopback (a server process, client
   processes), at 1 and at N concurrent streams: the transport's ceiling.
2. A real tournament of random bots through the referee (bot processes over a Unix
   socket, N matches at once, results stored in SQLite): decisions/s and matches/s.
3. Each engine's random playouts in process: decisions/s.

Printed: the figures and the ratios DESIGN.md sets targets for (referee at N matches
>= 0.8 x ping-pong at N streams; every engine >= 3 x the referee's decisions/s).
Usage: scripts/bench [--streams 16] [--seconds 8] [--games gin_rummy,golf] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PING = "/bench.Ping/Pong"


# ---- 1. bare ping-pong -------------------------------------------------------------


def _ping_server(address: str, ready: mp.synchronize.Event) -> None:  # type: ignore[name-defined]
    async def pong(requests, context):  # type: ignore[no-untyped-def]
        async for payload in requests:
            yield payload

    async def main() -> None:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "bench.Ping", {"Pong": grpc.stream_stream_rpc_method_handler(pong)}
        )
        server.add_generic_rpc_handlers((handler,))
        server.add_insecure_port(address)
        await server.start()
        ready.set()
        await server.wait_for_termination()

    asyncio.run(main())


def _ping_client(address: str, streams: int, seconds: float, out: mp.Queue) -> None:  # type: ignore[type-arg]
    """Sync client (like the bot SDK), one thread per stream."""
    import threading

    counts = [0] * streams
    payload = b"x" * 200  # about a Turn's size
    stop_at = time.monotonic() + seconds

    def run(i: int) -> None:
        import queue

        with grpc.insecure_channel(address) as channel:
            call = channel.stream_stream(PING)
            q: queue.Queue[bytes | None] = queue.Queue()
            q.put(payload)

            def gen():  # type: ignore[no-untyped-def]
                while (item := q.get()) is not None:
                    yield item

            for _ in call(gen()):
                counts[i] += 1
                if time.monotonic() >= stop_at:
                    q.put(None)
                    break
                q.put(payload)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(sum(counts))


def ping_pong(streams: int, seconds: float, processes: int) -> float:
    """Round trips per second with ``streams`` streams spread over ``processes`` clients."""
    tmp = tempfile.mkdtemp(prefix="bench-")
    address = f"unix:{tmp}/ping.sock"
    ready = mp.Event()
    server = mp.Process(target=_ping_server, args=(address, ready), daemon=True)
    server.start()
    ready.wait(10)
    out: mp.Queue[int] = mp.Queue()
    per = [streams // processes + (1 if i < streams % processes else 0) for i in range(processes)]
    clients = [mp.Process(target=_ping_client, args=(address, n, seconds, out)) for n in per if n]
    start = time.monotonic()
    for c in clients:
        c.start()
    total = sum(out.get() for _ in clients)
    elapsed = time.monotonic() - start
    for c in clients:
        c.join()
    server.terminate()
    return total / elapsed


# ---- 2. the referee ------------------------------------------------------------------


def referee_tournament(game: str, matches_at_once: int, seconds: float) -> dict[str, float]:
    """A tournament of random bots through the real referee and store, measured for
    ``seconds`` after a warm-up in which the bot processes start."""
    from arena import runner
    from arena.store import Store
    from referee.service import RefereeCore

    with tempfile.TemporaryDirectory(prefix="bench-db-") as tmp:
        store = Store(Path(tmp) / "bench.db")
        names = ["random0", "random1"]
        for name in names:
            store.add_entrant(
                name, ["*"], [sys.executable, "-m", "sample_bots.random_bot"], str(ROOT)
            )
        record = runner.create_tournament(
            store,
            game,
            names,
            {},
            rounds=matches_at_once * 50,
            seed=7,
            concurrency=matches_at_once,
            seats=None,
            settings={
                "move_seconds": 10.0,
                "time_bank_seconds": 0.0,
                "fault_policy": "forfeit",
                "max_strikes": 3,
            },
        )
        core = RefereeCore()
        finished = {"matches": 0, "decisions": 0}

        def progress(p: runner.Progress) -> None:
            if p.result is not None:
                finished["matches"] += 1
                finished["decisions"] += p.result.decisions

        def decisions_now() -> int:
            live = sum(m.driver.decisions for m in core.matches.values() if m.driver is not None)
            return finished["decisions"] + live

        async def measure() -> tuple[float, int, int]:
            task = asyncio.get_running_loop().create_task(
                runner.run_tournament(store, record.id, progress, core=core)
            )
            await asyncio.sleep(3.0)  # warm-up: bot processes start and connect
            d0, m0, t0 = decisions_now(), finished["matches"], time.monotonic()
            await asyncio.sleep(seconds)
            d1, m1, t1 = decisions_now(), finished["matches"], time.monotonic()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            return t1 - t0, d1 - d0, m1 - m0

        elapsed, decisions, matches = asyncio.run(measure())
        store.close()
    return {"decisions_per_s": decisions / elapsed, "matches_per_s": matches / elapsed}


# ---- 3. engines ---------------------------------------------------------------------------


def engine_playouts(game_name: str, seconds: float) -> float:
    from referee.game import get_game

    game = get_game(game_name)
    rules = game.Rules()
    seats = game.seats(rules).start
    rng = random.Random(1)
    decisions = 0
    seed = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        state = game.initial_state(rules, seats, seed)
        seed += 1
        while (to_act := game.to_act(state)) and time.perf_counter() < deadline:
            seat = to_act[0]
            state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def main() -> None:
    from referee.game import game_names

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--streams", type=int, default=16, help="concurrent streams / matches")
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring time per figure")
    parser.add_argument("--games", default=",".join(game_names()), help="engines to measure")
    parser.add_argument(
        "--referee-game", default="gin_rummy", help="game of the referee tournament"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    results: dict[str, float] = {}
    results["pingpong_1_stream"] = ping_pong(1, args.seconds, 1)
    results[f"pingpong_{args.streams}_streams_1_process"] = ping_pong(args.streams, args.seconds, 1)
    results[f"pingpong_{args.streams}_streams_{args.streams}_processes"] = ping_pong(
        args.streams, args.seconds, args.streams
    )
    ref1 = referee_tournament(args.referee_game, 1, args.seconds)
    refn = referee_tournament(args.referee_game, args.streams, args.seconds)
    results["referee_1_match_decisions_per_s"] = ref1["decisions_per_s"]
    results[f"referee_{args.streams}_matches_decisions_per_s"] = refn["decisions_per_s"]
    results[f"referee_{args.streams}_matches_matches_per_s"] = refn["matches_per_s"]
    for name in [g for g in args.games.split(",") if g]:
        results[f"engine_{name}_decisions_per_s"] = engine_playouts(name, args.seconds)

    n = args.streams
    ratios = {
        f"referee@{n} / pingpong@{n} (1 client process)": results[
            f"referee_{n}_matches_decisions_per_s"
        ]
        / results[f"pingpong_{n}_streams_1_process"],
        f"referee@{n} / pingpong@{n} ({n} client processes, like the bots)": results[
            f"referee_{n}_matches_decisions_per_s"
        ]
        / results[f"pingpong_{n}_streams_{n}_processes"],
    }
    for name in [g for g in args.games.split(",") if g]:
        ratios[f"engine {name} / referee@{n}"] = (
            results[f"engine_{name}_decisions_per_s"]
            / results[f"referee_{n}_matches_decisions_per_s"]
        )
    if args.json:
        print(json.dumps({"figures": results, "ratios": ratios}, indent=2))
        return
    print(
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, grpcio {grpc.__version__}"
    )
    for key, value in results.items():
        print(f"{key:55s} {value:12,.2f}" if value < 100 else f"{key:55s} {value:12,.0f}")
    print("ratios (targets: referee/pingpong >= 0.8; engine/referee >= 3):")
    for key, value in ratios.items():
        print(f"  {key:75s} {value:6.2f}")


if __name__ == "__main__":
    main()
