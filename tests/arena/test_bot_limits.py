"""`arena bots check` on a good bot and on bots that break each rule; resource limits
stop a bot and record a fault while the tournament goes on; stderr is kept per match."""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from arena import checks
from arena.bots import OPEN_FILES_PER_PROCESS, descriptors, with_open_files_limit
from arena.store import Entrant
from referee.game import get_game, parse_rules
from referee.replay import parse_replay
from tests.conftest import arena, register_bot, stored_replays

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def add(db: Path, name: str, *command: str) -> None:
    register_bot(db, name, *command, games=("gin_rummy",))


def misbehaving(mode: str, n: int = 2) -> list[str]:
    return [PY, "-m", "tests.service.bots.misbehaving", mode, str(n)]


def test_check_passes_a_good_bot(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    add(db, "good", PY, "-m", "sample_bots.random_bot")
    out = arena(db, "bots", "check", "good", "--json")
    reports = json.loads(out.stdout)
    assert [(r["game"], r["ok"]) for r in reports] == [("gin_rummy", True)]
    assert reports[0]["decisions"] > 10


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (misbehaving("crash", 2), "stopped running"),
        (misbehaving("illegal", 2), "answered with an illegal action"),
        (misbehaving("malformed", 2), "sent something that is not a valid answer"),
        ([PY, "-m", "tests.service.bots.garbage"], "sent something that is not a valid answer"),
        ([*misbehaving("slow", 2), "3"], "did not answer in time"),
    ],
    ids=["crash", "illegal", "malformed", "garbage", "slow"],
)
def test_check_reports_each_broken_rule_in_plain_words(
    tmp_path: Path, command: list[str], words: str
) -> None:
    db = tmp_path / "a.db"
    add(db, "bad", *command)
    out = arena(db, "bots", "check", "bad", "--move-seconds", "1", check=False)
    assert out.returncode == 1
    assert words in out.stdout.replace("\n", " ")


def test_a_check_shows_the_first_and_last_lines_of_a_bots_stderr() -> None:
    """The cause often comes first and a stack trace after it: the JavaScript bot's
    missing .proto file was past the five last lines shown."""
    text = "\n".join(f"line {i}" for i in range(20)) + "\n"
    assert checks.stderr_excerpt(text).splitlines() == [
        "line 0",
        "line 1",
        "line 2",
        "… (12 lines)",
        *(f"line {i}" for i in range(15, 20)),
    ]
    assert checks.stderr_excerpt("one\ntwo\n") == "one\ntwo"


SEAT_0_DEALS = 9  # a Goninkan deal seed whose first dealer is seat 0 (asserted below)


def test_a_check_that_never_asks_the_bot_is_played_again_and_a_bot_dead_unasked_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Goninkan's dealer sits out every deal of its round. A bot that exits at once
    passed its check when it dealt ("0 decisions, no faults") and was stored. Now a process
    that died fails the check even unasked, and a check that never asks the bot is played
    again on another deal; here every deal has the bot dealing."""
    engine = get_game("goninkan")
    rules = parse_rules(engine.Rules, checks.quick_rules("goninkan"))
    assert engine.initial_state(rules, 6, SEAT_0_DEALS).dealer == 0
    monkeypatch.setattr("secrets.randbits", lambda bits: SEAT_0_DEALS)  # every deal
    crashing = Entrant("crashy", ("goninkan",), (PY, "-c", "raise SystemExit(3)"), str(ROOT), "")
    [report] = asyncio.run(checks.check_bot(crashing, ["goninkan"]))
    assert not report.ok and report.decisions == 0
    assert report.problems == ("stopped running: bot process exited with code 3",)
    [report] = asyncio.run(checks.check_bot(checks.RANDOM_BOT, ["goninkan"]))
    assert not report.ok
    assert report.problems == (
        f"was never asked to decide in {checks.MATCHES_TO_BE_ASKED} matches",
    )


def _tournament(db: Path, *extra: str, move_seconds: float = 10) -> dict[str, object]:
    out = arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        "bad,good",
        "--rounds",
        "2",
        "--rules",
        "max_hands=3",
        "--move-seconds",
        str(move_seconds),
        "--json",
        *extra,
    )
    return cast(dict[str, object], json.loads(out.stdout))


@pytest.mark.parametrize(
    ("mode", "limit", "words"),
    [
        ("hog_memory", ["--bot-memory-mb", "200"], "MB of memory, over its 200 MB limit"),
        ("hog_cpu", ["--bot-cpu-seconds", "2"], "s of CPU in this match, over its 2 s limit"),
    ],
)
def test_bot_over_a_resource_limit_is_stopped_and_the_tournament_goes_on(
    tmp_path: Path, mode: str, limit: list[str], words: str
) -> None:
    db = tmp_path / "a.db"
    add(db, "bad", *misbehaving(mode, 2))
    add(db, "good", PY, "-m", "sample_bots.random_bot")
    # The deadline is far beyond what the limit needs (2 s of CPU, 200 MB), so on a loaded
    # machine, where the hog gets a small share of a core, the limit still trips first.
    out = _tournament(db, *limit, move_seconds=120)
    assert out["played"] == 4 and not out["errors"]
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert all(m["reason"] == "forfeit" for m in matches)
    replay = parse_replay(arena(db, "replay", "export", matches[0]["id"]).stdout)
    fault_lines = [line for line in replay.lines if line["type"] == "fault"]
    assert [f["kind"] for f in fault_lines] == ["limit"] and words in fault_lines[0]["reason"]


def test_stderr_is_kept_per_match_within_the_output_limit(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    add(db, "bad", *misbehaving("chatty"))
    add(db, "good", PY, "-m", "sample_bots.random_bot")
    out = _tournament(db, "--bot-output-kb", "1", "--concurrency", "1")
    assert out["played"] == 4
    first_turns: list[int] = []
    for match, replay in stored_replays(db):
        logs = [line for line in replay.lines if line["type"] == "stderr"]
        seat = match["entrants"].index("bad")
        assert [log["seat"] for log in logs] == [seat]
        text = logs[0]["text"]
        assert text.startswith("thinking about turn ")
        assert len(text) <= 1024 and logs[0]["dropped_bytes"] > 0
        first_turns.append(int(text.splitlines()[0].split()[-1]))
        assert "thinking about turn" in arena(db, "replay", "show", match["id"], "--no-step").stdout
    # Each match kept the lines written during it. A process plays a deal once (two
    # rounds of two matches, a deal per round): matches 1, 2 and 4 start fresh processes
    # (turn 1); match 3, on the next deal, is played by match 2's process, counting on.
    assert first_turns[0] == first_turns[1] == first_turns[3] == 1 and first_turns[2] > 1


def _limits_seen(hard: int | None) -> str:
    """The open-files limits (soft hard) a bot launched under a parent whose hard limit is
    ``hard`` (None: as this process's) sees."""
    show = ["/bin/sh", "-c", 'echo "$(ulimit -Sn) $(ulimit -Hn)"']
    # The parent's limit is set by a shell, not a preexec_fn, which makes subprocess fork:
    # a fork of a process with gRPC active can die before it execs (grpc/grpc#43055).
    lower = [] if hard is None else ["/bin/sh", "-c", f'ulimit -n {hard} && exec "$@"', "lower"]
    done = subprocess.run(
        [*lower, *with_open_files_limit(show)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_bot_process_gets_its_open_files_limit_and_cannot_raise_it() -> None:
    assert _limits_seen(None) == f"{OPEN_FILES_PER_PROCESS} {OPEN_FILES_PER_PROCESS}"
    # under a hard limit already lower, the bot still starts, with that lower limit
    assert _limits_seen(256) == "256 256"


NOBODY = 65534
PR_SET_DUMPABLE = 4


def _forked(work: Callable[[int], None]) -> tuple[int, int]:
    """Run ``work(write_fd)`` in a forked child as an unprivileged user (nobody when this
    runs as root, else this user); returns the child's pid and the pipe's read end."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: plain system calls only, then _exit
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setresgid(NOBODY, NOBODY, NOBODY)
                os.setresuid(NOBODY, NOBODY, NOBODY)
            work(write_end)
        finally:
            os._exit(0)
    os.close(write_end)
    return pid, read_end


def test_a_process_that_hides_its_descriptors_counts_as_its_limit() -> None:
    """A bot process that makes itself non-dumpable cannot have its descriptors listed by
    an arena that is not root: it counts as the most it may hold, not as none."""

    def hide(out: int) -> None:
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        held = [os.open("/", os.O_RDONLY) for _ in range(5)]
        os.write(out, f"{len(held)}\n".encode())
        signal.pause()

    target, from_target = _forked(hide)
    try:
        assert os.read(from_target, 64).strip() == b"5"

        def count(out: int) -> None:
            os.write(out, f"{descriptors([target])[0]} {descriptors([os.getpid()])[0]}\n".encode())

        reader, from_reader = _forked(count)
        seen = os.read(from_reader, 64).decode().split()
        os.waitpid(reader, 0)
        os.close(from_reader)
    finally:
        os.kill(target, signal.SIGKILL)
        os.waitpid(target, 0)
        os.close(from_target)
    hidden, own = (int(n) for n in seen)
    assert hidden == OPEN_FILES_PER_PROCESS
    assert 0 < own < OPEN_FILES_PER_PROCESS  # a readable process counts as it is


FIND_CGROUPS_AT_ONCE = """
import threading
from arena import cgroups

start = threading.Barrier(8)
roots, groups = [], []

def find_and_create(n):
    start.wait()
    root = cgroups.available()
    roots.append(root)
    if root is not None:
        groups.append(root.create(f"probe-{n}", 64, 16))

threads = [threading.Thread(target=find_and_create, args=(n,)) for n in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if all(r is None for r in roots):
    print("none")
else:
    assert all(r is roots[0] for r in roots), f"threads found different cgroup roots: {roots}"
    missing = [str(d) for g in groups for d in g.dirs.values() if not d.is_dir()]
    assert not missing, f"cgroups removed under their bots: {missing}"
    print("ok")
"""


def test_threads_finding_the_cgroups_at_once_share_one_root() -> None:
    """Uploads checked at once start bots from several threads of one server: the first
    bots of a process find its cgroup directory together. Each finding it alone made and
    removed the directory under the others' bots ("cannot start bot: No such file")."""
    for _ in range(5):  # a race: tried a few times over, each a fresh process
        out = subprocess.run(
            [sys.executable, "-c", FIND_CGROUPS_AT_ONCE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        if out.stdout.strip() == "none":
            pytest.skip("no cgroups the arena can use on this machine")
        assert out.stdout.strip() == "ok"
