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
import os
import stat
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
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
# The most bytes of replay text read, from a file or a stored replay once decompressed.
# Real replays are tens of KiB; the cap bounds memory for /dev/zero or a zlib bomb.
MAX_REPLAY_BYTES = 64 * 1024 * 1024
# Replay lines nest a few levels (rules, outcome details); a deeper line is not one, and
# comparing or printing it could exhaust Python's recursion limit.
MAX_NESTING = 32


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
    # Each of ``lines``' line number in the file (blank lines are skipped), for errors.
    numbers: tuple[int, ...]

    def numbered(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number in the file, line), for every line after the header."""
        return zip(self.numbers, self.lines, strict=True)

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
# Fields a line may lack but that the viewers read when present: checked the same way.
_OPTIONAL = {
    "header": ("match_id", "config", "started"),
    "event": ("hand", "seat", "private_text", "visible_to"),
    "decision": ("n", "ms"),
    "fault": ("decision",),
    "stderr": ("dropped_bytes",),
    "end": ("decisions", "finished"),
}
_OUTCOME_REQUIRED = ("scores", "ranks")


@dataclass(frozen=True)
class _Type:
    want: type | tuple[type, ...]
    name: str
    items: type | tuple[type, ...] | None = None  # a list's items, when it is a list

    def fits(self, value: Any) -> bool:
        if not _is(value, self.want):
            return False
        return self.items is None or all(_is(item, self.items) for item in value)


def _is(value: Any, want: type | tuple[type, ...]) -> bool:
    # JSON true is no number here, though Python's bool is an int.
    return isinstance(value, want) and not isinstance(value, bool)


_INT = _Type(int, "an integer")
_STR = _Type(str, "a string")
_OBJECT = _Type(dict, "an object")
# The JSON type of each field, so that a field of the wrong type is a ReplayError naming
# it rather than an exception deep in an engine or a viewer.
_TYPES: dict[str, _Type] = {
    "schema": _INT,
    "game": _STR,
    "game_version": _INT,
    "rules": _OBJECT,
    "seed": _INT,
    "seats": _INT,
    "players": _Type(list, "a list of strings", str),
    "match_id": _STR,
    "config": _OBJECT,
    "started": _STR,
    "kind": _STR,
    "text": _STR,
    "hand": _INT,
    "private_text": _STR,
    "visible_to": _Type(list, "a list of integers", int),
    "seat": _INT,
    "n": _INT,
    "action": _STR,
    "status": _STR,
    "ms": _Type((int, float), "a number"),
    "decision": _INT,
    "dropped_bytes": _INT,
    "reason": _STR,
    "outcome": _OBJECT,
    "forfeited": _Type(list, "a list of integers", int),
    "decisions": _INT,
    "finished": _STR,
    "scores": _Type(list, "a list of numbers", (int, float)),
    "ranks": _Type(list, "a list of integers", int),
}


def _brief(value: Any) -> str:
    """``value`` for an error message: as JSON, as in the file, cut short (a field may be
    megabytes)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else f"{text[:50]}... ({len(text)} characters)"


def _fields_problem(
    obj: dict[str, Any], required: Sequence[str], optional: Sequence[str], where: str
) -> str | None:
    """What is wrong with an object's fields: a required one missing, or one of the wrong type."""
    missing = [k for k in required if k not in obj]
    if missing:
        return f"{where} lacks {', '.join(missing)}"
    for key in (*required, *optional):
        if key in obj and not _TYPES[key].fits(obj[key]):
            return f"{where}: {key} must be {_TYPES[key].name}, not {_brief(obj[key])}"
    return None


def _field_problem(row: dict[str, Any], kind: str) -> str | None:
    """What is wrong with a line's fields (and an end line's outcome)."""
    problem = _fields_problem(row, _REQUIRED[kind], _OPTIONAL[kind], f"{kind} line")
    if problem is None and kind == "end":
        problem = _fields_problem(row["outcome"], _OUTCOME_REQUIRED, (), "end line: outcome")
    return problem


def _seat_problem(header: dict[str, Any], row: dict[str, Any]) -> str | None:
    """A seat a line names that the match does not have."""
    seats = header["seats"]
    named = row["forfeited"] if row["type"] == "end" else [row.get("seat", 0)]
    for seat in named:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
            return f"seat {seat!r} does not exist (the match has seats 0-{seats - 1})"
    return None


def _nesting(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (without recursion)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_NESTING:  # past the cap, how much deeper does not matter
                values = item.values() if isinstance(item, dict) else item
                stack.extend((v, depth + 1) for v in values)
    return deepest


def _load_line(raw: str, number: int) -> Any:
    """One line's JSON, with a ReplayError for anything json cannot or should not read."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"line {number}: not JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise ReplayError(f"line {number}: nested more than {MAX_NESTING} levels deep") from exc
    except ValueError as exc:  # an integer past Python's digit limit for int()
        detail = str(exc).split(";")[0]
        raise ReplayError(
            f"line {number}: unreadable number ({detail[:1].lower()}{detail[1:]})"
        ) from exc
    # Counting brackets is cheap; only a line with many of them can nest too deeply.
    if raw.count("[") + raw.count("{") > MAX_NESTING and _nesting(value) > MAX_NESTING:
        raise ReplayError(f"line {number}: nested more than {MAX_NESTING} levels deep")
    return value


def parse_replay(text: str) -> Replay:
    """Read a replay, with an error naming the line for anything malformed."""
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    # Lines end at "\n" only: str.splitlines would also split at U+2028 or U+0085 inside
    # a JSON string (a bot's stderr), which the encoder writes as they are.
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        row = _load_line(raw, number)
        if not isinstance(row, dict) or "type" not in row:
            raise ReplayError(f"line {number}: expected an object with a 'type'")
        kind = row["type"]
        if (not rows) != (kind == "header"):
            raise ReplayError(f"line {number}: the header must be the first line, and only it")
        if kind != "header" and kind not in _LINE_TYPES:
            raise ReplayError(f"line {number}: unknown line type {_brief(kind)}")
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
        numbers.append(number)
    if not rows:
        raise ReplayError("empty replay")
    header = rows[0]
    if rows[-1]["type"] != "end":
        raise ReplayError("the replay has no end line: it is truncated or the match did not finish")
    if any(r["type"] == "end" for r in rows[1:-1]):
        raise ReplayError("an end line appears before the last line")
    return Replay(header, tuple(rows[1:]), tuple(numbers[1:]))


_NOT_REGULAR = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def read_replay_file(path: Path, limit: int = MAX_REPLAY_BYTES) -> str:
    """A replay file's text. Only a regular file (after symlinks) of at most ``limit``
    bytes of UTF-8: a FIFO would block, /dev/zero would never end."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer (no effect on a file).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                what = _NOT_REGULAR.get(stat.S_IFMT(info.st_mode), "not a regular file")
                raise ReplayError(f"cannot read {path}: it is {what}, not a replay file")
            if info.st_size > limit:
                raise ReplayError(_too_large(str(path), limit))
            data = f.read(limit + 1)  # + 1: the file may have grown since fstat
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise ReplayError(_too_large(str(path), limit))
    return decode_replay(data, str(path))


def decompress_replay(blob: Any, source: str, limit: int = MAX_REPLAY_BYTES) -> str:
    """A stored (zlib-compressed) replay's text, decompressing at most ``limit`` bytes: a
    small blob can inflate to gigabytes."""
    if not isinstance(blob, bytes):
        raise ReplayError(f"{source} is corrupt: not compressed data")
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(blob, limit + 1)
    except zlib.error as exc:
        raise ReplayError(f"{source} is corrupt: {exc}") from exc
    if len(data) > limit:
        raise ReplayError(_too_large(source, limit, " once decompressed"))
    if not inflater.eof:
        raise ReplayError(f"{source} is corrupt: the compressed data is truncated")
    return decode_replay(data, source)


# What a file that is not UTF-8 may be, by its first bytes: to say so in the error.
_MAGIC = ((b"\x1f\x8b", "gzip-compressed"), (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def decode_replay(data: bytes, source: str) -> str:
    """Replay bytes as text: UTF-8, as replays are written, or a ReplayError saying where not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        hint = next((f" (it looks {name})" for m, name in _MAGIC if data.startswith(m)), "")
        raise ReplayError(
            f"{source}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x} "
            f"at offset {exc.start}){hint}"
        ) from exc


def _too_large(source: str, limit: int, how: str = "") -> str:
    size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit} bytes"
    return f"{source} is larger than {size}{how}, the limit for a replay"


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
        for number, line in replay.numbered():
            if line["type"] == "decision":
                try:
                    state = _play(game, state, line)
                except ActionError as exc:  # what verify reports: a viewer cannot go on
                    raise ReplayError(f"line {number}: {exc}") from exc
            yield Step(line, state)

    return game, rules, steps()


def _play(game: Any, state: Any, line: dict[str, Any]) -> Any:
    """The state after a decision line, checked as the referee checks a move: an engine's
    ``apply`` need not check whose turn it is (ActionError when it is not legal here)."""
    seat, code = line["seat"], line["action"]
    action = game.decode(code)
    if seat not in game.to_act(state) or action not in game.legal_actions(state, seat):
        raise IllegalAction(f"{code!r} by seat {seat} is not legal here")
    return game.apply(state, seat, action)


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
    for number, line in replay.numbered():
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
            try:
                state = _play(game, state, line)
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
