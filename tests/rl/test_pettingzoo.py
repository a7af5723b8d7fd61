"""The PettingZoo environments: PettingZoo's own api_test on every game and its main
variants, the numeric encoding as documented, and one policy that makes the same moves
from the same observations in the environment and through the referee (in process over
gRPC, and as a real bot process). Skipped when the extra is not installed
(scripts/bootstrap rl, or dev, installs it)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import grpc
from pettingzoo.test import api_test

from arena.bots import BotPool
from arena.store import Entrant
from referee.game import get_game, parse_rules, play_out
from referee.match import MatchConfig
from referee.pettingzoo import describe_encoding, env, raw_env
from referee.service import RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from sample_bots import gin_strategy, rl_policy

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


def live_turns(e: Any) -> Iterator[tuple[str, Any, float, Any]]:
    """PettingZoo's AEC loop: each agent to act with its observation, reward and infos
    (the caller steps it); an agent that is done is stepped with None here."""
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        yield agent, obs, reward, info


# api_test says these of every environment not on its own list of PettingZoo's classic
# ones, whose observations are the same {"observation", "action_mask"} dict as ours.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
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
    for _agent, obs, _, info in live_turns(e):
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


@pytest.mark.parametrize(
    "action", [-1, 2.5, "3", True, None, 10_000], ids=["-1", "2.5", "'3'", "True", "None", "big"]
)
def test_an_action_that_is_no_index_of_the_action_space_is_refused(action: Any) -> None:
    """-1 was read from the end of the codes (and played when legal), 2.5 and "3" as 2
    and 3, and an index past the end was an IndexError."""
    e = raw_env("gin_rummy", max_hands=1)
    e.reset(seed=1)
    before, agent = e._state, e.agent_selection
    with pytest.raises(ValueError, match=r"an action index is needed|not an index of"):
        e.step(action)
    assert e._state is before and e.agent_selection == agent


@pytest.mark.parametrize(
    "seed",
    [2.5, 2.0, float("nan"), float("inf"), "5", True, -0.0, 10**40, -(2**63) - 1],
    ids=["2.5", "2.0", "nan", "inf", "'5'", "True", "-0.0", "1e40", "below-int64"],
)
def test_a_seed_that_is_no_64_bit_whole_number_is_refused(seed: Any) -> None:
    """Seeds become text in the deal: "5" dealt what 5 deals, 2.0 other cards than 2,
    True other cards than 1; a seed CreateMatch cannot take has no match to compare with."""
    e = raw_env("gin_rummy", max_hands=1)
    with pytest.raises(ValueError, match="seed must be a"):
        e.reset(seed=seed)


def test_a_numpy_seed_deals_what_the_same_int_deals() -> None:
    import numpy as np

    a, b = raw_env("gin_rummy", max_hands=1), raw_env("gin_rummy", max_hands=1)
    a.reset(seed=np.int64(7))  # type: ignore[arg-type]  # NumPy's, as an RL caller may pass
    b.reset(seed=7)
    assert (a.observe("seat_0")["observation"] == b.observe("seat_0")["observation"]).all()


@pytest.mark.parametrize("seats", [2.0, True, "2"])
def test_a_seat_count_that_is_no_whole_number_is_refused(seats: Any) -> None:
    """2.0 passed the seat check and failed later as a TypeError, True made a one-seat
    game, "2" was refused as "seats 2 to 2, not 2"."""
    with pytest.raises(ValueError, match="seats must be a whole number"):
        raw_env("gin_rummy", seats)


def test_render_modes_other_than_ansi_are_refused() -> None:
    with pytest.raises(ValueError, match="renders 'ansi' only"):
        raw_env("golf", render_mode="human")


@pytest.mark.parametrize(
    ("game", "seats", "rules"),
    [
        ("gin_rummy", 4, {"max_hands": 2, "players": 4}),
        ("golf_solitaire", 3, {"holes": 2}),
    ],
)
def test_seats_asked_at_once_are_asked_in_the_order_local_play_asks_them(
    game: str, seats: int, rules: dict[str, Any]
) -> None:
    """Gin's two tables, a solitaire hole's seats: the referee asks them at once, local
    play one after another round by round. The environment asked the lowest seat
    waiting after every step, so one table played its whole hand before the other
    began (and saw the other's result). Only the agent to act has a mask."""
    e = raw_env(game, seats, **rules)
    e.reset(seed=5)

    def pick(legal: Sequence[str], n: int) -> str:
        return sorted(legal)[n * 7 % len(legal)]

    in_env: list[tuple[int, str]] = []
    for agent, _obs, _, info in live_turns(e):
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any() and not e.infos[other]
        code = pick(info["legal_actions"], len(in_env))
        in_env.append((e.possible_agents.index(agent), code))
        e.step(e.action_index[code])

    engine = get_game(game)
    locally: list[tuple[int, str]] = []

    def choose(state: Any, seat: int, legal: tuple[Any, ...]) -> Any:
        code = pick([engine.encode(a) for a in legal], len(locally))
        locally.append((seat, code))
        return engine.decode(code)

    play_out(engine, engine.initial_state(parse_rules(engine.Rules, rules), seats, 5), choose)
    assert in_env == locally
    assert len({seat for seat, _ in in_env[:4]}) > 2  # not one table (seat) at a time


def test_a_solitaire_seats_view_is_the_same_whatever_another_seat_plays() -> None:
    """Seats do not see each other's play during a hole: seat 1 plays the same way while
    seat 0 turns the stock at once or plays every card it can, and everything the
    environment gives seat 1 at its turns (vector, mask, typed observation, legal codes,
    reward) is the same. (When seat 0 stops being asked is not: see the module doc.)"""

    def seat_1_views(seat_0_plays: bool) -> list[tuple[Any, ...]]:
        e = raw_env("golf_solitaire", 2, holes=1)
        e.reset(seed=5)
        views: list[tuple[Any, ...]] = []
        for agent, obs, reward, info in live_turns(e):
            legal = info["legal_actions"]
            plays = [code for code in legal if code.startswith("play")]
            if agent == "seat_1":
                views.append(
                    (
                        obs["observation"].tobytes(),
                        obs["action_mask"].tobytes(),
                        info["observation"].SerializeToString(deterministic=True),
                        legal,
                        reward,
                    )
                )
                code = plays[0] if plays else legal[0]
            else:
                code = plays[0] if seat_0_plays and plays else "stock"
                code = code if code in legal else legal[0]
            e.step(e.action_index[code])
        return views

    turned, played = seat_1_views(False), seat_1_views(True)
    assert len(turned) > 10 and turned == played


def test_the_whole_state_is_not_an_attribute_and_state_is_pettingzoos() -> None:
    """The game state was the public attribute ``state``: every hand, the stock's order and
    the deal seed a step away, and it hid PettingZoo's ``state()`` (a TypeError)."""
    e = env("gin_rummy", max_hands=1)
    e.reset(seed=42)
    assert not hasattr(e.unwrapped, "state") or callable(e.unwrapped.state)
    with pytest.raises(NotImplementedError):
        e.state()


def test_gin_scores_are_given_from_your_seat_onwards() -> None:
    """The vector had the running scores in seat order and nothing saying which seat
    was yours: seat 0 and seat 1 saw the same numbers."""
    e = raw_env("gin_rummy", 3, max_hands=3, players=3)
    e.reset(seed=2)
    offset = 0
    for feature in e.features:
        if feature.name == "scores":
            break
        offset += feature.size
    seen = 0
    for _agent, obs, _, info in live_turns(e):
        message = info["observation"]
        scores = list(message.scores)
        me = message.seat
        assert list(obs["observation"][offset : offset + 3]) == [
            scores[(me + k) % 3] for k in range(3)
        ]
        seen += len(set(scores)) > 1
        e.step(e.action_index[gin_strategy.choose(message, list(info["legal_actions"]))])
    assert seen  # some decisions were made with unequal scores


SEED = 11


def env_moves(weights: rl_policy.Weights) -> list[tuple[str, str]]:
    """(the observation's text, the code) per decision in the environment."""
    e = raw_env(rl_policy.GAME, **rl_policy.RULES)
    e.reset(seed=SEED)
    moves = []
    for _agent, obs, _, info in live_turns(e):
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
