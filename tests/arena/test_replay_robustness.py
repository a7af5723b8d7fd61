"""`arena replay show|verify|html|export` on hostile input: a file that is no regular file,
too large or not UTF-8; malformed JSON; lines of the wrong types or moves that are not
legal; stored replays that are corrupt or inflate to gigabytes; outputs that cannot be
written. Each is a one-line error (exit 2; verify: that replay's failure, exit 1), never
a traceback, a hang or unbounded memory. Real files and real CLI processes throughout."""

from __future__ import annotations

import csv
import gzip
import json
import os
import random
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from referee.replay import (
    MAX_REPLAY_BYTES,
    ReplayError,
    decompress_replay,
    parse_replay,
    read_replay_file,
    simulate,
)
from tests.conftest import ROOT, arena, register_bot

BOT = [sys.executable, "-m", "sample_bots.random_bot"]
COMMANDS = ("verify", "show", "html")
MEMORY_CAP = 2 << 30  # bytes of address space for a CLI run: a read with no cap dies


def cli(db: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` as a process with bounded memory and time (a hang fails the test).
    The memory cap is set by a shell, not a preexec_fn: that makes subprocess fork rather
    than vfork, and a fork of this process, whose gRPC is active (other tests' servers),
    can die of SIGABRT before it execs (grpc/grpc#43055: grpcio 1.80 on)."""
    cap = f'ulimit -v {MEMORY_CAP // 1024} && exec "$@"'
    return subprocess.run(
        ["/bin/sh", "-c", cap, "capped", sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "ARENA_DB": str(db), "PYTHONPATH": str(ROOT)},
    )


def command(db: Path, name: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``arena replay NAME ARGS``; html writes into tmp_path."""
    out = ["-o", str(tmp_path / "page.html")] if name == "html" else []
    return cli(db, "replay", name, *args, *out)


def assert_one_line_error(done: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    text = done.stdout + done.stderr
    assert done.returncode == code, text
    assert "Traceback" not in text, text
    for word in words:
        assert word in text, text
    if code == 2:
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, done.stderr


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A database with two finished gin rummy matches, and the first one's replay."""
    db = tmp_path_factory.mktemp("replays") / "a.db"
    for name in ("a", "b"):
        register_bot(db, name, *BOT)
    arena(db, "tournament", "run", "--game", "gin_rummy", "--bots", "a,b", "--rules", "max_hands=1")
    return db, arena(db, "replay", "export", "t1-00000").stdout


def _rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _write_rows(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


# 1. Reading a replay file: only a regular file, under the size cap, in UTF-8.


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_a_replay_file_that_is_no_regular_file_is_refused(
    stored: tuple[Path, str], tmp_path: Path, cmd: str, kind: str
) -> None:
    db, _ = stored
    path = tmp_path / "r.jsonl"
    if kind == "zero":
        path.symlink_to("/dev/zero")  # read with no cap: gigabytes, then MemoryError
    else:
        os.mkfifo(path)  # read as a file: waits for a writer forever
    what = {"zero": "a character device", "fifo": "a FIFO"}[kind]
    done = command(db, cmd, tmp_path, "--file", str(path))
    assert_one_line_error(done, 2, str(path), what)


def test_a_replay_file_over_the_size_cap_is_refused(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    db, _ = stored
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(MAX_REPLAY_BYTES + 1)  # sparse: no disk space used
    for cmd in COMMANDS:
        done = command(db, cmd, tmp_path, "--file", str(big))
        assert_one_line_error(done, 2, str(big), "larger than 64 MiB")


def test_a_file_that_grows_past_the_cap_is_read_only_up_to_it(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"x" * 101)
    with pytest.raises(ReplayError, match="larger than 100 bytes"):
        read_replay_file(path, limit=100)
    assert read_replay_file(path, limit=101) == "x" * 101


@pytest.mark.parametrize(
    ("encode", "words"),
    [
        (lambda t: t.encode("utf-16"), ["line 1: not UTF-8", "UTF-16"]),
        (lambda t: gzip.compress(t.encode()), ["line 1: not UTF-8", "gzip"]),
        (lambda t: t.replace("draw", "dr\xe2w").encode("latin-1"), ["not UTF-8 text"]),
        (lambda t: bytes(range(256)) * 4, ["line 2: not UTF-8 text (byte 0x80 at offset 128)"]),
    ],
    ids=["utf16", "gzip", "latin1", "binary"],
)
def test_a_replay_file_that_is_not_utf8_is_refused(
    stored: tuple[Path, str], tmp_path: Path, encode: Any, words: list[str]
) -> None:
    db, text = stored
    path = tmp_path / "r.jsonl"
    path.write_bytes(encode(text))
    for cmd in COMMANDS:
        done = command(db, cmd, tmp_path, "--file", str(path))
        assert_one_line_error(done, 2, str(path), *words)


# 2. Malformed JSON: a ReplayError with the line, whatever json.loads raises.


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "line 2: nested more than 32 levels deep"),
        (
            '{"type":"event","kind":"x","text":"y","x":' + "[" * 40 + "]" * 40 + "}",
            "line 2: nested",
        ),
        ('{"type":"event","kind":"x","text":"y","hand":' + "9" * 5000 + "}", "line 2: unreadable"),
    ],
    ids=["recursion", "deep", "long-int"],
)
def test_json_that_python_cannot_read_is_a_replay_error(
    stored: tuple[Path, str], tmp_path: Path, line: str, message: str
) -> None:
    db, text = stored
    rows: list[Any] = _rows(text)
    path = _write_rows(tmp_path / "r.jsonl", [rows[0], line, *rows[1:]])
    with pytest.raises(ReplayError, match=message):
        parse_replay(path.read_text())
    assert_one_line_error(command(db, "html", tmp_path, "--file", str(path)), 2, message)
    assert_one_line_error(command(db, "verify", tmp_path, "--file", str(path)), 1, message)


def test_line_separators_inside_a_string_do_not_split_a_line(stored: tuple[Path, str]) -> None:
    # A bot's stderr may hold U+2028 or U+0085; the encoder writes them as they are, and
    # str.splitlines would cut the line there.
    _, text = stored
    rows: list[Any] = _rows(text)
    log = {"type": "stderr", "seat": 0, "text": "a\u2028b\x85c\x1cd", "dropped_bytes": 0}
    edited = [*rows[:-1], json.dumps(log, ensure_ascii=False), rows[-1]]
    replay = parse_replay(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in edited)
    )
    assert replay.lines[-2]["text"] == log["text"]


def test_errors_name_the_line_of_the_file_when_it_has_blank_lines(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    # A hand-edited file may hold blank lines, before the header too: they are skipped,
    # and every error still names the line as an editor numbers it.
    db, text = stored
    rows: list[Any] = _rows(text)
    first = next(i for i, r in enumerate(rows) if r["type"] == "decision")
    rows[first] = {**rows[first], "action": "zzz"}
    spaced = ["", *rows[:first], "  ", "", *rows[first:]]
    path = _write_rows(tmp_path / "spaced.jsonl", spaced)
    want = f"line {first + 4}: 'zzz'"
    with pytest.raises(ReplayError, match=want):
        list(simulate(parse_replay(path.read_text()))[2])
    for name in COMMANDS:
        done = command(db, name, tmp_path, "--file", str(path))
        assert want in done.stdout + done.stderr, (name, done.stdout + done.stderr)


# 3. Corrupt content: every command reports the same error, naming the line and field.


def _decisions(rows: list[dict[str, Any]]) -> list[int]:
    return [i for i, r in enumerate(rows) if r["type"] == "decision"]


def _edit(rows: list[dict[str, Any]], i: int, **fields: Any) -> list[dict[str, Any]]:
    return [*rows[:i], {**rows[i], **fields}, *rows[i + 1 :]]


def _corrupt(rows: list[dict[str, Any]], how: str) -> tuple[list[dict[str, Any]], str]:
    """The replay corrupted ``how``, and the words the error must contain."""
    d = _decisions(rows)
    first, second = d[0], d[1]
    events = [i for i, r in enumerate(rows) if r["type"] == "event"]
    private = next(i for i in events if "visible_to" in rows[i])
    end = len(rows) - 1
    other = 1 - rows[first]["seat"]
    cases: dict[str, tuple[list[dict[str, Any]], str]] = {
        "duplicated": ([*rows[: first + 1], *rows[first:]], f"line {first + 2}: "),
        "swapped": (
            [
                *rows[:first],
                rows[second],
                *rows[first + 1 : second],
                rows[first],
                *rows[second + 1 :],
            ],
            f"line {first + 1}: ",
        ),
        "missing": ([*rows[:first], *rows[first + 1 :]], "is not legal here"),
        "wrong-seat": (_edit(rows, first, seat=other), f"line {first + 1}: "),
        "illegal": (_edit(rows, first, action="zzz"), f"line {first + 1}: 'zzz'"),
        "ms-list": (_edit(rows, first, ms=[1]), f"line {first + 1}: decision line: ms must be"),
        "no-scores": (
            _edit(rows, end, outcome={"ranks": [1, 2]}),
            f"line {end + 1}: end line: outcome lacks scores",
        ),
        "hand-list": (_edit(rows, events[0], hand=[1]), "event line: hand must be an integer"),
        "hand-abc": (_edit(rows, events[0], hand="abc"), "event line: hand must be an integer"),
        "visible-int": (
            _edit(rows, private, visible_to=3),
            "visible_to must be a list of integers",
        ),
        "players": (_edit(rows, 0, players=[1, None]), "line 1: header line: players must be"),
        "player-name": (
            _edit(rows, 0, players=["a", {"x": 1}]),
            "players must be a list of strings",
        ),
    }
    return cases[how]


CORRUPTIONS = (
    "duplicated",
    "swapped",
    "missing",
    "wrong-seat",
    "illegal",
    "ms-list",
    "no-scores",
    "hand-list",
    "hand-abc",
    "visible-int",
    "players",
    "player-name",
)


@pytest.mark.parametrize("how", CORRUPTIONS)
def test_corrupt_content_is_the_same_clear_error_for_every_command(
    stored: tuple[Path, str], tmp_path: Path, how: str
) -> None:
    db, text = stored
    rows, words = _corrupt(_rows(text), how)
    path = _write_rows(tmp_path / "r.jsonl", list(rows))
    for cmd in COMMANDS:
        done = command(db, cmd, tmp_path, "--file", str(path))
        assert_one_line_error(done, 1 if cmd == "verify" else 2, words)
        if cmd == "verify":
            assert "0 of 1 replays verified" in done.stdout


TERMINAL_CONTROLS = "\x1b]0;retitled\x07\x1b[2J\x9b31m"


@pytest.mark.parametrize("where", ["option-name", "option-value", "event-kind"])
def test_a_replays_words_reach_the_terminal_as_text(
    stored: tuple[Path, str], tmp_path: Path, where: str
) -> None:
    """Whoever wrote a replay file chooses the words its errors and mismatches quote; a
    terminal must get them as text, not as control sequences."""
    db, text = stored
    rows = _rows(text)
    if where == "event-kind":
        at = next(i for i, r in enumerate(rows) if r["type"] == "event")
        rows = _edit(rows, at, kind=TERMINAL_CONTROLS, text=TERMINAL_CONTROLS)
    else:
        header = rows[0]
        extra = (
            {"x" + TERMINAL_CONTROLS: 1}
            if where == "option-name"
            else {"knock_limit": TERMINAL_CONTROLS}
        )
        rows = [{**header, "rules": {**header["rules"], **extra}}, *rows[1:]]
    path = _write_rows(tmp_path / "r.jsonl", rows)
    for cmd in COMMANDS:
        done = command(db, cmd, tmp_path, "--file", str(path))
        out = done.stdout + done.stderr
        if cmd == "verify":  # quotes them in every case (the others, in their errors)
            assert "\\x1b]0;retitled" in out, out
        for control in ("\x1b", "\x07", "\x9b"):
            assert control not in out, (cmd, out)


# 4. Stored replays: decompressed under the cap; a corrupt one fails that match only.


def _store_blob(db: Path, match_id: str, blob: Any) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("update replays set jsonl_z = ? where match_id = ?", [blob, match_id])


def test_corrupt_stored_replays_fail_their_match_and_verify_goes_on(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    db = tmp_path / "copy.db"
    db.write_bytes(stored[0].read_bytes())
    # 100 MiB of zeros in ~100 KiB: inflated with no cap, as much memory as it likes.
    _store_blob(db, "t1-00000", zlib.compress(bytes(100 << 20), 9))
    verify = cli(db, "replay", "verify")
    assert_one_line_error(verify, 1, "ok t1-00001", "1 of 2 replays verified")
    assert "t1-00000 is larger than 64 MiB once decompressed" in verify.stdout
    _store_blob(db, "t1-00001", zlib.compress("caf\xe9".encode("latin-1")))
    verify = cli(db, "replay", "verify", "--json")
    assert verify.returncode == 1, verify.stderr
    problems = {r["match"]: r["problems"][0] for r in json.loads(verify.stdout)}
    assert "larger than 64 MiB" in problems["t1-00000"]
    assert "the stored replay of t1-00001: line 1: not UTF-8" in problems["t1-00001"]
    for cmd in COMMANDS:
        done = command(db, cmd, tmp_path, "t1-00000")
        assert_one_line_error(done, 1 if cmd == "verify" else 2, "larger than 64 MiB")


def test_a_report_goes_on_past_a_corrupt_replay_and_names_it(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    """One unreadable replay cost the whole report (no index page); now only its page."""
    db = tmp_path / "copy.db"
    db.write_bytes(stored[0].read_bytes())
    _store_blob(db, "t1-00000", b"not zlib")
    folder = tmp_path / "report"
    done = cli(db, "report", "1", "-o", str(folder))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "warning: no replay page for t1-00000: the stored replay of t1-00000" in done.stderr
    assert "arena replay verify t1-00000" in done.stderr
    assert sorted(p.name for p in (folder / "matches").iterdir()) == ["t1-00001.html"]
    index = (folder / "index.html").read_text()
    assert "t1-00000 (replay unreadable: the stored replay of t1-00000" in index
    assert 'href="matches/t1-00001.html"' in index


def _damage_the_page_chain_of(db: Path, match_id: str) -> None:
    """Store a replay of several pages for ``match_id``, then break the file under it: its
    first overflow page's link to the next points past the end of the file, which SQLite
    reads as "database disk image is malformed" (as a disk's bad sector, or a copy cut
    mid-write, would leave it), while every other row stays readable."""
    blob = random.Random(7).randbytes(20_000)  # incompressible: its bytes are in the file
    with sqlite3.connect(db) as conn:
        conn.execute("pragma journal_mode = delete")  # every page in the file itself
    _store_blob(db, match_id, blob)
    data = bytearray(db.read_bytes())
    at = data.find(blob[5000:5064])  # in the first overflow page of four
    page = at - at % 4096
    data[page : page + 4] = (0x7FFFFFFF).to_bytes(4, "big")
    db.write_bytes(bytes(data))


def test_a_replay_on_a_damaged_page_is_that_matchs_failure_alone(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    """A damaged page under one replay stopped `replay verify`, `report` and `matches
    export` at "the database: database disk image is malformed", naming no match."""
    db = tmp_path / "copy.db"
    db.write_bytes(stored[0].read_bytes())
    _damage_the_page_chain_of(db, "t1-00000")
    why = "the stored replay of t1-00000 cannot be read: database disk image is malformed"
    for args in (("--tournament", "1"), ()):
        verify = cli(db, "replay", "verify", *args)
        assert_one_line_error(verify, 1, "ok t1-00001", "1 of 2 replays verified", why)
        assert "sqlite3's .recover" in verify.stdout
    folder = tmp_path / "report"
    done = cli(db, "report", "1", "-o", str(folder))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"warning: no replay page for t1-00000: {why}" in done.stderr
    assert sorted(p.name for p in (folder / "matches").iterdir()) == ["t1-00001.html"]
    done = cli(db, "matches", "export", "-o", str(tmp_path / "rows.csv"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "the stored replays of 1 match(es) (t1-00000) are corrupt" in done.stderr
    assert_one_line_error(cli(db, "replay", "show", "t1-00000"), 2, why)


@pytest.mark.parametrize(
    "blob",
    [b"not zlib", zlib.compress(b'{"type": "header"' * 100)[:20], zlib.compress(b"[1]\n"),
     zlib.compress(bytes(100 << 20), 9)],
    ids=["not-zlib", "truncated", "not-a-header", "bomb"],
)  # fmt: skip
def test_export_goes_on_past_a_corrupt_replay_and_names_it(
    stored: tuple[Path, str], tmp_path: Path, blob: bytes
) -> None:
    """The export reads each replay's header for its game version: a corrupt replay was
    a traceback, with a CSV cut short."""
    db = tmp_path / "copy.db"
    db.write_bytes(stored[0].read_bytes())
    _store_blob(db, "t1-00000", blob)
    out = tmp_path / "rows.csv"
    done = cli(db, "matches", "export", "-o", str(out))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "the stored replays of 1 match(es) (t1-00000) are corrupt" in done.stderr
    rows = {(r["match"], r["seat"]): r["game_version"] for r in csv.DictReader(out.open())}
    assert len(rows) == 4
    assert rows["t1-00000", "0"] == rows["t1-00000", "1"] == ""
    assert rows["t1-00001", "0"] == rows["t1-00001", "1"] != ""


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"not zlib", "corrupt: Error -3"),
        (zlib.compress(b"{}" * 1000)[:20], "truncated"),
        ("text, not a blob", "not compressed data"),
    ],
)
def test_a_stored_blob_that_is_not_a_replay_is_a_replay_error(blob: Any, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        decompress_replay(blob, "the stored replay of m")


# 5. Outputs that cannot be written: a one-line error.


def test_an_output_that_cannot_be_written_is_a_clear_error(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    db, _ = stored
    nowhere = tmp_path / "no" / "such" / "folder.html"
    for args in (["export", "t1-00000"], ["html", "t1-00000"]):
        for target in (nowhere, tmp_path):  # a missing folder; a directory
            done = cli(db, "replay", *args, "-o", str(target))
            assert_one_line_error(done, 2, f"cannot write {target}")


def test_the_default_html_name_stays_in_this_folder(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    db, text = stored
    rows: list[Any] = _rows(text)
    outside = tmp_path / "outside"
    here = tmp_path / "here"
    here.mkdir()
    path = _write_rows(tmp_path / "r.jsonl", [{**rows[0], "match_id": "../outside"}, *rows[1:]])
    done = cli(db, "replay", "html", "--file", str(path), cwd=here)
    assert done.returncode == 0, done.stderr
    assert not outside.with_suffix(".html").exists()
    assert [p.name for p in here.iterdir()] == ["_outside.html"]


def test_stepping_with_no_more_input_ends_the_viewer(stored: tuple[Path, str]) -> None:
    db, _ = stored
    done = cli(db, "replay", "show", "t1-00000", "--step")  # stdin: /dev/null
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
