"""The sandbox modes through the real CLI: detection and its messages (failures faked with
a bwrap that cannot work, as the machine may not produce them), the README's Python bot
recipe and the JavaScript sample bot playing inside bwrap, the mode stored with the
tournament, stderr stored with the match it follows, and the size of a bot's /tmp."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena import bot_users
from arena.sandbox import SandboxError, resolve, sandbox_env, tmpfs_size_supported
from arena.store import Store, database_files
from tests.conftest import register_bot, stored_replays
from tests.security.conftest import (
    BOTS,
    ROOT,
    add_gin_bot,
    add_random,
    needs_bwrap,
    run_arena,
    run_sandboxed,
    stderr_of,
    tournament,
)

BLOCKED = "bwrap: No permission to create new namespace, likely because the kernel does not allow non-privileged user namespaces."


@pytest.fixture
def blocked_bwrap() -> Iterator[str]:
    """A bwrap that fails the way it does where user namespaces are blocked, in a folder
    any user may enter: a root arena runs bwrap as the bot's own user
    (arena/bot_users.py), and pytest's folders are root's alone."""
    with tempfile.TemporaryDirectory(prefix="fake-bwrap-") as folder:
        os.chmod(folder, 0o755)
        path = Path(folder) / "bwrap"
        path.write_text(f"#!/bin/sh\necho '{BLOCKED}' >&2\nexit 1\n")
        path.chmod(0o755)
        yield str(path)


def test_missing_bwrap_names_the_cause_and_the_fixes(tmp_path: Path) -> None:
    for mode in ("auto", "bwrap"):
        with pytest.raises(SandboxError) as caught:
            resolve(mode, bwrap=str(tmp_path / "no-bwrap"))
        text = str(caught.value)
        assert "not installed" in text and "apt-get install bubblewrap" in text
        assert "--sandbox none" in text


def test_blocked_user_namespaces_name_the_cause_and_the_fixes(
    tmp_path: Path, blocked_bwrap: str
) -> None:
    with pytest.raises(SandboxError) as caught:
        resolve("auto", bwrap=blocked_bwrap)
    text = str(caught.value)
    assert "user namespaces are blocked" in text and "No permission" in text
    assert "kernel.unprivileged_userns_clone" in text and "--sandbox none" in text


def test_a_tournament_refuses_to_start_without_a_working_sandbox(
    tmp_path: Path, blocked_bwrap: str
) -> None:
    db = tmp_path / "arena.db"
    add_random(db, "random", "random2")
    env = {"ARENA_BWRAP": blocked_bwrap}
    out = run_arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        "random,random2",
        env=env,
        check=False,
    )
    assert out.returncode == 2
    assert "user namespaces are blocked" in out.stderr and "--sandbox none" in out.stderr
    assert Store(db).tournaments() == []  # nothing recorded, nothing played
    check = run_arena(db, "bots", "check", "random", "--sandbox", "bwrap", env=env, check=False)
    assert check.returncode == 2 and "user namespaces are blocked" in check.stderr


def test_sandbox_none_runs_and_says_so_and_is_stored(tmp_path: Path, blocked_bwrap: str) -> None:
    db = tmp_path / "arena.db"
    add_random(db, "random", "random2")
    env = {"ARENA_BWRAP": blocked_bwrap}
    out = run_arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        "random,random2",
        "--rules",
        "max_hands=1",
        "--sandbox",
        "none",
        env=env,
    )
    assert "without a sandbox" in out.stderr
    [record] = Store(db).tournaments()
    assert record.settings.sandbox == "none" and record.status == "finished"


def test_demo_falls_back_with_a_note_when_bwrap_does_not_work(
    tmp_path: Path, blocked_bwrap: str
) -> None:
    db = tmp_path / "arena.db"
    env = {"ARENA_BWRAP": blocked_bwrap}
    out = run_arena(db, "demo", "--rounds", "1", "--replays", str(tmp_path / "r"), env=env)
    assert "sample bots run without a sandbox" in out.stderr
    assert "user namespaces are blocked" in out.stderr
    assert [t.settings.sandbox for t in Store(db).tournaments()] == ["none"]


@needs_bwrap
def test_readme_python_bot_recipe_plays_in_the_sandbox(tmp_path: Path) -> None:
    """`arena bots add mybot --game gin_rummy --cwd mybot -- python mybot.py` (README)."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "mybot.py").write_text(
        textwrap.dedent(
            """
            def choose(observation, legal_actions):
                return legal_actions[0]

            if __name__ == "__main__":
                from referee.client import run_bot
                run_bot(choose, name="mybot")
            """
        )
    )
    db = tmp_path / "arena.db"
    add_gin_bot(db, "mybot", "python", "mybot.py", folder=folder)
    add_random(db, "random", "random2")
    summary = tournament(db, "mybot,random")
    assert summary["played"] == 2 and not summary["errors"]
    [record] = Store(db).tournaments()
    assert record.settings.sandbox == "bwrap"
    for _match, replay in stored_replays(db):
        assert not [line for line in replay.lines if line["type"] == "fault"]


@needs_bwrap
@pytest.mark.skipif(not bot_users.needed(), reason="only a root arena runs bots as their own users")
def test_a_program_only_its_owner_may_run_is_refused_with_the_fix(tmp_path: Path) -> None:
    """A root arena runs each bot as a user of its own, which may run a program only by
    its execute bit for others: the arena says so, rather than bwrap's "Permission
    denied" at every match."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    program = folder / "mybot"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o700)
    db = tmp_path / "arena.db"
    add_gin_bot(db, "mybot", "./mybot", folder=folder)
    add_random(db, "random")
    done = run_arena(
        db, "tournament", "run", "--game", "gin_rummy", "--bots", "mybot,random", check=False
    )
    assert done.returncode == 1
    assert f"{program} may be run by its owner and group only" in done.stderr
    assert "make it executable by all (chmod o+x)" in done.stderr


JS_DIR = ROOT / "sample_bots" / "js"


@needs_bwrap
@pytest.mark.skipif(
    shutil.which("node") is None or not (JS_DIR / "node_modules" / "@grpc").is_dir(),
    reason="node and sample_bots/js/node_modules are needed (scripts/bootstrap dev)",
)
def test_javascript_sample_bot_plays_in_the_sandbox(tmp_path: Path) -> None:
    """From a copy outside the repository, as a submitter's would be: it loads the .proto
    files from ARENA_PROTO_DIR (it looked for ../../proto and crashed)."""
    db = tmp_path / "arena.db"
    copy = shutil.copytree(JS_DIR, tmp_path / "jsbot", symlinks=True)
    add_gin_bot(db, "js", "node", "bot.js", "--strategy", "random", folder=copy)
    add_random(db, "random", "random2")
    summary = tournament(db, "js,random")
    assert summary["played"] == 2 and not summary["errors"]
    for _match, replay in stored_replays(db):
        assert not [line for line in replay.lines if line["type"] == "fault"]


@pytest.mark.parametrize("sandbox", [pytest.param("auto", marks=needs_bwrap), "none"])
def test_stderr_after_match_over_is_stored_with_that_match(tmp_path: Path, sandbox: str) -> None:
    db = tmp_path / "arena.db"
    add_gin_bot(db, "late", "python", "late_talker.py")
    add_random(db, "random", "random2")
    tournament(db, "late,random", "--rounds", "2", "--concurrency", "1", "--sandbox", sandbox)
    played = stored_replays(db)
    assert len(played) == 4
    texts = [stderr_of(replay, list(match["entrants"]).index("late")) for match, replay in played]
    ids = [match["id"] for match, _ in played]
    # A process plays a deal once: the first match of each round's deal ends its process
    # (replaced for the second, it exits saying goodbye); the second match's process goes
    # on into the next round, and its line after that match ends in the next one, after
    # its first answer there: each line whole, with the match it follows.
    assert texts == [
        f"after {ids[0]}\ngoodbye\n",
        f"after {ids[1]}\n",
        f"after {ids[2]}\ngoodbye\n",
        f"after {ids[3]}\ngoodbye\n",
    ]


@needs_bwrap
@pytest.mark.parametrize(
    ("directory", "limit_mb", "cap_mb"),
    [("/tmp", 16, 16), ("/tmp", 40, 40), ("/dev/shm", 16, 16), ("/dev/shm", 200, 64)],
)
def test_the_writable_ram_disks_hold_no_more_than_the_memory_limit(
    tmp_path: Path, directory: str, limit_mb: int, cap_mb: int
) -> None:
    """/tmp and /dev/shm are RAM disks: a bot writing one full is stopped at its memory
    limit (/dev/shm at 64 MiB) by the file system itself, with no cgroup involved (this
    runs bwrap directly)."""
    sandbox = resolve("bwrap")
    if not tmpfs_size_supported(str(sandbox.bwrap)):
        pytest.skip("this bubblewrap cannot size a tmpfs (0.7.0 or later, not setuid)")
    fill = ["python", "fill.py", "256", "f", directory]
    done = run_sandboxed(sandbox, fill, str(BOTS), scratch_mb=limit_mb)
    assert done.returncode == 0, done.stderr
    report = done.stdout.strip()
    assert report.endswith("stopped by No space left on device"), report
    assert cap_mb - 2 <= int(report.split()[1]) <= cap_mb, report


@needs_bwrap
def test_nothing_else_is_writable(tmp_path: Path) -> None:
    """The root and /dev are tmpfs that bubblewrap builds the view in; both are read-only
    once built, so they are no RAM disk of unbounded size."""
    sandbox = resolve("bwrap")
    probe = (
        "import os\n"
        "for d in ('/', '/etc', '/usr', '/dev', os.getcwd(), '/tmp', '/dev/shm'):\n"
        "    try:\n"
        "        open(os.path.join(d, 'probe'), 'w').close(); print(d, 'writable')\n"
        "    except OSError as exc:\n"
        "        print(d, exc.strerror)\n"
        "open('/dev/null', 'w').write('devices still work')\n"
    )
    cwd = tmp_path / "bot"
    cwd.mkdir()
    done = run_sandboxed(sandbox, ["python", "-c", probe], str(cwd), scratch_mb=64)
    assert done.returncode == 0, done.stderr
    seen = dict(line.split(" ", 1) for line in done.stdout.splitlines())  # paths: no spaces
    assert seen == {
        "/": "Read-only file system",
        "/etc": "Read-only file system",
        "/usr": "Read-only file system",
        "/dev": "Read-only file system",
        str(cwd): "Read-only file system",
        "/tmp": "writable",
        "/dev/shm": "writable",
    }, done.stdout


@needs_bwrap
def test_a_database_reached_through_a_symbolic_link_is_hidden_too(tmp_path: Path) -> None:
    """A bot's folder is stored with links resolved; the database may be named through a
    link (ARENA_DB=/link/arena.db). Hidden only as named, it was readable to a bot
    registered beside it."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "arena.db").write_text("the tournament's secret")
    (tmp_path / "link").symlink_to(real)
    hidden = database_files(tmp_path / "link" / "arena.db")
    read = (
        "try:\n    print(repr(open('arena.db').read()))\n"
        "except OSError as exc:\n    print(exc.strerror)"
    )
    with resolve("bwrap").launch(["python", "-c", read], str(real), hidden=hidden) as launch:
        done = subprocess.run(
            launch.argv,
            env=sandbox_env(resolve("bwrap"), {}),
            pass_fds=launch.pass_fds,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("''", "Permission denied")  # /dev/null in its place


PROC_PROBE = """
import json, os
def tried(path, flags=os.O_RDONLY):
    try:
        os.close(os.open(path, flags))
        return "opened"
    except OSError as exc:
        return exc.strerror
writable = []
for name in os.listdir("/proc"):
    path = "/proc/" + name
    if not name.isdigit() and os.path.isfile(path) and tried(path, os.O_WRONLY) == "opened":
        writable.append(name)
print(json.dumps({
    "core_pattern": tried("/proc/sys/kernel/core_pattern", os.O_WRONLY),
    "sys": os.listdir("/proc/sys"),
    "init_memory": tried("/proc/1/mem", os.O_RDWR),
    "page_flags": tried("/proc/kpageflags"),
    "keys": tried("/proc/keys"),
    "terminal": tried("/dev/ptmx", os.O_RDWR),
    "terminals": os.listdir("/dev/pts"),
    "writable": writable,
    "own_status": tried("/proc/self/status"),
    "meminfo": tried("/proc/meminfo"),
    "cpus": os.cpu_count(),
}))
"""


@needs_bwrap
def test_the_bots_proc_reaches_nothing_of_the_host() -> None:
    """Where the arena runs as root the bot is uid 0 to the kernel, and procfs checks
    that uid: a red-team bot wrote /proc/sys/kernel/core_pattern and the kernel ran its
    program as root on the host; it read every physical page's flags, rewrote its
    sandbox's init through /proc/1/mem to outlive the arena, and counted the machine's
    open terminals (a channel between sandboxes). Its own /proc still works."""
    done = run_sandboxed(resolve("bwrap"), ["python", "-c", PROC_PROBE], str(BOTS))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {
        "core_pattern": "No such file or directory",
        "sys": [],
        "init_memory": "No such file or directory",
        "page_flags": "Permission denied",
        "keys": "Permission denied",
        "terminal": "No such file or directory",
        "terminals": [],
        "writable": [],
        "own_status": "opened",
        "meminfo": "opened",
        "cpus": seen["cpus"],
    }
    assert seen["cpus"] >= 1


def processes_by_seat(db: Path) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Each rememberer seat of every stored match, with the process it names (None for a
    seat never asked to choose: the other player may knock on its first turn)."""
    for match, replay in stored_replays(db):
        for seat, name in enumerate(match["entrants"]):
            if name.startswith("memo"):
                named = set(re.findall(r"process (\w+)", stderr_of(replay, seat)))
                assert len(named) <= 1, f"one seat, processes {named}"
                yield match, next(iter(named), None)


def assert_never_two_at_once(db: Path, deal_of: Callable[[dict[str, Any]], int]) -> None:
    """No two matches of one deal (``deal_of`` a replay's header) were in play at once,
    by the times of the turns the rememberers wrote: their processes could tell each
    other their hands (a red-team bot did, through locks on files every sandbox shares)."""
    turns: dict[str, list[float]] = {}
    deal_of_match: dict[str, int] = {}
    for match, replay in stored_replays(db):
        deal_of_match[match["id"]] = deal_of(replay.header)
        for seat in range(len(match["entrants"])):
            for in_match, at in re.findall(r" in (\S+) at ([\d.]+)", stderr_of(replay, seat)):
                turns.setdefault(in_match, []).append(float(at))
    in_play = [(deal_of_match[m], min(times), max(times)) for m, times in turns.items()]
    for (deal, start, end), (other, start2, end2) in itertools.combinations(in_play, 2):
        assert deal != other or end < start2 or end2 < start, "two tables of a deal at once"


@pytest.mark.parametrize(
    ("sandbox", "workers"),
    [pytest.param("auto", 0, marks=needs_bwrap), ("none", 0), ("none", 2)],
    ids=["bwrap", "none", "none on 2 Dask workers"],
)
def test_no_bot_process_plays_one_deal_twice(tmp_path: Path, sandbox: str, workers: int) -> None:
    """Every table of a round plays the round's deal, from every seat in turn: a process
    handed two of those matches would know its opponent's hand (the one it held before)
    and the stock's order. Each process (named on stderr by a random id) plays a deal at
    most once. (Whether one is used again for the next round's deal depends on timing
    here: one alive while another of its bot began that deal may know it, see
    tests/arena/test_bot_pool_deals.py, which checks reuse.)"""
    db = tmp_path / "arena.db"
    for name in ("memo", "memo2"):
        add_gin_bot(db, name, "python", "rememberer.py")
    add_random(db)
    where = ["--workers", str(workers)] if workers else []
    if workers:
        pytest.importorskip("distributed", reason="needs card-arena[dask]")
    summary = tournament(
        db, "memo,memo2,random", "--rounds", "2", "--concurrency", "2", "--sandbox", sandbox, *where
    )
    assert summary["played"] == 12 and not summary["errors"]
    deals_of: dict[str, list[int]] = {}
    unasked = 0
    for match, process in processes_by_seat(db):
        if process is None:
            unasked += 1
        else:
            deals_of.setdefault(process, []).append(match["seed"])
    assert sum(map(len, deals_of.values())) + unasked == 16  # memo and memo2 in 8 matches each
    assert unasked < 8
    for process, deals in deals_of.items():
        assert len(deals) == len(set(deals)), f"process {process} played a deal twice"
    assert_never_two_at_once(db, lambda header: header["seed"])


def test_numbered_deals_are_one_deal_whatever_the_seed(tmp_path: Path) -> None:
    """Golf solitaire's secret ``deal_numbers`` fixes the cards whatever the seed, so
    every round plays the same deal: a process that had played it once knew every stock
    order of the next round (the arena told deals apart by seed). Each process plays it
    once, and two of its tables are never in play at once."""
    db = tmp_path / "arena.db"
    for name in ("memo", "memo2"):
        register_bot(db, name, "python", "rememberer.py", cwd=BOTS)
    out = run_arena(
        db, "tournament", "run", "--game", "golf_solitaire", "--bots", "memo,memo2",
        "--rounds", "3", "--rules", "holes=1 deal_numbers=7", "--concurrency", "2",
        "--sandbox", "none", "--json",
    )  # fmt: skip
    summary = json.loads(out.stdout)
    assert summary["played"] == 6 and not summary["errors"]
    played = [process for _, process in processes_by_seat(db)]
    assert len(played) == 6 and None not in played
    assert len(set(played)) == 6, "a process played the numbered deal twice"
    assert_never_two_at_once(db, lambda header: 0)  # all one deal
