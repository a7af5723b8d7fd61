"""`arena replay show`: the terminal step-through, from one seat's view or all hands, with
the seat selector and hand jumps of the interactive mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from arena.rendering import event_text
from referee.replay import parse_replay
from tests.conftest import arena
from tests.watching.helpers import ROOT


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
    for match in json.loads(arena(db, "matches", "list", "--json").stdout):
        replay = parse_replay(arena(db, "replay", "export", match["id"]).stdout)
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
