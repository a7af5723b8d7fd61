"""The PettingZoo environments: PettingZoo's own api_test on every game and its main
variants, the numeric encoding as documented, and one policy that makes the same moves
from the same observations in the environment and through the referee (in process over
gRPC, and as a real bot process). Skipped when the extra is not installed
(pip install 'card-arena[rl]'; scripts/bootstrap dev installs it)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import grpc
from pettingzoo.test import api_test

from arena.bots import BotPool
from arena.store import Entrant
from referee.match import MatchConfig
from referee.pettingzoo import describe_encoding, env, raw_env
from referee.service import RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from sample_bots import rl_policy

ROOT = Path(__file__).resolve().parents[2]

VARIANTS: list[tuple[str, int | None, dict[str, Any]]] = [
    ("gin_rummy", None, {"max_hands": 1}),
    ("gin_rummy", 3, {"max_hands": 2, "players": 3}),
    ("gin_rummy", 4, {"max_hands": 1, "players": 4}),
    ("golf", 2, {"holes": 1}),
    ("golf", 4, {"holes": 1, "variant": "nine"}),
    ("golf", 3, {"holes": 1, "variant": "four_face_down"}),
    ("golf", 2, {"holes": 1, "variant": "four_in_hand", "jokers": 2}),
    ("golf_solitaire", None, {"holes": 2}),
    ("golf_solitaire", None, {"holes": 1, "preset": "putt_putt"}),
    ("golf_solitaire", 2, {"holes": 1, "foundation_starts_empty": True, "jokers": 1}),
    ("dingo", None, {"deals": 1}),
    ("goninkan", None, {"yaku_count": 1}),
]


@pytest.mark.parametrize(("game", "seats", "rules"), VARIANTS)
def test_api_test_passes(game: str, seats: int | None, rules: dict[str, Any]) -> None:
    api_test(env(game, seats, **rules), num_cycles=2000)


@pytest.mark.parametrize(("game", "seats", "rules"), VARIANTS)
def test_a_whole_match_stays_inside_the_action_space(
    game: str, seats: int | None, rules: dict[str, Any]
) -> None:
    """Every legal code of a whole random match is in the fixed action space, the mask
    marks exactly the legal codes, and the typed observation is the wire's."""
    e = raw_env(game, seats, **rules)
    e.reset(seed=3)
    steps = 0
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = info["legal_actions"]
        assert [e.action_codes[i] for i in obs["action_mask"].nonzero()[0]] == sorted(legal)
        assert list(obs["observation"]) == list(e.encode_observation(info["observation"]))
        e.step(e.action_index[legal[steps % len(legal)]])
        steps += 1
    assert steps > 0 and all(e.terminations.values())


@pytest.mark.parametrize("game", ["gin_rummy", "golf", "golf_solitaire", "dingo", "goninkan"])
def test_the_encoding_is_documented(game: str) -> None:
    doc = (ROOT / "docs" / "games" / f"{game}.md").read_text()
    assert describe_encoding(game) in doc, f"regenerate the table with describe_encoding({game!r})"


def test_an_illegal_action_is_refused() -> None:
    e = raw_env("golf_solitaire", holes=1)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    illegal = int((obs["action_mask"] == 0).nonzero()[0][0])
    with pytest.raises(ValueError, match="not legal now"):
        e.step(illegal)


SEED = 11


def env_moves(weights: rl_policy.Weights) -> list[tuple[str, str]]:
    """(the observation's text, the code) per decision in the environment."""
    e = raw_env(rl_policy.GAME, **rl_policy.RULES)
    e.reset(seed=SEED)
    moves = []
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        action = rl_policy.pick(weights, e.action_codes, obs["observation"], obs["action_mask"])
        moves.append((str(info["observation"]), e.action_codes[action]))
        e.step(action)
    return moves


async def referee_moves(tmp_path: Path, weights: rl_policy.Weights) -> list[tuple[str, str]]:
    """The same policy answering Turns over gRPC from a real referee, same deal seed."""
    weights_file = tmp_path / "weights.json"
    weights_file.write_text(json.dumps(weights))
    core = RefereeCore()
    target = f"unix:{tmp_path}/referee.sock"
    server = await start_server(core, [target])
    moves = []
    try:
        _, tokens = core.create_match(
            rl_policy.GAME, {k: str(v) for k, v in rl_policy.RULES.items()}, 1, SEED, [None]
        )
        async with grpc.aio.insecure_channel(target) as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
            await call.write(pb.BotMessage(hello=pb.Hello(token=tokens[0])))
            async for message in call:
                if message.HasField("match_start"):
                    rl_policy.on_match_start(message.match_start)
                if message.HasField("turn"):
                    observation = message.turn.observation.golf_solitaire
                    code = rl_policy.choose(observation, list(message.turn.legal_actions))
                    moves.append((str(observation), code))
                    await call.write(
                        pb.BotMessage(
                            action=pb.Action(request_id=message.turn.request_id, code=code)
                        )
                    )
    finally:
        await server.stop(None)
    return moves


def test_a_trained_policy_plays_the_same_in_the_environment_and_through_the_referee(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RL_POLICY_WEIGHTS", str(tmp_path / "weights.json"))
    weights, _ = rl_policy.train(iterations=4, episodes=3)
    in_env = env_moves(weights)
    over_wire = asyncio.run(referee_moves(tmp_path, weights))
    assert len(in_env) > 5
    assert over_wire == in_env


def test_the_policy_bot_process_makes_the_environment_moves(tmp_path: Path) -> None:
    """The policy as a real bot process launched by the arena's bot pool."""
    weights, _ = rl_policy.train(iterations=4, episodes=3)
    (tmp_path / rl_policy.DEFAULT_WEIGHTS).write_text(json.dumps(weights))
    expected = [code for _, code in env_moves(weights)]

    async def run() -> list[str]:
        core = RefereeCore()
        target = f"unix:{tmp_path}/referee.sock"
        server = await start_server(core, [target])
        pool = BotPool(core, target, lambda name: "1")
        try:
            command = (sys.executable, "-m", "sample_bots.rl_policy")
            bot = await pool.acquire(Entrant("rl", ("*",), command, str(tmp_path), ""))
            runtime, _ = core.create_match(
                rl_policy.GAME,
                {k: str(v) for k, v in rl_policy.RULES.items()},
                1,
                SEED,
                [bot.token],
                config=MatchConfig(move_seconds=10.0),
                start_timeout=30.0,
            )
            result = await asyncio.wait_for(runtime.wait(), 120)
        finally:
            await pool.close()
            await server.stop(0)
        lines = [json.loads(line) for line in result.replay.splitlines()]
        assert not result.faults
        return [line["action"] for line in lines if line["type"] == "decision"]

    assert asyncio.run(run()) == expected
