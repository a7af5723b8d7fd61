"""Hostile bots in real tournaments, run in the default sandbox (bwrap): each way to
cheat named in docs/security.md is tried by a real bot process and must fail.

The spy (bots/spy.py) tries to steal another bot's token, forge one, call the
referee's admin RPCs, watch the other tables of its tournament, read the database and a
file outside its directory, connect to a loopback TCP port and rebuild its deal from
every seed it can think of. The escapers
(bots/escaper.py) leave setsid() helpers behind: one hogs memory and CPU, one holds the
bot's stderr while the bot exits; others write their RAM-backed /tmp full, compute
between their matches, flood stderr, hold thousands of connections to the referee, or
start sessions of their own to take more than one bot's share of the CPU.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from arena import cgroups
from arena.bots import OPEN_FILES, OPEN_FILES_PER_PROCESS, SOCKETS
from referee.game import get_game, parse_rules
from tests.conftest import register_bot, stored_replays
from tests.security.conftest import (
    BOTS,
    LIMIT_SETTINGS,
    REFUSED,
    add_escaper,
    add_gin_bot,
    add_random,
    needs_bwrap,
    start_tournament,
    stderr_of,
    survivors,
    tournament,
    wait_for,
)

pytestmark = needs_bwrap


@pytest.fixture(scope="module", params=["in process", "on a Dask worker"])
def spy_run(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, Any]:
    """One tournament of the spy against the random sample bot, in the arena's process
    and on a Dask worker (whose bots read the database, tournament secret and all, until
    the files to hide travelled with the host's settings); what the spy reported, the
    spy's first match and whether anything reached the test's TCP port."""
    where: list[str] = []
    if request.param == "on a Dask worker":
        pytest.importorskip("distributed", reason="needs card-arena[dask]")
        where = ["--workers", "1"]
    tmp = tmp_path_factory.mktemp("spy")
    db, outside = tmp / "arena.db", tmp_path_factory.mktemp("elsewhere") / "outside.txt"
    outside.write_text("a secret outside the bot's directory\n")
    unpacked = tmp / "arena.db.bots" / "0123abcd"  # a submitted bot's files, as unpacked
    unpacked.mkdir(parents=True)
    (unpacked / "strategy.py").write_text("WEIGHTS = 'another author's secret'\n")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    # Run from the database's own folder, as a bot registered beside it (the README's
    # way): the database, its journals and the submitted bots are all in its view but
    # for the sandbox hiding them.
    for name in ("spy.py", "kernel_probe.py"):
        shutil.copy(BOTS / name, tmp / name)
    spy = ["python", "spy.py", str(db), str(outside), str(port)]
    add_gin_bot(db, "spy", *spy, folder=tmp)
    add_random(db)
    summary = tournament(db, "spy,random", "--rounds", "2", *where)
    try:
        listener.accept()
        reached = True
    except BlockingIOError:
        reached = False
    listener.close()
    reports = []
    for match, replay in stored_replays(db):
        seat = list(match["entrants"]).index("spy")
        for line in stderr_of(replay, seat).splitlines():
            if line.startswith("SPY "):
                reports.append((match, replay, seat, json.loads(line[4:])))
    assert reports, "the spy reported nothing"
    return {"summary": summary, "reports": reports, "tcp_reached": reached}


def test_the_tournament_is_played_in_the_bwrap_sandbox(spy_run: dict[str, Any]) -> None:
    assert spy_run["summary"]["played"] == 4 and not spy_run["summary"]["errors"]


def test_token_thief_finds_no_other_token_and_a_forged_one_is_refused(
    spy_run: dict[str, Any],
) -> None:
    for *_, report in spy_run["reports"]:
        assert report["tokens_stolen"] == 0
        assert report["processes_seen"] < 5  # its own pid namespace, not the machine's
        assert report["forged_token"] == "error:unauthenticated"


def test_admin_prober_is_unauthenticated(spy_run: dict[str, Any]) -> None:
    for *_, report in spy_run["reports"]:
        assert report["create_match"] == "UNAUTHENTICATED"
        assert report["issue_token"] == "UNAUTHENTICATED"


def test_spectator_bot_cannot_watch_any_table_of_its_tournament(
    spy_run: dict[str, Any],
) -> None:
    """Every table of a round plays the same deal: a bot watching another table (or a
    replay of its own) would see cards of its own deal. The tournament's referee serves
    Watch to the operator only."""
    for match, *_, report in spy_run["reports"]:
        assert len(report["watch"]) == 4 and match["id"] in report["watch"]
        assert set(report["watch"].values()) == {"UNAUTHENTICATED"}, report["watch"]
        assert report["status"].keys() == report["watch"].keys()
        assert set(report["status"].values()) == {"UNAUTHENTICATED"}, report["status"]


def test_file_reader_cannot_open_the_database_or_files_outside_its_directory(
    spy_run: dict[str, Any],
) -> None:
    for *_, report in spy_run["reports"]:
        for what in ("database", "database_wal", "outside_file"):
            assert report[what] in ("FileNotFoundError", "PermissionError"), what
        assert report["submitted_bots"] in ([], "FileNotFoundError", "PermissionError")
        assert "home" not in report["root_listing"]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the probe calls by x86-64 numbers")
def test_calls_that_reach_across_sandboxes_are_refused_to_the_arenas_bots(
    spy_run: dict[str, Any],
) -> None:
    """The filter reaches bots through the arena's own launch (the shells that set the
    open-files limit and join the cgroup hand bwrap its file), in process and on a Dask
    worker; tests/security/test_seccomp.py shows each probe gets through without it."""
    for *_, report in spy_run["reports"]:
        kernel = report["kernel"]
        assert {name: kernel[name] for name in REFUSED} == dict.fromkeys(REFUSED, "EPERM")


def test_network_prober_cannot_connect_to_a_loopback_port(spy_run: dict[str, Any]) -> None:
    assert not spy_run["tcp_reached"]
    for *_, report in spy_run["reports"]:
        assert report["tcp"] != "connected"


def test_seed_oracle_rebuilds_no_deal(spy_run: dict[str, Any]) -> None:
    for match, _replay, seat, report in spy_run["reports"]:
        assert report["hand_size"] == 10
        assert report["deal_cards_matched"] < 8
        # The oracle's method is sound: given the deal's real seed it would have it all.
        engine = get_game("gin_rummy")
        rules = parse_rules(engine.Rules, {"max_hands": "1"})
        state = engine.initial_state(rules, 2, match["seed"])
        assert len(engine.observation(state, seat).hand) == 10


# Each way the limits are kept: bwrap with cgroups where the machine has them, and no
# sandbox with cgroups switched off (ARENA_CGROUPS=off), where only /proc tells the arena
# what a bot started: the weakest setting the arena supports.
@pytest.mark.parametrize(("sandbox", "env"), LIMIT_SETTINGS)
def test_setsid_memory_hog_is_stopped_and_nothing_survives(
    tmp_path: Path, sandbox: str, env: dict[str, str]
) -> None:
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "hog", "hog")
    add_random(db)
    summary = tournament(
        db,
        "hog,random",
        *("--bot-memory-mb", "200", "--move-seconds", "60", "--sandbox", sandbox),
        env=env,
    )
    assert summary["played"] == 2
    for match, replay in stored_replays(db):
        seat = list(match["entrants"]).index("hog")
        faults = [line for line in replay.lines if line["type"] == "fault"]
        assert [(f["seat"], f["kind"]) for f in faults] == [(seat, "limit")], faults
        assert "200 MB" in faults[0]["reason"]
    assert survivors(marker) == []


# Not without cgroups under `none`: a helper that leaves the process group and whose
# parent exits before the arena's next look at /proc (0.25 s) is the gap docs/security.md
# names; the leaver does exactly that, at once.
@pytest.mark.parametrize(("sandbox", "env"), LIMIT_SETTINGS[:2])
def test_bot_that_exits_leaving_a_child_on_its_stderr_crashes_at_once(
    tmp_path: Path, sandbox: str, env: dict[str, str]
) -> None:
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "leaver", "fork_exit")
    add_random(db)
    # 60 s per move: a bot noticed only when its deadline passed would fault "disconnect".
    summary = tournament(db, "leaver,random", "--move-seconds", "60", "--sandbox", sandbox, env=env)
    assert summary["played"] == 2
    for match, replay in stored_replays(db):
        seat = list(match["entrants"]).index("leaver")
        faults = [line for line in replay.lines if line["type"] == "fault"]
        assert [(f["seat"], f["kind"]) for f in faults] == [(seat, "crash")], faults
        assert "exited with code 4" in faults[0]["reason"]
    assert survivors(marker) == []


@pytest.mark.parametrize(("sandbox", "env"), LIMIT_SETTINGS)
def test_bot_holding_connections_to_the_referee_is_stopped_and_the_others_play_on(
    tmp_path: Path, sandbox: str, env: dict[str, str]
) -> None:
    """Each connection costs the arena a file descriptor: a bot that held thousands left
    it none to start other bots with (the tournament stopped incomplete)."""
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "hoarder", "sockets")
    add_random(db, "r1", "r2")
    summary = tournament(db, "hoarder,r1,r2", "--concurrency", "2", "--sandbox", sandbox, env=env)
    assert summary["status"] == "finished" and summary["played"] == 6, summary
    assert not summary["errors"]
    for match, replay in stored_replays(db):
        faults = [line for line in replay.lines if line["type"] == "fault"]
        if "hoarder" not in match["entrants"]:
            assert faults == []
            continue
        seat = list(match["entrants"]).index("hoarder")
        said = stderr_of(replay, seat)
        assert [(f["seat"], f["kind"]) for f in faults] == [(seat, "limit")], (faults, said)
        reason = faults[0]["reason"]
        assert re.search(
            rf"held (\d+) (sockets \(connections\)|connections to the referee), over the {SOCKETS} a",
            reason,
        ) or (f"over the {OPEN_FILES} a bot may hold" in reason), reason
        held = re.search(r"HELD (\d+), stopped by (.*)", said)
        if held is not None:  # it may be stopped before it says: one process gets no more
            # than its open files; its relay refuses it once its queue is full, and once
            # the relay has stopped it, its socket is gone
            assert int(held[1]) < OPEN_FILES_PER_PROCESS, held[0]
            refused = ("Connection refused", "No such file or directory")
            assert held[2] in ("Too many open files", *refused), held[0]
    assert survivors(marker) == []


def test_bot_writing_its_tmp_full_holds_no_more_than_its_memory_limit(tmp_path: Path) -> None:
    """Files in /tmp are RAM the bot's processes do not show as theirs: either the cgroup
    counts them (the kernel stops the bot: a `limit` fault) or the full tmpfs refuses the
    write at the limit; it never keeps the gigabyte it asks for."""
    db = tmp_path / "arena.db"
    add_escaper(db, "filler", "fill")
    add_random(db)
    summary = tournament(db, "filler,random", "--bot-memory-mb", "200", "--move-seconds", "30")
    assert summary["played"] == 2
    for match, replay in stored_replays(db):
        seat = list(match["entrants"]).index("filler")
        faults = [(f["seat"], f["kind"]) for f in replay.lines if f["type"] == "fault"]
        report = [
            line for line in stderr_of(replay, seat).splitlines() if line.startswith("FILLED")
        ]
        if faults:
            assert faults == [(seat, "limit")] and not report, (faults, report)
        else:
            [line] = report
            mib = int(line.split()[1])
            assert mib <= 200 and line.endswith("No space left on device"), line


SLOW_BOT = """
import random, time
from referee.client import run_bot
def choose(observation, legal):
    time.sleep(0.05)
    return random.choice(legal)
run_bot(choose, name="slow")
"""


# Under bwrap only: `none` counts the same cgroup, and the spinner keeps a core busy for
# the half minute the test takes, slowing every test beside it.
@pytest.mark.parametrize("sandbox", ["auto"])
def test_bot_computing_between_its_matches_is_stopped(tmp_path: Path, sandbox: str) -> None:
    """A bot in no match may not take the CPU the matches in play need: the spinner keeps
    a core busy from its first turn on. The schedule plays its four matches first: while
    the slow bot then plays the random one, it is stopped, and the reason is stored with
    its last match. None of its matches is faulted: it computed within their limits."""
    db = tmp_path / "arena.db"
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "slow.py").write_text(SLOW_BOT)
    marker = add_escaper(db, "spinner", "spin")
    register_bot(db, "slow", "python", "slow.py", cwd=slow)
    add_random(db)
    summary = tournament(db, "spinner,slow,random", "--concurrency", "1", "--sandbox", sandbox)
    assert summary["played"] == 6  # each pair on one deal, in both seat orders
    played = stored_replays(db)
    stopped = []
    for match, replay in played:
        if "spinner" in match["entrants"]:
            text = stderr_of(replay, list(match["entrants"]).index("spinner"))
            stopped += [line for line in text.splitlines() if line.startswith("[arena] stopped")]
    assert stopped, "the spinner was never stopped between its matches"
    assert all("of CPU while in no match" in line for line in stopped), stopped
    for match, replay in played:  # stopped between matches: no match of its was faulted
        assert [f for f in replay.lines if f["type"] == "fault"] == [], match["id"]
    assert survivors(marker) == []


def test_a_stderr_flood_is_drained_slowly_past_the_limit(tmp_path: Path) -> None:
    """Read as fast as a bot writes, a flood keeps the arena's event loop busy (every
    match's referee runs there): past the kept 64 KiB it is drained at 640 KiB/s, so the
    shouter writes little more than that while it plays on, and the matches end normally.
    Unthrottled, the arena read over 100 MB/s from it."""
    db = tmp_path / "arena.db"
    add_escaper(db, "shouter", "shout")
    add_random(db)
    started = time.monotonic()
    summary = tournament(db, "shouter,random", "--rounds", "2", "--concurrency", "1")
    elapsed = time.monotonic() - started
    assert summary["played"] == 4
    logs = []
    for match, replay in stored_replays(db):
        assert [x for x in replay.lines if x["type"] == "fault"] == [], match["id"]
        seat = list(match["entrants"]).index("shouter")
        # A short match may see none of it: read 64 KiB per 0.1 s, the flood's pieces
        # read before the bot's first answer belong to its previous match.
        logs += [x for x in replay.lines if x["type"] == "stderr" and x["seat"] == seat]
    assert any(len(log["text"].encode()) == 64 * 1024 for log in logs), "no flood was kept"
    dropped = sum(log["dropped_bytes"] for log in logs)
    # 640 KiB/s plus what the pipe and a read hold: 8 MB/s leaves a wide margin.
    assert dropped < 8e6 * elapsed, (dropped, elapsed)


def cpu_group(pid: int) -> Path:
    """The directory of the CPU cgroup process ``pid`` is in (v1 cpu hierarchy, or v2)."""
    root = Path("/sys/fs/cgroup")
    v2 = None
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if "cpu" in names.split(","):
            return root / names / path.lstrip("/")
        if names == "":
            v2 = (root / "unified" if (root / "unified").is_dir() else root) / path.lstrip("/")
    assert v2 is not None, f"process {pid} is in no CPU cgroup"
    return v2


def command_line(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def has_cpu_weight(group: Path) -> bool:
    if (group / "cgroup.controllers").exists():  # v2: the parent enabled cpu for it
        return "cpu" in (group / "cgroup.controllers").read_text().split()
    return (group / "cpu.shares").exists()


@pytest.mark.parametrize("sandbox", ["auto", "none"])
def test_a_bot_and_the_sessions_it_starts_share_one_cpu_group(tmp_path: Path, sandbox: str) -> None:
    """Under contention the kernel shares the CPU between CPU groups, then within each; out
    of one, every session is a group of its own (autogroup). A bot whose 20 helpers each
    called setsid() and spun slowed the opponent sharing its two cores about fifteen-fold
    (scripts/bench --cpu-share); in one group with the bot, they hold one bot's share. The
    lingering bot's helper calls setsid(): it must stay in its bot's CPU group, which the
    arena made, with a CPU weight of its own."""
    root = cgroups.available()
    if root is None or not root.shares_cpu:
        pytest.skip("this machine gives the arena no CPU controller (docs/security.md)")
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "linger", "linger")
    add_random(db)
    proc = start_tournament(db, sandbox, {})
    seen: list[set[Path]] = []

    def cpu_groups_of_helper_and_bot() -> bool:
        """Once the helper has called setsid(): its and its bot's CPU groups, in ``seen``."""
        try:  # the marker is on bwrap's and the bot's command lines too
            helpers = [p for p in survivors(marker) if b"setsid" in command_line(p)]
            groups = set()
            for helper in helpers:
                bot = int(Path(f"/proc/{helper}/stat").read_text().rsplit(")", 1)[1].split()[1])
                if os.getsid(helper) != helper or b"escaper.py" not in command_line(bot):
                    return False
                groups |= {cpu_group(helper), cpu_group(bot)}
        except OSError:  # a process ended meanwhile: look again
            return False
        if helpers:
            seen.append(groups)
        return bool(helpers)

    try:
        assert wait_for(cpu_groups_of_helper_and_bot, 60), "no helper in a session of its own"
        [group] = seen[-1]
        assert group.parent.name.startswith("card-arena-"), group
        assert has_cpu_weight(group), group
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert wait_for(lambda: not survivors(marker), 10)


TIDY_BOT = """
import os, random, sys, time
from referee.client import run_bot
print("PID", os.getpid(), file=sys.stderr, flush=True)
run_bot(lambda observation, legal: random.choice(legal), name="tidy")
end = time.process_time() + 0.5  # tidies up when told to go: saves what it learnt
while time.process_time() < end:
    pass
print("EXITED", os.getpid(), file=sys.stderr, flush=True)
"""


def test_a_bot_told_to_go_gets_the_cpu_to_exit_while_others_think(tmp_path: Path) -> None:
    """Out of a match a bot's CPU group yields, and a process that has played a deal is
    retired (told to go) before its bot's next match on it: against a bot thinking at full
    weight on the one core, the yielding process got a 512th of it (v1), far from the 0.5 s
    this one takes to exit, and was killed at the end of its grace. A bot told to go gets
    its weight back: every process exits by itself."""
    root = cgroups.available()
    if root is None or not root.shares_cpu:
        pytest.skip("this machine gives the arena no CPU controller (docs/security.md)")
    db = tmp_path / "arena.db"
    tidy = tmp_path / "tidy"
    tidy.mkdir()
    (tidy / "tidy.py").write_text(TIDY_BOT)
    register_bot(db, "tidy", "python", "tidy.py", games=("gin_rummy",), cwd=tidy)
    add_escaper(db, "think", "think")
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})  # the arena and its bots inherit it
    try:
        # A hand ends (void) at 20 turns: ten of the thinker's 0.1 s turns per match.
        summary = tournament(
            db, "tidy,think", "--sandbox", "none", "--concurrency", "1", "--rules", "max_turns=20"
        )
    finally:
        os.sched_setaffinity(0, cores)
    assert summary["played"] == 2 and not summary["errors"], summary
    said = "".join(
        stderr_of(replay, list(match["entrants"]).index("tidy"))
        for match, replay in stored_replays(db)
    )
    started = set(re.findall(r"PID (\d+)", said))
    assert len(started) == 2, said  # one process per match: the second is on the same deal
    assert set(re.findall(r"EXITED (\d+)", said)) == started, said


def test_a_bot_thinking_on_its_opponents_turn_yields_the_cpu_to_it(tmp_path: Path) -> None:
    """Move clocks are wall time, so a bot computing while its opponent was on turn slowed
    the opponent's thinking (two-fold, scripts/bench --cpu-share). In a match a bot's CPU
    group now has the least CPU weight while it owes no decision. Everything here runs
    on one core, so the two bots always contend: the ponderer's spinning helper, over its
    first match against a bot that thinks 0.1 s of CPU a turn, got the CPU only while
    the thinker did not want it (with equal weights, half of it while the thinker
    thought: 0.5 and more)."""
    root = cgroups.available()
    if root is None or not root.shares_cpu:
        pytest.skip("this machine gives the arena no CPU controller (docs/security.md)")
    db = tmp_path / "arena.db"
    marker = add_escaper(db, "ponder", "ponder")
    add_escaper(db, "think", "think")
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})  # the arena and its bots inherit it
    try:
        summary = tournament(db, "ponder,think", "--concurrency", "1")
    finally:
        os.sched_setaffinity(0, cores)
    assert summary["played"] == 2 and not summary["errors"], summary
    match, replay = stored_replays(db)[0]
    seat = list(match["entrants"]).index("ponder")
    samples = [
        (float(cpu), float(wall))
        for line in stderr_of(replay, seat).splitlines()
        if line.startswith("PONDER ")
        for cpu, wall in [line.split()[1:3]]
    ]
    assert len(samples) >= 5, samples  # the ponderer's turns, each after 0.1 s of thinking
    (cpu0, wall0), (cpu1, wall1) = samples[0], samples[-1]
    share = (cpu1 - cpu0) / (wall1 - wall0)
    assert share < 0.3, (share, samples)
    assert wait_for(lambda: not survivors(marker), 10)
