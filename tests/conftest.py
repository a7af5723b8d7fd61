"""Fixtures shared across the test folders."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import pytest

from arena.store import Store
from referee.owned_dirs import KINDS
from referee.replay import Replay, parse_replay

ROOT = Path(__file__).resolve().parents[1]
ADMIN_TOKEN = "sesame"
ADMIN = [("x-admin-token", ADMIN_TOKEN)]


@functools.cache
def dies_with_tests() -> list[str]:
    """A prefix for the command of a process a test starts and leaves running (a server, a
    worker, an arena): setpriv makes the kernel SIGKILL it when the test process dies, so
    a killed pytest leaves none of them behind. Empty where setpriv lacks --pdeathsig."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return []
    usage = subprocess.run([setpriv, "--help"], capture_output=True, text=True).stdout
    return [setpriv, "--pdeathsig", "KILL"] if "--pdeathsig" in usage else []


def file_size_limit(limit: int) -> None:
    """For a child process (``preexec_fn``): its files may grow to ``limit`` bytes, and a
    longer write is cut short or fails, as on a full disk (SQLite: 'database or disk is
    full'), instead of the SIGXFSZ that would kill it."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.fixture
def served() -> Iterator[str]:
    """`arena serve` on a free loopback port, as its own process; yields its address."""
    with serving() as address:
        yield address


def random_bots(address: str, tokens: Iterable[str]) -> list[subprocess.Popen[bytes]]:
    """The random sample bot as a process per seat token, playing on ``address``."""
    return [
        subprocess.Popen(
            [*dies_with_tests(), sys.executable, "-m", "sample_bots.random_bot"],
            cwd=ROOT,
            env={**os.environ, "ARENA_TARGET": address, "ARENA_TOKEN": token},
        )
        for token in tokens
    ]


def as_in_a_terminal() -> None:
    """SIGINT and SIGHUP at their defaults, as in a terminal: the test runner may have
    been started with them ignored (a background job, nohup), and children inherit it."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def temp_dirs_of(pid: int, where: Path | None = None) -> list[Path]:
    """The folders process ``pid`` made in ``where`` (default: the temporary folder),
    named after it (KIND-NAMESPACE-PID-*, referee/owned_dirs.py)."""
    base = where or Path(tempfile.gettempdir())
    return sorted(p for kind in KINDS for p in base.glob(f"{kind}-*-{pid}-*"))


def cgroups_of(pid: int) -> set[Path]:
    """The cgroup directories arena process ``pid`` made (card-arena-NS-PID) beside the
    cgroup it ran in (this process's: it inherited it), in every hierarchy."""
    root = Path("/sys/fs/cgroup")
    found: set[Path] = set()
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        tops = [root / n for n in names.split(",")] if names else [root, root / "unified"]
        for top in tops:
            found.update((top / path.lstrip("/")).glob(f"card-arena-*-{pid}"))
    return found


def left_behind(pid: int) -> list[Path]:
    """What process ``pid`` failed to clean up: its folders (in the temporary folder, or
    /tmp where a socket's path must be short) and its cgroups."""
    folders = {*temp_dirs_of(pid), *temp_dirs_of(pid, Path("/tmp"))}
    return sorted(folders | cgroups_of(pid))


@contextlib.contextmanager
def arena_process(
    *args: str,
    stderr: IO[Any] | None = None,
    env: dict[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`arena ARGS` as its own process (its stderr to ``stderr`` if given, in ``env`` if
    given, ``preexec_fn`` run in it before it starts); yields it and the first line it
    prints (a server's address line), and stops it at the end."""
    proc = subprocess.Popen(
        [*dies_with_tests(), sys.executable, "-m", "arena.cli", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        preexec_fn=preexec_fn,
    )
    try:
        assert proc.stdout is not None
        yield proc, proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def serving(*extra: str) -> Iterator[str]:
    """`arena serve --port 0 ...extra` as its own process; yields its address."""
    with arena_process("serve", "--port", "0", "--admin-token", ADMIN_TOKEN, *extra) as (_, line):
        assert line.startswith("referee listening on "), line
        yield line.split()[-1]


def arena(
    db: Path,
    *args: str,
    check: bool = True,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the `arena` CLI as a process on database ``db`` (``env`` added to this one's
    environment); with ``check``, a non-zero exit fails the test with the stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, "ARENA_DB": str(db), **(env or {})},
    )
    if check:
        assert done.returncode == 0, (
            f"arena {' '.join(args)} exited {done.returncode}:\n{done.stderr}"
        )
    return done


def register_bot(
    db: Path, name: str, *command: str, games: Sequence[str] = ("*",), cwd: Path = ROOT
) -> None:
    """Store bot ``name``, run as ``command`` from ``cwd``, as `arena bots add` does, in
    this process: tests of that command run it (tests/arena/test_cli.py); the others only
    need the bot, and an `arena` process costs half a second of CPU to start."""
    store = Store(db)
    try:
        store.add_entrant(name, games, command, str(cwd.resolve()))
    finally:
        store.close()


def stored_replays(db: Path) -> list[tuple[dict[str, Any], Replay]]:
    """Every stored match, by id: its row (as `arena matches list --json` prints it) and its
    replay (as `arena replay export` writes it), read in this process."""
    store = Store(db)
    try:
        matches = sorted(store.matches(), key=lambda m: str(m["id"]))
        return [(m, parse_replay(store.replay_text(m["id"]))) for m in matches]
    finally:
        store.close()


def add_sample_bot(db: Path, name: str, module: str = "random_bot", game: str = "*") -> None:
    """Register sample_bots/``module`` as bot ``name`` for ``game``."""
    register_bot(db, name, sys.executable, "-m", f"sample_bots.{module}", games=(game,))


def sample_tournament(
    db: Path, game: str, entrants: list[tuple[str, str]], seats: int, rules: list[str]
) -> dict[str, Any]:
    """Register sample bots (name, module in sample_bots/) and play one round of ``game``
    through the CLI; returns its --json output."""
    for name, module in entrants:
        add_sample_bot(db, name, module, game)
    out = arena(
        db,
        "tournament",
        "run",
        "--game",
        game,
        "--bots",
        ",".join(n for n, _ in entrants),
        "--seats",
        str(seats),
        "--rounds",
        "1",
        "--concurrency",
        "2",
        "--rules",
        *rules,
        "--json",
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


# Running in parallel (`scripts/test -n auto --dist loadscope`, pytest-xdist). A fixture
# wider than a test (a module's or the session's tournament, browser or cluster) is made
# once per worker that runs a test using it, so the tests that may share one form one
# work unit: the module, or the folder whose conftest.py defines it; every other test is a
# unit of its own. xdist hands out the largest units first. (xdist's own xdist_group marks
# do not reach pytest 9's node ids, so the units are made here.)
_SHARED_FIXTURE = re.compile(r"""scope=["'](session|package|module)["']""")


@functools.cache
def _defines_shared_fixture(path: Path) -> bool:
    return path.is_file() and _SHARED_FIXTURE.search(path.read_text(encoding="utf-8")) is not None


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its module or folder if one of them defines a
    fixture wider than a test, else the test itself."""
    module = nodeid.split("::", 1)[0]
    if _defines_shared_fixture(ROOT / module):
        return module
    for folder in (ROOT / module).parents:
        if folder == ROOT:
            break
        if _defines_shared_fixture(folder / "conftest.py"):
            return folder.relative_to(ROOT).as_posix()
    return nodeid


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):  # type: ignore[misc]  # untyped xdist
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return SharedFixtureScheduling(config, log)
