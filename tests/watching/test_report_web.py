"""`arena report` and `arena web` on real tournaments: the leaderboard agrees with the
arena's ratings, the cross table with the stored results, the rating history is plotted,
every match has its replay page, and the server serves the same from the database."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from arena.web import server as web_server
from arena.web.server import Response, make_server
from arena.web.upload import SUBMIT_PATH
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
    # Without ?rules= every rule set played (it was a 404 naming rules '')
    status, _, every = get(f"{base}/leaderboard/gin_rummy")
    assert status == 200 and ">rules max_hands=3<" in every and ">gin<" in every
    status, _, unplayed = get(f"{base}/leaderboard/gin_rummy?rules=default")
    assert status == 404 and "rule sets played: max_hands=3" in unplayed
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


def raw(base: str, request: bytes) -> bytes:
    """The whole answer to ``request`` sent byte for byte (urllib would refuse or re-quote
    the odd ones); b"" if the server dropped the connection."""
    url = urlsplit(base)
    with socket.create_connection((url.hostname, url.port), timeout=30) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def status_of(answer: bytes) -> int:
    assert answer, "the connection was dropped with no answer"
    return int(answer.split(b" ", 2)[1])


def test_a_loopback_server_answers_only_requests_for_a_loopback_name(
    web: tuple[str, Path, int],
) -> None:
    """A web site the operator visits can point its own name at 127.0.0.1 (DNS
    rebinding); the browser then sends that name as Host, which a server on a loopback
    address refuses (421). Pages are never framed by another site."""
    base, _, _ = web
    port = urlsplit(base).port

    def answer_for(host: str | None, method: str = "GET") -> bytes:
        head = f"{method} / HTTP/1.1\r\n" + (f"Host: {host}\r\n" if host else "")
        if method == "POST":
            head += "Content-Length: 10\r\n"
        return raw(base, (head + "Connection: close\r\n\r\n").encode())

    for host in [
        f"127.0.0.1:{port}",
        "127.0.0.1",
        f"localhost:{port}",
        "LOCALHOST",
        f"[::1]:{port}",
        "127.9.9.9",
        "arena.localhost",
        None,
    ]:
        answer = answer_for(host)
        assert status_of(answer) == 200, host
        assert b"\r\nX-Frame-Options: DENY\r\n" in answer
        assert b"\r\nX-Content-Type-Options: nosniff\r\n" in answer
    for host in [
        "attacker.example",
        f"attacker.example:{port}",
        "127.0.0.1.nip.io",
        "localhost.attacker.example",
        "0x7f000001",
        "[::1",
        "[fe80::1]:80",
        "",
    ]:
        answer = (
            answer_for(host)
            if host
            else raw(base, b"GET / HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n")
        )
        assert status_of(answer) == 421, host
        assert b"loopback name only" in answer
    assert status_of(answer_for("attacker.example", "POST")) == 421


def test_web_log_shows_requests_as_plain_text(tournament: Any, tmp_path: Path) -> None:
    """What a client sends is neither rich markup nor terminal control sequences in the
    request log."""
    db, _ = tournament("gin_rummy")
    log = tmp_path / "web.log"
    with arena_web(db, log) as base:
        for target, status in [
            (b"/matches?bot=[/]", 200),  # a markup error
            (b"/matches?bot=[red]x", 200),  # a style
            (b"/[bold]\x1b]0;PWNED\x07\x1b[2J", 404),  # retitle the window, clear it
            (b"/\x9b2J", 404),  # the one-byte CSI (read as Latin-1)
        ]:
            assert status_of(raw(base, b"GET " + target + b" HTTP/1.0\r\n\r\n")) == status
        assert get(base + "/")[0] == 200  # still serving
    text = log.read_text()
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), repr(text)
    assert "Error" not in text and "Traceback" not in text, text
    for line in [
        '"GET /matches?bot=[/] HTTP/1.0" 200',
        '"GET /matches?bot=[red]x HTTP/1.0" 200',
        '"GET /[bold]\\x1b]0;PWNED\\x07\\x1b[2J HTTP/1.0" 404',
        '"GET /\\x9b2J HTTP/1.0" 404',
    ]:
        assert line in text, text


def test_web_bad_ids_and_names_are_not_found(web: tuple[str, Path, int]) -> None:
    base, _, tid = web
    for path in [
        "/tournament/99999999999999999999",  # past SQLite's 64-bit INTEGER
        "/tournament/9223372036854775807",  # fits, but there is none
        "/tournament/%C2%B2",  # "²": str.isdigit() but not int()
        "/tournament/%D9%A1",  # an Arabic-Indic 1 (int() reads it)
        "/tournament/" + "1" * 5000,  # past int()'s digit limit
        f"/tournament/+{tid}",
        "/leaderboard/nosuchgame",
    ]:
        assert get(base + path)[0] == 404, path
    assert get(f"{base}/tournament/{tid}")[0] == 200
    # A tournament filter that is no id matches no match (as an unknown bot does).
    for value in ["99999999999999999999", "%D9%A1", "x"]:
        status, _, listed = get(f"{base}/matches?tournament={value}")
        assert status == 200 and "no matches" in listed, value
    status, _, listed = get(f"{base}/matches?tournament={tid}")
    assert status == 200 and "no matches" not in listed
    # Pages from 2**63 // MATCHES_PER_PAGE on start past SQLite's INTEGER (they were a 500)
    pages_fit = 2**63 // web_server.MATCHES_PER_PAGE
    for value in ["0", "-1", "x", "%D9%A1", str(2**63 - 1), str(pages_fit)]:
        assert get(f"{base}/matches?page={value}")[0] == 404, value
    status, _, listed = get(f"{base}/matches?page={pages_fit - 1}")
    assert status == 200 and "no matches" in listed


def test_matches_come_a_page_at_a_time(
    web: tuple[str, Path, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """/matches of a large database was one page of every match (50,000: 11 MB, 1.2 s a
    request); it shows MATCHES_PER_PAGE, in order, with links to the pages around."""
    _, db, _ = web
    listed = json.loads(arena(db, "matches", "list", "--json").stdout)
    ids = [m["id"] for m in listed]
    assert len(ids) >= 2
    monkeypatch.setattr(web_server, "MATCHES_PER_PAGE", 1)
    pages = []
    for number in range(1, len(ids) + 2):  # and one page past the last
        body = web_server.route(db, "/matches", {"page": [str(number)], "bot": ["gin"]}).body
        pages.append(body.decode())
    for number, text in enumerate(pages, 1):
        shown = re.findall(r'<a href="/match/([^"]+)">', text)
        assert shown == ids[number - 1 : number], number
        assert ("previous page" in text) == (number > 1)
        assert ("next page" in text) == (number < len(ids)), number
    assert 'href="/matches?bot=gin&amp;page=2"' in pages[0]
    assert "no matches" in pages[-1]


def test_a_replay_page_opens_on_a_seat_of_its_match_or_on_every_seat(
    web: tuple[str, Path, int],
) -> None:
    """?seat= picks the view a replay page opens on. Any other value was a page of its
    own in the cache, so a client could have one long match's page (19 MB for 24,754
    decisions) built and kept once per value it made up."""
    _, db, _ = web
    first = json.loads(arena(db, "matches", "list", "--json").stdout)[0]["id"]
    web_server._replay_page.cache_clear()

    def opens_on(seat: str) -> str:
        body = web_server.route(db, f"/match/{first}", {"seat": [seat]}).body.decode()
        found = re.search(r'data-initial-seat="([^"]*)"', body)
        assert found is not None
        return found.group(1)

    assert opens_on("1") == "1"
    made_up = ["2", "-1", "01", "x", "1 ", "\u0661", "all", "9" * 40]
    assert [opens_on(v) for v in made_up] == ["all"] * len(made_up)
    assert web_server._replay_page.cache_info().currsize == 2  # seat 1, and every seat


def test_web_head_and_content_length(web: tuple[str, Path, int]) -> None:
    base, _, tid = web
    for path in ["/", f"/tournament/{tid}", "/nope"]:
        head = raw(base, f"HEAD {path} HTTP/1.0\r\n\r\n".encode())
        headers, _, body = head.partition(b"\r\n\r\n")
        status, _, page = get(base + path)
        assert status_of(head) == status and body == b"", path
        assert f"Content-Length: {len(page.encode())}".encode() in headers, path
    post = f"POST {SUBMIT_PATH} HTTP/1.0\r\nX-Submitter-Token: t\r\n"
    for header, status in [
        ("Content-Length: 1_0\r\n", 400),
        ("Content-Length: +5\r\n", 400),
        ("Content-Length: -5\r\n", 400),
        ("Content-Length: ١\r\n", 400),
        ("", 411),
    ]:
        answer = raw(base, f"{post}{header}\r\nabcde".encode())
        assert status_of(answer) == status, header
        if status == 400:
            assert answer.endswith(b'{"error": "bad Content-Length"}')
    assert get(base + "/")[0] == 200  # still serving


def test_web_unexpected_error_is_a_plain_500(
    tournament: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a page is a short 500 (the traceback logged once), not a dropped
    connection, and the server goes on."""
    db, _ = tournament("gin_rummy")
    lines: list[str] = []
    server = make_server(db, port=0, log=lines.append)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    real_route = web_server.route

    def route(db: Path, path: str, query: dict[str, list[str]]) -> Response:
        if path == "/boom":
            raise OverflowError("secret detail")
        return real_route(db, path, query)

    monkeypatch.setattr(web_server, "route", route)
    try:
        answer = raw(base, b"GET /boom HTTP/1.0\r\n\r\n")
        assert status_of(answer) == 500
        assert answer.endswith(b"\r\n\r\ninternal server error\n")
        assert get(base + "/")[0] == 200
    finally:
        server.shutdown()
        server.server_close()
    text = "\n".join(lines)
    assert text.count("OverflowError: secret detail") == 1, text
    assert '"GET /boom HTTP/1.0" 500' in text
