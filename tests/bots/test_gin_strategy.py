"""The gin rummy strategy bot against the random bot, in process (no gRPC).

Two-player matches over fixed seeds with the strategy in each seat in turn, plus
the 3- and 4-player formats: the strategy must clearly win and never send an
illegal code.
"""

from __future__ import annotations

import random

import pytest

from referee.local import Chooser, play_local
from referee.v1 import gin_rummy_pb2
from sample_bots import gin_strategy, random_bot
from tests.bots.helpers import checked


def _checked(choose: Chooser) -> Chooser:
    return checked(choose, gin_rummy_pb2.GinRummyObservation)


@pytest.fixture(autouse=True)
def _seeded_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random_bot, "_rng", random.Random(2024))
    monkeypatch.setattr(gin_strategy, "_rng", random.Random(7))


def test_strategy_beats_random_bot_heads_up() -> None:
    strategy, rand = _checked(gin_strategy.choose), _checked(random_bot.choose)
    wins = matches = 0
    edge = 0.0
    for seed in range(20):
        for seat in (0, 1):
            choosers = [rand, rand]
            choosers[seat] = strategy
            out = play_local("gin_rummy", choosers, seed)
            matches += 1
            wins += out.ranks[seat] == 1 and out.ranks[1 - seat] == 2
            edge += out.scores[seat] - out.scores[1 - seat]
    assert wins >= 0.9 * matches, f"won {wins} of {matches}"
    assert edge / matches > 150, f"mean final margin {edge / matches:.1f}"


def test_strategy_beats_random_bot_with_pagat_rules_and_big_gin() -> None:
    strategy, rand = _checked(gin_strategy.choose), _checked(random_bot.choose)
    rules = {"preset": "pagat_classic", "big_gin_bonus": 31, "knock_limit": 8}
    wins = 0
    for seed in range(10):
        seat = seed % 2
        choosers = [rand, rand]
        choosers[seat] = strategy
        out = play_local("gin_rummy", choosers, 100 + seed, rules)
        wins += out.ranks[seat] == 1
    assert wins >= 9


def test_strategy_wins_three_player_and_team_formats() -> None:
    strategy, rand = _checked(gin_strategy.choose), _checked(random_bot.choose)
    firsts = 0
    for seed in range(6):
        seat = seed % 3
        choosers = [rand] * 3
        choosers[seat] = strategy
        out = play_local("gin_rummy", choosers, seed, {"players": 3})
        firsts += out.ranks[seat] == 1
    assert firsts >= 5
    team_wins = 0
    for seed in range(6):
        team = seed % 2
        choosers = [strategy if s % 2 == team else rand for s in range(4)]
        out = play_local("gin_rummy", choosers, seed, {"players": 4})
        assert out.teams == (0, 1, 0, 1)
        team_wins += out.ranks[team] == 1
    assert team_wins >= 5
