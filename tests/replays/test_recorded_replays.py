"""Replays recorded by earlier engines still verify, or are refused for their version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.game import game_names, get_game
from referee.replay import parse_replay, verify_replay

HERE = Path(__file__).resolve().parent
BEFORE_ENGINE_BASE = sorted((HERE / "recorded_before_engine_base").glob("*.jsonl"))
BEFORE_HAND_1_BASED = sorted((HERE / "recorded_before_hand_1_based").glob("*.jsonl"))


def test_every_game_has_a_replay_from_before_the_engine_base() -> None:
    games = {parse_replay(p.read_text(encoding="utf-8")).header["game"] for p in BEFORE_ENGINE_BASE}
    assert games == set(game_names())


# Engines bumped since these replays were recorded, for rule options the replays do not
# use: refused under the version they were made with, they verify under today's number.
BUMPED_SINCE = {"golf": "2: early_end_penalty=add_lowest adds a negative lowest score"}
# Engines whose every match changed since: refused for their version, with one verdict.
CHANGED_SINCE = {"dingo": "2, 3: every seat asked in the hunt, and again after a wolf"}


@pytest.mark.parametrize("path", BEFORE_ENGINE_BASE, ids=lambda p: p.stem)
def test_replay_from_before_the_engine_base_verifies_or_is_refused_for_its_version(
    path: Path,
) -> None:
    text = path.read_text(encoding="utf-8")
    replay = parse_replay(text)
    game, recorded = replay.header["game"], replay.header["game_version"]
    version = get_game(game).version
    assert (recorded < version) == (game in BUMPED_SINCE | CHANGED_SINCE), (game, recorded)
    if game in CHANGED_SINCE:
        [problem] = verify_replay(replay).mismatches
        assert f"made with {game} version {recorded}, this engine is version {version}" in problem
        return
    if game in BUMPED_SINCE:
        [problem] = verify_replay(replay).mismatches
        assert f"made with {game} version {recorded}, this engine is version {version}" in problem
        old = f'"game_version":{recorded},'
        replay = parse_replay(text.replace(old, f'"game_version":{version},', 1))
    report = verify_replay(replay)
    assert report.ok, report.mismatches
    assert report.decisions == len(replay.decisions) > 0
    assert report.events == sum(1 for line in replay.lines if line["type"] == "event")


@pytest.mark.parametrize("path", BEFORE_HAND_1_BASED, ids=lambda p: p.stem)
def test_replay_from_before_hand_1_based_is_refused_for_its_version(path: Path) -> None:
    replay = parse_replay(path.read_text(encoding="utf-8"))
    game = replay.header["game"]
    assert replay.header["game_version"] == 1 < get_game(game).version
    report = verify_replay(replay)
    assert not report.ok
    [problem] = report.mismatches  # one verdict, not a list of event mismatches
    assert problem.startswith(
        f"the replay was made with {game} version 1, this engine is version "
        f"{get_game(game).version}: it cannot be verified with this version"
    )
    assert "has hand 0 but the engine gives 1" in problem


@pytest.mark.parametrize("path", BEFORE_HAND_1_BASED, ids=lambda p: p.stem)
def test_the_only_difference_of_the_older_replays_is_the_hand_number(path: Path) -> None:
    # Under the engine's own version they differ in nothing but the events' hand field,
    # which is why the version bump (rather than a rule change) is the honest account.
    text = path.read_text(encoding="utf-8")
    game = parse_replay(text).header["game"]
    current = text.replace('"game_version":1,', f'"game_version":{get_game(game).version},', 1)
    report = verify_replay(parse_replay(current))
    assert report.mismatches
    for problem in report.mismatches:
        assert re.search(r"has hand (\d+) but the engine gives (\d+)$", problem), problem
        old, new = map(int, re.findall(r"\d+", problem.rsplit("has hand", 1)[1]))
        assert new == old + 1
