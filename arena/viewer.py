"""The terminal replay viewer: step through a match from one seat's point of view
(exactly that seat's observation and the event texts it could read) or all hands."""

from __future__ import annotations

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
        return f"▶ seat {line['seat']} ({who}): {line['action']}{status}  ({line.get('ms', 0):.1f} ms)"
    if kind == "fault":
        return f"! fault, seat {line['seat']}: {line['kind']}: {line['reason']}"
    if kind == "stderr":
        if seat is not None and line["seat"] != seat:
            return None
        text = line["text"].rstrip()
        dropped = f" (+{line['dropped_bytes']} bytes not kept)" if line.get("dropped_bytes") else ""
        return f"✎ stderr of seat {line['seat']}{dropped}:\n" + "\n".join(f"    {t}" for t in text.splitlines())
    if kind == "end":
        out = line["outcome"]
        return f"■ {line['reason']}: scores {out['scores']} ranks {out['ranks']}"
    return None


def replay_show(replay: Replay, seat_text: str, console: Console, interactive: bool) -> None:
    header = replay.header
    seat = parse_seat(seat_text, header["seats"])
    game, _, steps = simulate(replay)
    players = list(header["players"])
    who = "all hands" if seat is None else f"seat {seat} ({players[seat]})"
    console.print(f"[bold]{header['game']}[/] match {header.get('match_id', '?')}, seed {header['seed']}, "
                  f"players: {', '.join(players)} — viewing {who}")
    frames: list[tuple[str, list[str]]] = []
    for step in steps:
        text = describe_line(step.line, seat, players) if step.line is not header else "deal"
        if text is None:
            continue
        if seat is None:
            view_lines = []
            for s in range(header["seats"]):
                view_lines.append(f" seat {s} ({players[s]}):")
                view_lines.extend(render_view(game.observation(step.state, s)))
        else:
            view_lines = render_view(game.observation(step.state, seat))
        frames.append((text, view_lines))
    if not interactive:
        for text, _ in frames:
            console.print(text, highlight=False)
        if frames:
            console.print("final view:")
            for line in frames[-1][1]:
                console.print(line, highlight=False)
        return
    index = 0
    while True:
        text, view_lines = frames[index]
        console.clear()
        console.print(f"step {index + 1}/{len(frames)}  {text}", highlight=False)
        for line in view_lines:
            console.print(line, highlight=False)
        console.print("[dim]enter/n: next  b: back  g N: go to step N  e: end  q: quit[/]")
        command = input("> ").strip()
        if command in ("q", "quit"):
            return
        if command == "b":
            index = max(0, index - 1)
        elif command == "e":
            index = len(frames) - 1
        elif command.startswith("g "):
            try:
                index = min(len(frames) - 1, max(0, int(command[2:]) - 1))
            except ValueError:
                pass
        else:
            index = min(len(frames) - 1, index + 1)
