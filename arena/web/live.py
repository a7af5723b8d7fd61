"""Following a live match in the terminal through the referee's ``Watch`` RPC: public
information only, with the referee's (or a longer, requested) spectator delay.

Every message's public events are printed as they arrive, then the fields of the public
view that changed since the last message (the whole view the first time; ``--full``: every
time), drawn like the terminal replay viewer draws views."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from arena.rendering import render_data
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc


class WatchError(ValueError):
    """The match cannot be watched: unknown match, referee unreachable."""


def _plain(value: Any) -> Any:
    """Protobuf JSON with cards as their codes and card groups as lists, like a replay's views."""
    if isinstance(value, dict):
        if "code" in value and set(value) <= {"code", "rank", "suit"}:
            return value["code"]
        if set(value) == {"cards"}:
            return _plain(value["cards"])
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def view_data(observation: pb.Observation) -> dict[str, Any]:
    """The public view inside a WatchMessage as plain JSON data (every field, defaults too)."""
    which = observation.WhichOneof("game")
    if which is None:
        return {}
    message: Message = getattr(observation, which)
    data = MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    plain = _plain(data)
    return plain if isinstance(plain, dict) else {}


def view_lines(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """The public view as lines: all of it the first time (``before`` None), then only the
    fields that changed; a list that grew by appending shows only the new items."""
    if before is None:
        return render_data(after)
    lines = []
    for key, value in after.items():
        old = before.get(key)
        if old == value:
            continue
        if isinstance(old, list) and isinstance(value, list) and old and value[: len(old)] == old:
            (line,) = render_data({key: value[len(old) :]})
            lines.append(line.replace(f"{key}: ", f"{key}: + ", 1))
        else:
            lines.extend(render_data({key: value}))
    return lines


def describe_start(start: pb.MatchStart) -> str:
    rules = " ".join(f"{k}={v}" for k, v in sorted(start.rules.items())) or "default rules"
    players = ", ".join(f"seat {s}: {p or '?'}" for s, p in enumerate(start.players))
    return f"watching {start.game} match {start.match_id} · {players} · {rules}"


def describe_over(over: pb.MatchOver, players: list[str]) -> list[str]:
    lines = [f"■ {over.reason}"]
    for seat, (score, rank) in enumerate(zip(over.scores, over.ranks, strict=True)):
        name = players[seat] if seat < len(players) else ""
        lines.append(f"  seat {seat} ({name}): score {score:g}, rank {rank}")
    lines.extend(f"  fault, seat {f.seat}: {f.kind}: {f.reason}" for f in over.faults)
    return lines


def watch_match(
    target: str,
    match_id: str,
    delay: float,
    emit: Callable[[str], None],
    full: bool = False,
    timeout: float | None = None,
    admin_token: str | None = None,
) -> pb.MatchOver | None:
    """Follow ``match_id`` on the referee at ``target`` until it ends; ``emit`` gets each
    line to print. Returns the MatchOver (None if the stream ended without one). A
    referee with private Watch serves it only with its ``admin_token``."""
    metadata = [("x-admin-token", admin_token)] if admin_token else None
    with grpc.insecure_channel(target) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        stream = stub.Watch(
            pb.WatchRequest(match_id=match_id, delay_seconds=delay),
            timeout=timeout,
            metadata=metadata,
        )
        last: dict[str, Any] | None = None
        players: list[str] = []
        try:
            for message in stream:
                if message.HasField("match_start"):
                    players = list(message.match_start.players)
                    emit(describe_start(message.match_start))
                for event in message.events:
                    emit(f"· {event.text}")
                if message.HasField("view"):
                    data = view_data(message.view)
                    shown = view_lines(None if full else last, data)
                    if shown:
                        emit("  public view:" if last is None or full else "  changed:")
                        for line in shown:
                            emit(line)
                    last = data
                if message.HasField("match_over"):
                    for line in describe_over(message.match_over, players):
                        emit(line)
                    over: pb.MatchOver = message.match_over
                    return over
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code == grpc.StatusCode.NOT_FOUND:
                raise WatchError(f"the referee at {target} has no match {match_id!r}") from exc
            if code == grpc.StatusCode.UNAVAILABLE:
                raise WatchError(f"cannot reach a referee at {target}") from exc
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise WatchError(f"gave up watching after {timeout}s") from exc
            if code == grpc.StatusCode.UNAUTHENTICATED:
                raise WatchError(
                    f"the referee at {target} serves Watch only with its admin token"
                    + (": this one is not it" if admin_token else "")
                    + " (--admin-token or ARENA_ADMIN_TOKEN)"
                ) from exc
            details = exc.details() if isinstance(exc, grpc.Call) else None
            raise WatchError(f"watching failed: {details or code or exc}") from exc
    return None
