"""Tournaments on Dask workers, for real: a LocalCluster on 127.0.0.1 and a scheduler and
workers started as separate processes. The stored results and ratings are the same as
in process, whatever runs the matches: one or two workers, a cluster, a worker killed
mid-tournament, or the arena process killed and resumed."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, arena, as_in_a_terminal, dies_with_tests, register_bot

pytest.importorskip("distributed", reason="needs card-arena[dask]")

BOT = [sys.executable, "-m", "sample_bots.random_bot"]
RUN = [
    "tournament", "run", "--game", "gin_rummy", "--bots", "a,b,sub", "--rounds", "2",
    "--seed", "7", "--rules", "max_hands=3",
]  # fmt: skip


def prepare(db: Path, tmp_path: Path) -> None:
    """Two plain random bots and one submitted bot (a random bot in its own folder)."""
    for name in ("a", "b"):
        register_bot(db, name, *BOT, games=("gin_rummy",))
    folder = tmp_path / "subbot"
    if not folder.exists():
        folder.mkdir()
        # Self-contained: in the sandbox a submitted bot sees its own files and the SDK.
        (folder / "bot.py").write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
        (folder / "bot.toml").write_text(
            f'command = ["{sys.executable}", "bot.py"]\ngames = ["*"]\n'
        )
    arena(db, "bots", "submit", "sub", str(folder))


def results(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "select m.idx, r.seat, r.entrant, r.score, r.rank, r.faults from results r "
            "join matches m on m.id = r.match_id order by m.idx, r.seat"
        ).fetchall()


def ratings(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select entrant, mu, sigma, games from ratings order by 1").fetchall()


def workers_of(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {w for (w,) in conn.execute("select distinct worker from matches")}


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[Any]]:
    tmp = tmp_path_factory.mktemp("inproc")
    db = tmp / "arena.db"
    prepare(db, tmp)
    arena(db, *RUN)
    assert workers_of(db) == {"local"}
    return results(db), ratings(db)


@pytest.mark.parametrize("workers", [1, 2])
def test_local_workers_store_what_in_process_stores(
    in_process: tuple[list[Any], list[Any]], tmp_path: Path, workers: int
) -> None:
    db = tmp_path / "arena.db"
    prepare(db, tmp_path)
    scratch = tmp_path / "tmp"  # the arena's temporary folder: Dask's scratch goes there
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    arena(db, *RUN, "--workers", str(workers), "--matches-per-worker", "2", env=env)
    # Dask's own default, dask-scratch-space in the temporary folder, stayed for good
    assert list(scratch.iterdir()) == []
    assert (results(db), ratings(db)) == in_process
    assert len(workers_of(db)) == workers  # every worker played
    assert all(r[5] == 0 for r in results(db))  # no faults
    shown = json.loads(arena(db, "tournament", "show", "1", "--json", "--logs").stdout)
    assert sorted(shown["matches_per_worker"]) == sorted(workers_of(db))
    assert sum(shown["matches_per_worker"].values()) == 12
    assert len(shown["worker_logs"]) == workers
    for text in shown["worker_logs"].values():  # oldest line first, as a log reads
        stamps = re.findall(r"^\w+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+)", text, re.M)
        assert len(stamps) >= 2 and stamps == sorted(stamps), text
    assert "secret" not in shown


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A `dask scheduler` and two `dask worker` processes on 127.0.0.1 only."""
    yield from _cluster(tmp_path, {})


@pytest.fixture
def one_worker_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A `dask scheduler` and one `dask worker`, on 127.0.0.1 only."""
    yield from _cluster(tmp_path, {}, workers=1)


@pytest.fixture
def cluster_without_bwrap(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """The same, with workers that find no bubblewrap."""
    yield from _cluster(tmp_path, {"ARENA_BWRAP": str(tmp_path / "no-bwrap")})


def start_worker(
    address: str, name: str, tmp_path: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A `dask worker` process on 127.0.0.1, named ``name``."""
    return subprocess.Popen(
        [*dies_with_tests(), sys.executable, "-m", "distributed.cli.dask_worker",
         address, "--host", "127.0.0.1", "--nthreads", "2", "--no-nanny", "--name", name,
         "--no-dashboard", "--local-directory", str(tmp_path / name)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def _cluster(
    tmp_path: Path, worker_env: dict[str, str], workers: int = 2
) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    procs: list[subprocess.Popen[bytes]] = []
    dask = [*dies_with_tests(), sys.executable, "-m", "distributed.cli.dask_scheduler"]
    address_file = tmp_path / "scheduler.json"
    procs.append(
        subprocess.Popen(
            [*dask, "--host", "127.0.0.1", "--port", "0", "--dashboard-address", ":0",
             "--no-dashboard", "--scheduler-file", str(address_file)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    )  # fmt: skip
    address = _scheduler_address(address_file)
    assert address.startswith("tcp://127.0.0.1:")
    for n in range(workers):
        procs.append(start_worker(address, f"w{n}", tmp_path, worker_env))
    yield address, procs
    # Workers first, while their scheduler is there: stopped after it, each worker took
    # the whole 15 s here (45 s of the suite's time).
    for proc in reversed(procs):
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def _scheduler_address(address_file: Path) -> str:
    """The address the scheduler writes to its file, once the file is whole (it exists
    before its text is written: a read found it empty once)."""
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(OSError, ValueError, KeyError):
            return str(json.loads(address_file.read_text())["address"])
        if time.monotonic() > deadline:
            raise TimeoutError(f"the scheduler wrote no address to {address_file} in 60 s")
        time.sleep(0.1)


def wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=60) as client:  # type: ignore[no-untyped-call]
        client.wait_for_workers(count, timeout=60)


def run_on_cluster_until(db: Path, address: str, stored: int) -> subprocess.Popen[bytes]:
    """The tournament started on the cluster in the background, once ``stored`` of its
    matches are stored (or it ended, or two minutes passed)."""
    runner = subprocess.Popen(
        [*dies_with_tests(), sys.executable, "-m", "arena.cli", *RUN, "--cluster", address,
         "--shared-bots", "--db", str(db)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and runner.poll() is None:
        with contextlib.suppress(sqlite3.OperationalError):
            if len(results(db)) >= stored:
                break
        time.sleep(0.05)
    return runner


def test_cluster_fetches_artifacts_and_survives_a_killed_worker(
    in_process: tuple[list[Any], list[Any]],
    tmp_path: Path,
    cluster: tuple[str, list[subprocess.Popen[bytes]]],
) -> None:
    address, procs = cluster
    wait_for_workers(address, 2)
    db = tmp_path / "arena.db"
    prepare(db, tmp_path)
    # Plain-command bots run only where their files are: refused unless told.
    refused = arena(db, *RUN, "--cluster", address, check=False)
    assert refused.returncode == 2 and "plain-command bots (a, b)" in refused.stderr
    assert arena(db, "tournament", "list", "--json").stdout.strip() == "[]"  # nothing made
    # Kill one worker once matches are under way; its matches are played again elsewhere.
    runner = run_on_cluster_until(db, address, stored=4)
    procs[1].send_signal(signal.SIGKILL)
    _, stderr = runner.communicate(timeout=300)
    assert runner.returncode == 0, stderr.decode()
    assert (results(db), ratings(db)) == in_process
    # The submitted bot's files reached the workers by hash, unpacked in their caches.
    with sqlite3.connect(db) as conn:
        (sha,) = conn.execute("select sha256 from bot_versions").fetchone()
    unpacked = [*tmp_path.glob(f"w*/**/bots/{sha}/bot.py")]
    assert unpacked and all(
        p.read_bytes() == (tmp_path / "subbot" / "bot.py").read_bytes() for p in unpacked
    )


def test_a_worker_killed_with_the_only_copy_of_an_archive_costs_nothing(
    in_process: tuple[list[Any], list[Any]],
    tmp_path: Path,
    one_worker_cluster: tuple[str, list[subprocess.Popen[bytes]]],
) -> None:
    """Scattered data has no task to compute it again: when the worker holding a
    submitted bot's only archive dies (Dask's memory manager keeps one copy where no
    waiting match needs more), Dask cancels every match waiting for it ("lost
    dependencies"), which stopped the tournament with a traceback. Here the only worker
    dies mid-tournament and a new one joins: the arena sends the archive and the
    cancelled matches again, and the results are those played in process."""
    address, procs = one_worker_cluster
    wait_for_workers(address, 1)
    db = tmp_path / "arena.db"
    prepare(db, tmp_path)
    runner = run_on_cluster_until(db, address, stored=2)  # the archive is on the worker
    _scheduler, worker = procs
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    procs.append(start_worker(address, "w1", tmp_path))
    _, stderr = runner.communicate(timeout=300)
    assert runner.returncode == 0, stderr.decode()
    assert (results(db), ratings(db)) == in_process
    assert {w.split("@")[0] for w in workers_of(db)} == {"w0", "w1"}  # name@host


SPY = """
import random, socket, sys
from referee.client import run_bot

def choose(observation, legal):
    print(f"host={socket.gethostname()}", file=sys.stderr, flush=True)
    return random.choice(list(legal))

run_bot(choose, name="spy")
"""


def test_a_cluster_resolves_the_sandbox_where_the_bots_run(
    tmp_path: Path, cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    """The arena's machine need not have bubblewrap when the bots run on a cluster's
    workers: `auto` is resolved on each worker, and the bots run confined there."""
    address, _ = cluster
    wait_for_workers(address, 2)
    db = tmp_path / "arena.db"
    for name in ("spy", "spy2"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(SPY + f"# {name}\n")
        (folder / "bot.toml").write_text(
            f'command = ["{sys.executable}", "bot.py"]\ngames = ["*"]\n'
        )
        arena(db, "bots", "submit", name, str(folder))
    here_without_bwrap = {"ARENA_BWRAP": str(tmp_path / "no-bwrap")}
    run = ["tournament", "run", "--game", "gin_rummy", "--bots", "spy,spy2", "--rules",
           "max_hands=1", "--json"]  # fmt: skip
    refused_here = arena(db, *run, check=False, env=here_without_bwrap)
    assert refused_here.returncode == 2 and "bubblewrap (bwrap) is not installed" in (
        refused_here.stderr
    )
    arena(db, *run, "--cluster", address, env=here_without_bwrap)
    [made] = json.loads(arena(db, "tournament", "list", "--json").stdout)
    assert made["status"] == "finished"
    with sqlite3.connect(db) as conn:
        (stored,) = conn.execute("select settings from tournaments").fetchone()
        replays = [
            zlib.decompress(z).decode() for (z,) in conn.execute("select jsonl_z from replays")
        ]
    assert json.loads(stored)["sandbox"] == "auto"  # each worker resolved it
    assert replays and all(r.count("host=arena-bot") >= 2 for r in replays)  # bwrap's hostname
    assert "host=" + socket.gethostname() not in "".join(replays)


def test_a_worker_that_cannot_confine_bots_stops_the_tournament(
    tmp_path: Path, cluster_without_bwrap: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, _ = cluster_without_bwrap
    wait_for_workers(address, 2)
    db = tmp_path / "arena.db"
    prepare(db, tmp_path)
    stopped = arena(db, *RUN, "--cluster", address, "--shared-bots", check=False)
    assert stopped.returncode == 2 and "Traceback" not in stopped.stderr
    assert "cannot run the tournament's bots: bubblewrap (bwrap) is not installed" in (
        stopped.stderr
    )
    assert re.search(r"worker w[01]@", stopped.stderr)
    [kept] = json.loads(arena(db, "tournament", "list", "--json").stdout)
    assert kept["status"] == "interrupted"  # resumable once the workers have bubblewrap
    assert results(db) == []  # nothing ran unconfined


def _playing_on_two_workers(db: Path, tmp_path: Path) -> subprocess.Popen[str]:
    """RUN on two local workers, in a session of its own with its stop signals as in a
    terminal (stderr piped), once two matches are stored."""
    prepare(db, tmp_path)
    proc = subprocess.Popen(
        [*dies_with_tests(), sys.executable, "-m", "arena.cli", *RUN, "--workers", "2",
         "--matches-per-worker", "1", "--db", str(db)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=as_in_a_terminal,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(sqlite3.OperationalError):
            if len(results(db)) >= 2:
                break
        time.sleep(0.05)
    assert proc.poll() is None, "the tournament finished before it could be stopped"
    return proc


def test_killed_arena_resumes_on_workers(
    in_process: tuple[list[Any], list[Any]], tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    proc = _playing_on_two_workers(db, tmp_path)
    os.killpg(proc.pid, signal.SIGKILL)  # the arena and its local workers with it
    proc.wait()
    before = results(db)
    assert 0 < len(before) < len(in_process[0])
    arena(db, "tournament", "resume", "1", "--workers", "2")
    after = results(db)
    assert after[: len(before)] == before or set(before) <= set(after)
    assert (after, ratings(db)) == in_process


def test_workers_need_dask_and_sane_counts(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    prepare(db, tmp_path)
    both = arena(db, *RUN, "--workers", "2", "--cluster", "tcp://127.0.0.1:1", check=False)
    assert both.returncode == 2 and "not both" in both.stderr
    # 2**62 local workers: Dask built its table of them whole, gigabytes before failing
    for option, value in (
        ("--workers", "0"),
        ("--workers", str(2**62)),
        ("--matches-per-worker", "0"),
        ("--matches-per-worker", "100000"),
    ):
        given = [option, value] if option == "--workers" else ["--workers", "1", option, value]
        refused = arena(db, *RUN, *given, check=False)
        assert refused.returncode == 2, refused.stderr
        assert f"{option} must be a whole number from 1 to " in refused.stderr, refused.stderr
    # Without Dask installed, the command says how to install it.
    blocked = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.modules['distributed'] = None; sys.argv[0] = 'arena';"
         "from arena.cli import main; main()", *RUN, "--workers", "1", "--db", str(db)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert blocked.returncode == 2
    assert "scripts/bootstrap dask in the clone (or pip install -e '.[dask]')" in blocked.stderr
    assert arena(db, "tournament", "list", "--json").stdout.strip() == "[]"  # nothing made
    help_text = arena(db, "tournament", "run", "--help", env={"COLUMNS": "200"}).stdout
    assert "needs card-arena[dask]" in help_text  # not taken for markup


def test_an_unreachable_scheduler_is_one_line_and_the_tournament_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    prepare(db, tmp_path)
    gone = arena(
        db, *RUN, "--cluster", "tcp://127.0.0.1:9", "--shared-bots", check=False,
        env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"},
    )  # fmt: skip
    assert gone.returncode == 2 and "Traceback" not in gone.stderr
    assert "error: cannot reach a Dask scheduler at tcp://127.0.0.1:9" in gone.stderr
    [kept] = json.loads(arena(db, "tournament", "list", "--json").stdout)
    assert kept["status"] == "interrupted"


@pytest.mark.parametrize("moment", ["at its creation", "as it closes"])
def test_a_run_on_workers_stopped_at_its_edges_says_how_to_resume_and_nothing_more(
    tmp_path: Path, moment: str
) -> None:
    """Stopped as its last match was stored, the local cluster's close was cut short:
    the client closed but not the cluster, whose scheduler (in the arena's own loop) then
    logged its cancelled streams as ERROR tracebacks, and its scratch folder went before
    Dask's own clean-up ("Failed to remove"). Stopped as the cluster started, the same."""
    db = tmp_path / "arena.db"
    for name in ("a", "b"):
        register_bot(db, name, *BOT, games=("golf",))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.Popen(
        [*dies_with_tests(), sys.executable, "-m", "arena.cli", "tournament", "run", "--game",
         "golf", "--bots", "a,b", "--rounds", "2", "--workers", "1", "--db", str(db)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    wanted = ("select count(*) from tournaments", 1) if moment == "at its creation" else (
        "select count(*) from matches", 4)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(db) as conn:
            if conn.execute(wanted[0]).fetchone()[0] >= wanted[1]:
                break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    lines = [line for line in stderr.splitlines() if "━" not in line and line.strip()]
    assert proc.returncode == 130, stderr
    assert lines[-1].startswith("interrupted: resume with "), stderr
    assert not [line for line in lines if "ERROR" in line or "Traceback" in line], stderr
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("arena-")]
    out = json.loads(arena(db, "tournament", "resume", "1", "--json").stdout)
    assert out["status"] == "finished"


GROUP_STOPS = [signal.SIGINT, signal.SIGHUP, signal.SIGTERM]


@pytest.mark.parametrize("signum", GROUP_STOPS, ids=[s.name for s in GROUP_STOPS])
def test_a_stop_sent_to_the_whole_process_group_stops_local_workers_quietly(
    in_process: tuple[list[Any], list[Any]], tmp_path: Path, signum: int
) -> None:
    """A terminal's Ctrl-C and hangup go to the whole foreground process group, and
    systemd's stop to every process of the service: the local cluster's workers got them
    too and printed KeyboardInterrupt tracebacks (8 of 8 tries in an audit), died under
    the scheduler (ERROR logs), and SIGHUP killed multiprocessing's resource tracker
    (KeyError tracebacks). The arena alone stops; it stops its workers, and the resumed
    tournament stores what one uninterrupted run stores."""
    db = tmp_path / "arena.db"
    proc = _playing_on_two_workers(db, tmp_path)
    os.killpg(proc.pid, signum)
    _, stderr = proc.communicate(timeout=120)
    lines = [line for line in stderr.splitlines() if "━" not in line and line.strip()]
    assert proc.returncode == 130, stderr
    assert [line for line in lines if not line.startswith("note:")] == [lines[-1]], stderr
    assert lines[-1].startswith("interrupted: resume with "), stderr
    arena(db, "tournament", "resume", "1", "--workers", "2")
    assert (results(db), ratings(db)) == in_process
