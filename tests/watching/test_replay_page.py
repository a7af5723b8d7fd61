"""The replay page's data and file, without a browser: frames cover every replay line,
each frame carries exactly every seat's observation and the public view of its state, the
file is self-contained, and every game and rule variant builds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.rendering import ALL_HANDS, event_text
from arena.web.frames import page_data
from arena.web.replay_page import replay_html
from referee.game import game_names
from referee.match import MatchConfig
from referee.replay import Replay, parse_replay
from referee.views import to_jsonable
from tests.conftest import arena
from tests.watching.helpers import frames_of, play_match

# Rule variants built in process (random play): every golf layout and several options,
# the gin table sizes and preset, the golf solitaire presets, dingo and goninkan options.
VARIANTS: list[tuple[str, dict[str, Any], int]] = [
    *[
        ("golf", {"variant": v, "holes": 1}, 3)
        for v in ("six", "eight", "ten", "nine", "four_face_down", "four_in_hand")
    ],
    ("golf", {"variant": "six", "holes": 1, "jokers": 2, "remove_cancelled": True}, 2),
    ("golf", {"variant": "four_face_down", "holes": 1, "diagonal_pairs": True}, 4),
    ("golf", {"variant": "eight", "holes": 1, "four_of_a_kind_bonus": True}, 5),
    ("gin_rummy", {"max_hands": 2}, 2),
    ("gin_rummy", {"max_hands": 2, "players": 3}, 3),
    ("gin_rummy", {"max_hands": 2, "players": 4}, 4),
    ("gin_rummy", {"max_hands": 2, "preset": "pagat_classic"}, 2),
    *[("golf_solitaire", {"preset": p, "holes": 1}, 1) for p in ("strict", "relaxed", "putt_putt")],
    ("golf_solitaire", {"holes": 1}, 3),
    ("dingo", {"deals": 1}, 4),
    ("dingo", {"deals": 3, "target_score": 5}, 4),
    ("goninkan", {"yaku_count": 1}, 6),
]


def variant_id(v: tuple[str, dict[str, Any], int]) -> str:
    game, rules, seats = v
    return f"{game}-{seats}-" + "-".join(f"{k}={x}" for k, x in rules.items())


def unpack(data: dict[str, Any], index: int) -> Any:
    """A view of the page's table, as the page's script rebuilds it."""
    table = data["table"]
    row = table["views"][index]
    if row[0] < 0:
        return table["values"][row[1]]
    keys = table["shapes"][row[0]]
    return {k: table["values"][v] for k, v in zip(keys, row[1:], strict=True)}


def check_page_data(replay: Replay) -> dict[str, Any]:
    data = page_data(replay)
    game, frames = frames_of(replay)
    seats = replay.header["seats"]
    assert len(data["frames"]) == len(frames)
    assert sum(len(f.lines) for f in frames) == len(replay.lines)  # every line, once, in order
    assert [line for f in frames for line in f.lines] == list(replay.lines)
    for frame, entry in zip(frames, data["frames"], strict=True):
        for seat in range(seats):
            assert unpack(data, entry["v"][seat]) == to_jsonable(
                game.observation(frame.state, seat)
            )
        assert unpack(data, entry["p"]) == to_jsonable(game.public_view(frame.state))
        assert entry["act"] == list(game.to_act(frame.state))
        assert entry["h"] == frame.hand
        events = [line for line in frame.lines if line["type"] == "event"]
        shown = [item for item in entry["l"] if item["k"] == "event"]
        for line, item in zip(events, shown, strict=True):
            assert item["pub"] == event_text(line, None)
            assert item["all"].startswith(event_text(line, ALL_HANDS))
            for seat in range(seats):
                assert item.get("s", {}).get(str(seat), item["pub"]) == event_text(line, seat)
    assert data["frames"][-1]["l"][-1]["k"] == "end"
    return data


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_every_variant_builds_frames_with_exactly_each_seats_observation(
    variant: tuple[str, dict[str, Any], int],
) -> None:
    game, rules, seats = variant
    replay = play_match(game, rules, seats)
    check_page_data(replay)
    page = replay_html(replay)
    assert page.count('<script id="replay-data"') == 1


@pytest.mark.parametrize("game", game_names())
def test_tournament_replays_build_and_the_page_is_self_contained(
    tournament: Any, tmp_path: Path, game: str
) -> None:
    db, tid = tournament(game)
    matches = json.loads(arena(db, "matches", "list", "--tournament", str(tid), "--json").stdout)
    first = matches[0]["id"]
    out = tmp_path / "page.html"
    done = arena(db, "replay", "html", first, "-o", str(out))
    assert f"wrote {out}" in done.stderr
    text = out.read_text()
    # No network: nothing is fetched (no src=, no stylesheet links, no url(), no imports).
    assert not re.search(r"\bsrc\s*=|<link\b|url\(|@import|https?://(?!www\.w3\.org)", text)
    assert "</script" not in text.split('<script id="replay-data"', 1)[1].split("</script>", 1)[0]
    replay = parse_replay(arena(db, "replay", "export", first).stdout)
    data = check_page_data(replay)
    embedded = text.split('type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(embedded) == json.loads(json.dumps(data))


def test_replay_html_errors_are_clear(tournament: Any, tmp_path: Path) -> None:
    db, _ = tournament("gin_rummy")
    missing = arena(db, "replay", "html", "nope", "-o", str(tmp_path / "x.html"), check=False)
    assert missing.returncode == 2 and "no replay for match 'nope'" in missing.stderr
    first = json.loads(arena(db, "matches", "list", "--json").stdout)[0]["id"]
    bad_seat = arena(
        db, "replay", "html", first, "--seat", "7", "-o", str(tmp_path / "y.html"), check=False
    )
    assert bad_seat.returncode == 2 and "--seat must be 'all' or a seat 0-1" in bad_seat.stderr
    exported = tmp_path / "m.jsonl"
    arena(db, "replay", "export", first, "-o", str(exported))
    from_file = arena(
        db, "replay", "html", "--file", str(exported), "--seat", "1", "-o", str(tmp_path / "z.html")
    )
    assert from_file.returncode == 0
    assert 'data-initial-seat="1"' in (tmp_path / "z.html").read_text()


@pytest.mark.parametrize("policy", ["default", "forfeit"])
def test_faults_join_the_step_they_cause(policy: str) -> None:
    config = MatchConfig(fault_policy=policy, max_strikes=3)  # type: ignore[arg-type]
    replay = play_match("gin_rummy", {"max_hands": 2}, 2, config=config, cheat_every=4)
    faults = [line for line in replay.lines if line["type"] == "fault"]
    assert faults
    data = check_page_data(replay)
    _, frames = frames_of(replay)
    for frame in frames:
        kinds = [line["type"] for line in frame.lines]
        if "fault" in kinds:  # a fault leads its step: the default move, or the end
            first = kinds.index("fault")
            assert kinds[:first] == [] and kinds[first + 1] in ("fault", "decision", "end")
    if policy == "forfeit":
        assert data["match"]["reason"] == "forfeit"
        assert [item["k"] for item in data["frames"][-1]["l"]][:1] == ["fault"]
