"""The rule options of gin rummy (docs/games/gin_rummy.md, "Rule options")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from referee.rules import RuleOptions, RulesError, option

# Cards left in the stock after a two-player deal (52 - 2 * 10 - the upcard): a stock
# floor at or above it would void every hand on its first turn.
STOCK_AFTER_DEAL = 31


# Bonuses, target and hands are at most this: the final totals (a line bonus per hand won,
# doubled on a shutout) then stay far inside the wire's int32 scores.
SCORE_CAP = 10_000


@dataclass(frozen=True, slots=True)
class GinRummyRules(RuleOptions):
    """One field per rule option of the spec, with the spec's defaults."""

    knock_limit: int = option(10, "highest deadwood count with which a player may knock")
    gin_bonus: int = option(25, "bonus added to the defender's deadwood when the knocker has gin")
    undercut_bonus: int = option(25, "bonus to a defender who undercuts the knocker")
    undercut_on_tie: bool = option(
        True, "equal deadwood counts are an undercut (false: the knocker wins them, scoring 0)"
    )
    big_gin_bonus: int = option(
        0, "bonus for big gin (all 11 cards melded after the draw, no discard); 0 = big gin off"
    )
    target_score: int | None = option(
        None,
        "running score that ends the match; none = 100 with 2 or 3 players, 125 for teams of 4",
    )
    game_bonus: int = option(100, "bonus to the player (team) that reaches target_score")
    line_bonus: int = option(25, "bonus at the end, to every player (team), per hand won")
    shutout: Literal["bonus", "double"] = option(
        "bonus",
        "when no opponent won a hand: bonus = the winner gets shutout_bonus more; "
        "double = the winner's final total (bonuses included) is doubled",
    )
    shutout_bonus: int = option(100, "the shutout bonus when shutout=bonus")
    stock_floor: int = option(
        2,
        "a turn that ends with a face-up discard while the stock holds this many cards or "
        "fewer voids the hand",
    )
    max_hands: int = option(
        200, "length bound: the match ends after this many hands (void ones count)"
    )
    max_turns: int = option(
        100,
        "length bound per hand and table: when this many turns have ended without a knock, "
        "the hand is void (so that no pair of bots can stall a hand forever)",
    )
    players: int = option(
        2, "2 (one against one), 3 (the dealer sits out, rotating) or 4 (teams 0+2 and 1+3)"
    )

    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = MappingProxyType(
        {
            "pagat_classic": MappingProxyType(
                {"gin_bonus": 20, "undercut_bonus": 10, "line_bonus": 20, "shutout": "double"}
            )
        }
    )

    def __post_init__(self) -> None:
        for name in (
            "knock_limit",
            "gin_bonus",
            "undercut_bonus",
            "big_gin_bonus",
            "game_bonus",
            "line_bonus",
            "shutout_bonus",
        ):
            if not 0 <= getattr(self, name) <= SCORE_CAP:
                raise RulesError(
                    f"rule {name}={getattr(self, name)}: must be from 0 to {SCORE_CAP:,}"
                )
        if self.players not in (2, 3, 4):
            raise RulesError(f"rule players={self.players}: must be 2, 3 or 4")
        if self.target_score is not None and not 1 <= self.target_score <= SCORE_CAP:
            raise RulesError(
                f"rule target_score={self.target_score}: must be from 1 to {SCORE_CAP:,} (or none)"
            )
        if not 0 <= self.stock_floor < STOCK_AFTER_DEAL:
            raise RulesError(
                f"rule stock_floor={self.stock_floor}: must be from 0 to {STOCK_AFTER_DEAL - 1} "
                f"(the stock holds {STOCK_AFTER_DEAL} cards after the deal)"
            )
        if not 1 <= self.max_hands <= SCORE_CAP:
            raise RulesError(f"rule max_hands={self.max_hands}: must be from 1 to {SCORE_CAP:,}")
        if self.max_turns < 1:
            raise RulesError(f"rule max_turns={self.max_turns}: must be 1 or more")
        if self.shutout not in ("bonus", "double"):
            raise RulesError(f"rule shutout={self.shutout}: must be bonus or double")

    @property
    def target(self) -> int:
        """The running score that ends the match (target_score, or its default for the format)."""
        if self.target_score is not None:
            return self.target_score
        return 125 if self.players == 4 else 100
