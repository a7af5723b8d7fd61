"""Output files and the standard output on a full disk (a file size limit stands in for
one: SQLite and Python see the same short writes and ENOSPC-like errors). An output file
is written whole or not at all; the standard output's failure is one line."""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from arena import outputs
from tests.conftest import (
    ROOT,
    add_sample_bot,
    arena,
    as_in_a_terminal,
    file_size_limit,
    sample_tournament,
)


def _arena_limited(
    db: Path, limit: int, *args: str, stdout: Path | None = None, hold: bool = True
) -> str:
    """`arena ARGS` whose files may not grow past ``limit`` bytes; returns its stderr
    after checking it failed with one line."""
    with contextlib.ExitStack() as held, open(stdout or "/dev/null", "w") as out:
        if hold:
            # A connection held open keeps the database's -shm file (32 KiB) in place,
            # which the command would otherwise make anew: over the limit, it could not
            # even read.
            holder = held.enter_context(contextlib.closing(sqlite3.connect(db)))
            holder.execute("select count(*) from matches").fetchone()
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args, "--db", str(db)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            preexec_fn=lambda: file_size_limit(limit),
        )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    return done.stderr


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    db = tmp_path_factory.mktemp("outputs") / "arena.db"
    sample_tournament(
        db, "gin_rummy", [("a", "random_bot"), ("b", "random_bot")], 2, ["max_hands=3"]
    )
    return db, [m["id"] for m in json.loads(arena(db, "matches", "list", "--json").stdout)]


@pytest.mark.parametrize("command", ["export", "html"])
def test_a_file_that_cannot_be_written_whole_leaves_the_earlier_one(
    played: tuple[Path, list[str]], tmp_path: Path, command: str
) -> None:
    """An export over a good earlier file on a full disk left 20 KB of the new replay in
    its place (a 'corrupt replay' to `replay verify`), or nothing."""
    db, ids = played
    target = tmp_path / "out.txt"
    arena(db, "replay", command, ids[0], "-o", str(target))
    earlier = target.read_bytes()
    err = _arena_limited(db, 4096, "replay", command, ids[1], "-o", str(target))
    assert f"cannot write {target}" in err
    assert target.read_bytes() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no partial file


def test_an_export_and_a_report_on_a_full_disk_leave_no_partial_files(
    played: tuple[Path, list[str]], tmp_path: Path
) -> None:
    db, _ = played
    export = tmp_path / "rows.csv"
    err = _arena_limited(db, 256, "matches", "export", "-o", str(export))
    assert f"cannot write {export}" in err and not export.exists()
    report = tmp_path / "report"
    err = _arena_limited(db, 4096, "report", "1", "-o", str(report))
    assert "cannot write the report" in err
    assert not [p for p in report.rglob("*") if p.is_file()]


def test_the_standard_output_on_a_full_disk_is_one_line(
    played: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """`arena matches export > file` on a full disk was a traceback (exit 1)."""
    db, _ = played
    for command in (("matches", "export"), ("tournament", "list")):
        err = _arena_limited(db, 0, *command, stdout=tmp_path / "out")
        assert "cannot write the output:" in err, err


def test_a_database_that_cannot_make_its_side_files_says_what_may_be_wrong(
    played: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """On a full disk every command, read-only ones too, said the arena's own database
    'is not an arena database: disk I/O error'."""
    db = tmp_path / "copy.db"  # a copy no connection holds open: no -shm file beside it
    source, copy = sqlite3.connect(played[0]), sqlite3.connect(db)
    source.backup(copy)
    source.close()
    copy.close()
    assert not db.with_name("copy.db-shm").exists()
    err = _arena_limited(db, 0, "tournament", "list", hold=False)
    assert f"cannot open {db}: disk I/O error (is its disk full, or its folder read-only?" in err


def test_a_report_stopped_as_it_writes_leaves_no_temporary_file(tmp_path: Path) -> None:
    """SIGTERM and SIGHUP killed `report` and `matches export` by default, leaving the
    hidden temporary file a page was being written to. They now stop it as Ctrl-C does
    (arena.lifecycle.stops_interrupt, one handler for both): exit 130, the temporary
    removed."""
    db = tmp_path / "arena.db"
    for name in ("a", "b", "c", "d"):  # 12 matches: 12 pages, each a moment to stop it in
        add_sample_bot(db, name)
    arena(db, "tournament", "run", "--game", "golf", "--bots", "a,b,c,d", "--rules", "holes=1")
    caught = False
    for attempt in range(10):
        folder = tmp_path / f"report{attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "report", "1", "-o", str(folder), "--db", str(db)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_in_a_terminal,
        )
        while proc.poll() is None and not list(folder.rglob(".*.tmp")):
            time.sleep(0.001)
        if proc.poll() is not None:
            continue  # it wrote its last page before it could be caught writing one
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
        assert not list(folder.rglob(".*")), "a temporary file was left"
        if proc.returncode == 0:
            continue  # it wrote its last page before the stop came
        assert proc.returncode == 130, stderr
        caught = True
        break
    assert caught, "the report was never caught writing a page"


def test_a_stop_just_as_the_temporary_is_made_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop that came right after the temporary file was made, before its name was
    noted for removal, left it behind (a report stopped by SIGTERM, 1 run in CI)."""
    made = tempfile.mkstemp

    def made_then_stopped(*args: Any, **kwargs: Any) -> tuple[int, str]:
        fd, name = made(*args, **kwargs)
        signal.raise_signal(signal.SIGTERM)  # its handler runs as soon as it may
        return fd, name

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        monkeypatch.setattr(tempfile, "mkstemp", made_then_stopped)
        with pytest.raises(KeyboardInterrupt):
            outputs.write_text_whole(tmp_path / "page.html", "<p>whole</p>")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert list(tmp_path.iterdir()) == []
