"""The leak test over the whole wire, for every game and variant.

Two matches are dealt whose states differ only in cards one seat cannot see (the
conformance cases' ``resample_hidden``), played through a real referee over gRPC with the
same deterministic bots. Everything the observing seat receives (every field of every
message: Welcome, MatchStart, Turn with its request id, decision number and time fields,
each EventNotice, ActionResult, MatchOver) must be identical in both, until the seat's
own information (an observation, its legal actions or an event) differs. The wall-clock
deadline and the match id are the only fields left out: they differ by construction.

Events are compared one by one, in order, whether they came in a Turn or on their own:
how the referee batches them depends on the machine's timing (docs/security.md).
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import pytest

from referee.game import get_game, parse_rules
from referee.match import MatchConfig
from referee.service import RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.conformance import harness
from tests.conformance.test_conformance import MODULES

TRIALS = 2  # deals per case (each with another observing seat)
SEARCH = 30  # small hidden differences tried per deal, in process, to find the hardest one
CAP = 250  # items compared per match: random-ish play can run a Gin match very long
Item = tuple[str, Any, Any]  # (kind, information, everything else)


def _items(message: pb.RefereeMessage) -> Iterator[Item]:
    """A received message as the items a seat learns from, in order: its events first."""
    kind = message.WhichOneof("kind")
    body = getattr(message, kind)
    copy = type(body)()
    copy.CopyFrom(body)
    if kind == "turn":
        for notice in copy.events:
            notice.match_id = ""
            yield "event", notice.SerializeToString(deterministic=True), b""
        del copy.events[:]
        info = (copy.observation.SerializeToString(deterministic=True), tuple(copy.legal_actions))
        copy.ClearField("observation")
        del copy.legal_actions[:]
        copy.match_id = ""
        copy.deadline_unix_ms = 0  # wall clock
        yield "turn", info, copy.SerializeToString(deterministic=True)
        return
    if kind == "events":
        for notice in copy.events:
            notice.match_id = ""
            yield "event", notice.SerializeToString(deterministic=True), b""
        return
    if kind in ("match_start", "action_result", "match_over"):
        copy.match_id = ""
    yield kind, copy.SerializeToString(deterministic=True), b""


async def _play(
    address: str,
    token: str,
    record: list[Item] | None,
    pick: int,
    enough: asyncio.Event,
    delay: float = 0.0,
    times: list[float] | None = None,
) -> None:
    """A bot that answers every turn with legal_actions[pick], ``delay`` seconds after it
    came; records what it receives (until ``enough`` is set: CAP items recorded) and, in
    ``times``, when each item arrived."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        call = stub.Play()
        await call.write(pb.BotMessage(hello=pb.Hello(token=token, bot_name="leak")))
        try:
            async for message in call:
                if record is not None:
                    items = list(_items(message))
                    record.extend(items)
                    if times is not None:
                        times.extend([asyncio.get_running_loop().time()] * len(items))
                    if len(record) >= CAP:
                        enough.set()
                if enough.is_set():
                    call.cancel()
                    return
                if message.HasField("turn"):
                    await asyncio.sleep(delay)
                    turn = message.turn
                    code = turn.legal_actions[pick if pick < len(turn.legal_actions) else -1]
                    await call.write(
                        pb.BotMessage(action=pb.Action(request_id=turn.request_id, code=code))
                    )
                if message.HasField("match_over"):
                    await call.done_writing()
                    return
        except grpc.aio.AioRpcError:
            # Once the recording seat has enough it leaves, and the match ends under the
            # others, possibly while one of them is writing its answer.
            if not enough.is_set():
                raise


_SOCKETS = itertools.count()


async def _received(
    tmp: Path,
    game: str,
    rules: Any,
    seats: int,
    state: Any,
    seat: int,
    pick: int,
    delay: float = 0.0,
    times: list[float] | None = None,
) -> list[Item]:
    """What ``seat`` receives in a match dealt ``state`` (others answer with ``pick``,
    ``delay`` seconds after each turn; when each item arrived goes in ``times``)."""
    engine = get_game(game)
    core = RefereeCore()
    # A fresh socket per match: gRPC shares connections between channels to the same
    # target, so a client could otherwise write to the previous match's stopped server.
    address = f"unix:{tmp}/referee-{next(_SOCKETS)}.sock"
    server = await start_server(core, [address])
    original = engine.initial_state
    # The deal is the one thing chosen here: every message is built by the real referee.
    engine.initial_state = lambda rules, seats, seed: state  # type: ignore[method-assign]
    try:
        runtime, tokens = core.create_match(
            game,
            rules,
            seats,
            1,
            [None] * seats,
            config=MatchConfig(move_seconds=30.0),
        )
        record: list[Item] = []
        enough = asyncio.Event()
        players = [
            _play(address, token, record, 0, enough, times=times)
            if s == seat
            else _play(address, token, None, pick, enough, delay)
            for s, token in enumerate(tokens)
        ]
        await asyncio.gather(*players)
        if enough.is_set():
            del record[CAP:]
            assert runtime.task is not None
            runtime.task.cancel()
            await asyncio.gather(runtime.task, return_exceptions=True)
        else:
            await asyncio.wait_for(runtime.wait(), 120)
    finally:
        del engine.initial_state
        assert engine.initial_state == original
        await server.stop(0)
    return record


def first_leak(a: list[Item], b: list[Item]) -> str | None:
    """Where two streams differ in something other than the seat's own information."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x == y:
            continue
        if x[0] == y[0] and x[1] == y[1]:
            return f"item {i} ({x[0]}) differs outside the seat's information: {x[2]!r} != {y[2]!r}"
        return None  # the seat's own information differs from here on
    if len(a) != len(b) and CAP not in (len(a), len(b)):
        return f"one stream ends after {min(len(a), len(b))} identical items, the other goes on"
    return None


def advanced(engine: Any, state: Any, steps: int, rng: random.Random) -> Any:
    """``state`` after up to ``steps`` random legal decisions (stopping before the end)."""
    for _ in range(steps):
        to_act = engine.to_act(state)
        if not to_act:
            break
        for seat in to_act:
            nxt = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        if not engine.to_act(nxt):
            break
        state = nxt
    return state


def _seen_by(engine: Any, state: Any, seat: int, pick: int) -> list[Any]:
    """The observations ``seat`` decides on when the match is played out in process by the
    same bots as over the wire."""
    seen = []
    for _ in range(4 * CAP):  # a bound on the work, not on the match
        to_act = engine.to_act(state)
        if not to_act:
            break
        for s in to_act:
            legal = engine.legal_actions(state, s)
            if s == seat:
                seen.append(engine.observation(state, s))
                action = legal[0]
            else:
                action = legal[pick if pick < len(legal) else -1]
            state = engine.apply(state, s, action)
    return seen


def hardest_alternative(
    engine: Any, state: Any, seat: int, pick: int, resample: Any, rng: random.Random
) -> Any:
    """Of several resamplings of ``state``, the one ``seat`` cannot tell from it for the
    longest (so the wire is compared over as many messages as possible)."""
    mine = _seen_by(engine, state, seat, pick)
    best, best_len = None, -1
    for _ in range(SEARCH):
        other = resample(state, seat, rng)
        theirs = _seen_by(engine, other, seat, pick)
        same = next(
            (i for i, (x, y) in enumerate(zip(mine, theirs, strict=False)) if x != y),
            min(len(mine), len(theirs)),
        )
        if same > best_len:
            best, best_len = other, same
    return best


def compare_deals(
    tmp: Path,
    mod: ModuleType,
    case: harness.Case,
    trial: int,
    pick: int,
    steps: int = 0,
    minimal: bool = False,
) -> tuple[str | None, int]:
    """Deal a state (``steps`` decisions into a match), resample what one seat cannot
    see, and compare what that seat receives when each is played out from there."""
    engine = get_game(mod.GAME)
    rules = parse_rules(engine.Rules, dict(case.rules))
    seat = trial % case.seats
    rng = random.Random(trial)
    state = advanced(engine, engine.initial_state(rules, case.seats, 1000 + trial), steps, rng)
    swap = getattr(mod, "swap_hidden", None) if minimal else None
    if swap is None:
        other = mod.resample_hidden(state, seat, rng)
    else:
        other = hardest_alternative(engine, state, seat, pick, swap, rng)
    streams = [
        asyncio.run(_received(tmp, mod.GAME, rules, case.seats, s, seat, pick))
        for s in (state, other)
    ]
    return first_leak(*streams), len(streams[0])


PARAMS = [
    pytest.param(mod, case, id=f"{mod.GAME}-{case.id}-{case.seats}p")
    for mod in MODULES
    for case in mod.CASES
]


@pytest.mark.parametrize(("mod", "case"), PARAMS)
def test_nothing_on_the_wire_depends_on_hidden_cards(
    tmp_path: Path, mod: ModuleType, case: harness.Case
) -> None:
    for trial in range(TRIALS):
        # Trial 0: the whole hidden part redealt, every bot playing its first legal
        # action. Trial 1: the smallest hidden difference the game's cases define, the
        # other bots playing their last legal action (in Dingo: declining every hunt).
        leak, received = compare_deals(tmp_path, mod, case, trial, pick=-trial, minimal=trial == 1)
        assert received > 3
        assert leak is None, f"trial {trial}: {leak}"


@pytest.mark.parametrize(("trial", "steps"), [(5, 0), (6, 28)])
def test_dingo_decision_numbers_do_not_tell_who_was_asked(
    tmp_path: Path, trial: int, steps: int
) -> None:
    """Deals where one other seat holds a wolf and declines, or holds none: both show
    "seat N passes". Numbering decisions across the whole match told them apart while a
    seat holding no wolf passed without being asked (dingo.md, "Decision numbers"); per
    seat it does not."""
    from tests.conformance import cases_dingo

    case = next(c for c in cases_dingo.CASES if c.id == "one-deal")
    leak, _ = compare_deals(tmp_path, cases_dingo, case, trial, -1, steps, minimal=True)
    assert leak is None, leak


def _until_hole_over(items: list[Item]) -> tuple[list[Item], pb.EventNotice]:
    """The items before the first hole_over event, and that event."""
    for i, (kind, info, _rest) in enumerate(items):
        if kind == "event" and (notice := pb.EventNotice.FromString(info)).kind == "hole_over":
            return items[:i], notice
    raise AssertionError("no hole_over event")


def test_a_golf_solitaire_seat_learns_nothing_of_another_seats_play_during_a_hole(
    tmp_path: Path,
) -> None:
    """Spec: "Seats do not see each other's play during a hole; hole scores are public
    when every seat has finished the hole." Seat 1 plays the hole two ways (first legal
    action, or the stock whenever it may: other move counts and scores); what seat 0
    receives must be the same up to the hole's result. A public event per move used to
    give the count away, and the count the score (51 -/+ score)."""
    engine = get_game("golf_solitaire")
    rules = parse_rules(engine.Rules, {"holes": "2"})
    state = engine.initial_state(rules, 2, 11)
    streams = [
        asyncio.run(_received(tmp_path, "golf_solitaire", rules, 2, state, 0, pick))
        for pick in (0, -1)
    ]
    (before, result), (before_other, result_other) = map(_until_hole_over, streams)
    assert result.text != result_other.text  # seat 1 really played the hole otherwise
    assert before == before_other
    for items in streams:
        notices = [pb.EventNotice.FromString(info) for kind, info, _ in items if kind == "event"]
        assert notices and all(n.seat != 1 for n in notices if n.kind in ("move", "finish"))


def _timed_events(tmp: Path, state: Any, delay: float) -> list[tuple[float, str]]:
    """Seat 0's events, with when they arrived, in a one-deal Dingo match dealt ``state``
    over real gRPC; the other seats' bots answer each turn ``delay`` seconds after it came
    (a wolf whenever they may play one, else declining)."""
    rules = parse_rules(get_game("dingo").Rules, {"deals": "1"})
    times: list[float] = []
    items = asyncio.run(_received(tmp, "dingo", rules, 4, state, 0, 0, delay, times))
    return [
        (t, pb.EventNotice.FromString(info).text)
        for t, (kind, info, _rest) in zip(times, items, strict=False)
        if kind == "event"
    ]


def test_a_dingo_seat_holding_no_wolf_takes_its_turn_like_one_that_declines(
    tmp_path: Path,
) -> None:
    """Nobody after the dingo player holds a wolf of rank 5, and their bots take DELAY
    over every answer. Each "seat N passes" reaches seat 0 about DELAY after the one
    before (at least half of it, allowing for batching and load): every seat was asked,
    as a wolf holder is. Passing for seats holding no wolf at once told the others, by
    the timing alone, who held wolves."""
    from tests.games.test_dingo import scripted, to_hunt

    delay = 0.5  # well over the referee's event batching (up to 100 ms) and load jitter
    s, junk = scripted({0: "5H"})  # 5C and 5S are junk: discarded before the hunt
    state = to_hunt(s, junk)
    seen = _timed_events(tmp_path, state, delay)
    texts = [text for _, text in seen]
    first = texts.index("rank 5: seat 0 plays the dingo 5H")
    passes = [texts.index(f"seat {n} passes", first) for n in (1, 2, 3)]
    assert passes == sorted(passes)
    times = [seen[first][0]] + [seen[i][0] for i in passes]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= delay / 2, gaps  # answered at once it was microseconds


def test_a_dingo_seat_holding_one_wolf_ends_its_turn_like_one_holding_both(
    tmp_path: Path,
) -> None:
    """Seat 1 plays the only wolf of rank 5 it holds. It is asked about the other one all
    the same, as a seat holding both is: "seat 1 ends its turn" comes about DELAY after
    its wolf (at least half of it). Asking only a holder of both told the others, by the
    timing, that it held both (the public text is the same)."""
    from tests.games.test_dingo import scripted, to_hunt

    delay = 0.5  # well over the referee's event batching (up to 100 ms) and load jitter
    s, junk = scripted({0: "5H", 1: "5C"})  # 5S is junk
    seen = _timed_events(tmp_path, to_hunt(s, junk), delay)
    texts = [text for _, text in seen]
    wolf = texts.index("seat 1 plays the wolf 5C")
    end = texts.index("seat 1 ends its turn", wolf)
    assert seen[end][0] - seen[wolf][0] >= delay / 2, (seen[wolf], seen[end])


def _asked(engine: Any, state: Any, seat: int, pick: int) -> list[tuple[str, Any]]:
    """What ``seat`` can tell of a match played out in process by the same bots as over
    the wire: the events it is told, its own turns (with its observation), and a mark
    wherever others are asked (an answer takes a round trip, which timing shows)."""
    told = [("event", e.text_for(seat)) for e in engine.events(state) if e.told_to(seat)]
    for _ in range(4 * CAP):  # a bound on the work, not on the match
        to_act = engine.to_act(state)
        if not to_act:
            break
        mine = engine.observation(state, seat) if seat in to_act else None
        told.append(("asked", (to_act, mine)))
        for s in to_act:
            legal = engine.legal_actions(state, s)
            state = engine.apply(state, s, legal[0] if s == seat else legal[pick])
            told += [("event", e.text_for(seat)) for e in engine.events(state) if e.told_to(seat)]
    return told


@pytest.mark.parametrize(
    "mod", [m for m in MODULES if not get_game(m.GAME).independent_seats], ids=lambda m: m.GAME
)
def test_who_is_asked_never_depends_on_hidden_cards(mod: ModuleType) -> None:
    """Timing tells when somebody is asked (an answer takes a round trip, a move played
    for a seat none). So in two deals that differ only in cards a seat cannot see, the
    seats asked must fall at the same places in what it is told, until what it is told
    or its own turn differs. Golf solitaire is left out: its seats play independently
    and are told nothing of each other's turns. The bots are those of the wire test:
    the observer plays its first legal action, the others their first or last."""
    engine = get_game(mod.GAME)
    swap = getattr(mod, "swap_hidden", None)
    for case in mod.CASES:
        rules = parse_rules(engine.Rules, dict(case.rules))
        for trial in range(16):
            rng = random.Random(trial)
            seat = trial % case.seats
            start = engine.initial_state(rules, case.seats, 2000 + trial)
            state = advanced(engine, start, rng.choice([0, 5, 20, 60]), rng)
            alternatives = [mod.resample_hidden(state, seat, rng)]
            if swap is not None:
                alternatives += [swap(state, seat, rng) for _ in range(4)]
            for other in alternatives:
                for pick in (0, -1):
                    a, b = _asked(engine, state, seat, pick), _asked(engine, other, seat, pick)
                    for i, (x, y) in enumerate(zip(a, b, strict=False)):
                        if x == y:
                            continue
                        same_kind = x[0] == y[0] and (x[0] == "event" or x[1][1] != y[1][1])
                        # The seat's own information differs (a told event or its own
                        # turn) from here on; anything else is who was asked.
                        assert same_kind, (case.id, trial, pick, i, x, y)
                        break
