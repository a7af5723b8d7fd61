"""Database files that are not what the arena expects: another program's, damaged ones,
read-only ones. Each is a one-line error (exit 2) or, read-only, read as it is; none is
changed by a command that only reads."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, add_sample_bot, arena


def _sql(db: Path, *statements: str) -> None:
    with sqlite3.connect(db) as conn:
        for statement in statements:
            conn.execute(statement)


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """`tournament list` on it added every arena table and switched it to WAL mode."""
    db = tmp_path / "notes.db"
    _sql(db, "create table notes (text)", "insert into notes values ('keep me')")
    before = db.read_bytes()
    for command in (("tournament", "list"), ("bots", "list"), ("leaderboard", "--game", "golf")):
        out = arena(db, *command, check=False)
        assert out.returncode == 2, out.stderr
        assert "is not an arena database (it has tables notes and no arena schema)" in out.stderr
        assert "Traceback" not in out.stderr
    assert db.read_bytes() == before
    assert not (tmp_path / "notes.db-wal").exists()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("drop table ratings", "is damaged: it has no table ratings"),
        ("alter table results drop column team", "its table results has no column team"),
        ("delete from meta", "is damaged: its meta table has no schema"),
        ("update meta set value = 'x' where key = 'schema'", "its meta table has no schema"),
    ],
)
def test_a_damaged_arena_database_is_a_one_line_error(
    tmp_path: Path, damage: str, message: str
) -> None:
    db = tmp_path / "arena.db"
    add_sample_bot(db, "r1")
    _sql(db, damage)
    for command in (("tournament", "list"), ("matches", "list"), ("replay", "verify")):
        out = arena(db, *command, check=False)
        assert out.returncode == 2 and message in out.stderr, (command, out.stderr)
        assert "Traceback" not in out.stderr


@pytest.mark.parametrize("where", ["cut short", "pages overwritten", "header overwritten"])
def test_a_file_sqlite_finds_malformed_is_called_damaged_with_the_remedy(
    tmp_path: Path, where: str
) -> None:
    """SQLite's "database disk image is malformed" read as "not an arena database" on
    open, and with no file named nor remedy when a later read met it; a damaged header
    ("file is not a database") had no remedy either."""
    db = tmp_path / "arena.db"
    add_sample_bot(db, "r1")
    _sql(  # pages enough that some past the schema's are damaged
        db,
        "pragma journal_mode = delete",
        "create table filler (x)",
        "insert into filler with recursive n(i) as (select 1 union all select i + 1 from n "
        "where i < 100) select randomblob(4000) from n",
    )
    data = bytearray(db.read_bytes())
    if where == "cut short":
        data = data[: len(data) // 2]
    elif where == "header overwritten":  # SQLite: "file is not a database", as any file
        data[:100] = b"\xa5" * 100
    else:
        page = 4096
        data[page : 3 * page] = b"\xa5" * (2 * page)
    db.write_bytes(bytes(data))
    outs = [arena(db, *c, check=False) for c in (("bots", "list"), ("tournament", "list"))]
    assert any(out.returncode for out in outs)
    for out in outs:
        if out.returncode:
            assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
            assert "is damaged" in out.stderr and ".recover" in out.stderr, out.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root to read the file as another user (setpriv)",
)
def test_a_database_this_user_may_only_read_is_read(tmp_path: Path) -> None:
    """Every open switched the file to WAL mode first: "attempt to write a readonly
    database" even for `bots list`. (In a folder of its own under /tmp: another user
    cannot reach pytest's.)"""
    folder = Path(tempfile.mkdtemp(prefix="arena-ro-"))
    try:
        db = folder / "arena.db"
        add_sample_bot(db, "r1")
        _sql(db, "pragma journal_mode = delete")
        db.chmod(0o444)
        folder.chmod(0o555)
        listed = _as_nobody(db, "bots", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        assert '"r1"' in listed.stdout
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def _as_nobody(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI run by user nobody."""
    nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
    return subprocess.run(
        ["setpriv", *nobody, sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=120,
        env={**os.environ, "ARENA_DB": str(db), "PYTHONPATH": str(ROOT)},
    )


# `arena` with its busy wait cut from 30 s to 2 (arena.store.BUSY_SECONDS), so that a test
# can outlast it: the same main(), in a process of its own.
SHORT_WAIT_ARENA = (
    "import sys\n"
    "import arena.cli, arena.store\n"
    "arena.store.BUSY_SECONDS = arena.cli.BUSY_SECONDS = 2.0\n"
    "sys.argv[0] = 'arena'\n"
    "arena.cli.main()"
)


ADD_R2 = ("bots", "add", "r2", "--game", "*", "--", "python", "bot.py")


def test_a_database_locked_past_the_busy_wait_is_a_one_line_error(tmp_path: Path) -> None:
    """Another process holding the write lock past the busy wait was a traceback."""
    db = tmp_path / "arena.db"
    add_sample_bot(db, "r1")
    locker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
            "c.execute('begin immediate'); print('locked', flush=True); time.sleep(120)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert locker.stdout is not None and locker.stdout.readline() == "locked\n"
        out = subprocess.run(
            [sys.executable, "-c", SHORT_WAIT_ARENA, *ADD_R2],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
            env={**os.environ, "ARENA_DB": str(db)},
        )
    finally:
        locker.kill()
        locker.wait()
    assert out.returncode == 2, out.stderr
    assert "error: the database: database is locked" in out.stderr
    assert "held its write lock over 2 s" in out.stderr
    assert "Traceback" not in out.stderr
    assert [row[0] for row in sqlite3.connect(db).execute("select name from entrants")] == ["r1"]
