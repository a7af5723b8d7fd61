"""The match driver with in-process seats, and the replay format: round trip, verify,
tampering and corrupt files."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest

from referee.game import Event, get_game, parse_rules
from referee.match import (
    DecisionRequest,
    FaultRecord,
    MatchConfig,
    MatchDriver,
    MatchResult,
    MatchSpec,
    SeatFault,
)
from referee.replay import ReplayError, parse_replay, verify_replay
from tests.agents import RandomAgent


class RandomSeat(RandomAgent):
    """An in-process seat: random legal codes, or a scripted misbehaviour; keeps what it
    was told."""

    def __init__(self, seed: int, bad: str | None = None) -> None:
        super().__init__(seed)
        self.bad = bad
        self.notices: list[str] = []
        self.faults: list[FaultRecord] = []

    async def decide(self, request: DecisionRequest) -> str:
        if self.bad == "sleep":
            await asyncio.sleep(request.seconds + 1)
        if self.bad == "crash":
            raise SeatFault("crash", "gone")
        if self.bad == "bug":
            raise RuntimeError("agent bug")
        return await super().decide(request)

    async def fault(self, seat: int, record: FaultRecord, strikes: int) -> None:
        self.faults.append(record)

    async def notify(self, seat: int, events: Sequence[Event]) -> None:
        self.notices.extend(e.text_for(seat) for e in events)


def run(
    seats: list[RandomSeat], config: MatchConfig | None = None, rules: dict[str, str] | None = None
) -> MatchResult:
    game = get_game("gin_rummy")
    spec = MatchSpec(
        "m1",
        "gin_rummy",
        parse_rules(game.Rules, rules or {"max_hands": "2"}),
        2,
        42,
        ("a", "b"),
        config or MatchConfig(move_seconds=0.2),
    )
    return asyncio.run(MatchDriver(spec, seats).run())


def test_a_finished_match_replays_exactly() -> None:
    result = run([RandomSeat(1), RandomSeat(2)])
    assert result.reason == "finished"
    replay = parse_replay(result.replay)
    assert replay.header["game"] == "gin_rummy" and replay.header["seed"] == 42
    assert len(replay.decisions) == result.decisions
    report = verify_replay(replay)
    assert report.ok and report.decisions == result.decisions and report.events > 0


def test_seats_get_their_own_event_texts() -> None:
    seats = [RandomSeat(1), RandomSeat(2)]
    result = run(seats)
    events = [line for line in parse_replay(result.replay).lines if line["type"] == "event"]
    for seat, agent in enumerate(seats):
        expected = [
            e.get("private_text") if seat in e.get("visible_to", []) else e["text"] for e in events
        ]
        assert agent.notices == expected


@pytest.mark.parametrize(
    ("bad", "kind"), [("sleep", "timeout"), ("crash", "crash"), ("bug", "crash")]
)
def test_a_faulty_seat_forfeits_and_the_replay_still_verifies(bad: str, kind: str) -> None:
    seats = [RandomSeat(1, bad), RandomSeat(2)]
    result = run(seats)
    assert (
        result.reason == "forfeit" and result.forfeited == (0,) and result.outcome.ranks == (2, 1)
    )
    assert [f.kind for f in result.faults] == [kind] and seats[0].faults == list(result.faults)
    assert verify_replay(parse_replay(result.replay)).ok


def test_default_policy_plays_the_first_legal_action_until_the_strikes_run_out() -> None:
    result = run(
        [RandomSeat(1, "crash"), RandomSeat(2)], MatchConfig(fault_policy="default", max_strikes=3)
    )
    statuses = [d["status"] for d in parse_replay(result.replay).decisions if d["seat"] == 0]
    assert statuses == ["default:crash", "default:crash"]
    assert len(result.faults) == 3 and result.reason == "forfeit"
    assert verify_replay(parse_replay(result.replay)).ok


def test_tampered_replays_are_caught() -> None:
    text = run([RandomSeat(1), RandomSeat(2)]).replay
    lines = text.splitlines()
    # a different (legal-looking) action for the first decision
    first = next(i for i, line in enumerate(lines) if '"type":"decision"' in line)
    decision = json.loads(lines[first])
    decision["action"] = "pass" if decision["action"] != "pass" else "take upcard"
    forged = [*lines[:first], json.dumps(decision), *lines[first + 1 :]]
    assert not verify_replay(parse_replay("\n".join(forged))).ok
    # a changed outcome
    end = json.loads(lines[-1])
    end["outcome"]["ranks"] = list(reversed(end["outcome"]["ranks"]))
    end["outcome"]["scores"] = [s + 1 for s in end["outcome"]["scores"]]
    report = verify_replay(parse_replay("\n".join([*lines[:-1], json.dumps(end)])))
    assert not report.ok and "recorded outcome" in report.mismatches[-1]
    # an event text changed
    ev = next(i for i, line in enumerate(lines) if '"type":"event"' in line)
    event = json.loads(lines[ev])
    event["text"] += " (edited)"
    report = verify_replay(
        parse_replay("\n".join([*lines[:ev], json.dumps(event), *lines[ev + 1 :]]))
    )
    assert not report.ok and "recorded event" in report.mismatches[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty replay"),
        ("not json\n", "line 1: not JSON"),
        ('{"type": "event", "kind": "x", "text": "y"}\n', "the header must be the first line"),
        (
            '{"type": "header", "schema": 99, "game": "gin_rummy", "game_version": 1, "rules": {}, "seed": 1, '
            '"seats": 2, "players": []}\n{"type": "end", "reason": "finished", "outcome": {}, "forfeited": []}\n',
            "schema 99 is not supported",
        ),
    ],
)
def test_corrupt_replays_are_rejected_with_the_line(text: str, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        parse_replay(text)


def test_a_truncated_replay_says_so() -> None:
    text = run([RandomSeat(1), RandomSeat(2)]).replay
    with pytest.raises(ReplayError, match="no end line"):
        parse_replay("\n".join(text.splitlines()[:-3]))
    with pytest.raises(ReplayError, match="line 3: not JSON"):
        parse_replay(
            "\n".join([*text.splitlines()[:2], '{"type": "event", "kin', *text.splitlines()[3:]])
        )


def _edited(text: str, kind: str, **fields: object) -> str:
    """The replay with the first ``kind`` line's ``fields`` replaced."""
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if json.loads(line)["type"] == kind)
    lines[i] = json.dumps({**json.loads(lines[i]), **fields})
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("kind", "fields", "message"),
    [
        ("header", {"seats": 99, "players": ["p"] * 99}, "cannot be re-simulated: .*not 99"),
        ("header", {"seats": "2"}, "header line: seats must be an integer"),
        ("header", {"seed": "abc"}, "header line: seed must be an integer"),
        ("header", {"schema": "1"}, "header line: schema must be an integer"),
        ("header", {"rules": [1]}, "header line: rules must be an object"),
        ("header", {"rules": {"max_hands": 2.5}}, "rule max_hands=2.5: must be a whole number"),
        ("header", {"players": ["a"]}, "1 player name"),
        ("decision", {"seat": "0"}, "decision line: seat must be an integer"),
        ("decision", {"action": 7}, "decision line: action must be a string"),
        ("decision", {"seat": 5}, "seat 5 does not exist"),
        ("end", {"outcome": 5}, "end line: outcome must be an object"),
        ("end", {"reason": "forfeit", "forfeited": [7]}, "seat 7 does not exist"),
        ("end", {"reason": "forfeit", "forfeited": "x"}, "end line: forfeited must be a list"),
    ],
)
def test_malformed_fields_are_a_replay_error_not_a_crash(
    kind: str, fields: dict[str, object], message: str
) -> None:
    # A replay file is input like any other: a field of the wrong type or out of range is
    # one ReplayError naming it, from reading or re-simulating, never an exception of the
    # engine's (the CLI prints ReplayErrors in one line, anything else as a traceback).
    text = _edited(run([RandomSeat(1), RandomSeat(2)]).replay, kind, **fields)
    with pytest.raises(ReplayError, match=message):
        verify_replay(parse_replay(text))


def test_a_long_running_referee_forgets_old_finished_matches() -> None:
    from referee.service import RefereeCore

    async def scenario() -> tuple[list[str], list[str], int]:
        core = RefereeCore(keep_finished=2)
        config = MatchConfig(move_seconds=0.05)
        ids = []
        for _ in range(4):  # nobody connects: each match forfeits at once
            runtime, _ = core.create_match(
                "gin_rummy", {}, 2, 1, [None, None], config=config, start_timeout=0.01
            )
            ids.append(runtime.spec.match_id)
            result = await runtime.wait()
            assert result.reason == "forfeit"
        runtime, _ = core.create_match(
            "gin_rummy", {}, 2, 1, [None, None], config=config, start_timeout=0.01
        )
        await runtime.wait()
        return ids, list(core.matches), len(core.sessions)

    ids, kept, sessions = asyncio.run(scenario())
    assert kept == [*ids[2:], kept[-1]] and len(kept) == 3
    assert sessions == 6  # the forgotten matches' seat tokens are gone too


class LoggingSeat(RandomAgent):
    """A seat that notes when it is asked and when it answers, yielding in between."""

    def __init__(self, seed: int, log: list[tuple[str, int, int]]) -> None:
        super().__init__(seed)
        self.log = log

    async def decide(self, request: DecisionRequest) -> str:
        self.log.append(("asked", request.seat, request.number))
        await asyncio.sleep(0)
        self.log.append(("answered", request.seat, request.number))
        return await super().decide(request)


def test_the_seats_of_a_round_are_asked_at_once_and_played_in_order() -> None:
    # Golf solitaire's seats play their own deals simultaneously: every seat whose game is
    # not over is to act in every round.
    game = get_game("golf_solitaire")
    log: list[tuple[str, int, int]] = []
    spec = MatchSpec(
        "m2",
        "golf_solitaire",
        parse_rules(game.Rules, {}),
        2,
        7,
        ("a", "b"),
        MatchConfig(move_seconds=1.0),
    )
    result = asyncio.run(MatchDriver(spec, [LoggingSeat(1, log), LoggingSeat(2, log)]).run())
    assert result.reason == "finished" and not result.faults
    # Both seats of the first round are asked before either answers.
    assert log[:4] == [("asked", 0, 0), ("asked", 1, 0), ("answered", 0, 0), ("answered", 1, 0)]
    decisions = parse_replay(result.replay).decisions
    assert [d["seat"] for d in decisions[:2]] == [0, 1]
    assert len(decisions) == result.decisions == sum(1 for e in log if e[0] == "answered")
    assert verify_replay(parse_replay(result.replay)).ok
