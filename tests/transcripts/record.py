"""Golden wire transcripts: every message seat 0 receives in one scripted match per game.

Each match runs over the real service (a referee on a Unix socket, bots speaking gRPC
with the generated stubs), with every seat choosing by a fixed rule, and seat 0 also
sending one unknown request id and one malformed answer, so that the transcript shows
each kind of message a bot meets in a normal match. The messages are written in protobuf
text format, after normalising what changes from run to run (see :func:`normalise`).

``tests/transcripts/test_transcripts.py`` regenerates them and compares with the
committed files; ``scripts/record_transcripts`` rewrites the files on purpose (after a
deliberate protocol or engine change: review the diff).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from google.protobuf import text_format

from referee.service import RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

HERE = Path(__file__).resolve().parent
RECORDED_SEAT = 0
UNKNOWN_REQUEST_ID = 2**63  # no Turn ever has it: the referee answers "unknown_request"
MOVE_SECONDS = 30.0  # generous: the transcript must not depend on the machine's speed


@dataclass(frozen=True)
class Scenario:
    game: str
    seats: int
    rules: dict[str, str]
    seed: int = 7


# Short matches: one hand / hole / deal / trump round each.
SCENARIOS = {
    "gin_rummy": Scenario("gin_rummy", 2, {"max_hands": "1"}),
    "golf": Scenario("golf", 2, {"holes": "1"}),
    "golf_solitaire": Scenario("golf_solitaire", 1, {"holes": "1"}),
    "dingo": Scenario("dingo", 4, {"deals": "1"}),
    "goninkan": Scenario("goninkan", 6, {"yaku_count": "1"}),
}


def scripted_choice(seat: int, turn: pb.Turn) -> str:
    """The fixed rule every seat plays by: a choice seeded by seat and decision number."""
    return random.Random(f"{seat}/{turn.decision_number}").choice(list(turn.legal_actions))


@dataclass
class _Seat:
    seat: int
    token: str
    received: list[pb.RefereeMessage] = field(default_factory=list)
    misbehaved: bool = False


async def _play_seat(target: str, seat: _Seat) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
        await call.write(
            pb.BotMessage(hello=pb.Hello(token=seat.token, bot_name=f"seat{seat.seat}"))
        )
        async for message in call:
            seat.received.append(message)
            if message.WhichOneof("kind") != "turn":
                continue
            turn = message.turn
            code = scripted_choice(seat.seat, turn)
            if seat.seat == RECORDED_SEAT and not seat.misbehaved:
                seat.misbehaved = True
                await call.write(
                    pb.BotMessage(action=pb.Action(request_id=UNKNOWN_REQUEST_ID, code=code))
                )
                code = "no such action"  # a malformed answer: a fault, then the default move
            await call.write(pb.BotMessage(action=pb.Action(request_id=turn.request_id, code=code)))


async def record_messages(scenario: Scenario) -> list[pb.RefereeMessage]:
    """Play the scenario's match over a real referee; what seat 0 received, raw."""
    with tempfile.TemporaryDirectory(prefix="transcript-") as tmp:
        target = f"unix:{tmp}/referee.sock"
        core = RefereeCore()
        server = await start_server(core, [target])
        try:
            async with grpc.aio.insecure_channel(target) as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
                created = await stub.CreateMatch(
                    pb.CreateMatchRequest(
                        game=scenario.game,
                        rules=scenario.rules,
                        seed=scenario.seed,
                        seats=scenario.seats,
                        names=[f"seat{i}" for i in range(scenario.seats)],
                        move_seconds=MOVE_SECONDS,
                        fault_policy="default",
                        max_strikes=3,
                    )
                )
            seats = [_Seat(i, token) for i, token in enumerate(created.seat_tokens)]
            await asyncio.wait_for(asyncio.gather(*(_play_seat(target, s) for s in seats)), 300)
        finally:
            await server.stop(None)
    return seats[RECORDED_SEAT].received


def normalise(messages: list[pb.RefereeMessage]) -> list[pb.RefereeMessage]:
    """The messages with what differs between runs made fixed: the match id, request ids
    (numbered from 1 in order of appearance), wall-clock deadlines, and the split of
    events between Events messages and Turn.events (the referee batches by time): every
    event is moved into one Events message before the next other message."""
    request_ids: dict[int, int] = {}

    def renumber(request_id: int) -> int:
        if request_id in (0, UNKNOWN_REQUEST_ID):
            return request_id
        return request_ids.setdefault(request_id, len(request_ids) + 1)

    out: list[pb.RefereeMessage] = []
    pending = pb.Events()

    def flush() -> None:
        if pending.events:
            out.append(pb.RefereeMessage(events=pending))

    for original in messages:
        message = pb.RefereeMessage()
        message.CopyFrom(original)
        kind = message.WhichOneof("kind")
        body = getattr(message, kind)
        if hasattr(body, "match_id"):
            body.match_id = "MATCH" if body.match_id else ""
        if kind == "events":
            for notice in body.events:
                notice.match_id = "MATCH"
            pending.events.extend(body.events)
            continue
        if kind == "turn":
            for notice in body.events:
                notice.match_id = "MATCH"
            pending.events.extend(body.events)
            del body.events[:]
            body.request_id = renumber(body.request_id)
            body.deadline_unix_ms = 0
        if kind == "action_result":
            body.request_id = renumber(body.request_id)
        flush()
        pending = pb.Events()
        out.append(message)
    flush()
    return out


def transcript_text(scenario: Scenario, messages: list[pb.RefereeMessage]) -> str:
    rules = " ".join(f"{k}={v}" for k, v in sorted(scenario.rules.items()))
    lines = [
        f"# Every message seat {RECORDED_SEAT} receives in a {scenario.game} match"
        f" ({scenario.seats} seats, seed {scenario.seed}, {rules}, fault_policy default),",
        "# in protobuf text format, one RefereeMessage per block. Normalised: match_id,",
        "# request ids (numbered in order), deadline_unix_ms, and events gathered into one",
        "# Events message (the referee batches them by time). Regenerate on purpose with",
        "# scripts/record_transcripts; tests/transcripts/test_transcripts.py checks it.",
    ]
    for number, message in enumerate(normalise(messages), 1):
        lines.append(f"\n# {number}: {message.WhichOneof('kind')}")
        lines.append(text_format.MessageToString(message, as_utf8=True).rstrip("\n"))
    return "\n".join(lines) + "\n"


def transcript_path(game: str) -> Path:
    return HERE / f"{game}.txt"


def render(game: str) -> str:
    scenario = SCENARIOS[game]
    return transcript_text(scenario, asyncio.run(record_messages(scenario)))


def main() -> None:
    parser = argparse.ArgumentParser(description="Rewrite the golden wire transcripts.")
    parser.add_argument("games", nargs="*", metavar="GAME", help=", ".join(SCENARIOS))
    games = parser.parse_args().games or list(SCENARIOS)
    if unknown := set(games) - set(SCENARIOS):
        parser.error(f"unknown game(s): {', '.join(sorted(unknown))}")
    for game in games:
        path = transcript_path(game)
        path.write_text(render(game))
        print(f"wrote {path.relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
