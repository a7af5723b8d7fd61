"""What determines a match and what the replay records of it: the match's time and fault
settings (:class:`MatchConfig`), its spec (:class:`MatchSpec`) and a seat's fault
(:class:`FaultRecord`).

These types sit below both the match driver (:mod:`referee.match`) and the replay
recorder (:mod:`referee.replay`), so neither has to import the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# The longest any time setting of a match may be (a move, the time bank, the wait for
# the seats, a spectator's lag): far above any real match's, and small enough that a
# deadline computed from it fits every clock and timer (int64 milliseconds, setitimer).
MAX_MATCH_SECONDS = 86_400

FaultPolicy = Literal["forfeit", "default"]
# "limit": the arena stopped the bot for going over a resource limit (CPU, memory).
FaultKind = Literal["timeout", "illegal", "malformed", "disconnect", "crash", "limit"]


class MatchConfigError(ValueError):
    """Inconsistent match settings (deadline, policy, strikes)."""


def check_seconds(name: str, value: float, zero: bool = True) -> None:
    """Refuse a time setting that is not a number of seconds from 0 (or above 0, without
    ``zero``) to MAX_MATCH_SECONDS: nan and infinities included."""
    low_ok = value >= 0 if zero else value > 0  # False for nan
    if not (low_ok and value <= MAX_MATCH_SECONDS):
        low = "from 0 to" if zero else "above 0 and at most"
        raise MatchConfigError(
            f"{name} must be a finite number {low} {MAX_MATCH_SECONDS} (a day), not {value}"
        )


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Time and fault settings of a match (the game's own rules are separate)."""

    move_seconds: float = 5.0
    time_bank_seconds: float = 0.0
    fault_policy: FaultPolicy = "forfeit"
    max_strikes: int = 3

    def __post_init__(self) -> None:
        # An infinite deadline would let one bot stall a match for ever; one of 1e16 s
        # overflowed the Turn's deadline field, and the referee charged the seat a crash.
        check_seconds("move seconds", self.move_seconds, zero=False)
        check_seconds("time bank seconds", self.time_bank_seconds)
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
