"""Matches on Dask workers (``--workers N``: a LocalCluster on 127.0.0.1;
``--cluster ADDRESS``: a running scheduler). Needs the optional extra
``card-arena[dask]``.

Each worker process keeps one :class:`~arena.matchplay.MatchHost` per tournament setting
(its own referee, event loop thread and long-lived bot processes) and plays the matches
the scheduler gives it, as many at once as it has threads. A task only plays: it returns
the result and replay to the arena process, which alone writes the database, so a task
can run twice without harm. When a worker dies mid-match, Dask runs the match again on
another worker; the lost attempt leaves no trace and is charged to no bot.

Submitted bots travel as artifacts: the arena process sends each archive into the
cluster once (again, with the matches Dask cancelled, if a worker dies with its last
copy), and a worker unpacks it (checked against its sha256) into its own cache.
A plain-command bot runs only where its path exists, so a cluster run refuses it unless
told every worker has it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.lifecycle import stop_signals_deferred
from arena.matchplay import DealTurns, HostSettings, MatchJob, PlayedMatch
from arena.sandbox import SandboxError
from arena.store import Entrant, Store
from referee.aio import all_to_the_end, awaited_to_the_end
from referee.owned_dirs import tagged_temp_dir

INSTALL_HINT = "install it with scripts/bootstrap dask in the clone (or pip install -e '.[dask]')"
# Matches kept in flight per match the workers play at once: each has the next ready, and
# the rest wait here in schedule order. All sent at once, they queued at the scheduler,
# where an SPRT's second halves waited behind every deal's first: with --workers 2 it
# played about half its cap (510 matches of 1,000) to reach a verdict 20 decide.
IN_FLIGHT_PER_THREAD = 2
# How often a match is sent before its cancellation by Dask (a lost archive) is an error.
MAX_SENDS = 4


@dataclass(frozen=True)
class ClusterOptions:
    """Where matches run when not in this process: ``workers`` local Dask worker
    processes (a LocalCluster on 127.0.0.1), or the Dask scheduler at ``address``."""

    workers: int | None = None
    address: str | None = None
    matches_per_worker: int | None = None  # default: the worker's cores minus one
    shared_bots: bool = False  # plain-command bots exist at the same path on every worker


class ClusterError(ValueError):
    """A cluster that cannot run this tournament; the message says why."""


def require_dask() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(
            f"--workers and --cluster need Dask distributed; {INSTALL_HINT}"
        ) from exc
    return distributed


def check_placement(entrants: Sequence[Entrant], options: ClusterOptions) -> None:
    """Refuse plain-command bots on a cluster unless every worker has them (they run
    only where their files are; submitted bots travel to the workers)."""
    if options.address is None or options.shared_bots:
        return
    plain = sorted({e.name for e in entrants if e.sha256 is None})
    if plain:
        raise ClusterError(
            f"plain-command bots ({', '.join(plain)}) run only where their files are; "
            "submit them ('arena bots submit'), or pass --shared-bots if every worker "
            "has them at the same path"
        )


def default_matches_per_worker() -> int:
    """A worker's cores minus one for its referee (at least one)."""
    return max(1, (os.cpu_count() or 2) - 1)


# ---- the arena side ----------------------------------------------------------------


async def play_on_dask(
    jobs: Sequence[MatchJob],
    settings: HostSettings,
    options: ClusterOptions,
    store: Store,
    save: Callable[[PlayedMatch], bool],
    errors: list[str],
) -> None:
    """Play ``jobs`` on a Dask cluster, saving each match as it comes back; once ``save``
    says no more are needed (an SPRT's verdict), the matches not yet back are cancelled."""
    distributed = require_dask()
    check_placement([e for j in jobs for e in j.entrants], options)
    from arena.dask_worker import ArenaWorkerPlugin, play_on_worker

    async with _client(distributed, options) as client:
        await client.register_plugin(ArenaWorkerPlugin())
        sent: dict[str, Any] = {}  # sha256 -> the archive's future in the cluster

        async def send_archives(job: MatchJob) -> dict[str, Any]:
            """The job's archives in the cluster, sent where not there yet."""
            for sha in {e.sha256 for e in job.entrants if e.sha256}:
                if sha not in sent:
                    # A copy on every worker; Dask's memory manager may drop all but one
                    # later, and scattered data has no task to compute it again, so a
                    # worker killed with the last copy loses it (see the resend below).
                    sent[sha] = await client.scatter(
                        store.submissions.archive(sha), hash=False, broadcast=True
                    )
            return {e.sha256: sent[e.sha256] for e in job.entrants if e.sha256}

        # One match of a deal in flight at a time (DealTurns); the workers' places are
        # filled from other deals, and a deal's next match is sent when one comes back.
        turns = DealTurns(jobs)
        in_flight: dict[Any, tuple[MatchJob, dict[str, Any]]] = {}  # future -> job, archives
        sends: collections.Counter[str] = collections.Counter()  # match id -> times sent
        completed = distributed.as_completed()

        async def send(job: MatchJob) -> None:
            sends[job.match_id] += 1
            archives = await send_archives(job)
            key = f"match-{job.match_id}-{sends[job.match_id]}"
            future = client.submit(play_on_worker, job, settings, archives, key=key, pure=False)
            in_flight[future] = (job, archives)
            completed.add(future)

        async def send_what_may_go() -> None:
            playing = [j.deal for j, _ in in_flight.values()]
            places = IN_FLIGHT_PER_THREAD * max(1, sum((await client.nthreads()).values()))
            while len(in_flight) < places and (job := turns.take(playing)) is not None:
                await send(job)
                playing.append(job.deal)

        await send_what_may_go()
        try:
            async for future in completed:
                job, archives = in_flight.pop(future)
                if future.status == "cancelled":  # by Dask: an archive was lost with a worker
                    for sha, archive in archives.items():
                        if sent.get(sha) is archive:
                            del sent[sha]  # sent again with the match
                    if sends[job.match_id] < MAX_SENDS:
                        await send(job)
                    else:
                        errors.append(
                            f"match {job.match_id}: cancelled by Dask {MAX_SENDS} times "
                            "(its bots' archives were lost with workers); resume the "
                            "tournament to play it"
                        )
                        await send_what_may_go()
                    continue
                try:
                    played = await future
                except SandboxError as exc:  # a worker that cannot confine bots
                    raise ClusterError(str(exc)) from None
                if isinstance(played, str):
                    errors.append(played)
                elif save(played):
                    await client.cancel(list(in_flight))
                    break
                await send_what_may_go()
        except BaseException:
            await client.cancel(list(in_flight))
            raise
        finally:
            with contextlib.suppress(Exception):  # logs are a courtesy; never lose results
                logs = await client.get_worker_logs(n=200)
                store.save_worker_logs(jobs[0].tournament_id if jobs else 0, _log_text(logs))


def _log_text(logs: dict[str, list[tuple[str, str]]]) -> dict[str, str]:
    """Dask's worker logs (address -> [(level, line)], newest first) as one text per
    worker, oldest line first, as a log reads."""
    return {
        address: "\n".join(f"{level} {line}" for level, line in reversed(lines))
        for address, lines in logs.items()
    }


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the workers' semaphores) with the stop
    signals blocked, which it inherits: multiprocessing blocks SIGINT and SIGTERM for it,
    not SIGHUP, and the hangup of the arena's terminal, sent to its whole process group,
    killed it mid-run (warnings and KeyError tracebacks from its replacement)."""
    from multiprocessing import resource_tracker

    with stop_signals_deferred():
        resource_tracker.ensure_running()


class _client:
    """An asynchronous Dask client on a LocalCluster bound to 127.0.0.1, or on the
    scheduler at the given address; closed (and the local cluster stopped) on exit."""

    def __init__(self, distributed: Any, options: ClusterOptions) -> None:
        self.distributed = distributed
        self.options = options
        self.cluster: Any = None
        self.client: Any = None
        # A local cluster's scratch folder and Dask's setting naming it, undone at exit
        self.undo = contextlib.ExitStack()

    async def __aenter__(self) -> Any:
        d, o = self.distributed, self.options
        if o.address is not None:
            try:
                self.client = await d.Client(o.address, asynchronous=True)
            except OSError as exc:  # Dask says so after its connect timeout, with a traceback
                raise ClusterError(
                    f"cannot reach a Dask scheduler at {o.address} ({exc}); the tournament is "
                    "kept: resume it with --cluster once the scheduler is up"
                ) from exc
            return self.client
        # Dask's default is a dask-scratch-space folder in the temporary folder, left
        # behind for good; this one is the arena's own (removed at exit, or by the next
        # arena if this one was killed).
        import dask.config  # with distributed, which require_dask checked

        _start_resource_tracker()
        scratch = self.undo.enter_context(tagged_temp_dir("arena-dask"))
        # Every Dask server (the scheduler and nannies too) makes its folder there; the
        # workers ignore the terminal's signals (arena.dask_worker.dask_setup).
        self.undo.enter_context(
            dask.config.set(
                {
                    "temporary-directory": scratch,
                    "distributed.worker.preload": ["arena.dask_worker"],
                }
            )
        )
        try:
            # Started to the end, then closed, when the arena is stopped meanwhile: cut
            # short, its processes outlived the scratch folder they were still using.
            self.cluster, cancelled = await awaited_to_the_end(
                d.LocalCluster(
                    n_workers=o.workers or 1,
                    threads_per_worker=o.matches_per_worker or default_matches_per_worker(),
                    processes=True,
                    host="127.0.0.1",
                    # No dashboard; its HTTP server (health, metrics) on a free loopback
                    # port: by default every local cluster took 8787, and a second one at
                    # once warned "Port 8787 is already in use".
                    dashboard_address="127.0.0.1:0",
                    asynchronous=True,
                    silence_logs=logging.ERROR,
                )
            )
        except BaseException:  # no __aexit__ comes
            self.undo.close()
            raise
        if cancelled:
            await self.__aexit__()
            raise asyncio.CancelledError
        self.client = await d.Client(self.cluster, asynchronous=True)
        return self.client

    async def __aexit__(self, *exc: object) -> None:
        try:  # each to its end, even when the arena is stopped while it closes
            await all_to_the_end(*(x.close() for x in (self.client, self.cluster) if x is not None))
        finally:
            self.undo.close()
