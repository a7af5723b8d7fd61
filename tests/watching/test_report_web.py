"""`arena report` and `arena web` on real tournaments: the leaderboard agrees with the
arena's ratings, the cross table with the stored results, the rating history is plotted,
every match has its replay page, and the server serves the same from the database."""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import arena
from tests.watching.helpers import arena_web


def head_to_head(db: Path, tournament_id: int, a: str, b: str) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "select r.match_id, r.entrant, min(r.rank) from results r join matches m "
            "on m.id = r.match_id where m.tournament_id = ? group by r.match_id, r.entrant",
            [tournament_id],
        ).fetchall()
    best: dict[str, dict[str, int]] = {}
    for match_id, entrant, rank in rows:
        best.setdefault(match_id, {})[entrant] = rank
    w = lo = d = 0
    for ranks in best.values():
        if a in ranks and b in ranks:
            w += ranks[a] < ranks[b]
            lo += ranks[a] > ranks[b]
            d += ranks[a] == ranks[b]
    return w, lo, d


@pytest.mark.parametrize("game", ["gin_rummy", "dingo"])
def test_report_of_a_tournament(tournament: Any, tmp_path: Path, game: str) -> None:
    db, tid = tournament(game)
    out = tmp_path / "report"
    done = arena(db, "report", str(tid), "-o", str(out))
    assert f"wrote {out / 'index.html'}" in done.stderr
    index = (out / "index.html").read_text()
    matches = json.loads(arena(db, "matches", "list", "--tournament", str(tid), "--json").stdout)
    for m in matches:  # a replay page per match, linked from the list
        assert f'href="matches/{m["id"]}.html"' in index
        assert (out / "matches" / f"{m['id']}.html").read_text().count("replay-data") >= 1
    board = json.loads(arena(db, "leaderboard", "--game", game, "--json").stdout)["leaderboard"]
    rows = re.findall(
        r"<tr><td class=num>(\d+)</td><td>([^<]+)</td><td class=num>([-\d.]+)</td>"
        r"<td class=num>([-\d.]+)</td>",
        index,
    )
    assert [(name, mu, sigma) for _, name, mu, sigma in rows] == [
        (r["entrant"], f"{r['mu']:.2f}", f"{r['sigma']:.2f}") for r in board
    ]  # the only tournament of these rules: the same ratings as the arena's leaderboard
    names = [r["entrant"] for r in board]
    for a in names:
        for b in names:
            if a != b:
                w, lo, d = head_to_head(db, tid, a, b)
                assert (
                    f'title="{a} vs {b}: {w} better, {lo} worse, {d} equal">{w}–{lo}–{d}<' in index
                )
    assert index.count('<g class="series"') == len(names)  # one rating line per bot
    assert "<svg" in index and "mean score ± 95% CI" in index and "<h2>Faults</h2>" in index
    assert not re.search(r"\bsrc\s*=|<link\b|https?://(?!www\.w3\.org)", index)


def test_report_errors(tournament: Any, tmp_path: Path) -> None:
    db, _ = tournament("gin_rummy")
    missing = arena(db, "report", "99", "-o", str(tmp_path / "r"), check=False)
    assert missing.returncode == 2 and "no tournament 99" in missing.stderr
    nodb = arena(tmp_path / "none.db", "report", "1", check=False)
    assert nodb.returncode == 2 and "no database at" in nodb.stderr


@pytest.fixture
def web(tournament: Any) -> Iterator[tuple[str, Path, int]]:
    db, tid = tournament("gin_rummy")
    with arena_web(db) as base:
        yield base, db, tid


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read().decode()


def test_web_serves_the_database(web: tuple[str, Path, int]) -> None:
    base, db, tid = web
    status, kind, home = get(base + "/")
    assert status == 200 and kind.startswith("text/html")
    assert f'href="/tournament/{tid}"' in home and "/leaderboard/gin_rummy?rules=" in home
    status, _, report = get(f"{base}/tournament/{tid}")
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert status == 200 and all(f'href="/match/{m["id"]}"' in report for m in matches)
    first = matches[0]["id"]
    status, _, replay_page = get(f"{base}/match/{first}")
    assert status == 200 and 'id="replay-data"' in replay_page
    assert f'href="/tournament/{tid}"' in replay_page
    status, kind, jsonl = get(f"{base}/match/{first}.jsonl")
    assert status == 200 and "ndjson" in kind
    assert jsonl == arena(db, "replay", "export", first).stdout
    status, _, listed = get(f"{base}/matches?bot=gin")
    assert status == 200 and all(m["id"] in listed for m in matches)
    status, _, board = get(f"{base}/leaderboard/gin_rummy?rules=max_hands%3D3")
    assert status == 200 and "mu − 3σ" in board and ">gin<" in board
    status, _, missing = get(f"{base}/match/nope")
    assert status == 404 and "no match" in missing
    assert get(f"{base}/elsewhere")[0] == 404


def test_web_replay_page_plays_in_chromium(web: tuple[str, Path, int], page: Any) -> None:
    base, db, _ = web
    first = json.loads(arena(db, "matches", "list", "--json").stdout)[0]["id"]
    page.goto(f"{base}/match/{first}?seat=1")
    page.wait_for_selector("body[data-ready='1']")
    assert page.get_attribute("body", "data-seat") == "1"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("body", "data-frame") == "1"
    page.click("header a")
    page.wait_for_selector("table.leaderboard")
