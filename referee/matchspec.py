"""What determines a match and what the replay records of it: the match's time and fault
settings (:class:`MatchConfig`), its spec (:class:`MatchSpec`) and a seat's fault
(:class:`FaultRecord`).

These types sit below both the match driver (:mod:`referee.match`) and the replay
recorder (:mod:`referee.replay`), so neither has to import the other for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

FaultPolicy = Literal["forfeit", "default"]
# "limit": the arena stopped the bot for going over a resource limit (CPU, memory).
FaultKind = Literal["timeout", "illegal", "malformed", "disconnect", "crash", "limit"]


class MatchConfigError(ValueError):
    """Inconsistent match settings (deadline, policy, strikes)."""


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Time and fault settings of a match (the game's own rules are separate)."""

    move_seconds: float = 5.0
    time_bank_seconds: float = 0.0
    fault_policy: FaultPolicy = "forfeit"
    max_strikes: int = 3

    def __post_init__(self) -> None:
        # `not x > 0` (rather than `x <= 0`) also refuses nan; an infinite deadline
        # would let one bot stall a match for ever.
        if not (math.isfinite(self.move_seconds) and self.move_seconds > 0):
            raise MatchConfigError(
                f"move seconds must be a positive, finite number, not {self.move_seconds}"
            )
        if not (math.isfinite(self.time_bank_seconds) and self.time_bank_seconds >= 0):
            raise MatchConfigError(
                f"time bank seconds must be a finite number, 0 or more, not {self.time_bank_seconds}"
            )
        if self.fault_policy not in ("forfeit", "default"):
            raise MatchConfigError(
                f"fault policy must be 'forfeit' or 'default', not {self.fault_policy!r}"
            )
        if self.max_strikes < 1:
            raise MatchConfigError("max_strikes must be at least 1")

    def to_json(self) -> dict[str, Any]:
        return {
            "move_seconds": self.move_seconds,
            "time_bank_seconds": self.time_bank_seconds,
            "fault_policy": self.fault_policy,
            "max_strikes": self.max_strikes,
        }


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """Everything that determines a match, as the replay header records it."""

    match_id: str
    game: str
    rules: Any  # the game's Rules instance
    seats: int
    seed: int
    players: tuple[str, ...]  # display names per seat
    config: MatchConfig = MatchConfig()


@dataclass(frozen=True, slots=True)
class FaultRecord:
    seat: int
    kind: FaultKind
    reason: str
    decision: int

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "reason": self.reason,
            "decision": self.decision,
        }
