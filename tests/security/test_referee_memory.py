"""A bot may not make the arena hold memory for it, nor stall the other tables: the
referee runs in the arena's process, outside every bot's limits.

bots/big_messages.py opens Play streams on the referee's unix socket and starts on each a
message of 100 MiB. gRPC's transport used to read a message whole, up to its limit of
128 MiB (sessions.MAX_RECEIVE_BYTES), before Play could look at it: 8 unfinished ones
held about 880 MB of the arena while the bot, limited to 200 MB, held 1 MiB, and
finishing them over and over stalled every table's clock. The limit is 128 KiB now: such
a message is refused from its length prefix. And a bot reaches the referee only through
its own relay in the arena (arena/referee_relay.py), which counts its connections and
what it sends: past 16 connections, or past its budget (bytes, calls and CONTINUATION
frames), it is stopped with a limit fault.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from arena.bots import SOCKETS, BotLimits
from arena.matchplay import HostSettings, MatchHost, MatchJob, MatchNotPlayed, PlayedMatch
from arena.schedule import MatchPlan
from arena.store import Entrant
from referee.matchspec import MatchConfig
from referee.replay import parse_replay
from tests.conftest import dies_with_tests, stored_replays
from tests.security.conftest import (
    BOTS,
    PY,
    ROOT,
    add_gin_bot,
    add_random,
    needs_bwrap,
    run_arena,
    stderr_of,
)

pytestmark = needs_bwrap

BOT_MEMORY_MB = 200


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def watched_gin_tournament(
    db: Path, bots: str, rounds: int = 2
) -> tuple[dict[str, Any], float, int]:
    """``rounds`` of one-hand gin between ``bots``, bots limited to BOT_MEMORY_MB: the
    summary, the arena process's peak resident memory (MB) and the most files (its ends
    of connections among them) it held open."""
    arena = subprocess.Popen(
        [
            *dies_with_tests(),
            *(PY, "-m", "arena.cli", "tournament", "run", "--game", "gin_rummy"),
            *("--bots", bots, "--rules", "max_hands=1", "--rounds", str(rounds)),
            *("--concurrency", "1", "--bot-memory-mb", str(BOT_MEMORY_MB), "--json"),
        ],
        cwd=ROOT,
        env={**os.environ, "ARENA_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak, files = 0.0, 0
    try:
        while arena.poll() is None:
            peak = max(peak, peak_rss_mb(arena.pid) or 0.0)
            files = max(files, open_files(arena.pid))
            with contextlib.suppress(subprocess.TimeoutExpired):
                arena.wait(0.1)
        out, err = arena.communicate(timeout=60)
    finally:
        if arena.poll() is None:
            arena.kill()
    assert arena.returncode == 0, err
    return json.loads(out), peak, files


def said(db: Path, entrant: str, prefix: str) -> list[str]:
    """The lines starting with ``prefix`` that ``entrant`` wrote to stderr in its matches."""
    return [
        line
        for match, replay in stored_replays(db)
        for line in stderr_of(replay, list(match["entrants"]).index(entrant)).splitlines()
        if line.startswith(prefix)
    ]


def its_faults(db: Path, entrant: str) -> list[tuple[bool, str, str]]:
    """(whether it was ``entrant``'s seat, kind, reason) of every fault in the matches."""
    return [
        (f["seat"] == list(match["entrants"]).index(entrant), f["kind"], f["reason"])
        for match, replay in stored_replays(db)
        for f in replay.lines
        if f["type"] == "fault"
    ]


# Counted by its relay as they open or, first when they open faster than the relay takes
# them, in the bot's descriptor tables.
OVER_SOCKETS = f"over the {SOCKETS} a bot may hold in all its processes"
BYTES_FAULT = "sent the referee more than its budget allows"


def test_unfinished_big_messages_do_not_hold_the_arenas_memory(tmp_path: Path) -> None:
    """8 messages of 100 MiB: the referee refuses each from its length prefix, and the
    bot, which sends on regardless, is stopped at its byte budget."""
    db = tmp_path / "arena.db"
    add_gin_bot(db, "hoarder", "python", "big_messages.py", "hold", "8", "100", "8")
    add_random(db)
    summary, peak, _ = watched_gin_tournament(db, "hoarder,random")
    assert summary["played"] == 4
    faults = its_faults(db, "hoarder")
    assert len(faults) == 4, faults  # every match: each is a new process, on its first turn
    for its_own, kind, reason in faults:
        assert its_own and kind == "limit" and BYTES_FAULT in reason, faults
    # The arena alone takes about 80 MB; one bot may not cost it more than its own limit.
    assert peak < 80 + BOT_MEMORY_MB, f"the arena peaked at {peak:.0f} MB"


def test_connections_hidden_in_flight_still_count(tmp_path: Path) -> None:
    """A socket sent over SCM_RIGHTS into a queue nobody reads is in no descriptor table,
    yet stays connected: a red-team bot hid 300 loaded connections so, uncounted, and took
    the arena from 75 MB to 1.5 GB. They are counted at the referee's end now."""
    db = tmp_path / "arena.db"
    add_gin_bot(db, "smuggler", "python", "big_messages.py", "smuggle", "100", "0", "20")
    add_random(db)
    summary, _, _ = watched_gin_tournament(db, "smuggler,random", rounds=1)
    assert summary["played"] == 2
    faults = its_faults(db, "smuggler")
    assert faults, "the smuggler was never stopped"
    for its_own, kind, reason in faults:
        assert its_own and kind == "limit", faults
        assert OVER_SOCKETS in reason


def test_connections_whose_maker_exited_are_closed(tmp_path: Path) -> None:
    """Made by a child that puts it in flight and exits, a connection belongs to no live
    process to count it against: the arena closes it at its next look (every 0.25 s), so
    the referee's ends of such connections never pile up, and they stop counting against
    the bot's 16 (it makes one every 0.1 s, about 3 between two looks)."""
    db = tmp_path / "arena.db"
    add_gin_bot(db, "handoff", "python", "big_messages.py", "handoff", "100", "0", "20")
    add_random(db)
    summary, _, files = watched_gin_tournament(db, "handoff,random", rounds=1)
    assert summary["played"] == 2
    assert its_faults(db, "handoff") == [], "closed connections were counted against it"
    hidden = max((int(line.split()[1]) for line in said(db, "handoff", "HID")), default=0)
    assert hidden >= 40, f"the bot hid {hidden} connections, too few to tell"
    assert files < hidden, f"the arena held {files} files open while {hidden} were hidden"


def test_many_connections_of_unfinished_messages_are_a_limit_fault(tmp_path: Path) -> None:
    """Under the transport's limit, a message costs little, but a connection carries 32
    calls and a bot may open hundreds: 100 connections of unfinished messages took a bare
    referee from 40 MB to 1.5 GB. A bot may hold SOCKETS sockets in all."""
    db = tmp_path / "arena.db"
    bot = ["python", "big_messages.py", "many", "100", "0", "20"]
    add_gin_bot(db, "spreader", *bot)
    add_random(db)
    summary = json.loads(
        run_arena(
            db,
            *("tournament", "run", "--game", "gin_rummy", "--bots", "spreader,random"),
            *("--rules", "max_hands=1", "--bot-memory-mb", str(BOT_MEMORY_MB), "--json"),
        ).stdout
    )
    assert summary["played"] == 2
    for match, replay in stored_replays(db):
        seat = list(match["entrants"]).index("spreader")
        faults = [(f["seat"], f["kind"], f["reason"]) for f in replay.lines if f["type"] == "fault"]
        assert len(faults) == 1 and faults[0][:2] == (seat, "limit"), faults
        assert OVER_SOCKETS in faults[0][2]


def test_endless_headers_are_stopped_and_do_not_stall_a_table_beside(tmp_path: Path) -> None:
    """HEADERS, then CONTINUATION frames without end: legal HTTP/2 that gRPC parses as it
    comes (340 MB/s for 0.6 of a core, in the arena's process, where every match's
    referee and clock run) and never refuses, before any token is checked; a red-team
    bot's flood made other seats miss 0.3 s clocks. Its relay stops the flooder at its
    byte budget, so what the referee parses is bounded by the budget, not by the bot.
    Two random bots play gin at a 0.3 s clock on the same referee meanwhile, through
    MatchHost: in a tournament every table of a round shares a deal and never plays
    beside another table of it."""
    flooder = ("python", "big_messages.py", "headers", "3", "4000", "20")
    random_bot = ("python", "-m", "sample_bots.random_bot")

    def job(idx: int, game: str, rules: dict[str, Any], *entrants: Entrant) -> MatchJob:
        plan = MatchPlan(idx, 1, idx, 11 + idx, tuple(e.name for e in entrants))
        config = MatchConfig(move_seconds=0.3 if game == "gin_rummy" else 5)
        return MatchJob(1, plan, game, rules, len(entrants), config, entrants, plan.seed)

    async def play_both() -> tuple[PlayedMatch, PlayedMatch]:
        limits = BotLimits(memory_mb=BOT_MEMORY_MB)
        host = MatchHost(HostSettings(secrets.token_bytes(32), limits, "auto"))
        await host.start()
        try:
            flooded = host.play(
                job(0, "golf_solitaire", {"holes": 2}, _entrant("flooder", flooder, BOTS))
            )
            r1, r2 = _entrant("r1", random_bot), _entrant("r2", random_bot)
            beside = host.play(job(1, "gin_rummy", {"max_hands": 1}, r1, r2))
            return await asyncio.gather(flooded, beside)
        finally:
            await host.close()

    flooded, beside = asyncio.run(play_both())
    assert beside.result.reason == "finished" and beside.result.faults == (), beside.result.faults
    faults = [(f.seat, f.kind, f.reason) for f in flooded.result.faults]
    assert len(faults) == 1 and faults[0][:2] == (0, "limit"), faults
    assert BYTES_FAULT in faults[0][2], faults


def _entrant(name: str, command: tuple[str, ...], folder: Path = ROOT) -> Entrant:
    return Entrant(name, ("*",), command, str(folder), "2026-01-01T00:00:00+00:00")


SOCKET_PROBE = """
import json, os, random, socket, sys
own = os.environ["ARENA_TARGET"].removeprefix("unix:")
seen, reached = [], []
for base in {sys.argv[1], "/tmp"}:  # the arena's temporary folder, and /tmp
    arenas = [os.path.join(base, n) for n in os.listdir(base) if n.startswith("arena-")]
    for folder, _, names in (found for arena in arenas for found in os.walk(arena)):
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".sock") and path != own:
                seen.append(path)
                try:
                    socket.socket(socket.AF_UNIX).connect(path)
                    reached.append(path)
                except OSError:
                    pass
print("SOCKETS " + json.dumps({"seen": seen, "reached": reached}), file=sys.stderr, flush=True)
from referee.client import run_bot
run_bot(lambda observation, legal: random.choice(list(legal)), name="prober")
"""


def test_a_bot_sees_no_arenas_sockets_but_its_own_and_one_whose_folder_holds_them_is_refused(
    tmp_path: Path,
) -> None:
    """A bot registered in the temporary folder (``bots add`` run in /tmp) was shown that
    folder, where every arena keeps its referee's socket and every bot's relay: a
    red-team bot there connected to its opponents' relays and spent their budgets, so
    that they were stopped and it won; and an arena started later is exposed whatever was
    hidden from the bot when it started. Such a bot is refused, saying why; a bot in a
    folder of its own (here one inside the temporary folder) sees no arena's socket but
    its own relay's, with another bot's relay and the referee's socket there."""
    temporary = tempfile.gettempdir()
    command = ("python", "-c", SOCKET_PROBE, temporary)
    random_bot = _entrant("random", ("python", "-m", "sample_bots.random_bot"))

    async def play(prober: Entrant) -> PlayedMatch:
        host = MatchHost(HostSettings(secrets.token_bytes(32), BotLimits(), "auto"))
        await host.start()
        try:
            plan = MatchPlan(0, 1, 0, 5, ("prober", "random"))
            entrants = (prober, random_bot)
            job = MatchJob(1, plan, "gin_rummy", {"max_hands": 1}, 2, MatchConfig(), entrants, 5)
            return await host.play(job)
        finally:
            await host.close()

    played = asyncio.run(play(_entrant("prober", command, tmp_path)))
    assert played.result.faults == (), played.result.faults  # it played through its own
    line = next(
        line
        for line in stderr_of(parse_replay(played.result.replay), 0).splitlines()
        if line.startswith("SOCKETS")
    )
    found = json.loads(line.removeprefix("SOCKETS "))
    assert found == {"seen": [], "reached": []}, found

    with pytest.raises(MatchNotPlayed) as refused:
        asyncio.run(play(_entrant("prober", command, Path(temporary))))
    assert f"its folder {temporary} holds" in str(refused.value)
    assert "move the bot to a folder of its own" in str(refused.value)


def test_a_bot_folder_with_the_temporary_folder_mounted_inside_is_refused(
    tmp_path: Path,
) -> None:
    """The sandbox shows a bot its folder with whatever is mounted inside it: a red-team
    bot whose folder held a bind mount of /tmp saw every arena's sockets. A folder with
    the temporary folder, or a folder above it, mounted inside counts as holding it; one
    with another folder mounted inside does not. (In a mount namespace of its own.)"""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare (util-linux)")
    temporary = os.path.realpath(tempfile.gettempdir())
    folders = {name: tmp_path / name for name in ("temporary", "root", "other", "data")}
    for folder in folders.values():
        (folder / "inside").mkdir(parents=True)
    mounts = " && ".join(
        f"mount {how} {source} {folders[name] / 'inside'}"
        for name, how, source in (
            ("temporary", "--bind", temporary),
            ("root", "--rbind", "/"),
            ("other", "--bind", folders["data"]),
        )
    )
    check = (
        "import json, sys; from arena.bots import holds_arena_sockets; "
        "print(json.dumps([holds_arena_sockets(f) for f in sys.argv[1:]]))"
    )
    shown = [str(folders[name]) for name in ("temporary", "root", "other")]
    done = subprocess.run(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            f'{mounts} && exec "$0" -c "$@"',
            sys.executable,
            check,
            *shown,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode and "mount" in done.stderr:
        pytest.skip(f"cannot mount in a user namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [temporary, temporary, None]
