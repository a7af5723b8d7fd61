"""Rule options of golf solitaire (rules: docs/games/golf_solitaire.md) and the rank
adjacency they imply.

``GolfSolitaireRules`` is the engine's ``Rules``; :func:`adjacency` turns the options
into a table the engine, the solver and the bots share, so that they can never disagree
about which card may go on which.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar, Literal

from referee.rules import RuleOptions, RulesError, option

MAX_SEATS = 8
MAX_HOLES = 36
MAX_DEAL_NUMBER = 10**20  # PySolFC's largest game number
EMPTY = 14  # rank code of an empty foundation (0 is a joker, 1..13 the ranks)


@dataclass(frozen=True, slots=True)
class GolfSolitaireRules(RuleOptions):
    """Every option of the spec, with its default."""

    holes: int = option(
        9, "deals (holes) in a match; par is 5 per hole; 18 for the multi-player form"
    )
    queen_on_king: bool = option(False, "a Queen may be played on a King")
    wrap: bool = option(
        False, "putt putt: Ace and King are adjacent both ways (implies queen_on_king)"
    )
    jokers: int = option(0, "jokers added to the deck (0, 1 or 2); a joker is wild")
    foundation_starts_empty: bool = option(
        False, "no foundation card is dealt: the first move plays a tableau card (17 in the stock)"
    )
    stock_only_when_blocked: bool = option(
        False, "the stock may be turned only when no tableau card can be played"
    )
    scoring: Literal["stroke", "match"] = option(
        "stroke", "stroke: lowest total wins; match: 2 seats, holes won"
    )
    winnable_only: bool = option(
        False, "skip a deal that cannot be cleared even with the stock known, for the next one"
    )
    # Secret: with the numbers a bot could rebuild each deal, stock order included.
    deal_numbers: tuple[int, ...] | None = option(
        None,
        "PySolFC Golf deal numbers, one per hole (e.g. 1-9); none: deals from the seed",
        secret=True,
    )

    presets: ClassVar[dict[str, dict[str, object]]] = {
        "strict": {},
        "relaxed": {"queen_on_king": True},
        "putt_putt": {"wrap": True},
        "multiplayer": {"holes": 18},
    }

    def __post_init__(self) -> None:
        if not 1 <= self.holes <= MAX_HOLES:
            raise RulesError(f"holes={self.holes}: must be from 1 to {MAX_HOLES}")
        if self.jokers not in (0, 1, 2):
            raise RulesError(f"jokers={self.jokers}: must be 0, 1 or 2")
        if self.scoring not in ("stroke", "match"):
            raise RulesError(f"scoring={self.scoring!r}: must be stroke or match")
        if self.deal_numbers is not None:
            if len(self.deal_numbers) != self.holes:
                raise RulesError(
                    f"deal_numbers has {len(self.deal_numbers)} numbers but holes={self.holes}: "
                    "give one PySolFC deal number per hole"
                )
            bad = [n for n in self.deal_numbers if not 1 <= n <= MAX_DEAL_NUMBER]
            if bad:
                raise RulesError(
                    f"deal_numbers {_some(bad)}: PySolFC deals run from 1 to {MAX_DEAL_NUMBER}"
                )
            counts = Counter(self.deal_numbers)
            repeated = sorted(n for n, count in counts.items() if count > 1)
            if repeated:  # a seat would know the stock's order the second time
                raise RulesError(
                    f"deal_numbers repeats {_some(repeated)}: each deal may be played once a match"
                )
            if self.jokers:
                raise RulesError("deal_numbers needs jokers=0: PySolFC's Golf deals have no jokers")

    @property
    def allows_queen_on_king(self) -> bool:
        return self.queen_on_king or self.wrap

    @property
    def stock_size(self) -> int:
        """Cards in the stock when a hole is dealt."""
        return 52 + self.jokers - 35 - (0 if self.foundation_starts_empty else 1)


def _some(numbers: list[int]) -> str:
    """The first few of ``numbers`` for an error message."""
    more = f" and {len(numbers) - 5} more" if len(numbers) > 5 else ""
    return ", ".join(map(str, numbers[:5])) + more


def adjacency(queen_on_king: bool, wrap: bool) -> tuple[tuple[bool, ...], ...]:
    """``table[top][rank]``: may a card of ``rank`` go on a foundation whose top has rank
    ``top``? Rank codes: 0 joker, 1..13 Ace..King, 14 empty foundation."""
    table = []
    for top in range(15):
        row = []
        for rank in range(15):
            if rank == EMPTY:
                ok = False  # nothing "is" an empty card
            elif top in (0, EMPTY) or rank == 0:
                ok = True  # jokers are wild; anything starts an empty foundation
            elif top == 13:
                ok = (rank == 12 and (queen_on_king or wrap)) or (rank == 1 and wrap)
            elif top == 1:
                ok = rank == 2 or (rank == 13 and wrap)
            else:
                ok = abs(top - rank) == 1
            row.append(ok)
        table.append(tuple(row))
    return tuple(table)


def rules_adjacency(rules: GolfSolitaireRules) -> tuple[tuple[bool, ...], ...]:
    return _ADJ[(rules.allows_queen_on_king, rules.wrap)]


_ADJ = {(q, w): adjacency(q, w) for q in (False, True) for w in (False, True)}
