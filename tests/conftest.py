"""Fixtures shared across the test folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
ADMIN_TOKEN = "sesame"
ADMIN = [("x-admin-token", ADMIN_TOKEN)]


@pytest.fixture
def served() -> Iterator[str]:
    """`arena serve` on a free loopback port, as its own process; yields its address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--admin-token", ADMIN_TOKEN],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("referee listening on "), line
    yield line.split()[-1]
    proc.terminate()
    proc.wait(10)


def arena(
    db: Path, *args: str, check: bool = True, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run the `arena` CLI as a process on database ``db``; with ``check``, a non-zero exit
    fails the test with the command's stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, "ARENA_DB": str(db)},
    )
    if check:
        assert done.returncode == 0, (
            f"arena {' '.join(args)} exited {done.returncode}:\n{done.stderr}"
        )
    return done


def sample_tournament(
    db: Path, game: str, entrants: list[tuple[str, str]], seats: int, rules: list[str]
) -> dict[str, Any]:
    """Register sample bots (name, module in sample_bots/) and play one round of ``game``
    through the CLI; returns its --json output."""
    for name, module in entrants:
        arena(
            db,
            "bots",
            "add",
            name,
            "--game",
            game,
            "--",
            sys.executable,
            "-m",
            f"sample_bots.{module}",
        )
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


# Running in parallel (scripts/test: pytest-xdist, `-n auto --dist loadgroup`). A fixture
# wider than a test (a module's or the session's tournament, browser or cluster) is made
# once per worker that uses it, so the tests sharing one are grouped onto one worker; the
# groups go first, so that the longest units do not start last and leave a worker idle.
_SHARED_SCOPES = {"session": 0, "package": 1, "module": 2, "class": 3}


def _shared_fixture(item: pytest.Item) -> str | None:
    """The project's widest-scoped fixture this test uses (builtin ones are cheap)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    found: list[tuple[int, str]] = []
    for name, defs in info.name2fixturedefs.items():
        fixture = defs[-1]
        if fixture.scope in _SHARED_SCOPES and fixture.baseid.startswith("tests"):
            found.append((_SHARED_SCOPES[fixture.scope], f"{fixture.baseid}::{name}"))
    return min(found)[1] if found else None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouped = []
    for item in items:
        shared = _shared_fixture(item)
        if shared is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(shared))
        if item.get_closest_marker("xdist_group") is not None:
            grouped.append(item)
    rest = [item for item in items if item.get_closest_marker("xdist_group") is None]
    items[:] = grouped + rest
