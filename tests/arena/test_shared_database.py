"""Several processes writing one arena database at once (``arena serve``, ``arena web`` and
tournaments may share a file): nothing is lost to "database is locked", and checks made
before a write still hold when it is made."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store import Store, StoreError
from tests.conftest import ROOT

WRITER = """
import io, sys, time, zipfile
from pathlib import Path
from arena.artifacts import read_archive
from arena.store import Store, StoreError
from arena.submissions import SubmissionRefused

db, who, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
while not go.exists():
    time.sleep(0.001)
store = Store(db)  # every process opens the new file at once: one creates the tables
try:
    store.submissions.add_submitter("alice")
    print("registered alice")
except SubmissionRefused:
    pass
store.add_entrant(f"plain-{who}", ["gin_rummy"], ["true"], ".")
try:
    store.add_entrant("plain-shared", ["gin_rummy"], ["true"], ".")
    print("added plain-shared")
except StoreError:
    pass
manifest = b'command = ["python", "bot.py"]\\ngames = ["gin_rummy"]\\n'
for i in range(count):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", manifest)
        archive.writestr("bot.py", f"# {who} {i}\\n")
    store.submit_bot("shared", read_archive(buffer.getvalue()), "alice")
print("done")
"""


def test_processes_writing_one_new_database_at_once_lose_nothing(tmp_path: Path) -> None:
    db, go = tmp_path / "arena.db", tmp_path / "go"
    writers, count = 4, 20
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(w), str(count), str(go)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    time.sleep(1.0)  # every writer started and waiting, so that they open the file together
    go.touch()
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.endswith("done\n")
    said = "".join(out for out, _err in outputs)
    assert said.count("registered alice") == 1
    assert said.count("added plain-shared") == 1
    with sqlite3.connect(db) as conn:
        versions = [v for (v,) in conn.execute("select version from bot_versions")]
        plain = {n for (n,) in conn.execute("select name from entrants")}
        schema = conn.execute("select value from meta where key = 'schema'").fetchall()
    assert sorted(versions) == list(range(1, writers * count + 1))
    assert plain == {f"plain-{w}" for w in range(writers)} | {"plain-shared"}
    assert len(schema) == 1


def test_a_database_of_another_schema_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("update meta set value = '99' where key = 'schema'")
    before = db.read_bytes()
    with pytest.raises(StoreError, match="has schema 99; this arena uses 1"):
        Store(db)
    assert db.read_bytes() == before
