"""The golf strategy bot against the random bot, in process (no gRPC).

Seats rotate over deterministic seeds; the strategy must clearly win (lowest
totals rank first) in every variant, heads-up and at a four-seat table, and must
never send an illegal code, whatever the rule options.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.local import Chooser, play_local
from referee.v1 import golf_pb2
from sample_bots import golf_strategy, random_bot
from tests.bots.helpers import checked


def _checked(choose: Chooser) -> Chooser:
    return checked(choose, golf_pb2.GolfObservation)


@pytest.fixture(autouse=True)
def _seeded_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random_bot, "_rng", random.Random(2024))
    monkeypatch.setattr(golf_strategy, "_rng", random.Random(7))


def _ranks(rules: dict[str, Any], seats: int, seeds: int) -> tuple[list[int], float]:
    """The strategy's rank per match (one strategy seat, rotating) and its mean lead."""
    strategy, rand = _checked(golf_strategy.choose), _checked(random_bot.choose)
    ranks, lead = [], 0.0
    for seed in range(seeds):
        seat = seed % seats
        choosers = [rand] * seats
        choosers[seat] = strategy
        out = play_local("golf", choosers, seed, rules)
        ranks.append(out.ranks[seat])
        lead += min(s for i, s in enumerate(out.scores) if i != seat) - out.scores[seat]
    return ranks, lead / seeds


def test_strategy_beats_random_heads_up_in_six_card_golf() -> None:
    ranks, lead = _ranks({"holes": 3}, seats=2, seeds=20)
    # A random seat would win half the matches.
    assert sum(r == 1 for r in ranks) >= 18, ranks
    assert lead > 20, lead


def test_strategy_beats_three_random_bots() -> None:
    ranks, lead = _ranks({"holes": 3}, seats=4, seeds=16)
    # A random seat would average rank 2.5.
    assert sum(ranks) / len(ranks) <= 1.3, ranks
    assert lead > 10, lead


@pytest.mark.parametrize("variant", ["eight", "ten", "nine", "four_face_down", "four_in_hand"])
def test_strategy_beats_random_in_every_variant(variant: str) -> None:
    holes = 3 if variant in ("eight", "ten", "nine") else 9
    ranks, lead = _ranks({"variant": variant, "holes": holes}, seats=2, seeds=12)
    assert sum(r == 1 for r in ranks) >= 10, ranks
    assert lead > 5, lead


@pytest.mark.parametrize(
    "rules",
    [
        {"remove_cancelled": True, "pairs_anywhere": True, "four_of_a_kind_bonus": True,
         "jokers": 2, "holes": 2},
        {"variant": "nine", "remove_cancelled": True, "initial_flips_same_column": True,
         "scoring": "hard", "holes": 1},
        {"variant": "four_face_down", "peek_near_only": True, "diagonal_pairs": True,
         "final_turn_stock_only": True, "early_end_penalty": "add_lowest", "holes": 3},
        {"variant": "four_in_hand", "holes": "none", "target_score": 50,
         "bonus_rank": "one_eyed_jacks"},
        {"max_turns": 4, "max_reshuffles": 0, "decks": 1, "holes": 2},
    ],
)  # fmt: skip
def test_strategy_plays_only_legal_codes_under_every_option(rules: dict[str, Any]) -> None:
    strategy, rand = _checked(golf_strategy.choose), _checked(random_bot.choose)
    for seats in (3, 5):
        out = play_local("golf", [strategy, rand, strategy, rand, strategy][:seats], 11, rules)
        assert len(out.ranks) == seats
