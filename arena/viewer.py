"""The terminal replay viewer: step through a match from one seat's point of view
(exactly that seat's observation and the event texts it could read) or all hands."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from referee.replay import Replay, simulate
from referee.views import to_jsonable


def parse_seat(seat: str, seats: int) -> int | None:
    """'all' -> None (every hand); a seat number -> that seat."""
    if seat == "all":
        return None
    try:
        number = int(seat)
    except ValueError:
        raise ValueError(f"--seat must be a seat number or 'all', not {seat!r}") from None
    if not 0 <= number < seats:
        raise ValueError(f"seat {number} does not exist: this match has seats 0-{seats - 1}")
    return number


def _format_value(value: Any) -> str:
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " ".join(value) or "-"
        return "; ".join(_format_value(v) for v in value) or "-"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def render_data(data: dict[str, Any]) -> list[str]:
    """A view as JSON data (cards as codes) as 'field: value' lines."""
    return [f"  {key}: {_format_value(value)}" for key, value in data.items()]


def render_view(view: Any) -> list[str]:
    """A view dataclass as 'field: value' lines."""
    return render_data(to_jsonable(view))


def event_text(line: dict[str, Any], seat: int | None) -> str:
    """What this seat (None: all hands) may read of a recorded event."""
    private = line.get("private_text")
    if private is not None and (seat is None or seat in line.get("visible_to", [])):
        return str(private)
    return str(line["text"])


def describe_line(line: dict[str, Any], seat: int | None, players: list[str]) -> str | None:
    kind = line["type"]
    if kind == "event":
        return f"· {event_text(line, seat)}"
    if kind == "decision":
        who = players[line["seat"]] if line["seat"] < len(players) else f"seat {line['seat']}"
        status = "" if line["status"] == "ok" else f" [{line['status']}]"
        if seat is not None and line["seat"] != seat:
            return None  # the move itself shows up as its (public) events
        ms = line.get("ms", 0)
        return f"▶ seat {line['seat']} ({who}): {line['action']}{status}  ({ms:.1f} ms)"
    if kind == "fault":
        return f"! fault, seat {line['seat']}: {line['kind']}: {line['reason']}"
    if kind == "stderr":
        if seat is not None and line["seat"] != seat:
            return None
        text = line["text"].rstrip()
        dropped = f" (+{line['dropped_bytes']} bytes not kept)" if line.get("dropped_bytes") else ""
        return f"✎ stderr of seat {line['seat']}{dropped}:\n" + "\n".join(
            f"    {t}" for t in text.splitlines()
        )
    if kind == "end":
        out = line["outcome"]
        return f"■ {line['reason']}: scores {out['scores']} ranks {out['ranks']}"
    return None


@dataclass(frozen=True)
class _TermFrame:
    text: str
    line_no: int  # the replay line it shows (0: the header)
    hand: int
    state: Any


def _term_frames(replay: Replay, seat: int | None) -> tuple[Any, list[_TermFrame]]:
    """The lines this point of view can read, each with the state after it."""
    header = replay.header
    game, _, steps = simulate(replay)
    players = list(header["players"])
    frames: list[_TermFrame] = []
    hand = 0
    for number, step in enumerate(steps):
        line = step.line
        if line.get("type") == "event":
            hand = int(line.get("hand", hand))
        text = describe_line(line, seat, players) if line is not header else "deal"
        if text is not None:
            frames.append(_TermFrame(text, number, hand, step.state))
    return game, frames


def _view_lines(
    game: Any, state: Any, seat: int | None, seats: int, players: list[str]
) -> list[str]:
    if seat is not None:
        return render_view(game.observation(state, seat))
    lines = []
    for s in range(seats):
        lines.append(f" seat {s} ({players[s]}):")
        lines.extend(render_view(game.observation(state, s)))
    return lines


def replay_show(replay: Replay, seat_text: str, console: Console, interactive: bool) -> None:
    header = replay.header
    seats = int(header["seats"])
    seat = parse_seat(seat_text, seats)
    players = list(header["players"])

    def title() -> str:
        who = "all hands" if seat is None else f"seat {seat} ({players[seat]})"
        return (
            f"[bold]{header['game']}[/] match {header.get('match_id', '?')}, "
            f"seed {header['seed']}, players: {', '.join(players)} — viewing {who}"
        )

    game, frames = _term_frames(replay, seat)
    if not interactive:
        console.print(title())
        for frame in frames:
            console.print(frame.text, highlight=False)
        if frames:
            console.print("final view:")
            for line in _view_lines(game, frames[-1].state, seat, seats, players):
                console.print(line, highlight=False)
        return
    index = 0
    while True:
        frame = frames[index]
        console.clear()
        console.print(title())
        console.print(
            f"step {index + 1}/{len(frames)} · hand {frame.hand}  {frame.text}", highlight=False
        )
        for line in _view_lines(game, frame.state, seat, seats, players):
            console.print(line, highlight=False)
        console.print(
            "[dim]enter/n: next  b: back  g N: step N  h N: hand N  "
            "s [N|all]: next seat / seat N / all hands  e: end  q: quit[/]"
        )
        command = input("> ").strip()
        if command in ("q", "quit"):
            return
        if command == "b":
            index = max(0, index - 1)
        elif command == "e":
            index = len(frames) - 1
        elif command.startswith("g "):
            with contextlib.suppress(ValueError):
                index = min(len(frames) - 1, max(0, int(command[2:]) - 1))
        elif command.startswith("h "):
            wanted = command[2:].strip()
            index = next((i for i, f in enumerate(frames) if str(f.hand) == wanted), index)
        elif command == "s" or command.startswith("s "):
            choice = command[2:].strip()
            try:
                if choice:
                    seat = parse_seat(choice, seats)
                else:
                    seat = 0 if seat is None else None if seat + 1 >= seats else seat + 1
            except ValueError as exc:
                console.print(f"[red]{exc}[/]")
                continue
            line_no = frame.line_no  # stay at the same place in the match
            game, frames = _term_frames(replay, seat)
            index = max((i for i, f in enumerate(frames) if f.line_no <= line_no), default=0)
        else:
            index = min(len(frames) - 1, index + 1)
