"""The Dingo strategy bot against the random bot, in process (no gRPC).

One strategy bot against three random bots over 48 one-match seeds, its seat
rotating through 0-3, and two strategy bots against two random ones: the
strategy must clearly win and never send an illegal code.
"""

from __future__ import annotations

import random

import pytest

from referee.local import Chooser, play_local
from referee.v1 import dingo_pb2
from sample_bots import dingo_strategy, random_bot
from tests.bots.helpers import checked


def _checked(choose: Chooser) -> Chooser:
    return checked(choose, dingo_pb2.DingoObservation)


@pytest.fixture(autouse=True)
def _seeded_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random_bot, "_rng", random.Random(2024))
    monkeypatch.setattr(dingo_strategy, "_rng", random.Random(7))


def test_strategy_beats_three_random_bots() -> None:
    strategy, rand = _checked(dingo_strategy.choose), _checked(random_bot.choose)
    ranks, wins, edge = [], 0, 0.0
    for seed in range(48):
        seat = seed % 4
        choosers = [rand] * 4
        choosers[seat] = strategy
        out = play_local("dingo", choosers, seed)
        ranks.append(out.ranks[seat])
        wins += out.ranks[seat] == 1
        edge += out.scores[seat] - max(s for i, s in enumerate(out.scores) if i != seat)
    mean_rank = sum(ranks) / len(ranks)
    # A random seat would average rank 2.5 and win a quarter of the matches.
    assert mean_rank <= 1.5, mean_rank
    assert wins / len(ranks) >= 0.75, wins
    assert edge > 0


def test_two_strategy_bots_outrank_two_random_bots() -> None:
    strategy, rand = _checked(dingo_strategy.choose), _checked(random_bot.choose)
    strategy_ranks: list[int] = []
    random_ranks: list[int] = []
    for seed in range(16):
        choosers = ([strategy, rand] if seed % 2 else [rand, strategy]) * 2
        out = play_local("dingo", choosers, 100 + seed)
        for seat, ch in enumerate(choosers):
            (strategy_ranks if ch is strategy else random_ranks).append(out.ranks[seat])
    mean_strategy = sum(strategy_ranks) / len(strategy_ranks)
    mean_random = sum(random_ranks) / len(random_ranks)
    assert mean_strategy + 1.0 <= mean_random, (mean_strategy, mean_random)
