"""A policy trained in the PettingZoo environment, then played as a bot through the referee.

The policy is linear: each action's score is its bias plus the weights of the numeric
observation (``referee.pettingzoo``'s vector) it is paired with, and the best-scoring
legal action is played. Training is plain random search on Golf solitaire: perturb the
weights, keep the perturbation when the mean reward (minus the hole score) over a few
deals improves. Nothing fancy: the point is the path from the environment to a bot.

    python -m sample_bots.rl_policy train [--iterations N] [--out FILE]   # in process
    python -m sample_bots.rl_policy                                        # as a bot

The bot reads the weights from ``RL_POLICY_WEIGHTS`` (default: the file ``train``
writes, rl_policy_weights.json in the working directory); without a file it plays the
untrained policy (all zero weights: the first legal action). The same :func:`pick`
chooses in the environment and over the wire, from the same vector.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from referee.pettingzoo import CardArenaEnv, raw_env

GAME = "golf_solitaire"


class TrainingRules(TypedDict):
    """The rule options the policy is trained and played with (raw_env's ``**rules``)."""

    holes: int


RULES: TrainingRules = {"holes": 1}
DEFAULT_WEIGHTS = "rl_policy_weights.json"
FEATURES = 8  # the observation entries each action's score reads (see _score)


Weights = list[list[float]]  # per action: bias, then one weight per feature


def zero_weights(actions: int) -> Weights:
    return [[0.0] * (FEATURES + 1) for _ in range(actions)]


def _features(vector: Sequence[float], action: str) -> list[float]:
    """What an action's score reads: for "play N", column N's top card rank and depth,
    the foundation's rank; for "stock", the stock count. (Tableau: 7 columns of 5 ranks,
    -1 for no card; entry 35 the foundation's rank; see docs/games/golf_solitaire.md.)"""
    foundation = vector[35]
    if action == "stock":
        return [0.0, 0.0, foundation, vector[35 + 1 + 53], 1.0, 0.0, 0.0, 0.0]
    column = int(action.split()[1])
    ranks = [r for r in vector[column * 5 : column * 5 + 5] if r >= 0]
    top = ranks[-1] if ranks else -1.0
    return [top, float(len(ranks)), foundation, 0.0, 0.0, abs(top - foundation), 1.0, float(column)]


def pick(
    weights: Weights, codes: Sequence[str], vector: Sequence[float], mask: Sequence[int]
) -> int:
    """The index (into ``codes``) of the best-scoring legal action; ties: the lowest."""
    best, best_score = -1, float("-inf")
    for i, code in enumerate(codes):
        if not mask[i]:
            continue
        w = weights[i]
        score = w[0] + sum(a * b for a, b in zip(w[1:], _features(vector, code), strict=True))
        if score > best_score:
            best, best_score = i, score
    return best


def play_episode(env: CardArenaEnv, weights: Weights, seed: int) -> float:
    env.reset(seed=seed)
    total = 0.0
    for _agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        total += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(
            pick(weights, env.action_codes, observation["observation"], observation["action_mask"])
        )
    return total


def train(iterations: int, episodes: int = 8, seed: int = 1) -> tuple[Weights, float]:
    """Random search: returns the weights and their mean reward on the training deals."""
    env = raw_env(GAME, **RULES)
    rng = random.Random(seed)
    deals = [rng.randrange(2**31) for _ in range(episodes)]

    def value(w: Weights) -> float:
        return sum(play_episode(env, w, d) for d in deals) / len(deals)

    weights = zero_weights(len(env.action_codes))
    best = value(weights)
    for _ in range(iterations):
        trial = [[x + rng.gauss(0, 0.5) for x in row] for row in weights]
        if (score := value(trial)) > best:
            weights, best = trial, score
    return weights, best


# ---- the same policy as a bot -----------------------------------------------------------

_env: list[CardArenaEnv] = []
_weights: list[Weights] = []


def load_weights(actions: int) -> Weights:
    path = Path(os.environ.get("RL_POLICY_WEIGHTS", DEFAULT_WEIGHTS))
    if path.is_file():
        weights: Weights = json.loads(path.read_text())
        if len(weights) == actions:
            return weights
    # Said where its author will look (the match's stderr), rather than playing on quietly.
    print(f"rl_policy: no weights for this game in {path}; playing untrained", file=sys.stderr)
    return zero_weights(actions)


def on_match_start(start: Any) -> None:
    """An encoder for this match's game, rules and seats (the referee's text rules)."""
    env = raw_env(start.game, start.seats, **dict(start.rules))
    _env[:] = [env]
    _weights[:] = [load_weights(len(env.action_codes))]


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    env = _env[0]
    legal = set(legal_actions)
    mask = [1 if code in legal else 0 for code in env.action_codes]
    vector = env.encode_observation(observation).tolist()
    return env.action_codes[pick(_weights[0], env.action_codes, vector, mask)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", nargs="?", choices=["train"], help="train, or play as a bot")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--out", default=DEFAULT_WEIGHTS)
    args = parser.parse_args()
    if args.command == "train":
        before = play_mean = train(0)[1]
        weights, play_mean = train(args.iterations)
        Path(args.out).write_text(json.dumps(weights))
        print(f"mean reward {before:.2f} untrained, {play_mean:.2f} trained; weights in {args.out}")
        return
    from referee.client import run_bot

    run_bot(choose, name="rl_policy", on_match_start=on_match_start)


if __name__ == "__main__":
    main()
