"""The frames of a replay: what the HTML page steps through.

A frame is one step of play: a decision with the events and faults it caused, the
state after it, and every seat's observation of that state. The first frame is the
deal (everything before the first decision); the last holds the end line. Frames are
the same for every point of view, so switching seats keeps the place in the match.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.rendering import ALL_HANDS, event_text
from referee.replay import Replay, simulate
from referee.views import to_jsonable


@dataclass(frozen=True)
class Frame:
    """One step: the replay lines it groups, the hand they belong to and the state after."""

    index: int
    hand: int
    lines: tuple[dict[str, Any], ...]
    state: Any


_LEADS = frozenset({"fault", "stderr"})


def _starts_frame(line: dict[str, Any], current: list[dict[str, Any]]) -> bool:
    # A fault is recorded just before the decision it caused (a default move), and the
    # bots' stderr logs just before the end line, so those join the frame they lead into.
    if line["type"] not in ("fault", "stderr", "decision", "end"):
        return False
    return not all(item["type"] in _LEADS for item in current)


def iter_frames(replay: Replay) -> tuple[Any, Iterator[Frame]]:
    """(game, frames) of a replay, re-simulated with its engine."""
    game, _, steps = simulate(replay)

    def frames() -> Iterator[Frame]:
        current: list[dict[str, Any]] = []
        state: Any = None
        hand = 0
        index = 0
        for step in steps:
            line = step.line
            if line is replay.header:
                state = step.state
                continue
            if current and _starts_frame(line, current):
                yield Frame(index, hand, tuple(current), state)
                index += 1
                current = []
            current.append(line)
            if line["type"] == "event":
                hand = int(line.get("hand", hand))
            state = step.state
        if current or index == 0:
            yield Frame(index, hand, tuple(current), state)

    return game, frames()


def _line_json(line: dict[str, Any], seats: int) -> dict[str, Any]:
    """A replay line as the page shows it. Event texts are stored once for spectators
    (``pub``), once for all hands (``all``) and per seat only where they differ."""
    kind = line["type"]
    if kind == "event":
        public = str(line["text"])
        everything = event_text(line, ALL_HANDS)
        if everything != public:  # a private text: say whose, since it reads "you ..."
            seen = ", ".join(str(s) for s in line.get("visible_to", []))
            everything = f"{everything}  [seat {seen} only]"
        out: dict[str, Any] = {"k": "event", "kind": line["kind"], "pub": public, "all": everything}
        private = {str(s): text for s in range(seats) if (text := event_text(line, s)) != public}
        if private:
            out["s"] = private
        if "seat" in line:
            out["seat"] = line["seat"]
        return out
    if kind == "decision":
        return {
            "k": "decision",
            "seat": line["seat"],
            "action": line["action"],
            "status": line["status"],
            "ms": line.get("ms", 0),
        }
    if kind == "fault":
        return {"k": "fault", "seat": line["seat"], "kind": line["kind"], "reason": line["reason"]}
    if kind == "stderr":
        return {
            "k": "stderr",
            "seat": line["seat"],
            "text": line["text"],
            "dropped": line.get("dropped_bytes", 0),
        }
    outcome = line["outcome"]
    return {
        "k": "end",
        "reason": line["reason"],
        "scores": outcome["scores"],
        "ranks": outcome["ranks"],
        "forfeited": line.get("forfeited", []),
    }


class _Interner:
    """Values stored once and referred to by index."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True, separators=(",", ":"))
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(value)
        return self._index[key]


class _ViewTable:
    """Views stored field by field: most fields of a view do not change from one step to
    the next, so each distinct field value, each list of field names (a shape) and each
    view is stored once. A view is ``[shape, value index per field...]``."""

    def __init__(self) -> None:
        self.values = _Interner()
        self.shapes = _Interner()
        self.views = _Interner()

    def add(self, view: Any) -> int:
        if not isinstance(view, dict):
            return self.views.add([-1, self.values.add(view)])
        shape = self.shapes.add(list(view))
        return self.views.add([shape, *(self.values.add(v) for v in view.values())])

    def to_json(self) -> dict[str, Any]:
        return {"values": self.values.items, "shapes": self.shapes.items, "views": self.views.items}


def page_data(replay: Replay) -> dict[str, Any]:
    """Everything the replay page needs, as JSON data: the match, the views (in a
    :class:`_ViewTable`) and, per frame, its hand, trick, seats to act, lines, and view
    indexes per seat and for the public view."""
    header = replay.header
    seats = int(header["seats"])
    game, frames = iter_frames(replay)
    views = _ViewTable()
    out_frames: list[dict[str, Any]] = []
    for frame in frames:
        public = to_jsonable(game.public_view(frame.state))
        entry: dict[str, Any] = {
            "h": frame.hand,
            "v": [views.add(to_jsonable(game.observation(frame.state, s))) for s in range(seats)],
            "p": views.add(public),
            "act": list(game.to_act(frame.state)),
            "l": [_line_json(line, seats) for line in frame.lines],
        }
        trick = public.get("trick_number") if isinstance(public, dict) else None
        if isinstance(trick, int) and trick > 0:
            entry["t"] = trick
        out_frames.append(entry)
    end = replay.end
    return {
        "match": {
            "id": header.get("match_id", ""),
            "game": header["game"],
            "game_version": header["game_version"],
            "rules": header["rules"],
            "seed": header["seed"],
            "seats": seats,
            "players": list(header["players"]),
            "started": header.get("started", ""),
            "finished": end.get("finished", ""),
            "reason": end["reason"],
            "scores": end["outcome"]["scores"],
            "ranks": end["outcome"]["ranks"],
        },
        "table": views.to_json(),
        "frames": out_frames,
    }
