"""The replay page in headless Chromium, for every game: step through a real tournament's
match, switch seats, and check what is on screen against the engine: in a seat's view the
cards drawn are exactly the cards of that seat's observation, no card hidden from that seat
and no private text it may not read is anywhere on the page; stepping back restores the
frame; the hand selector, the keyboard and play work."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.rendering import event_text
from arena.web.frames import Frame, page_data
from arena.web.replay_page import replay_html
from referee.game import game_names
from referee.match import MatchConfig
from referee.replay import parse_replay
from tests.conftest import arena
from tests.watching.helpers import (
    CARD_WORD,
    cards_in,
    frames_of,
    hidden_from,
    play_match,
)


def table_cards(page: Any) -> Counter[str]:
    codes = page.eval_on_selector_all("#table [data-card]", "els => els.map(e => e.dataset.card)")
    return Counter(codes)


def frame_no(page: Any) -> int:
    return int(page.get_attribute("body", "data-frame"))


def check_seat_view(
    page: Any, game: Any, frames: list[Frame], index: int, seat: int, seats: int
) -> None:
    """What seat mode shows at frame ``index`` is exactly that seat's view."""
    assert frame_no(page) == index
    assert page.get_attribute("body", "data-seat") == str(seat)
    state = frames[index].state
    want = cards_in(game.observation(state, seat))
    assert table_cards(page) == want, f"frame {index}, seat {seat}"
    hidden = hidden_from(game, state, seat, seats)
    everywhere = set(
        page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    )
    assert not hidden & everywhere, f"hidden cards drawn for seat {seat}: {hidden & everywhere}"
    table_words = set(CARD_WORD.findall(page.inner_text("#table")))
    assert not hidden & table_words, f"hidden cards named for seat {seat}: {hidden & table_words}"
    # The log: every frame shown holds exactly the event texts this seat could read, and
    # only this seat's own decisions (another seat's move shows as its public events).
    groups = page.eval_on_selector_all(
        "#log .frame",
        """els => els.map(g => [Number(g.dataset.frame),
            [...g.querySelectorAll('.line')].map(l => [l.className, l.textContent])])""",
    )
    assert groups and groups[-1][0] == index
    for number, lines in groups:
        texts = [event_text(line, seat) for line in frames[number].lines if line["type"] == "event"]
        assert [text for cls, text in lines if "event" in cls.split()] == texts, f"frame {number}"
        own = sum(
            1
            for line in frames[number].lines
            if line["type"] == "decision" and line["seat"] == seat
        )
        decisions = [text for cls, text in lines if "decision" in cls.split()]
        assert len(decisions) == own and all(d.startswith(f"▶ seat {seat} ") for d in decisions)
    now = page.inner_text("#now")
    for line in frames[index].lines:
        if line["type"] == "event":
            assert event_text(line, seat) in now


def check_all_hands(page: Any, game: Any, frames: list[Frame], index: int, seats: int) -> None:
    assert page.get_attribute("body", "data-seat") == "all"
    state = frames[index].state
    everyone: set[str] = set()
    for s in range(seats):
        everyone |= set(cards_in(game.observation(state, s)))
    shown = set(table_cards(page))
    assert everyone <= shown, f"all hands misses {everyone - shown}"
    assert page.locator(".seat-panel").count() == seats


def step(page: Any, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def exercise(page: Any, html_file: Path, replay: Any, shot: Path | None = None) -> None:
    game, frames = frames_of(replay)
    seats = int(replay.header["seats"])
    page.goto(html_file.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert frame_no(page) == 0 and page.get_attribute("body", "data-seat") == "all"
    check_all_hands(page, game, frames, 0, seats)

    k = min(5, len(frames) - 1)
    step(page, "ArrowRight", k)
    assert frame_no(page) == k
    check_all_hands(page, game, frames, k, seats)
    page.select_option("#seat", "0")
    check_seat_view(page, game, frames, k, 0, seats)
    before = page.inner_html("#table")
    if seats > 1:
        step(page, "s")  # seat 0 -> seat 1
        check_seat_view(page, game, frames, k, 1, seats)
        page.select_option("#seat", "0")

    later = min(k + 4, len(frames) - 1)
    page.click("#next")
    step(page, "ArrowRight", later - k - 1)
    assert frame_no(page) == later
    check_seat_view(page, game, frames, later, 0, seats)
    step(page, "ArrowLeft", later - k)
    assert frame_no(page) == k
    assert page.inner_html("#table") == before  # stepping back restores the frame

    hands = [i for i, f in enumerate(frames) if i == 0 or f.hand != frames[i - 1].hand]
    options = page.eval_on_selector_all("#hand option", "els => els.map(e => e.value)")
    assert len(options) == len(hands)
    if len(hands) > 1:
        page.select_option("#hand", "1")
        assert frame_no(page) == hands[1]
        assert page.get_attribute("body", "data-hand") == str(frames[hands[1]].hand)
        check_seat_view(page, game, frames, hands[1], 0, seats)
        step(page, "Home")
        step(page, "]")
        assert frame_no(page) == hands[1]
        step(page, "[")
        assert frame_no(page) == 0
    tricks: list[tuple[tuple[int, int], int]] = []  # (hand, trick) -> its first step
    for i, entry in enumerate(page_data(replay)["frames"]):
        if "t" in entry and (not tricks or tricks[-1][0] != (entry["h"], entry["t"])):
            tricks.append(((entry["h"], entry["t"]), i))
    assert page.is_visible("#trick") == bool(tricks)
    if len(tricks) > 2:
        page.select_option("#trick", "1")
        assert frame_no(page) == tricks[1][1]
        step(page, ".")
        assert frame_no(page) == tricks[2][1]
        step(page, ",")
        assert frame_no(page) == tricks[1][1]
    step(page, "End")
    last = len(frames) - 1
    assert frame_no(page) == last
    check_seat_view(page, game, frames, last, 0, seats)
    assert "■" in page.inner_text("#now")  # the result
    step(page, "Home")
    assert frame_no(page) == 0
    page.select_option("#speed", "60")
    page.click("#play")
    page.wait_for_function("() => Number(document.body.dataset.frame) >= 2")
    step(page, " ")  # pause
    # The page has handled the key once the button offers play again (under load the key
    # may arrive a tick later than the call returns).
    page.wait_for_function("() => document.getElementById('play').textContent === '▶'")
    paused = frame_no(page)
    page.wait_for_timeout(300)
    assert frame_no(page) == paused

    if shot is not None:
        page.select_option("#seat", "0")
        target = min(len(frames) - 1, max(1, len(frames) // 3))
        page.evaluate(f"document.querySelector('#scrub').value = {target}")
        page.dispatch_event("#scrub", "input")
        assert frame_no(page) == target
        check_seat_view(page, game, frames, target, 0, seats)
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=False)


@pytest.mark.parametrize("game", game_names())
def test_replay_page_in_chromium(tournament: Any, page: Any, tmp_path: Path, game: str) -> None:
    db, tid = tournament(game)
    matches = json.loads(arena(db, "matches", "list", "--tournament", str(tid), "--json").stdout)
    match_id = matches[0]["id"]
    out = tmp_path / f"{game}.html"
    arena(db, "replay", "html", match_id, "-o", str(out))
    replay = parse_replay(arena(db, "replay", "export", match_id).stdout)
    exercise(page, out, replay, shot=tmp_path / f"{game}.png")
    assert (tmp_path / f"{game}.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("game", "rules", "seats"),
    [
        ("golf", {"variant": "four_face_down", "holes": 1}, 3),  # peeked cards: known to one seat
        ("golf", {"variant": "nine", "holes": 1}, 2),
        ("golf", {"variant": "four_in_hand", "holes": 1}, 2),
        ("gin_rummy", {"max_hands": 2, "players": 4}, 4),  # two tables, teams
        ("golf_solitaire", {"holes": 1}, 1),
    ],
    ids=lambda v: str(v),
)
def test_variant_pages_in_chromium(
    page: Any, tmp_path: Path, game: str, rules: dict[str, Any], seats: int
) -> None:
    replay = play_match(game, rules, seats)
    out = tmp_path / "variant.html"
    out.write_text(replay_html(replay))
    exercise(page, out, replay)


def test_initial_seat_and_link_to_a_step(page: Any, tmp_path: Path) -> None:
    replay = play_match("dingo", {"deals": 1}, 4)
    game, frames = frames_of(replay)
    out = tmp_path / "dingo.html"
    out.write_text(replay_html(replay, seat="2"))
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    check_seat_view(page, game, frames, 0, 2, 4)
    page.goto(out.as_uri() + "#f=8&s=3")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    check_seat_view(page, game, frames, 7, 3, 4)
    step(page, "a")
    check_all_hands(page, game, frames, 7, 4)


def test_a_fault_reason_is_shown_only_in_the_faulty_seats_view(page: Any, tmp_path: Path) -> None:
    config = MatchConfig(fault_policy="default", max_strikes=3)
    replay = play_match("gin_rummy", {"max_hands": 2}, 2, config=config, cheat_every=4)
    _, frames = frames_of(replay)
    index, fault = next(
        (i, line) for i, f in enumerate(frames) for line in f.lines if line["type"] == "fault"
    )
    out = tmp_path / "faults.html"
    out.write_text(replay_html(replay))
    for seat, reason_shown in (("0", True), ("1", False), ("all", True)):
        page.goto(f"{out.as_uri()}#f={index + 1}&s={seat}")
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        now = page.inner_text("#now")
        assert "! fault, seat 0 (bot0): malformed" in now
        assert (fault["reason"] in now) == reason_shown


def test_a_script_written_into_the_page_does_not_run_and_the_pages_own_does(
    page: Any, tmp_path: Path
) -> None:
    """The Content-Security-Policy (arena/web/csp.py), the line behind escaping: were a
    bot's text ever written into a replay page unescaped, neither its script nor its event
    handler would run, nor would it load anything; the page's own script still runs."""
    replay = play_match("golf", {"holes": 1}, 2)
    hostile = (
        "<script>document.title = 'pwned'</script>"
        '<img src="https://example.invalid/x.png" onerror="document.title = \'handler\'">'
        "<img src=x onerror=\"document.title = 'handler'\">"
    )
    text = replay_html(replay)
    assert text.count("<footer>") == 1
    out = tmp_path / "injected.html"
    out.write_text(text.replace("<footer>", hostile + "<footer>"))
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security" in m.text else None)
    loaded: list[str] = []
    page.on("requestfinished", lambda r: loaded.append(r.url))
    refused: list[str] = []
    page.on("requestfailed", lambda r: refused.append(f"{r.url} {r.failure}"))
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")  # its own script ran
    step(page, "End")
    assert frame_no(page) > 0
    assert "pwned" not in page.title() and "handler" not in page.title()
    assert len(blocked) >= 3, blocked  # the script, a handler, the loads
    assert [url for url in loaded if url != out.as_uri()] == []
    assert sorted(refused) == [
        f"{(tmp_path / 'x').as_uri()} csp",
        "https://example.invalid/x.png csp",
    ], refused
