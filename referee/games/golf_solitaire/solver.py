"""The golf solitaire solver: with every card known (the stock order too), the best
achievable score of a position, whether the tableau can be cleared, and a move list.

A position is (column heights, stock cards turned, rank of the foundation's top card);
suits never matter, so only ranks are searched. Two searches share that state space:

- :class:`BitsetSearch`, the fast one, walks it breadth first with all positions of the
  same stock position and top rank held in one big int: bit ``i`` is the heights vector
  whose mixed-radix number is ``i``. Playing from column ``c`` is a shift right by that
  column's stride, masked by "column c's available card has rank r", so a whole set of
  positions moves in a few big-int operations. Layers are stock positions; the first
  layer in which the empty tableau appears gives the best score (clearing earlier leaves
  more stock), and otherwise the fewest cards left in the last layer does. The layers
  are kept when a move list is wanted and walked back from the best end.
- :class:`DepthFirstSearch`, a memoised depth-first search over int keys (heights 3 bits
  per column, stock position, top rank) that also gives the value of every move: the
  reference the tests compare the fast search with, and the tool for small positions.

Scores are the spec's: cards left in the tableau, or minus the stock cards left when the
tableau is cleared; lower is better.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from referee.cards import Card
from referee.rules import parse_rules

from .deals import COLUMNS, Deal
from .rules import EMPTY, GolfSolitaireRules, rules_adjacency

STOCK = COLUMNS  # the move index of "turn the stock" (0..6 are the columns)
MAX_HEIGHT = 7  # the most cards a column may hold in a position given to the solver
Adjacency = tuple[tuple[bool, ...], ...]

# The depth-first search recurses once per move; a hole has at most 54 moves.
if sys.getrecursionlimit() < 2000:
    sys.setrecursionlimit(2000)


def check_columns(columns: Sequence[Sequence[int]]) -> None:
    """Refuse a tableau the searches cannot hold (their int keys give a column 3 bits)."""
    if len(columns) != COLUMNS:
        raise ValueError(f"a golf tableau has {COLUMNS} columns, not {len(columns)}")
    if any(len(col) > MAX_HEIGHT for col in columns):
        raise ValueError(f"the solver handles columns of at most {MAX_HEIGHT} cards")


def heights_key(heights: Sequence[int]) -> int:
    """Column heights as one int, 3 bits per column: how the searches key a position."""
    return sum(h << (3 * c) for c, h in enumerate(heights))


def cards_left(hk: int) -> int:
    """The cards still in the tableau whose heights key is ``hk``."""
    return sum((hk >> (3 * c)) & 7 for c in range(COLUMNS))


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

    def to_json(self) -> dict[str, Any]:
        return {
            "best_score": self.best_score,
            "clearable": self.clearable,
            "moves": list(self.moves),
            "steps": list(self.steps),
        }


@dataclass(frozen=True, slots=True)
class _Geometry:
    """Bit masks over heights vectors of one mixed radix (column c's height is 0..bases[c]-1)."""

    bases: tuple[int, ...]
    strides: tuple[int, ...]
    digit: tuple[tuple[int, ...], ...]  # digit[c][h]: all vectors whose column c is h
    cards_left: tuple[int, ...]  # cards_left[k]: all vectors holding k cards in all


def _repeat(block: int, period: int, count: int) -> int:
    """``block`` at offsets 0, period, 2 period, ... (count times), by doubling."""
    result, shift = 0, 0
    while count:
        if count & 1:
            result |= block << shift
            shift += period
        block |= block << period
        period *= 2
        count >>= 1
    return result


@lru_cache(maxsize=4096)
def _geometry(bases: tuple[int, ...]) -> _Geometry:
    # Each position gets the smallest radix that holds its own heights (a column never
    # grows), so the sets of later, smaller positions are short ints and cheap to work on.
    strides = []
    total = 1
    for b in bases:
        strides.append(total)
        total *= b
    digit = []
    for c, b in enumerate(bases):
        stride = strides[c]
        period = stride * b
        digit.append(
            tuple(
                _repeat(((1 << stride) - 1) << (h * stride), period, total // period)
                for h in range(b)
            )
        )
    by_sum: dict[int, int] = {0: 1}
    size = 1
    for b in bases:
        grown: dict[int, int] = {}
        for k, m in by_sum.items():
            for h in range(b):
                grown[k + h] = grown.get(k + h, 0) | (m << (h * size))
        by_sum, size = grown, size * b
    cards_left = tuple(by_sum.get(k, 0) for k in range(max(by_sum) + 1))
    return _Geometry(tuple(bases), tuple(strides), tuple(digit), cards_left)


def warm_up() -> None:
    """Build the bit masks of a dealt tableau now rather than in a first search."""
    _geometry((6,) * COLUMNS)


class BitsetSearch:
    """The breadth-first search over sets of positions (see the module docstring).

    ``columns``: ranks of each column, bottom to top; ``stock``: ranks of the stock cards
    still to turn, in order; ``top``: the foundation's top rank (14 when empty).
    """

    def __init__(
        self,
        columns: Sequence[Sequence[int]],
        top: int,
        stock: Sequence[int],
        adj: Adjacency,
        blocked_only: bool,
    ) -> None:
        check_columns(columns)
        self.columns = [list(col) for col in columns]
        self.top = top
        self.stock = list(stock)
        self.adj = adj
        self.blocked_only = blocked_only
        self.geo = _geometry(tuple(len(col) + 1 for col in columns))
        g = self.geo
        # has_rank[c][r]: vectors in which column c's available card has rank r.
        self.has_rank: list[dict[int, int]] = []
        for c, col in enumerate(self.columns):
            masks: dict[int, int] = {}
            for h, r in enumerate(col, start=1):
                masks[r] = masks.get(r, 0) | g.digit[c][h]
            self.has_rank.append(masks)
        self.pairs = [
            (c, r, m, g.strides[c]) for c in range(COLUMNS) for r, m in self.has_rank[c].items()
        ]
        # onto[r]: the tops a card of rank r may go on.
        self.onto = {r: [t for t in range(15) if adj[t][r]] for r in range(14)}
        # playable[t]: vectors with some available card that may go on top t (needed only
        # when the stock waits for a block, and costly: built only then).
        self.playable = [
            _or(m for _c, r, m, _s in self.pairs if adj[t][r]) if blocked_only else 0
            for t in range(15)
        ]
        self.start = sum(len(col) * g.strides[c] for c, col in enumerate(self.columns))
        # Kept per layer when a line is wanted: the frontier of each step of that layer.
        self.layers: list[list[dict[int, int]]] = []
        # A machine-independent measure of the work done (big-int words touched), so that
        # callers can budget searches deterministically.
        self.work = 0
        self._step_work = len(self.pairs) * ((self.start >> 6) + 64)

    def best(self, keep: bool = False) -> tuple[int, int, int]:
        """(best score, layer, step) where the best end was found."""
        n = len(self.stock)
        frontier: dict[int, int] = {self.top: 1 << self.start}
        self.layers = []
        last_all = 0
        for p in range(n + 1):
            steps: list[dict[int, int]] = []
            turnable = 0  # positions of this layer that may turn the stock
            seen = 0
            step = 0
            while frontier:
                if keep:
                    steps.append(frontier)
                for t, m in frontier.items():
                    seen |= m
                    if t != EMPTY:
                        turnable |= (m & ~self.playable[t]) if self.blocked_only else m
                if seen & 1:  # the empty tableau: cleared in this layer
                    if keep:
                        self.layers.append(steps)
                    return p - n, p, step
                frontier = self._step(frontier)
                step += 1
            if keep:
                self.layers.append(steps)
            last_all = seen
            if p < n:
                if not turnable:
                    break
                frontier = {self.stock[p]: turnable}
        for k, m in enumerate(self.geo.cards_left):
            if last_all & m:
                return k, len(self.layers) - 1, -1
        raise AssertionError("no position in the last layer")  # pragma: no cover

    def _step(self, frontier: dict[int, int]) -> dict[int, int]:
        self.work += self._step_work
        on_rank: dict[int, int] = {}
        for r, tops in self.onto.items():
            u = 0
            for t in tops:
                f = frontier.get(t)
                if f:
                    u |= f
            if u:
                on_rank[r] = u
        out: dict[int, int] = {}
        for _c, r, m, stride in self.pairs:
            w = on_rank.get(r)
            if w:
                moved = (w & m) >> stride
                if moved:
                    out[r] = out.get(r, 0) | moved
        return out

    def line(self) -> tuple[int, list[int]]:
        """The best score and the moves of one line reaching it."""
        score, p, step = self.best(keep=True)
        g = self.geo
        # Pick the end position: the empty tableau, or a fewest-cards one of the last layer.
        if step >= 0:
            index = 0
            top = next(t for t, m in self.layers[p][step].items() if m & 1)
        else:
            index, top, step = self._pick_end(p, g.cards_left[score])
        moves: list[int] = []
        while p > 0 or step > 0:
            if step > 0:
                prev = self.layers[p][step - 1]
                for c in range(COLUMNS):
                    before = index + g.strides[c]
                    if not (self.has_rank[c].get(top, 0) >> before) & 1:
                        continue
                    found = next(
                        (t for t in self.onto[top] if (prev.get(t, 0) >> before) & 1), None
                    )
                    if found is not None:
                        moves.append(c)
                        index, top, step = before, found, step - 1
                        break
                else:  # pragma: no cover - every position came from the step before
                    raise AssertionError("broken play chain")
            else:
                p -= 1
                moves.append(STOCK)
                top, step = self._find_turner(p, index)
        moves.reverse()
        return score, moves

    def _pick_end(self, p: int, mask: int) -> tuple[int, int, int]:
        for step, frontier in enumerate(self.layers[p]):
            for t, m in frontier.items():
                hit = m & mask
                if hit:
                    return (hit & -hit).bit_length() - 1, t, step
        raise AssertionError("no end position")  # pragma: no cover

    def _find_turner(self, p: int, index: int) -> tuple[int, int]:
        for step, frontier in enumerate(self.layers[p]):
            for t, m in frontier.items():
                if t == EMPTY or not (m >> index) & 1:
                    continue
                if self.blocked_only and (self.playable[t] >> index) & 1:
                    continue
                return t, step
        raise AssertionError("no position turned the stock")  # pragma: no cover


def _or(masks: Any) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


class DepthFirstSearch:
    """Memoised depth-first search from one position; values of every reachable position.

    Keys are ints: column heights (3 bits each), stock position (5 bits) and top rank.
    Tableau moves are tried first; a position stops searching once a tableau move clears
    with every stock card left, and skips the stock once a line leaves all but one.
    """

    def __init__(
        self,
        columns: Sequence[Sequence[int]],
        stock: Sequence[int],
        adj: Adjacency,
        blocked_only: bool,
    ) -> None:
        flat = [0] * (COLUMNS * 8)
        for c, col in enumerate(columns):
            for h, r in enumerate(col, start=1):
                flat[c * 8 + h] = r
        self.col_ranks = tuple(flat)
        self.stock = tuple(stock)
        self.adj = adj
        self.blocked_only = blocked_only
        self.memo: dict[int, int] = {}
        self._value = self._build()

    def _build(self) -> Callable[[int, int, int], int]:
        memo, cr, sr, adj = self.memo, self.col_ranks, self.stock, self.adj
        n, blocked_only = len(sr), self.blocked_only
        shifts = tuple((3 * c, 1 << (3 * c), c * 8) for c in range(COLUMNS))

        def value(hk: int, pos: int, top: int) -> int:
            key = hk | (pos << 21) | (top << 26)
            v = memo.get(key)
            if v is not None:
                return v
            row, floor, best, played = adj[top], pos - n, 1 << 20, False
            for sh, one, base in shifts:
                h = (hk >> sh) & 7
                if h and row[cr[base + h]]:
                    played = True
                    v = floor if hk == one else value(hk - one, pos, cr[base + h])
                    if v < best:
                        best = v
                        if v == floor:
                            break
            if pos < n and best > floor + 1 and top != EMPTY and not (blocked_only and played):
                best = min(best, value(hk, pos + 1, sr[pos]))
            if best == 1 << 20:  # no move: stuck
                best = cards_left(hk)
            memo[key] = best
            return best

        return value

    def value(self, heights: Sequence[int], pos: int, top: int) -> int:
        hk = heights_key(heights)
        return pos - len(self.stock) if hk == 0 else self._value(hk, pos, top)

    def move_values(self, heights: Sequence[int], pos: int, top: int) -> dict[int, int]:
        """The best score after each legal move of the position."""
        out: dict[int, int] = {}
        if not any(heights):
            return out
        row = self.adj[top]
        played = False
        for c in range(COLUMNS):
            if heights[c] and row[self.col_ranks[c * 8 + heights[c]]]:
                played = True
                hs = list(heights)
                hs[c] -= 1
                out[c] = self.value(hs, pos, self.col_ranks[c * 8 + heights[c]])
        if pos < len(self.stock) and top != EMPTY and not (self.blocked_only and played):
            out[STOCK] = self.value(heights, pos + 1, self.stock[pos])
        return out


def best_score(
    columns: Sequence[Sequence[int]],
    top: int,
    stock: Sequence[int],
    adj: Adjacency,
    blocked_only: bool,
) -> int:
    """The best score of a position given by ranks (the fast search, no move list)."""
    return best_score_and_work(columns, top, stock, adj, blocked_only)[0]


def best_score_and_work(
    columns: Sequence[Sequence[int]],
    top: int,
    stock: Sequence[int],
    adj: Adjacency,
    blocked_only: bool,
) -> tuple[int, int]:
    """:func:`best_score` and the work it took (see ``BitsetSearch.work``)."""
    if not any(columns):
        return -len(stock), 0
    search = BitsetSearch(columns, top, stock, adj, blocked_only)
    return search.best()[0], search.work + 20_000  # + the cost of setting the search up


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
    if not any(columns):
        return SolveResult(-len(stock), True, (), ())
    search = BitsetSearch(
        [[c.rank for c in col] for col in columns],
        rank_code(foundation),
        [c.rank for c in stock],
        rules_adjacency(r),
        r.stock_only_when_blocked,
    )
    score, line = search.line()
    return SolveResult(
        best_score=score,
        clearable=score <= 0,
        moves=tuple(move_code(m) for m in line),
        steps=tuple(describe_line(columns, foundation, stock, line)),
    )


def describe_line(
    columns: Sequence[Sequence[Card]],
    foundation: Card | None,
    stock: Sequence[Card],
    line: Sequence[int],
) -> list[str]:
    """Each move of a line in words, with the card it moves."""
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


def deal_best_score(deal: Deal, rules: GolfSolitaireRules) -> int:
    """The best score of a deal with the stock known (no move list: the quickest query)."""
    return best_score(
        [[c.rank for c in col] for col in deal.tableau],
        rank_code(deal.foundation),
        [c.rank for c in deal.stock],
        rules_adjacency(rules),
        rules.stock_only_when_blocked,
    )


def can_clear(deal: Deal, rules: GolfSolitaireRules) -> bool:
    """Whether the tableau can be cleared with the stock order known."""
    return deal_best_score(deal, rules) <= 0
