"""Submitted bots end to end through the CLI: stored copies, versions rated apart,
removal that keeps history, refusals that store nothing, owners, and resume."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from arena.runner import create_tournament, run_tournament
from arena.settings import TournamentSettings
from arena.store import Store
from tests.conftest import ROOT, arena

BOT_SOURCE = """
import sys
from referee.client import run_bot

def choose(observation, legal_actions):
    sys.stderr.write("MARK {mark}\\n")
    return legal_actions[0]

if __name__ == "__main__":
    run_bot(choose, name="marked")
"""
MANIFEST = 'command = ["{python}", "bot.py"]\ngames = ["gin_rummy"]\n'
RULES = ["--rules", "max_hands=1"]


def write_bot(folder: Path, mark: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(BOT_SOURCE.format(mark=mark))
    (folder / "bot.toml").write_text(MANIFEST.format(python=sys.executable))
    return folder


def add_random(db: Path) -> None:
    """The random sample bot as a plain command named 'rnd'."""
    arena(
        db,
        "bots",
        "add",
        "rnd",
        "--game",
        "gin_rummy",
        "--",
        sys.executable,
        "-m",
        "sample_bots.random_bot",
    )


def rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


def play(db: Path, bots: str) -> dict[str, Any]:
    out = arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        bots,
        "--rounds",
        "1",
        *RULES,
        "--json",
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def matches(db: Path, tournament: int) -> list[dict[str, Any]]:
    listed = json.loads(
        arena(db, "matches", "list", "--tournament", str(tournament), "--json").stdout
    )
    return list(listed)


def marks(db: Path, entrant: str) -> set[str]:
    """The MARK words a bot version wrote to stderr, as stored in its matches' replays."""
    store = Store(db)
    return {
        word
        for m in store.matches(entrant=entrant)
        for word in re.findall(r"MARK (\w+)", store.replay_text(m["id"]))
    }


def test_submitted_bot_plays_its_stored_code_and_versions_rate_apart(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    source = write_bot(tmp_path / "src", "one")
    add_random(db)
    out = arena(db, "bots", "submit", "marked", str(source))
    assert "submitted marked@1" in out.stdout
    # The author edits, then deletes, the source: the arena keeps playing what it stored.
    write_bot(source, "edited")
    play(db, "marked,rnd")
    (source / "bot.py").unlink()
    play(db, "marked,rnd")
    assert marks(db, "marked@1") == {"one"}
    assert rows(db, "select count(*) from matches m where m.entrants like '%marked@1%'")[0][0] == 4

    # A second submission is version 2, rated apart from version 1.
    arena(db, "bots", "submit", "marked", str(write_bot(tmp_path / "src2", "two")))
    play(db, "marked,rnd")
    assert marks(db, "marked@2") == {"two"}
    board = json.loads(arena(db, "leaderboard", "--game", "gin_rummy", *RULES, "--json").stdout)
    names = {r["entrant"] for r in board["leaderboard"]}
    assert {"marked@1", "marked@2", "rnd"} <= names
    latest = json.loads(
        arena(db, "leaderboard", "--game", "gin_rummy", *RULES, "--latest", "--json").stdout
    )["leaderboard"]
    assert sorted(r["entrant"] for r in latest) == ["marked@2", "rnd"]
    [row] = [r for r in latest if r["entrant"] == "marked@2"]
    [old] = [r for r in board["leaderboard"] if r["entrant"] == "marked@1"]
    assert row["history"] == [f"@1 {old['conservative']:.1f}"]

    # Every match records the exact versions and their hashes.
    sha1, sha2 = (
        rows(db, "select sha256 from bot_versions where name='marked' and version=?", v)[0][0]
        for v in (1, 2)
    )
    assert sha1 != sha2
    for entrants, artifacts in rows(db, "select entrants, artifacts from matches"):
        for name, sha in zip(json.loads(entrants), json.loads(artifacts), strict=True):
            assert sha == {"marked@1": sha1, "marked@2": sha2}.get(name)
    # ... and `matches list --json` gives them as a list per seat (it gave JSON text)
    for match in json.loads(arena(db, "matches", "list", "--json").stdout):
        assert len(match["artifacts"]) == len(match["entrants"]), match

    # Listings say which bots are submitted, with version, hash, size and submitter.
    listed = json.loads(arena(db, "bots", "list", "--json").stdout)
    by_name = {r.get("ref", r["name"]): r for r in listed}
    assert by_name["rnd"]["kind"] == "command"
    assert by_name["marked@2"]["sha256"] == sha2
    assert by_name["marked@2"]["submitter"] == "operator"
    shown = json.loads(arena(db, "bots", "show", "marked@1", "--json").stdout)
    assert shown[0]["matches"] == 4 and shown[0]["version"] == 1

    # A match filter's NAME is the latest version, as everywhere (it matched none).
    for command in (["list", "--json"], ["export", "--format", "jsonl"]):
        latest_only = arena(db, "matches", *command, "--bot", "marked").stdout
        assert latest_only == arena(db, "matches", *command, "--bot", "marked@2").stdout
        assert "marked@2" in latest_only and "marked@1" not in latest_only


def test_remove_keeps_history_and_stops_scheduling(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_random(db)
    arena(db, "bots", "submit", "marked", str(write_bot(tmp_path / "v1", "one")))
    arena(db, "bots", "submit", "marked", str(write_bot(tmp_path / "v2", "two")))
    play(db, "marked@1,rnd")
    before = rows(db, "select entrant, mu from ratings order by entrant")
    arena(db, "bots", "remove", "marked@1")
    refused = arena(
        db,
        "tournament",
        "run",
        "--game",
        "gin_rummy",
        "--bots",
        "marked@1,rnd",
        *RULES,
        check=False,
    )
    assert refused.returncode != 0 and "removed" in refused.stderr
    # NAME now means the latest version not removed.
    play(db, "marked,rnd")
    assert rows(db, "select count(*) from results where entrant = 'marked@2'")[0][0] == 2
    assert rows(db, "select count(*) from results where entrant = 'marked@1'")[0][0] == 2
    after = dict(rows(db, "select entrant, mu from ratings"))
    assert after["marked@1"] == dict(before)["marked@1"]
    assert rows(db, "select removed from bot_versions order by version") == [(1,), (0,)]
    # A plain bot can be removed too, and its results stay.
    arena(db, "bots", "remove", "rnd")
    assert rows(db, "select removed from entrants where name = 'rnd'") == [(1,)]
    assert rows(db, "select count(*) from results where entrant = 'rnd'")[0][0] == 4
    # Removing again says so, rather than "removed" a second time.
    for ref in ("rnd", "marked@1"):
        again = arena(db, "bots", "remove", ref).stdout
        assert again.strip() == f"{ref} was removed already (history kept)"
    assert arena(db, "bots", "remove", "marked").stdout.strip() == (
        "removed marked@2 (history kept)"  # the one version still scheduled
    )


def test_refused_submissions_store_nothing(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()  # an empty database (bots list, read-only, refuses a missing one)
    no_manifest = tmp_path / "nomanifest"
    no_manifest.mkdir()
    (no_manifest / "bot.py").write_text("x = 1\n")
    not_archive = tmp_path / "bot.zip"
    not_archive.write_text("hello")
    escaping = tmp_path / "escape.zip"
    with zipfile.ZipFile(escaping, "w") as z:
        z.writestr("bot.toml", MANIFEST.format(python="python"))
        z.writestr("../../etc/cron.d/x", "boom")
    cases = [
        (no_manifest, "no bot.toml"),
        (not_archive, "not a .zip or .tar.gz"),
        (escaping, "leave the bot's directory"),
        (tmp_path / "missing", "no such file"),
    ]
    for path, message in cases:
        done = arena(db, "bots", "submit", "bad", str(path), check=False)
        assert done.returncode == 2, done.stdout
        assert message in done.stderr
    clash = tmp_path / "clash.zip"  # a file 'a' and a file in a folder 'a': never unpacked
    with zipfile.ZipFile(clash, "w") as z:
        z.writestr("bot.toml", MANIFEST.format(python="python"))
        z.writestr("a", "x")
        z.writestr("a/b", "y")
    done = arena(db, "bots", "submit", "bad", str(clash), check=False)
    assert done.returncode == 2 and "'a' is a file, and 'a/b' needs it as a folder" in done.stderr
    # A name must match whole: "$" would let a final newline pass ("gin_strategy\n").
    for name in ("bad name!", "gin_strategy\n"):
        done = arena(db, "bots", "submit", name, str(write_bot(tmp_path / "ok", "x")), check=False)
        assert done.returncode == 2 and "bot name" in done.stderr, name
    assert rows(db, "select count(*) from bot_versions") == [(0,)]
    assert rows(db, "select count(*) from artifacts") == [(0,)]


def test_a_name_belongs_to_its_first_submitter(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    token = arena(db, "submitters", "add", "alice").stdout.strip().splitlines()[-1]
    assert len(token) >= 32
    assert rows(db, "select token_sha256 from submitters")[0][0] != token  # stored hashed
    source = str(write_bot(tmp_path / "b", "x"))
    arena(db, "bots", "submit", "alicebot", source, "--submitter", "alice")
    taken = arena(db, "bots", "submit", "alicebot", source, check=False)
    assert taken.returncode == 2 and "belongs to another submitter" in taken.stderr
    assert "submitter 'alice'" not in taken.stderr  # submitters are not public
    clash = arena(db, "bots", "add", "alicebot", "--game", "golf", "--", "true", check=False)
    assert clash.returncode == 2 and "submitted bot" in clash.stderr
    arena(db, "bots", "submit", "alicebot", source, "--submitter", "alice")
    assert rows(db, "select version, submitter from bot_versions") == [(1, "alice"), (2, "alice")]
    # Same content twice is one artifact.
    assert rows(db, "select count(*) from artifacts") == [(1,)]


def test_check_refuses_a_failing_submission(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    broken = write_bot(tmp_path / "broken", "x")
    (broken / "bot.py").write_text("import sys\nsys.exit('cannot start')\n")
    done = arena(db, "bots", "submit", "broken", str(broken), "--check", check=False)
    assert done.returncode == 2
    assert "failed its check" in done.stderr and "problem gin_rummy" in done.stdout
    assert rows(db, "select count(*) from bot_versions") == [(0,)]
    ok = arena(db, "bots", "submit", "good", str(write_bot(tmp_path / "good", "g")), "--check")
    assert "ok gin_rummy" in ok.stdout and "submitted good@1" in ok.stdout


def test_resume_plays_the_versions_it_started_with(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_random(db)
    arena(db, "bots", "submit", "marked", str(write_bot(tmp_path / "v1", "one")))
    store = Store(db)
    record = create_tournament(
        store,
        TournamentSettings(
            "gin_rummy", ("marked", "rnd"), {"max_hands": "1"}, seed=5, concurrency=1
        ),
    )
    assert record.bots == ("marked@1", "rnd")
    # A new version arrives before the tournament is played (or resumed).
    arena(db, "bots", "submit", "marked", str(write_bot(tmp_path / "v2", "two")))
    summary = asyncio.run(run_tournament(store, record.id))
    assert summary.played == 2
    assert {e for (e,) in rows(db, "select distinct entrant from results")} == {"marked@1", "rnd"}
    assert marks(db, "marked@1") == {"one"}


def test_a_relative_database_path_plays_submitted_bots(tmp_path: Path) -> None:
    """The README's recipe: `python` in the manifest, a database named relative to the
    working directory (the unpacked copies must be found from the sandbox too)."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT_SOURCE.format(mark="rel"))
    (folder / "bot.toml").write_text('command = ["python", "bot.py"]\ngames = ["gin_rummy"]\n')

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args, "--db", "arena.db"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600,
            env={k: v for k, v in os.environ.items() if k != "ARENA_DB"},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    run("bots", "add", "rnd", "--game", "gin_rummy", "--cwd", str(ROOT), "--",
        sys.executable, "-m", "sample_bots.random_bot")  # fmt: skip
    run("bots", "submit", "mybot", "mybot")
    run("tournament", "run", "--game", "gin_rummy", "--bots", "mybot,rnd", *RULES)
    db = tmp_path / "arena.db"
    assert rows(db, "select count(*) from faults") == [(0,)]
    assert marks(db, "mybot@1") == {"rel"}


def test_bots_of_one_submitter_never_share_a_table_when_kept_apart(tmp_path: Path) -> None:
    """Two bots of one author could play for each other; --separate-submitters keeps
    them apart, and a tournament file can name teams of its own."""
    db = tmp_path / "arena.db"
    for name, who in (("a1", "alice"), ("a2", "alice"), ("b1", "bob")):
        source = str(write_bot(tmp_path / name, name))
        arena(db, "bots", "submit", name, source, "--submitter", who)
    add_random(db)
    args = ["tournament", "run", "--game", "gin_rummy", "--bots", "a1,a2,b1,rnd", *RULES]
    out = json.loads(arena(db, *args, "--separate-submitters", "--json").stdout)
    assert out["status"] == "finished"
    tables = {frozenset(e.split("@")[0] for e in m["entrants"]) for m in matches(db, 1)}
    everyone = {frozenset(p) for p in itertools.combinations(["a1", "a2", "b1", "rnd"], 2)}
    assert tables == everyone - {frozenset(("a1", "a2"))}
    # The teams are stored with the tournament (its resume and schedule use them).
    (stored,) = rows(db, "select settings from tournaments where id = 1")[0]
    assert json.loads(stored)["teams"] == {
        "a1@1": "submitter alice",
        "a2@1": "submitter alice",
        "b1@1": "submitter bob",
    }
    # Teams from a file; more seats than teams allow is refused before anything is played.
    plan = tmp_path / "t.toml"
    plan.write_text(
        'game = "gin_rummy"\nbots = ["b1", "rnd", "a1"]\n[teams]\nb1 = "x"\nrnd = "x"\n'
    )
    out = json.loads(arena(db, "tournament", "run", str(plan), *RULES, "--json").stdout)
    tables = {frozenset(e.split("@")[0] for e in m["entrants"]) for m in matches(db, 2)}
    assert tables == {frozenset(("b1", "a1")), frozenset(("rnd", "a1"))}
    plan.write_text(
        'game = "gin_rummy"\nbots = ["b1", "rnd", "a1"]\nseats = 3\n'
        '[rules]\nplayers = 3\n[teams]\nb1 = "x"\nrnd = "x"\n'
    )
    refused = arena(db, "tournament", "run", str(plan), check=False)
    assert refused.returncode == 2 and "different teams" in refused.stderr
    plan.write_text('game = "gin_rummy"\nbots = ["b1", "rnd"]\n[teams]\nb1 = "x"\na2 = "x"\n')
    refused = arena(db, "tournament", "run", str(plan), check=False)
    assert refused.returncode == 2 and "teams name 'a2', which is not in" in refused.stderr
    plan.write_text(
        'game = "gin_rummy"\nformat = "sprt"\nbots = ["b1", "rnd"]\n'
        '[sprt]\nelo1 = 20\n[teams]\nb1 = "x"\n'
    )
    refused = arena(db, "tournament", "run", str(plan), check=False)
    assert refused.returncode == 2 and "teams are for round robins" in refused.stderr
    assert len(rows(db, "select id from tournaments")) == 2  # nothing refused was recorded
