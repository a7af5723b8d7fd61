"""Shared helpers of the security tests: a command run in the sandbox, the `arena` CLI with a chosen environment, the
random and the hostile test bots registered, a tournament in the background, a tournament's
stored stderr per seat, and a look for processes that outlived the arena."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import Launch, Sandbox, SandboxError, resolve, sandbox_env
from arena.seccomp import (
    DENIED_CALLS,
    DENIED_FAMILIES,
    DENIED_FCNTL,
    DENIED_FLAGS,
    DENIED_MADVISE,
)
from tests.conftest import add_sample_bot, dies_with_tests, register_bot

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
PY = sys.executable


def _bwrap_problem() -> str | None:
    try:
        resolve("bwrap")
    except SandboxError as exc:
        return str(exc)
    return None


BWRAP_PROBLEM = _bwrap_problem()
needs_bwrap = pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=BWRAP_PROBLEM or "")


# What bots/kernel_probe.py asks for and the seccomp filter must refuse: every call and
# argument value it names.
REFUSED = sorted({*DENIED_CALLS, *DENIED_FCNTL, *DENIED_MADVISE, *DENIED_FAMILIES, *DENIED_FLAGS})


# Where the limits are enforced: the default sandbox (bwrap where it works), none, and none
# with the limits read from /proc as on a machine where no cgroup can be made.
LIMIT_SETTINGS = [
    pytest.param("auto", {}, id="auto"),
    pytest.param("none", {}, id="none"),
    pytest.param("none", {"ARENA_CGROUPS": "off"}, id="none-without-cgroups"),
]


def run_sandboxed(
    sandbox: Sandbox, command: list[str], cwd: str, scratch_mb: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end in ``sandbox`` (bwrap directly, no arena), as bots are."""
    with sandbox.launch(command, cwd, scratch_mb=scratch_mb) as launch:
        return run_launched(sandbox, launch)


def run_launched(sandbox: Sandbox, launch: Launch) -> subprocess.CompletedProcess[str]:
    """``launch`` run to its end with the environment and descriptors bots get."""
    return subprocess.run(
        launch.argv,
        env=sandbox_env(sandbox, {}),
        pass_fds=launch.pass_fds,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_arena(
    db: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [PY, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        env={**os.environ, "ARENA_DB": str(db), **(env or {})},
    )
    if check:
        assert done.returncode == 0, f"arena {' '.join(args)}: {done.returncode}\n{done.stderr}"
    return done


def tournament(db: Path, bots: str, *extra: str, env: dict[str, str] | None = None) -> Any:
    out = run_arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        bots,
        "--rules",
        "max_hands=1",
        "--json",
        *extra,
        env=env,
    )
    return json.loads(out.stdout)


def add_random(db: Path, *names: str) -> None:
    """The random sample bot, registered under each of ``names`` (default "random")."""
    for name in names or ("random",):
        add_sample_bot(db, name)


def add_gin_bot(db: Path, name: str, *command: str, folder: Path = BOTS) -> None:
    """A gin bot ``name`` run as ``command`` from ``folder`` (default: tests/security/bots)."""
    register_bot(db, name, *command, games=("gin_rummy",), cwd=folder)


def add_escaper(db: Path, name: str, mode: str) -> str:
    """bots/escaper.py in ``mode`` as gin bot ``name``; returns the marker its helpers carry
    on their command lines (see ``survivors``)."""
    marker = f"{mode}-{uuid.uuid4().hex}"
    add_gin_bot(db, name, "python", "escaper.py", mode, marker)
    return marker


def stderr_of(replay: Any, seat: int) -> str:
    return "".join(
        line["text"] for line in replay.lines if line["type"] == "stderr" and line["seat"] == seat
    )


def survivors(marker: str) -> list[int]:
    """Processes whose command line carries ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(name))
    return found


# Runs the command after it with SIGINT at its default, as a terminal gives it: a shell's
# background job (as the test run may be) ignores SIGINT, and its children inherit that.
# A command, not a preexec_fn, which would make Python fork rather than vfork, and a fork
# of a process whose gRPC is active can die before it execs (docs/architecture.md).
WITH_DEFAULT_SIGINT = (
    PY,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
)


def start_tournament(db: Path, sandbox: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """Two rounds of bots "linger" and "random" in the background, one match at a time,
    with SIGINT at its default (WITH_DEFAULT_SIGINT)."""
    return subprocess.Popen(
        [
            *dies_with_tests(),
            *WITH_DEFAULT_SIGINT,
            *(PY, "-m", "arena.cli", "tournament", "run", "--game", "gin_rummy"),
            *("--bots", "linger,random", "--rules", "max_hands=1", "--rounds", "2"),
            *("--concurrency", "1", "--sandbox", sandbox),
        ],
        cwd=ROOT,
        env={**os.environ, "ARENA_DB": str(db), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: Callable[[], object], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False
