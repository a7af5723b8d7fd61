"""`arena replay show`: the terminal step-through, from one seat's view or all hands, with
the seat selector and hand jumps of the interactive mode."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from typing import Any

from rich.console import Console

from arena.rendering import event_text
from arena.viewer import replay_show
from referee.matchspec import MatchConfig
from referee.replay import parse_replay
from tests.conftest import arena, stored_replays
from tests.watching.helpers import ROOT, play_match


def test_a_seats_view_reads_exactly_its_event_texts(tournament: Any) -> None:
    db, _ = tournament("dingo")
    match_id = json.loads(arena(db, "matches", "list", "--json").stdout)[0]["id"]
    replay = parse_replay(arena(db, "replay", "export", match_id).stdout)
    for seat in (0, 2):
        out = arena(db, "replay", "show", match_id, "--seat", str(seat), "--no-step").stdout
        shown = [line[2:] for line in out.splitlines() if line.startswith("· ")]
        want = [event_text(line, seat) for line in replay.lines if line["type"] == "event"]
        assert shown == want
        decisions = [line for line in out.splitlines() if line.startswith("▶ ")]
        assert decisions and all(d.startswith(f"▶ seat {seat} ") for d in decisions)


def test_interactive_seat_selector_and_hand_jump(tournament: Any) -> None:
    db, _ = tournament("gin_rummy")
    # The tournament's seed is random, so a match may end before its third hand: jump to
    # the last hand of the match that has the most.
    hands, players = {}, {}
    for match, replay in stored_replays(db):
        hands[match["id"]] = max(int(line.get("hand", 0)) for line in replay.lines)
        players[match["id"]] = list(replay.header["players"])
    match_id = max(hands, key=lambda m: hands[m])
    last = hands[match_id]
    assert last >= 1
    commands = f"n\nn\ns\ns all\nh {last}\ns 9\nb\nq\n"
    run = subprocess.run(
        [sys.executable, "-m", "arena.cli", "replay", "show", match_id, "--seat", "0", "--step"],
        input=commands,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "ARENA_DB": str(db), "COLUMNS": "200"},
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    first, second = players[match_id]
    assert f"viewing seat 0 ({first})" in out and f"viewing seat 1 ({second})" in out
    assert "viewing all hands" in out
    assert f"· hand {last} " in out  # jumped to that hand
    assert "seat 9 does not exist: this match has seats 0-1" in out


def test_a_fault_reason_is_shown_only_in_the_faulty_seats_view() -> None:
    # A fault reason can name a hidden card (an illegal "pass 5S"), so another seat's view
    # shows that the fault happened, not why (as the HTML page does).
    config = MatchConfig(fault_policy="default", max_strikes=3)
    replay = play_match("gin_rummy", {"max_hands": 2}, 2, config=config, cheat_every=4)
    fault = next(line for line in replay.lines if line["type"] == "fault")
    assert fault["seat"] == 0
    for seat, reason_shown in (("0", True), ("1", False), ("all", True)):
        out = io.StringIO()
        replay_show(replay, seat, Console(file=out, width=400), interactive=False)
        text = out.getvalue()
        assert "! fault, seat 0: malformed" in text
        assert (fault["reason"] in text) == reason_shown, seat
