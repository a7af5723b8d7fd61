"""The worker side of arena.distributed: what runs inside a Dask worker process.

One event loop thread per worker process holds a :class:`~arena.matchplay.MatchHost` per
tournament setting; Dask runs each match task in one of the worker's threads, which
hands the match to that loop and waits for it."""

from __future__ import annotations

import asyncio
import signal
import socket
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from arena.artifacts import unpack
from arena.matchplay import HostSettings, MatchHost, MatchJob, MatchNotPlayed, PlayedMatch
from arena.sandbox import SandboxError
from arena.stop_signals import STOP_SIGNALS


class _WorkerHosts:
    """The match hosts of one worker process, on one event loop in its own thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.hosts: dict[HostSettings, MatchHost] = {}
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def host(self, settings: HostSettings) -> MatchHost:
        with self.lock:
            host = self.hosts.get(settings)
            if host is None:

                async def make() -> MatchHost:
                    made = MatchHost(settings)
                    await made.start()
                    return made

                host = asyncio.run_coroutine_threadsafe(make(), self.loop).result()
                self.hosts[settings] = host
            return host

    def close(self) -> None:
        async def close_all() -> None:
            await asyncio.gather(*(h.close() for h in self.hosts.values()))

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)


_hosts: _WorkerHosts | None = None
_hosts_lock = threading.Lock()


def _worker_hosts() -> _WorkerHosts:
    global _hosts
    with _hosts_lock:
        if _hosts is None:
            _hosts = _WorkerHosts()
        return _hosts


def dask_setup(worker: Any) -> None:
    """Preloaded into the workers of the arena's own local cluster (``--workers N``).
    A stop sent to the arena's whole process group (a terminal's Ctrl-C and hangup,
    systemd's SIGTERM to every process of the service) reached them too: each printed a
    KeyboardInterrupt traceback, or died under the scheduler (ERROR logs). The arena
    stops its cluster itself (the nanny kills a worker that does not close in time, and
    a worker exits at once if the arena dies), so they ignore those signals. A remote
    cluster's workers are not preloaded: they are their operator's."""
    if threading.current_thread() is threading.main_thread():
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)


class ArenaWorkerPlugin(WorkerPlugin):
    """Stops a worker's bots and referees when the worker shuts down."""

    name = "card-arena"

    def teardown(self, worker: Any) -> None:
        global _hosts
        with _hosts_lock:
            if _hosts is not None:
                _hosts.close()
                _hosts = None


def play_on_worker(
    job: MatchJob, settings: HostSettings, archives: dict[str, bytes]
) -> PlayedMatch | str:
    """A Dask task: play one match on this worker. Returns the played match, or the
    reason it could not be played (a bot that cannot start)."""
    worker = get_worker()
    cache = Path(worker.local_directory) / "bots"
    entrants = tuple(
        replace(e, cwd=str(unpack(archives[e.sha256], e.sha256, cache))) if e.sha256 else e
        for e in job.entrants
    )
    hosts = _worker_hosts()
    where = f"{worker.name}@{socket.gethostname()}"
    try:
        host = hosts.host(settings)
    except SandboxError as exc:  # this worker cannot confine bots: say which (the arena stops)
        raise SandboxError(f"worker {where} cannot run the tournament's bots: {exc}") from None
    future = asyncio.run_coroutine_threadsafe(
        host.play(replace(job, entrants=entrants), where),
        hosts.loop,
    )
    try:
        return future.result()
    except MatchNotPlayed as exc:
        return str(exc)
