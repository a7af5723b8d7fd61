"""Play a match in process, without gRPC or deadlines: for developing and testing bots.

A bot is a chooser: ``choose(observation, legal_actions) -> action code``, where
``observation`` is the game's typed protobuf observation (exactly what a bot
receives over the wire) and ``legal_actions`` the legal codes, sorted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.game import Outcome, get_game, parse_rules, play_out
from referee.views import observation_message

Chooser = Callable[[Any, Sequence[str]], str]


def play_local(
    game_name: str,
    choosers: Sequence[Chooser],
    seed: int,
    rules: Mapping[str, Any] | None = None,
) -> Outcome:
    """Play one whole match with one chooser per seat; returns its outcome."""
    game = get_game(game_name)
    parsed = parse_rules(game.Rules, rules)

    def choose(state: Any, seat: int, legal_actions: tuple[Any, ...]) -> Any:
        obs = observation_message(game_name, game.observation(state, seat))
        legal = [game.encode(a) for a in legal_actions]
        return game.decode(choosers[seat](getattr(obs, game_name), legal))

    state, _ = play_out(game, game.initial_state(parsed, len(choosers), seed), choose)
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome
