"""The golf solitaire solver: with every card known (the stock order too), the best
achievable score of a position, whether the tableau can be cleared, and a move list.

Depth-first search over positions keyed by one int: the 7 column heights (3 bits each),
the number of stock cards turned (5 bits) and the rank of the foundation's top card
(4 bits; suits never matter, so only ranks are searched). Every position is solved once
(memoised). Pruning: tableau moves are tried first; a search stops as soon as it clears
the tableau without turning another card (nothing can beat that), and it skips turning
the stock when a tableau line already clears with all but one of the stock cards left.

Scores are the spec's: cards left in the tableau, or minus the stock cards left when the
tableau is cleared; lower is better.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.cards import Card
from referee.rules import parse_rules

from .deals import COLUMNS, Deal, hole_deal
from .rules import EMPTY, GolfSolitaireRules, rules_adjacency

STOCK = COLUMNS  # the move index of "turn the stock" (0..6 are the columns)
MAX_HEIGHT = 7  # 3 bits per column in a position key
MAX_STOCK = 31  # 5 bits of stock position
_BIG = 1 << 20

# The search recurses once per move; a hole has at most 35 + 19 moves, with margin.
if sys.getrecursionlimit() < 2000:
    sys.setrecursionlimit(2000)


def move_code(move: int) -> str:
    return "stock" if move == STOCK else f"play {move}"


def rank_code(c: Card | None) -> int:
    """A card's rank for the search: 0 joker, 1..13, and 14 for no card (empty foundation)."""
    return EMPTY if c is None else c.rank


@dataclass(frozen=True, slots=True)
class SolveResult:
    """What the solver found. ``moves`` are action codes ("play 3", "stock") of one line
    reaching ``best_score``; ``steps`` say the same with the cards moved."""

    best_score: int
    clearable: bool
    moves: tuple[str, ...]
    steps: tuple[str, ...]
    positions: int  # positions solved (a measure of the work done)

    def to_json(self) -> dict[str, Any]:
        return {
            "best_score": self.best_score,
            "clearable": self.clearable,
            "moves": list(self.moves),
            "steps": list(self.steps),
            "positions": self.positions,
        }


class Searcher:
    """The memoised search over one position's future, ranks only.

    ``columns``: ranks of each column bottom to top; ``stock``: ranks of the stock cards
    still to turn, in order. Heights, stock position and top rank are the search state.
    """

    __slots__ = ("_col_ranks", "_memo", "_stock", "_value", "adj", "blocked_only")

    def __init__(
        self,
        columns: Sequence[Sequence[int]],
        stock: Sequence[int],
        adj: tuple[tuple[bool, ...], ...],
        blocked_only: bool,
    ) -> None:
        if len(columns) != COLUMNS:
            raise ValueError(f"a golf tableau has {COLUMNS} columns, not {len(columns)}")
        if any(len(col) > MAX_HEIGHT for col in columns):
            raise ValueError(f"the solver handles columns of at most {MAX_HEIGHT} cards")
        if len(stock) > MAX_STOCK:
            raise ValueError(f"the solver handles a stock of at most {MAX_STOCK} cards")
        # col_ranks[c * 8 + h] is the rank of column c's available card at height h.
        flat = [0] * (COLUMNS * 8)
        for c, col in enumerate(columns):
            for h, r in enumerate(col, start=1):
                flat[c * 8 + h] = r
        self._col_ranks = tuple(flat)
        self._stock = tuple(stock)
        self.adj = adj
        self.blocked_only = blocked_only
        self._memo: dict[int, int] = {}
        self._value = self._build()

    @staticmethod
    def heights_key(heights: Sequence[int]) -> int:
        return sum(h << (3 * c) for c, h in enumerate(heights))

    def _build(self) -> Callable[[int, int, int], int]:
        memo = self._memo
        memo_get = memo.get
        cr = self._col_ranks
        sr = self._stock
        n = len(sr)
        adj = self.adj
        blocked_only = self.blocked_only
        shifts = tuple((c, 3 * c, 1 << (3 * c), c * 8) for c in range(COLUMNS))

        def value(hk: int, pos: int, top: int) -> int:
            key = hk | (pos << 21) | (top << 26)
            v = memo_get(key)
            if v is not None:
                return v
            row = adj[top]
            floor = pos - n  # clearing now, with every remaining stock card left
            best = _BIG
            played = False
            for _c, sh, one, base in shifts:
                h = (hk >> sh) & 7
                if h:
                    r = cr[base + h]
                    if row[r]:
                        played = True
                        nk = hk - one
                        v = floor if nk == 0 else value(nk, pos, r)
                        if v < best:
                            best = v
                            if v == floor:
                                break
            # Turning the stock leaves at most n - pos - 1 cards: useless once a tableau
            # line already does that well. The stock cannot start an empty foundation.
            if (
                pos < n
                and best > floor + 1
                and top != EMPTY
                and not (blocked_only and played)
            ):
                v = value(hk, pos + 1, sr[pos])
                if v < best:
                    best = v
            if best == _BIG:  # no move at all: the hole is over, stuck
                best = sum((hk >> (3 * c)) & 7 for c in range(COLUMNS))
            memo[key] = best
            return best

        return value

    @property
    def positions(self) -> int:
        return len(self._memo)

    def value(self, heights: Sequence[int], pos: int, top: int) -> int:
        """The best score reachable from this position (stock position ``pos``)."""
        hk = self.heights_key(heights)
        if hk == 0:
            return pos - len(self._stock)
        return self._value(hk, pos, top)

    def legal_moves(self, heights: Sequence[int], pos: int, top: int) -> list[int]:
        """Legal moves in this position (0..6 columns, STOCK), as the engine allows them."""
        if not any(heights):
            return []
        row = self.adj[top]
        moves = [
            c for c in range(COLUMNS)
            if heights[c] and row[self._col_ranks[c * 8 + heights[c]]]
        ]
        if pos < len(self._stock) and top != EMPTY and not (self.blocked_only and moves):
            moves.append(STOCK)
        return moves

    def child(
        self, heights: Sequence[int], pos: int, top: int, move: int
    ) -> tuple[list[int], int, int]:
        hs = list(heights)
        if move == STOCK:
            return hs, pos + 1, self._stock[pos]
        rank = self._col_ranks[move * 8 + hs[move]]
        hs[move] -= 1
        return hs, pos, rank

    def move_values(self, heights: Sequence[int], pos: int, top: int) -> dict[int, int]:
        """The best score after each legal move."""
        return {
            m: self.value(*self.child(heights, pos, top, m))
            for m in self.legal_moves(heights, pos, top)
        }

    def best_line(self, heights: Sequence[int], pos: int, top: int) -> list[int]:
        """Moves of one line reaching the best score."""
        target = self.value(heights, pos, top)
        line: list[int] = []
        hs, p, t = list(heights), pos, top
        while True:
            moves = self.legal_moves(hs, p, t)
            if not moves:
                return line
            for m in moves:
                nxt = self.child(hs, p, t, m)
                if self.value(*nxt) == target:
                    line.append(m)
                    hs, p, t = nxt
                    break
            else:  # pragma: no cover - the memo guarantees some move keeps the value
                raise AssertionError("no move keeps the best value")


def _columns_ranks(columns: Sequence[Sequence[Card]]) -> list[list[int]]:
    return [[c.rank for c in col] for col in columns]


def _as_rules(rules: GolfSolitaireRules | Mapping[str, Any] | None) -> GolfSolitaireRules:
    if isinstance(rules, GolfSolitaireRules):
        return rules
    return parse_rules(GolfSolitaireRules, rules)


def solve_position(
    columns: Sequence[Sequence[Card]],
    foundation: Card | None,
    stock: Sequence[Card],
    rules: GolfSolitaireRules | Mapping[str, Any] | None = None,
) -> SolveResult:
    """Solve a position with everything known: columns bottom to top, the foundation's
    top card (None: empty), the stock in turning order."""
    r = _as_rules(rules)
    search = Searcher(_columns_ranks(columns), [c.rank for c in stock], rules_adjacency(r),
                      r.stock_only_when_blocked)
    heights = [len(col) for col in columns]
    top = rank_code(foundation)
    best = search.value(heights, 0, top)
    line = search.best_line(heights, 0, top)
    steps = _describe(columns, foundation, stock, line)
    return SolveResult(
        best_score=best,
        clearable=best <= 0 and sum(heights) > 0 or sum(heights) == 0,
        moves=tuple(move_code(m) for m in line),
        steps=tuple(steps),
        positions=search.positions,
    )


def _describe(
    columns: Sequence[Sequence[Card]], foundation: Card | None, stock: Sequence[Card],
    line: Sequence[int],
) -> list[str]:
    cols = [list(col) for col in columns]
    top, pos, out = foundation, 0, []
    for m in line:
        if m == STOCK:
            card = stock[pos]
            pos += 1
            out.append(f"stock: turn {card.code} ({len(stock) - pos} left)")
        else:
            card = cols[m].pop()
            onto = f" onto {top.code}" if top is not None else ""
            out.append(f"play {m}: {card.code}{onto}")
        top = card
    return out


def solve(deal: Deal, rules: GolfSolitaireRules | Mapping[str, Any] | None = None) -> SolveResult:
    """Solve a deal from its start."""
    return solve_position(deal.tableau, deal.foundation, deal.stock, rules)


def can_clear(deal: Deal, rules: GolfSolitaireRules) -> bool:
    """Whether the tableau can be cleared with the stock order known (stops at the first
    clearing line, so it is quicker than :func:`solve` on clearable deals)."""
    cr = [0] * (COLUMNS * 8)
    for c, col in enumerate(deal.tableau):
        for h, card in enumerate(col, start=1):
            cr[c * 8 + h] = card.rank
    sr = [c.rank for c in deal.stock]
    n = len(sr)
    adj = rules_adjacency(rules)
    blocked_only = rules.stock_only_when_blocked
    seen: set[int] = set()
    shifts = tuple((3 * c, 1 << (3 * c), c * 8) for c in range(COLUMNS))

    def clears(hk: int, pos: int, top: int) -> bool:
        key = hk | (pos << 21) | (top << 26)
        if key in seen:
            return False
        seen.add(key)
        row = adj[top]
        played = False
        for sh, one, base in shifts:
            h = (hk >> sh) & 7
            if h and row[cr[base + h]]:
                played = True
                nk = hk - one
                if nk == 0 or clears(nk, pos, cr[base + h]):
                    return True
        if pos < n and top != EMPTY and not (blocked_only and played):
            return clears(hk, pos + 1, sr[pos])
        return False

    hk = Searcher.heights_key([len(col) for col in deal.tableau])
    return hk == 0 or clears(hk, 0, rank_code(deal.foundation))


def hindsight_best_scores(
    rules: GolfSolitaireRules | Mapping[str, Any] | None, seed: int
) -> tuple[int, ...]:
    """The best achievable score of each hole of the match with these rules and seed (the
    deals are a pure function of them, the same for every seat), with the stock known.
    For the leaderboard: a bot's hole scores next to the best possible on the same deals."""
    r = _as_rules(rules)
    return tuple(solve(hole_deal(r, seed, h), r).best_score for h in range(r.holes))
