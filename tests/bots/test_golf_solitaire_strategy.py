"""The golf_solitaire strategy bot beats the random bot (and the greedy one) on the same
deals, never plays an illegal move, and decides in well under a second."""

from __future__ import annotations

import time

import pytest

from referee.game import get_game, parse_rules
from referee.local import play_local
from referee.views import observation_message
from sample_bots import golf_solitaire_greedy as greedy
from sample_bots import golf_solitaire_strategy as strategy
from sample_bots import random_bot


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    # A smaller, fixed amount of work per decision and no wall-clock stop: the same play
    # on any machine, quickly.
    monkeypatch.setattr(strategy, "WORK_BUDGET", 20_000_000)
    monkeypatch.setattr(strategy, "_cap", [60.0])
    strategy.reseed("test")
    random_bot._rng.start_match("test")


def test_strategy_beats_random_in_duplicate_matches_seats_rotated() -> None:
    ranks = []
    for match in range(6):
        seat = match % 2  # the strategy's seat
        choosers = [strategy.choose, random_bot.choose]
        if seat:
            choosers.reverse()
        out = play_local("golf_solitaire", choosers, seed=match, rules={"holes": "2"})
        ranks.append(out.ranks[seat])
    assert sum(ranks) / len(ranks) <= 1.1, ranks


def test_strategy_scores_better_than_greedy_on_the_same_deals() -> None:
    totals = {}
    for name, bot in (("strategy", strategy.choose), ("greedy", greedy.choose)):
        out = play_local(
            "golf_solitaire", [bot], seed=0, rules={"holes": "5", "deal_numbers": "1-5"}
        )
        totals[name] = out.scores[0]
    assert totals["strategy"] < totals["greedy"] - 10, totals


def test_strategy_decides_well_under_a_second_with_its_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(strategy, "WORK_BUDGET", 200_000_000)
    monkeypatch.setattr(strategy, "_cap", [strategy.SECONDS_CAP])
    game = get_game("golf_solitaire")
    rules = parse_rules(game.Rules, {"holes": "1", "deal_numbers": "19"})
    state = game.initial_state(rules, 1, 0)
    slowest = 0.0
    for _ in range(8):  # the opening decisions are the costliest
        obs = observation_message("golf_solitaire", game.observation(state, 0)).golf_solitaire
        legal = list(game.legal_actions(state, 0))
        t0 = time.perf_counter()
        code = strategy.choose(obs, legal)
        slowest = max(slowest, time.perf_counter() - t0)
        assert code in legal
        state = game.apply(state, 0, code)
        if not game.to_act(state):
            break
    assert slowest < 1.0
