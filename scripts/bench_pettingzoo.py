"""PettingZoo environment speed against the engine's own random playouts, side by side.

For each game (default rules, fewest seats), random legal play for ``--seconds``: once on
the bare engine (legal_actions, encode, apply: the loop of scripts/bench's playouts), once
through the environment (observe with the numeric vector and mask, step). Prints
decisions per second of each and their ratio. Run: .venv/bin/python scripts/bench_pettingzoo.py
"""

from __future__ import annotations

import argparse
import random
import time

from referee.game import get_game, parse_rules
from referee.pettingzoo import raw_env

GAMES = ("gin_rummy", "golf", "golf_solitaire", "dingo", "goninkan")


def engine_rate(game: str, seconds: float) -> float:
    engine = get_game(game)
    rules = parse_rules(engine.Rules, {})
    seats = engine.seats(rules)[0]
    rng = random.Random(1)
    decisions, seed, end = 0, 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        state = engine.initial_state(rules, seats, seed)
        seed += 1
        while to_act := engine.to_act(state):
            seat = to_act[0]
            legal = engine.legal_actions(state, seat)
            codes = [engine.encode(a) for a in legal]
            state = engine.apply(state, seat, engine.decode(rng.choice(codes)))
            decisions += 1
    return decisions / seconds


def env_rate(game: str, seconds: float) -> float:
    env = raw_env(game)
    rng = random.Random(1)
    decisions, seed, end = 0, 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        env.reset(seed=seed)
        seed += 1
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(rng.choice(obs["action_mask"].nonzero()[0]))
            decisions += 1
    return decisions / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("games", nargs="*", default=list(GAMES))
    args = parser.parse_args()
    print(f"{'game':<16}{'engine/s':>12}{'env steps/s':>14}{'env/engine':>12}")
    for game in args.games:
        bare, wrapped = engine_rate(game, args.seconds), env_rate(game, args.seconds)
        print(f"{game:<16}{bare:>12,.0f}{wrapped:>14,.0f}{wrapped / bare:>12.2f}")


if __name__ == "__main__":
    main()
