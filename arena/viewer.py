"""The terminal replay viewer: step through a match from one seat's point of view
(exactly that seat's observation and the event texts it could read) or all hands. The
texts themselves are drawn by :mod:`arena.rendering`, shared with the web viewers."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape

from arena.rendering import ALL_HANDS, AllHands, event_text, render_view, terminal_text
from referee.numbers import whole_number
from referee.replay import Replay, simulate

# The terminal shows one seat or all hands (no spectator view: a replay is read afterwards).
SeatChoice = int | AllHands


def parse_seat(seat: str, seats: int) -> SeatChoice:
    """'all' -> ALL_HANDS; a seat number -> that seat."""
    if seat == "all":
        return ALL_HANDS
    number = whole_number(seat)  # not int(): it takes " 1", "+1" and other scripts' digits
    if number is None:
        raise ValueError(f"--seat must be a seat number or 'all', not {seat!r}")
    if number >= seats:
        raise ValueError(f"seat {number} does not exist: this match has seats 0-{seats - 1}")
    return number


def describe_line(line: dict[str, Any], seat: SeatChoice, players: list[str]) -> str | None:
    kind = line["type"]
    if kind == "event":
        return f"· {event_text(line, seat)}"
    if kind == "decision":
        who = players[line["seat"]] if line["seat"] < len(players) else f"seat {line['seat']}"
        status = "" if line["status"] == "ok" else f" [{line['status']}]"
        if seat is not ALL_HANDS and line["seat"] != seat:
            return None  # the move itself shows up as its (public) events
        ms = line.get("ms", 0)
        return f"▶ seat {line['seat']} ({who}): {line['action']}{status}  ({ms:.1f} ms)"
    if kind == "fault":
        # The reason may name a hidden card (an illegal "pass 5S"): its seat's view only.
        mine = seat is ALL_HANDS or line["seat"] == seat
        reason = f": {line['reason']}" if mine else ""
        return f"! fault, seat {line['seat']}: {line['kind']}{reason}"
    if kind == "stderr":
        if seat is not ALL_HANDS and line["seat"] != seat:
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


def _term_frames(replay: Replay, seat: SeatChoice) -> tuple[Any, list[_TermFrame]]:
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
        if text is not None:  # a bot's stderr and actions: shown, never obeyed
            frames.append(_TermFrame(terminal_text(text), number, hand, step.state))
    return game, frames


def _view_lines(
    game: Any, state: Any, seat: SeatChoice, seats: int, players: list[str]
) -> list[str]:
    if not isinstance(seat, AllHands):
        return [terminal_text(x) for x in render_view(game.observation(state, seat))]
    lines = []
    for s in range(seats):
        lines.append(terminal_text(f" seat {s} ({players[s]}):"))
        lines.extend(terminal_text(x) for x in render_view(game.observation(state, s)))
    return lines


def replay_show(replay: Replay, seat_text: str, console: Console, interactive: bool) -> None:
    header = replay.header
    seats = int(header["seats"])
    seat = parse_seat(seat_text, seats)
    players = list(header["players"])

    def title() -> str:  # the replay file's words: printed as they are, not as markup
        who = "all hands" if isinstance(seat, AllHands) else f"seat {seat} ({players[seat]})"
        rest = (
            f" match {header.get('match_id', '?')}, seed {header['seed']}, "
            f"players: {', '.join(players)} — viewing {who}"
        )
        return f"[bold]{escape(terminal_text(str(header['game'])))}[/]{escape(terminal_text(rest))}"

    game, frames = _term_frames(replay, seat)
    if not interactive:
        console.print(title())
        for frame in frames:
            console.print(frame.text, markup=False, highlight=False)
        if frames:
            console.print("final view:")
            for line in _view_lines(game, frames[-1].state, seat, seats, players):
                console.print(line, markup=False, highlight=False)
        return
    index = 0
    while True:
        frame = frames[index]
        console.clear()
        console.print(title())
        console.print(
            f"step {index + 1}/{len(frames)} · hand {frame.hand}  {frame.text}",
            markup=False,
            highlight=False,
        )
        for line in _view_lines(game, frame.state, seat, seats, players):
            console.print(line, markup=False, highlight=False)
        console.print(
            "[dim]enter/n: next  b: back  g N: step N  h N: hand N  "
            "s [N|all]: next seat / seat N / all hands  e: end  q: quit[/]"
        )
        try:
            command = input("> ").strip()
        except EOFError:  # stdin closed (--step with input from a file or pipe): done
            return
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
                    seat = (
                        0
                        if isinstance(seat, AllHands)
                        else ALL_HANDS
                        if seat + 1 >= seats
                        else seat + 1
                    )
            except ValueError as exc:
                console.print(f"[red]{escape(terminal_text(str(exc)))}[/]")
                continue
            line_no = frame.line_no  # stay at the same place in the match
            game, frames = _term_frames(replay, seat)
            index = max((i for i, f in enumerate(frames) if f.line_no <= line_no), default=0)
        else:
            index = min(len(frames) - 1, index + 1)
