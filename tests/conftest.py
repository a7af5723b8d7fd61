"""Fixtures shared across the test folders."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

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
