"""Protocol messages built from match values: MatchStart, MatchOver, event notices."""

from __future__ import annotations

import json
from collections.abc import Iterable

from referee.game import Event, get_game
from referee.match import (
    MatchResult,
    MatchSpec,
)
from referee.rules import rules_to_strings
from referee.v1 import referee_pb2 as pb


def event_notices(match_id: str, events: Iterable[Event], seat: int | None) -> list[pb.EventNotice]:
    """The notices of the events this seat (``None``: a spectator) is told of."""
    return [
        pb.EventNotice(
            match_id=match_id,
            kind=e.kind,
            text=e.text_for(seat),
            seat=-1 if e.seat is None else e.seat,
            hand=e.hand,
        )
        for e in events
        if e.told_to(seat)
    ]


def match_over(result: MatchResult, seat: int) -> pb.MatchOver:

    return pb.MatchOver(
        match_id=result.spec.match_id,
        seat=seat,
        scores=list(result.outcome.scores),
        ranks=list(result.outcome.ranks),
        reason=result.reason,
        faults=[
            pb.Fault(seat=f.seat, kind=f.kind, reason=f.reason, decision_number=f.decision)
            for f in result.faults
            if seat < 0 or f.seat == seat
        ],
        details_json=json.dumps(result.outcome.details, sort_keys=True),
    )


def match_start(spec: MatchSpec, seat: int) -> pb.MatchStart:
    game = get_game(spec.game)
    c = spec.config
    return pb.MatchStart(
        match_id=spec.match_id,
        game=spec.game,
        game_version=game.version,
        seat=seat,
        seats=spec.seats,
        rules=rules_to_strings(spec.rules, for_players=True),
        players=list(spec.players),
        move_seconds=c.move_seconds,
        time_bank_seconds=c.time_bank_seconds,
        fault_policy=c.fault_policy,
        max_strikes=c.max_strikes,
    )
