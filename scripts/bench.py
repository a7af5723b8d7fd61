"""Benchmarks for Card Arena, measured in one run so their ratios mean something.

1. A bare grpc.aio bidirectional ping-pong on loopback (a server process; grpc.aio
   client processes, as the bot SDK is): one stream; N streams from N processes (one
   each, like bots); N streams from one process. Round trips/s, and the CPU time per
   round trip of the server and of the clients.
2. The bots' ceiling: N random-bot processes (the Python SDK) against a null referee
   that answers every action with the same recorded Turn and does no work.
3. A real tournament of random bots through the referee (bot processes over a Unix
   socket, 1 and N matches at once, results stored in SQLite): decisions/s, matches/s,
   and CPU time per decision of the referee's process and of the bots; at N matches
   also with the bots unsandboxed (--sandbox none) beside the default bwrap sandbox,
   and the time from launching a bot to its Hello in both modes.
4. Each engine's random playouts in process: decisions/s.

Printed: the figures and the ratios the design sets targets for (referee at N matches
>= 0.8 x ping-pong at N streams; every engine >= 3 x the referee's decisions/s), with
the ratios that say where the time goes. Every process shares the machine's cores, so
the CPU figures per decision explain the throughput ones.
The figures that share the cores (1-3) are measured in --rounds rounds and reported as
medians; each ratio is taken within a round, then the median over rounds.

Separately, ``--workers 1,2`` measures whole tournaments on local Dask workers beside one
in process, and ``--cpu-share`` how much a bot that starts 20 spinning sessions slows the
opponent's thinking (wall over CPU time per turn), beside an idle opponent, with the
arena's cgroups and without, on all cores and on one, ``--upload-memory`` what refused
uploads leave in the memory of an ``arena serve``, and ``--front-door`` what the front door
of a TCP port costs (ping-pong through it beside the server listening on TCP itself).

Usage: scripts/bench [--streams 16] [--seconds 8] [--rounds 3] [--games gin_rummy,golf] [--json]
       scripts/bench --workers 1,2 | --cpu-share | --upload-memory | --front-door
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PING = "/bench.Ping/Pong"
WARM_UP_LIMIT = 120.0  # seconds for bot processes to start before the bench gives up


# ---- 1. bare ping-pong -------------------------------------------------------------


def _ping_server(address: str, ready: mp.synchronize.Event, door_folder: str = "") -> None:
    """The echo server; with ``door_folder``, its TCP ``address`` is a FrontDoor's,
    relaying to the server's Unix socket in that folder as start_server does
    (referee/service/front_door.py). The folder is the caller's to remove: this process
    is terminated."""
    from referee.service.front_door import FrontDoor

    async def pong(requests, context):  # type: ignore[no-untyped-def]
        async for payload in requests:
            yield payload

    async def main() -> None:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "bench.Ping", {"Pong": grpc.stream_stream_rpc_method_handler(pong)}
        )
        server.add_generic_rpc_handlers((handler,))
        if door_folder:
            door = FrontDoor(1 << 16, door_folder)
            server.add_insecure_port(f"unix:{door.inner_path}")
            door.bind(address)
        else:
            server.add_insecure_port(address)
        await server.start()
        if door_folder:
            door.start()
        ready.set()
        await server.wait_for_termination()

    asyncio.run(main())


def _ping_client(address: str, streams: int, seconds: float) -> None:
    """A grpc.aio client (as the bot SDK is) with ``streams`` streams, each on its own
    channel. Once every stream has made a round trip it prints "ready" and waits for a
    line on stdin; then it plays for ``seconds`` and prints its round trips and CPU
    seconds of that time."""

    async def main() -> None:
        channels = [grpc.aio.insecure_channel(address) for _ in range(streams)]
        calls = [channel.stream_stream(PING, None, None)(None) for channel in channels]
        payload = b"x" * 600  # about a Turn's size
        for call in calls:  # warm-up: connected, and the first message through
            await call.write(payload)
            await call.read()
        print("ready", flush=True)
        sys.stdin.readline()  # the go: every client starts at once, after all started up

        async def play(call: Any, stop_at: float) -> int:
            count = 0
            while time.monotonic() < stop_at:
                await call.write(payload)
                await call.read()
                count += 1
            return count

        cpu, stop_at = time.process_time(), time.monotonic() + seconds
        counts = await asyncio.gather(*(play(call, stop_at) for call in calls))
        print(sum(counts), time.process_time() - cpu, flush=True)
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close(None)

    asyncio.run(main())


def ping_pong(
    streams: int, seconds: float, processes: int, address: str = "", front_door: bool = False
) -> dict[str, float]:
    """Round trips per second with ``streams`` streams spread over ``processes`` clients,
    and the CPU time per round trip of the server and of the clients. On a Unix socket,
    or on ``address`` (through a front door with ``front_door``)."""
    tmp = tempfile.mkdtemp(prefix="bench-")
    address = address or f"unix:{tmp}/ping.sock"
    # Spawned, not forked: from the second round on this process has run the referee, and
    # a child forked while gRPC's threads run can hang in gRPC (it did, at round 2).
    spawn = mp.get_context("spawn")
    ready = spawn.Event()
    door_folder = tmp if front_door else ""
    server = spawn.Process(target=_ping_server, args=(address, ready, door_folder), daemon=True)
    server.start()
    if not ready.wait(30):
        server.kill()
        raise RuntimeError("the ping-pong server did not start within 30 s")
    per = [streams // processes + (1 if i < streams % processes else 0) for i in range(processes)]
    # Fresh interpreters, as bots are: forked children share the parent's warmed memory
    # and cost about a third less CPU per round trip here, which no bot gets.
    clients = [
        subprocess.Popen(
            [sys.executable, __file__, "--ping-client", address, str(n), str(seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in per
        if n
    ]
    for client in clients:  # their start-up is not measured
        assert client.stdout is not None and client.stdout.readline().strip() == "ready"
    server_cpu = cpu_seconds([server.pid or 0])
    for client in clients:
        assert client.stdin is not None
        client.stdin.write("go\n")
        client.stdin.flush()
    results = [tuple(map(float, c.communicate()[0].split())) for c in clients]
    server_cpu = cpu_seconds([server.pid or 0]) - server_cpu
    server.terminate()
    shutil.rmtree(tmp, ignore_errors=True)
    trips = sum(n for n, _ in results)
    return {
        "per_s": trips / seconds,
        "server_us": server_cpu / trips * 1e6,
        "clients_us": sum(c for _, c in results) / trips * 1e6,
    }


def _cpu_and_start(pid: int) -> tuple[float, int]:
    """A process's user + system CPU seconds so far (all its threads) and its start time
    (clock ticks after boot: with the pid, it names the process). OSError once it is gone."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), int(fields[19])


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds used so far by these processes (all their threads)."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            total += _cpu_and_start(pid)[0]
    return total


# ---- 2. the referee ------------------------------------------------------------------


def _random_bot_tournament(
    folder: Path, game: str, rounds: int, concurrency: int, sandbox: str
) -> tuple[Any, Any]:
    """A store in ``folder`` with two random bots and a round robin of ``rounds`` between
    them (seeded: the figures are reproducible); returns the store and the tournament."""
    from arena import runner
    from arena.settings import TournamentSettings
    from arena.store import Store

    store = Store(folder / "bench.db")
    names = ("random0", "random1")
    for name in names:
        store.add_entrant(name, ["*"], [sys.executable, "-m", "sample_bots.random_bot"], str(ROOT))
    settings = TournamentSettings(
        game,
        names,
        rounds=rounds,
        seed=7,
        concurrency=concurrency,
        move_seconds=10.0,
        sandbox=sandbox,
    )
    return store, runner.create_tournament(store, settings)


def referee_tournament(
    game: str, matches_at_once: int, seconds: float, sandbox: str = "auto"
) -> dict[str, float]:
    """A tournament of random bots through the real referee and store, measured for
    ``seconds`` after a warm-up in which the bot processes start, in ``sandbox``."""
    from arena import runner
    from referee.service import RefereeCore

    with tempfile.TemporaryDirectory(prefix="bench-db-") as tmp:
        store, record = _random_bot_tournament(
            Path(tmp), game, matches_at_once * 50, matches_at_once, sandbox
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

        def running() -> int:
            return sum(1 for m in core.matches.values() if m.state == "running")

        async def measure() -> dict[str, float]:
            task = asyncio.get_running_loop().create_task(
                runner.run_tournament(store, record.id, progress, core=core)
            )
            # Warm-up: every bot process started (that costs far more CPU than a
            # decision) and every match running, then a second more.
            give_up = time.monotonic() + WARM_UP_LIMIT
            while running() < matches_at_once and not task.done():
                if time.monotonic() > give_up:
                    raise SystemExit(f"bench: the matches did not all start in {WARM_UP_LIMIT:g}s")
                await asyncio.sleep(0.2)
            await asyncio.sleep(1.0)
            tree = DescendantCpu(lambda pid: True)  # every descendant is a bot process here
            d0, m0, t0 = decisions_now(), finished["matches"], time.monotonic()
            own0, bots0 = time.process_time(), tree.totals()[1]
            await asyncio.sleep(seconds)
            d1, m1, t1 = decisions_now(), finished["matches"], time.monotonic()
            own1, bots1 = time.process_time(), tree.totals()[1]
            tree.stop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            decisions = d1 - d0
            return {
                "decisions_per_s": decisions / (t1 - t0),
                "matches_per_s": (m1 - m0) / (t1 - t0),
                "referee_us": (own1 - own0) / decisions * 1e6,
                "bots_us": (bots1 - bots0) / decisions * 1e6,
            }

        figures = asyncio.run(measure())
        store.close()
    return figures


def bot_launch(sandbox: str, launches: int = 6) -> dict[str, float]:
    """Median seconds from launching a random bot process to its Hello reaching the
    referee, in ``sandbox`` (bwrap when it works under auto)."""
    from arena.bots import BotPool
    from arena.sandbox import resolve
    from arena.store import Entrant
    from referee.service import RefereeCore, start_server

    box = resolve(sandbox)
    bot = Entrant("random", ("*",), (sys.executable, "-m", "sample_bots.random_bot"), str(ROOT), "")

    async def measure() -> list[float]:
        core = RefereeCore()
        tmp = tempfile.mkdtemp(prefix="bench-")
        address = f"unix:{tmp}/referee.sock"
        server = await start_server(core, [address])
        times = []
        try:
            for _ in range(launches):
                pool = BotPool(core, address, lambda name: "1", sandbox=box)
                started = time.monotonic()
                process = await pool.acquire(bot)
                await asyncio.wait_for(core.sessions[process.token].connected.wait(), 60)
                times.append(time.monotonic() - started)
                await pool.close()
        finally:
            await server.stop(0)
            shutil.rmtree(tmp, ignore_errors=True)
        return times

    return {"seconds": statistics.median(asyncio.run(measure()))}


def worker_tournament(game: str, workers: int, matches: int, per_worker: int) -> dict[str, float]:
    """A whole tournament of random bots, in process (``workers`` 0) or on a local Dask
    cluster of ``workers`` processes: matches/s and decisions/s from the first stored
    match to the last (cluster and bot start-up excluded), and the CPU per decision of
    the referees' processes (the arena's, or the workers') and of the bots."""
    from arena import runner

    with tempfile.TemporaryDirectory(prefix="bench-db-") as tmp:
        store, record = _random_bot_tournament(
            Path(tmp), game, max(1, matches // 2), per_worker, "auto"
        )
        marks: list[tuple[float, int, float, float]] = []  # time, decisions, referees, bots
        tree = DescendantCpu(_is_random_bot)  # the rest: the workers' referees

        def cpu_split() -> tuple[float, float]:
            referees, bots = tree.totals()
            return referees + (time.process_time() if workers == 0 else 0.0), bots

        decisions = 0

        def progress(p: runner.Progress) -> None:
            nonlocal decisions
            if p.result is not None:
                decisions += p.result.decisions
                marks.append((time.monotonic(), decisions, *cpu_split()))

        cluster = runner.ClusterOptions(workers=workers, matches_per_worker=per_worker)
        asyncio.run(
            runner.run_tournament(store, record.id, progress, cluster=cluster if workers else None)
        )
        tree.stop()
        store.close()
    (t0, d0, r0, b0), (t1, d1, r1, b1) = marks[0], marks[-1]
    count = len(marks) - 1
    return {
        "matches_per_s": count / (t1 - t0),
        "decisions_per_s": (d1 - d0) / (t1 - t0),
        "referee_us": (r1 - r0) / (d1 - d0) * 1e6,
        "bots_us": (b1 - b0) / (d1 - d0) * 1e6,
    }


class DescendantCpu:
    """CPU used by this process's descendants, split into bots and the rest, counting
    those that start or exit while it runs: the arena starts bots for every match of a
    round (a process plays a deal once), so the processes alive at two instants are not
    the ones that did the work between them. A thread samples every process, by pid and
    start time, every ``period`` seconds; what a process uses after its last sample is
    missed (at most ``period`` seconds of it, for each process that exits)."""

    def __init__(self, is_bot: Callable[[int], bool], period: float = 0.25) -> None:
        self.is_bot = is_bot
        self.period = period
        self.first: dict[tuple[int, int], float] = {}  # CPU when first seen: 0 if born later
        self.last: dict[tuple[int, int], tuple[bool, float]] = {}  # (is a bot, CPU)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.sample(first=True)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.sample()

    def sample(self, first: bool = False) -> None:
        for pid in _descendants(os.getpid()):
            with contextlib.suppress(OSError, ValueError):
                used, started = _cpu_and_start(pid)
                key = (pid, started)
                with self._lock:
                    if key not in self.last:
                        self.first[key] = used if first else 0.0
                        self.last[key] = (self.is_bot(pid), used)
                    else:
                        self.last[key] = (self.last[key][0], used)

    def totals(self) -> tuple[float, float]:
        """(the rest, the bots): CPU seconds used since this sampler started."""
        self.sample()
        rest = bots = 0.0
        with self._lock:
            for key, (bot, used) in self.last.items():
                if bot:
                    bots += used - self.first[key]
                else:
                    rest += used - self.first[key]
        return rest, bots

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _is_random_bot(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"random_bot" in f.read()
    except OSError:
        return False


def _descendants(pid: int) -> list[int]:
    """Every live descendant process of ``pid`` (bots and whatever they started)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as f:
                for child in map(int, f.read().split()):
                    found += [child, *_descendants(child)]
    return found


# ---- 2b. the bots' ceiling --------------------------------------------------------------


def null_referee(bots: int, seconds: float) -> dict[str, float]:
    """The same random-bot processes (the Python SDK) against a server that does no
    work: it answers every action with the same recorded mid-game Gin Rummy Turn. What
    the bots alone allow on this machine, whatever the referee does."""
    from referee.game import get_game
    from referee.v1 import referee_pb2 as pb
    from referee.views import fill_observation

    game = get_game("gin_rummy")
    state, rng = game.initial_state(game.Rules(), 2, 5), random.Random(3)
    for _ in range(60):
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    seat = game.to_act(state)[0]
    turn = pb.Turn(
        request_id=1,
        match_id="bench",
        seat=seat,
        seconds_left=10.0,
        legal_actions=[game.encode(a) for a in game.legal_actions(state, seat)],
    )
    fill_observation(turn.observation, "gin_rummy", game.observation(state, seat))
    turn_bytes = pb.RefereeMessage(turn=turn).SerializeToString()
    answers = [0]

    async def play(requests, context):  # type: ignore[no-untyped-def]
        await anext(requests)  # the hello
        yield pb.RefereeMessage(welcome=pb.Welcome(player="bench")).SerializeToString()
        start = pb.MatchStart(match_id="bench", game="gin_rummy", seat=seat, seats=2)
        yield pb.RefereeMessage(match_start=start).SerializeToString()
        yield turn_bytes
        async for _ in requests:
            answers[0] += 1
            yield turn_bytes

    async def main() -> dict[str, float]:
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "referee.v1.Referee", {"Play": grpc.stream_stream_rpc_method_handler(play)}
        )
        server.add_generic_rpc_handlers((handler,))
        tmp = tempfile.mkdtemp(prefix="bench-")
        address = f"unix:{tmp}/null.sock"
        server.add_insecure_port(address)
        await server.start()
        env = dict(os.environ, ARENA_TARGET=address, ARENA_TOKEN="bench")
        command = [sys.executable, "-m", "sample_bots.random_bot"]
        procs = [
            subprocess.Popen(command, env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
            for _ in range(bots)
        ]
        give_up = time.monotonic() + WARM_UP_LIMIT
        while answers[0] < 100 * bots:  # warm-up: every bot started and playing
            if time.monotonic() > give_up or any(p.poll() is not None for p in procs):
                for p in procs:
                    p.kill()
                raise SystemExit(
                    "bench: the random bots did not all start playing the null referee"
                )
            await asyncio.sleep(0.2)
        pids = [p.pid for p in procs]
        n0, cpu0, t0 = answers[0], cpu_seconds(pids), time.monotonic()
        await asyncio.sleep(seconds)
        n1, cpu1, t1 = answers[0], cpu_seconds(pids), time.monotonic()
        for p in procs:
            p.kill()
            p.wait()
        await server.stop(0)
        shutil.rmtree(tmp, ignore_errors=True)
        return {"per_s": (n1 - n0) / (t1 - t0), "bots_us": (cpu1 - cpu0) / (n1 - n0) * 1e6}

    return asyncio.run(main())


# ---- 3. engines ---------------------------------------------------------------------------


def engine_playouts(game_name: str, seconds: float) -> float:
    from referee.game import get_game, play_out

    game = get_game(game_name)
    rules = game.Rules()
    seats = game.seats(rules).start
    rng = random.Random(1)
    decisions = 0
    seed = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:  # whole matches: the last one may run past it
        _, played = play_out(
            game,
            game.initial_state(rules, seats, seed),
            lambda state, seat, legal: rng.choice(legal),
            seats=lambda to_act: to_act[:1],
        )
        seed += 1
        decisions += played
    return decisions / (time.perf_counter() - start)


def main() -> None:
    from referee.game import game_names

    if sys.argv[1:2] == ["--ping-client"]:  # a client process of ping_pong()
        _ping_client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return
    from referee.service import tune_gc

    tune_gc()  # as the arena's process does: the referee runs in this one

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--streams", type=int, default=16, help="concurrent streams / matches")
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring time per figure")
    parser.add_argument("--games", default=",".join(game_names()), help="engines to measure")
    parser.add_argument(
        "--referee-game", default="gin_rummy", help="game of the referee tournament"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of the transport and referee figures (medians)",
    )
    parser.add_argument(
        "--workers",
        default="",
        help="also measure whole tournaments on these local Dask worker counts, e.g. 1,2 "
        "(beside the same tournament in process; needs card-arena[dask])",
    )
    parser.add_argument("--worker-matches", type=int, default=48, help="matches per tournament")
    parser.add_argument(
        "--cpu-share",
        action="store_true",
        help="only measure how much a bot that starts many sessions slows its opponent",
    )
    parser.add_argument(
        "--upload-memory",
        action="store_true",
        help="only measure what refused 45 MiB uploads leave in an arena serve's memory",
    )
    parser.add_argument(
        "--front-door",
        action="store_true",
        help="only measure ping-pong over TCP through the referee's front door beside it direct",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.front_door:
        front_door(args)
        return
    if args.upload_memory:
        upload_memory(args)
        return
    if args.workers:
        scaling(args)
        return
    if args.cpu_share:
        cpu_share(args)
        return

    n = args.streams
    games = [g for g in args.games.split(",") if g]
    rounds = [transport_and_referee(n, args.seconds, args.referee_game) for _ in range(args.rounds)]
    results = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    engines = {
        f"engine_{name}_decisions_per_s": engine_playouts(name, args.seconds) for name in games
    }
    results.update(engines)

    # Ratios are taken within each round (side by side), then the median over rounds.
    ratios = {
        name: statistics.median(ratio(r) for r in rounds) for name, ratio in _ratios(n).items()
    }
    for name in games:
        ratios[f"engine {name} / referee@{n} [target 3]"] = (
            engines[f"engine_{name}_decisions_per_s"]
            / results[f"referee_{n}_matches_decisions_per_s"]
        )
    if args.json:
        print(json.dumps({"rounds": args.rounds, "figures": results, "ratios": ratios}, indent=2))
        return
    print(
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, grpcio {grpc.__version__}; "
        f"medians of {args.rounds} rounds"
    )
    print("figures (per_s: round trips or decisions per second; _us: CPU microseconds each):")
    for key, value in results.items():
        print(f"  {key:60s} {value:12,.2f}" if value < 100 else f"  {key:60s} {value:12,.0f}")
    print("ratios:")
    for key, value in ratios.items():
        print(f"  {key:80s} {value:6.2f}")


def scaling(args: Any) -> None:
    """Tournament throughput in process and on 1, 2, ... local workers, side by side."""
    per_worker = max(1, (os.cpu_count() or 2) - 1)
    counts = [0, *(int(w) for w in args.workers.split(",") if w)]
    figures = {
        w: worker_tournament(args.referee_game, w, args.worker_matches, per_worker) for w in counts
    }
    base = figures[0]["matches_per_s"]
    if args.json:
        print(json.dumps({str(w): f for w, f in figures.items()}, indent=2))
        return
    print(
        f"machine: {os.cpu_count()} cores; {args.worker_matches} {args.referee_game} matches of "
        f"random bots; {per_worker} matches at once per worker (cores - 1)"
    )
    for w, f in figures.items():
        where = "in process" if w == 0 else f"{w} worker{'s' if w > 1 else ''}"
        print(
            f"  {where:12s} {f['matches_per_s']:7.2f} matches/s  {f['decisions_per_s']:8,.0f} "
            f"decisions/s  referee {f['referee_us']:5.0f} us/decision  bots "
            f"{f['bots_us']:5.0f} us/decision  x{f['matches_per_s'] / base:.2f} of in process"
        )


# ---- CPU share under a hostile opponent (--cpu-share) -------------------------------

# A bot that thinks a fixed amount per turn and reports the wall and CPU time it took.
_THINKER = """
import random, sys, time
from referee.client import run_bot
def choose(observation, legal):
    wall, cpu = time.monotonic(), time.process_time()
    sum(range(6_000_000))
    print("TURN", time.monotonic() - wall, time.process_time() - cpu, file=sys.stderr)
    return random.choice(legal)
run_bot(choose, name="thinker")
"""
# On its first turn starts ``argv[1]`` helpers that each call setsid() and spin, then
# plays on at once: what takes the CPU its opponent thinks with, if anything lets it.
_SWARM = """
import os, random, sys
from referee.client import run_bot
started = False
def choose(observation, legal):
    global started
    if not started:
        started = True
        for _ in range(int(sys.argv[1])):
            if os.fork() == 0:
                os.setsid()
                os.closerange(3, 1 << 16)  # its sockets would be the bot's: 16 at most
                while True:
                    pass
    return random.choice(legal)
run_bot(choose, name="swarm")
"""


def _thinking_slowdown(folder: Path, opponent: str, cgroups: bool, one_core: bool) -> float:
    """How many times longer than its CPU time a thinking turn takes in wall time, over
    two gin rummy matches against ``opponent`` (idle or swarm); with ``one_core`` the
    arena and its bots all run on one core, as bots of matches in play at once share
    the cores when there are more of them than cores."""
    env = {**os.environ, "ARENA_DB": str(folder / f"{opponent}-{cgroups}-{one_core}.db")}
    cores = os.sched_getaffinity(0)
    if not cgroups:
        env["ARENA_CGROUPS"] = "off"

    def arena(*args: str) -> str:
        # This thread's affinity, which the arena inherits (no preexec_fn: see
        # docs/architecture.md on forking), put back at once.
        os.sched_setaffinity(0, {min(cores)} if one_core else cores)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "arena.cli", *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
        finally:
            os.sched_setaffinity(0, cores)
        return done.stdout

    helpers = "20" if opponent == "swarm" else "0"
    for name, command in (("thinker", ["thinker.py"]), (opponent, ["swarm.py", helpers])):
        arena(
            *("bots", "add", name, "--game", "gin_rummy", "--cwd", str(folder)),
            "--",
            "python",
            *command,
        )
    options = ("--rules", "max_hands=1", "--seed", "7", "--move-seconds", "30", "--json")
    arena("tournament", "run", "--game", "gin_rummy", "--bots", f"thinker,{opponent}", *options)
    wall = cpu = 0.0
    for match in json.loads(arena("matches", "list", "--json")):
        for line in arena("replay", "export", match["id"]).splitlines():
            record = json.loads(line)
            for turn in record.get("text", "").splitlines() if record["type"] == "stderr" else []:
                if turn.startswith("TURN "):
                    wall += float(turn.split()[1])
                    cpu += float(turn.split()[2])
    return wall / cpu


def cpu_share(args: Any) -> None:
    """A thinking bot's slowdown against an opponent that starts 20 spinning sessions,
    beside the same against an idle opponent, with the arena's cgroups and without."""
    from arena import cgroups

    root = cgroups.available()
    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as tmp:
        folder = Path(tmp)
        (folder / "thinker.py").write_text(_THINKER)
        (folder / "swarm.py").write_text(_SWARM)
        figures = {
            f"{opponent}, {'cgroups' if on else 'no cgroups'}{', one core' if one else ''}": (
                _thinking_slowdown(folder, opponent, on, one)
            )
            for one in (False, True)
            for on in (True, False)
            for opponent in ("idle", "swarm")
        }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    shares = "each bot a CPU group" if root is not None and root.shares_cpu else "no CPU groups"
    print(
        f"machine: {os.cpu_count()} cores; with cgroups: {shares}. A bot's thinking turns, "
        "wall time over CPU time, against each opponent:"
    )
    for name, value in figures.items():
        print(f"  {name:34s} {value:6.2f}")


def transport_and_referee(n: int, seconds: float, game: str) -> dict[str, float]:
    """One round of the figures that share the machine's cores and drift with its load."""
    results: dict[str, float] = {}

    def record(prefix: str, figures: dict[str, float]) -> None:
        results.update({f"{prefix}_{key}": value for key, value in figures.items()})

    record("pingpong_1_stream", ping_pong(1, seconds, 1))
    record(f"pingpong_{n}_streams_{n}_processes", ping_pong(n, seconds, n))
    record(f"pingpong_{n}_streams_1_process", ping_pong(n, seconds, 1))
    record(f"null_referee_{n}_bots", null_referee(n, seconds))
    record("referee_1_match", referee_tournament(game, 1, seconds))
    record(f"referee_{n}_matches", referee_tournament(game, n, seconds))
    record(f"referee_{n}_matches_unsandboxed", referee_tournament(game, n, seconds, "none"))
    record("bot_launch_sandboxed", bot_launch("bwrap"))
    record("bot_launch_unsandboxed", bot_launch("none"))
    return results


def _ratios(n: int) -> dict[str, Callable[[dict[str, float]], float]]:
    referee = f"referee_{n}_matches"
    pingpong = f"pingpong_{n}_streams_{n}_processes"
    return {
        f"referee@{n} / pingpong@{n} ({n} client processes, like the bots) [target 0.8]": (
            lambda r: r[f"{referee}_decisions_per_s"] / r[f"{pingpong}_per_s"]
        ),
        f"referee@{n} / pingpong@{n} (1 client process)": (
            lambda r: r[f"{referee}_decisions_per_s"] / r[f"pingpong_{n}_streams_1_process_per_s"]
        ),
        f"null referee@{n} / pingpong@{n} ({n} processes): the most the bots allow": (
            lambda r: r[f"null_referee_{n}_bots_per_s"] / r[f"{pingpong}_per_s"]
        ),
        "referee CPU per decision / echo server CPU per round trip": (
            lambda r: r[f"{referee}_referee_us"] / r[f"{pingpong}_server_us"]
        ),
        f"referee@{n} sandboxed / unsandboxed decisions per second": (
            lambda r: r[f"{referee}_decisions_per_s"] / r[f"{referee}_unsandboxed_decisions_per_s"]
        ),
        "bot launch time sandboxed / unsandboxed": (
            lambda r: r["bot_launch_sandboxed_seconds"] / r["bot_launch_unsandboxed_seconds"]
        ),
        "bot CPU per decision / ping-pong client CPU per round trip": (
            lambda r: r[f"{referee}_bots_us"] / r[f"{pingpong}_clients_us"]
        ),
    }


# ---- What the front door of a TCP port costs (--front-door) ------------------------------


def front_door(args: Any) -> None:
    """Ping-pong over loopback TCP with every connection relayed by a FrontDoor (as
    start_server serves TCP clients) beside the same server listening on TCP itself, in
    turn, for 1 stream and for --streams streams from as many processes; the server's CPU
    includes the relay's. Ratios are taken within a round, then the median over rounds."""
    n = args.streams
    rounds: list[dict[str, float]] = []
    for _ in range(args.rounds):
        figures: dict[str, float] = {}
        for streams in (1, n):
            for door in (False, True):
                with socket.socket() as probe:  # a free port, for the server to take
                    probe.bind(("127.0.0.1", 0))
                    address = f"127.0.0.1:{probe.getsockname()[1]}"
                result = ping_pong(streams, args.seconds, streams, address, door)
                name = f"{'door' if door else 'direct'}_{streams}_streams"
                figures.update({f"{name}_{key}": value for key, value in result.items()})
        rounds.append(figures)
    results = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    ratios = {
        f"front door / direct, {streams} streams, {key}": statistics.median(
            r[f"door_{streams}_streams_{key}"] / r[f"direct_{streams}_streams_{key}"]
            for r in rounds
        )
        for streams in (1, n)
        for key in ("per_s", "server_us", "clients_us")
    }
    if args.json:
        print(json.dumps({"rounds": args.rounds, "figures": results, "ratios": ratios}, indent=2))
        return
    print(f"medians of {args.rounds} rounds (per_s: round trips a second; _us: CPU each)")
    for key, value in {**results, **ratios}.items():
        print(f"  {key:60s} {value:12,.2f}")


# ---- Memory an arena serve keeps after refused uploads (--upload-memory) ----------------


def upload_memory(args: Any) -> None:
    """A real ``arena serve --db``: its resident memory after one refused upload of 45 MiB
    (UploadBot in 64 KiB pieces; not an archive, with a submitter's token), after 20 more one after another, and after
    30 sent at once without a token. Memory an upload leaves behind shows as growth per
    upload; uploads read before their token is checked show in the last figure."""
    from referee.v1 import submissions_pb2 as spb

    def resident_mb(pid: int) -> float:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    archive = os.urandom(45 * 1024 * 1024)
    with tempfile.TemporaryDirectory(prefix="bench-upload-") as tmp:
        db = str(Path(tmp) / "arena.db")
        arena = [sys.executable, "-m", "arena.cli"]
        made = subprocess.run(
            [*arena, "submitters", "add", "eve", "--db", db],
            cwd=ROOT, capture_output=True, text=True, check=True,
        )  # fmt: skip
        token = made.stdout.split()[-1]
        server = subprocess.Popen(
            [*arena, "serve", "--port", "0", "--db", db],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            address = server.stdout.readline().split()[-1]
            with grpc.insecure_channel(address) as channel:
                upload = channel.stream_unary(
                    "/referee.v1.SubmissionService/UploadBot",
                    request_serializer=spb.UploadBotRequest.SerializeToString,
                    response_deserializer=spb.UploadBotResponse.FromString,
                )

                def pieces() -> Iterator[spb.UploadBotRequest]:
                    yield spb.UploadBotRequest(submission=spb.SubmitBotRequest(name="b"))
                    for at in range(0, len(archive), 64 * 1024):
                        yield spb.UploadBotRequest(chunk=archive[at : at + 64 * 1024])

                def send(with_token: str) -> None:
                    with contextlib.suppress(grpc.RpcError):
                        upload(
                            pieces(),
                            metadata=(("x-submitter-token", with_token),),
                            timeout=120,
                        )

                start = resident_mb(server.pid)
                send(token)
                one = resident_mb(server.pid)
                for _ in range(20):
                    send(token)
                many = resident_mb(server.pid)
                with ThreadPoolExecutor(30) as pool:
                    list(pool.map(send, ["wrong"] * 30))
                strangers = resident_mb(server.pid)
        finally:
            server.terminate()
            server.wait(30)
    figures = {
        "started_mb": start,
        "after_1_upload_mb": one,
        "after_21_uploads_mb": many,
        "growth_per_upload_mb": (many - one) / 20,
        "after_30_at_once_without_token_mb": strangers,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"  {key:40s} {value:8.1f}")


if __name__ == "__main__":
    main()
