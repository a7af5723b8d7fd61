"""The replay log of a match: writing it, reading it back, and re-simulating it.

A replay is JSON Lines: a header (schema version, game and its version, rules,
seed, seats and players, match settings, start time), then one line per event
(engine events with both their public and private texts, decisions with their
seat, action code, time taken and status, faults), then an end line (outcome,
reason, forfeited seats). Re-running the engine from the header and the
decisions must reproduce every event and the outcome: :func:`verify_replay`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from referee.game import (
    ActionError,
    Event,
    IllegalAction,
    Outcome,
    forfeit_outcome,
    get_game,
    parse_rules,
)
from referee.rules import RulesError, rules_to_dict

if TYPE_CHECKING:
    from referee.matchspec import FaultRecord, MatchSpec

SCHEMA_VERSION = 1


class ReplayError(ValueError):
    """A replay that cannot be read: not JSON Lines, no header, truncated, unknown schema."""


# One encoder for every line: json.dumps with options builds a new encoder per call.
_dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class ReplayRecorder:
    """Accumulates the lines of one match's replay as the match runs."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.lines = [_dump(header)]

    @classmethod
    def begin(cls, spec: MatchSpec, started_at: str | None = None) -> ReplayRecorder:
        game = get_game(spec.game)
        return cls(
            {
                "type": "header",
                "schema": SCHEMA_VERSION,
                "match_id": spec.match_id,
                "game": spec.game,
                "game_version": game.version,
                "rules": rules_to_dict(spec.rules),
                "seed": spec.seed,
                "seats": spec.seats,
                "players": list(spec.players),
                "config": spec.config.to_json(),
                "started": started_at or now_iso(),
            }
        )

    def events(self, events: Sequence[Event]) -> None:
        self.lines.extend(_dump({"type": "event", **e.to_json()}) for e in events)

    def decision(self, number: int, seat: int, code: str, seconds: float, status: str) -> None:
        self.lines.append(
            _dump(
                {
                    "type": "decision",
                    "n": number,
                    "seat": seat,
                    "action": code,
                    "ms": round(seconds * 1000, 3),
                    "status": status,
                }
            )
        )

    def fault(self, record: FaultRecord) -> None:
        self.lines.append(_dump({"type": "fault", **record.to_json()}))

    def end(self, outcome: Outcome, reason: str, forfeited: Sequence[int], decisions: int) -> None:
        self.lines.append(
            _dump(
                {
                    "type": "end",
                    "reason": reason,
                    "outcome": outcome.to_json(),
                    "forfeited": list(forfeited),
                    "decisions": decisions,
                    "finished": now_iso(),
                }
            )
        )

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class _Log(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def dropped_bytes(self) -> int: ...


def with_bot_logs(text: str, logs: Sequence[_Log]) -> str:
    """The replay with what each seat's bot wrote to stderr during the match, one
    "stderr" line per seat that wrote anything, just before the end line."""
    lines = text.rstrip("\n").split("\n")
    extra = [
        _dump(
            {"type": "stderr", "seat": seat, "text": log.text, "dropped_bytes": log.dropped_bytes}
        )
        for seat, log in enumerate(logs)
        if log.text or log.dropped_bytes
    ]
    return "\n".join([*lines[:-1], *extra, lines[-1]]) + "\n"


@dataclass(frozen=True)
class Replay:
    header: dict[str, Any]
    lines: tuple[dict[str, Any], ...]  # everything after the header, the end line last

    @property
    def end(self) -> dict[str, Any]:
        return self.lines[-1]

    @property
    def decisions(self) -> tuple[dict[str, Any], ...]:
        return tuple(line for line in self.lines if line["type"] == "decision")


_LINE_TYPES = {"event", "decision", "fault", "stderr", "end"}
_REQUIRED = {
    "header": ("schema", "game", "game_version", "rules", "seed", "seats", "players"),
    "event": ("kind", "text"),
    "decision": ("seat", "action", "status"),
    "fault": ("seat", "kind", "reason"),
    "stderr": ("seat", "text"),
    "end": ("reason", "outcome", "forfeited"),
}


# The JSON type of each required field (a bool is no integer here), so that a field of
# the wrong type is a ReplayError naming it rather than an exception deep in an engine.
_TYPES: dict[str, tuple[type, str]] = {
    "schema": (int, "an integer"),
    "game": (str, "a string"),
    "game_version": (int, "an integer"),
    "rules": (dict, "an object"),
    "seed": (int, "an integer"),
    "seats": (int, "an integer"),
    "players": (list, "a list"),
    "kind": (str, "a string"),
    "text": (str, "a string"),
    "seat": (int, "an integer"),
    "action": (str, "a string"),
    "status": (str, "a string"),
    "reason": (str, "a string"),
    "outcome": (dict, "an object"),
    "forfeited": (list, "a list"),
}


def _field_problem(row: dict[str, Any], kind: str) -> str | None:
    """What is wrong with a line's required fields: missing, or of the wrong type."""
    missing = [k for k in _REQUIRED[kind] if k not in row]
    if missing:
        return f"{kind} line lacks {', '.join(missing)}"
    for key in _REQUIRED[kind]:
        want, name = _TYPES[key]
        if not isinstance(row[key], want) or (want is int and isinstance(row[key], bool)):
            return f"{kind} line: {key} must be {name}, not {row[key]!r}"
    return None


def _seat_problem(header: dict[str, Any], row: dict[str, Any]) -> str | None:
    """A seat a line names that the match does not have."""
    seats = header["seats"]
    named = row["forfeited"] if row["type"] == "end" else [row.get("seat", 0)]
    for seat in named:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
            return f"seat {seat!r} does not exist (the match has seats 0-{seats - 1})"
    return None


def parse_replay(text: str) -> Replay:
    """Read a replay, with an error naming the line for anything malformed."""
    rows: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"line {number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or "type" not in row:
            raise ReplayError(f"line {number}: expected an object with a 'type'")
        kind = row["type"]
        if (number == 1) != (kind == "header"):
            raise ReplayError(f"line {number}: the header must be the first line, and only it")
        if kind != "header" and kind not in _LINE_TYPES:
            raise ReplayError(f"line {number}: unknown line type {kind!r}")
        problem = _field_problem(row, kind)
        if problem is None and kind == "header":
            if row["schema"] != SCHEMA_VERSION:
                raise ReplayError(
                    f"replay schema {row['schema']} is not supported (this is {SCHEMA_VERSION})"
                )
            if row["seats"] < 1:
                problem = f"header line: seats must be at least 1, not {row['seats']}"
            elif len(row["players"]) < row["seats"]:  # viewers name every seat's player
                problem = (
                    f"the header names {len(row['players'])} player name(s) "
                    f"for {row['seats']} seats"
                )
        elif problem is None and kind != "event" and rows:
            problem = _seat_problem(rows[0], row)
        if problem:
            raise ReplayError(f"line {number}: {problem}")
        rows.append(row)
    if not rows:
        raise ReplayError("empty replay")
    header = rows[0]
    if rows[-1]["type"] != "end":
        raise ReplayError("the replay has no end line: it is truncated or the match did not finish")
    if any(r["type"] == "end" for r in rows[1:-1]):
        raise ReplayError("an end line appears before the last line")
    return Replay(header, tuple(rows[1:]))


@dataclass(frozen=True)
class Step:
    """One line of a replay with the engine state right after it."""

    line: dict[str, Any]
    state: Any


def simulate(replay: Replay) -> tuple[Any, Any, Iterator[Step]]:
    """Re-run a replay's match: (game, rules, iterator of steps). Decisions are applied to
    the engine; other lines pass through with the current state."""
    header = replay.header
    try:
        game = get_game(header["game"])
        rules = parse_rules(game.Rules, header["rules"])
        initial = game.initial_state(rules, header["seats"], header["seed"])
    except (ValueError, RulesError) as exc:
        raise ReplayError(f"the header cannot be re-simulated: {exc}") from exc

    def steps() -> Iterator[Step]:
        state = initial
        yield Step(header, state)
        for line in replay.lines:
            if line["type"] == "decision":
                state = game.apply(state, line["seat"], game.decode(line["action"]))
            yield Step(line, state)

    return game, rules, steps()


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    decisions: int
    events: int
    mismatches: tuple[str, ...]


def verify_replay(replay: Replay, max_mismatches: int = 20) -> VerifyReport:
    """Re-simulate from the header and the decisions; compare every event and the outcome."""
    header = replay.header
    problems: list[str] = []
    game, _, steps = simulate(replay)
    state = next(steps).state
    expected: list[dict[str, Any]] = [{"type": "event", **e.to_json()} for e in game.events(state)]
    decisions = events = 0
    for number, line in enumerate(replay.lines, start=2):
        if len(problems) >= max_mismatches:
            break
        kind = line["type"]
        if kind == "event":
            events += 1
            want = expected.pop(0) if expected else None
            if want != line:
                problems.append(f"line {number}: {_event_difference(line, want)}")
        elif kind == "decision":
            if expected:
                problems.append(
                    f"line {number}: {len(expected)} engine event(s) missing before this decision"
                )
                expected.clear()
            seat, code = line["seat"], line["action"]
            try:
                action = game.decode(code)
                if seat not in game.to_act(state) or action not in game.legal_actions(state, seat):
                    raise IllegalAction(f"{code!r} by seat {seat} is not legal here")
                state = game.apply(state, seat, action)
            except ActionError as exc:
                problems.append(f"line {number}: {exc}")
                break
            decisions += 1
            expected = [{"type": "event", **e.to_json()} for e in game.events(state)]
        elif kind == "end":
            if expected:
                problems.append(
                    f"line {number}: {len(expected)} engine event(s) missing before the end"
                )
            if line["reason"] == "forfeit":
                outcome = forfeit_outcome(game.standings(state), line["forfeited"])
            else:
                final = game.outcome(state)
                if final is None:
                    problems.append(f"line {number}: the replay ends but the match is not over")
                    break
                outcome = final
            recomputed = json.loads(json.dumps(outcome.to_json()))
            if recomputed != line["outcome"]:
                problems.append(
                    f"line {number}: recorded outcome {line['outcome']} but the engine gives {recomputed}"
                )
    if game.version != header["game_version"]:
        # Another engine version may play the same seed differently by design (that is what
        # the version announces): say so, rather than list the differences as corruption.
        verdict = (
            f"the replay was made with {header['game']} version {header['game_version']}, "
            f"this engine is version {game.version}: it cannot be verified with this version"
        )
        if problems:
            verdict += f" (re-simulated, it differs from {problems[0]})"
        return VerifyReport(False, decisions, events, (verdict,))
    return VerifyReport(not problems, decisions, events, tuple(problems))


def _event_difference(recorded: dict[str, Any], engine: dict[str, Any] | None) -> str:
    """How a recorded event line differs from the engine's, naming the fields when the
    texts agree (a different ``hand`` or ``seat`` with the same words)."""
    if engine is not None and _short(recorded) == _short(engine):
        fields = [
            f"{key} {recorded.get(key)!r} but the engine gives {engine.get(key)!r}"
            for key in dict.fromkeys([*recorded, *engine])
            if recorded.get(key) != engine.get(key)
        ]
        return f"recorded event {_short(recorded)} has " + "; ".join(fields)
    return f"recorded event {_short(recorded)} but the engine gives {_short(engine)}"


def _short(line: dict[str, Any] | None) -> str:
    if line is None:
        return "nothing"
    text = line.get("private_text") or line.get("text", "")
    return f"[{line.get('kind')}] {text!r}"
