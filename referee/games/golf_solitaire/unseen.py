"""Golf solitaire with the stock unseen: the best chance any player can have of clearing
the tableau, and a run that keeps it.

A player knows which cards are still in the stock (every card not in the tableau or on
the foundation) but not their order, so every order is equally likely. Between two turns
of the stock the only choice is where the run of tableau plays stops; the next card is
then drawn at random from the unseen ones. This search is the exact expectimax over that:
``chance(h, D)`` for column heights ``h`` about to turn the stock, with the multiset
``D`` of unseen ranks, is the mean over the next card's rank ``r`` (weighted by its count
in ``D``) of the best ``chance(e, D - r)`` over every place ``e`` the run from ``(h, r)``
may stop, 1 at an empty tableau and 0 when the stock is out.

It is a measuring tool, not a player: the number of (heights, unseen) states grows more
than tenfold with every two stock cards, so it is used from late positions
(``scripts/solitaire_eval --exact-from K``) to tell how much a bot loses against perfect
play from there on. Measured on deals 1-200: about 14 ms of CPU per decision on average
from 8 unseen cards; from 10, 214 ms on average, and on the hardest deal (119) one
decision of 175 s and 2.1 GB of memory.

Encodings, chosen so a state is one int: heights 3 bits per column (a column holds at
most 7 cards); the unseen multiset 3 bits per rank code (0 joker, 1..13), each the count.
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import EMPTY
from .solver import Adjacency, cards_left, check_columns, heights_key

_RANKS = 14  # rank codes 0 (joker) .. 13


def unseen_key(ranks: Sequence[int]) -> int:
    """A multiset of rank codes as one int, 3 bits of count per rank."""
    key = 0
    for r in ranks:
        key += 1 << (3 * r)
    return key


class UnseenStockSearch:
    """The expectimax of one dealt tableau. Positions later in the hole are prefixes of
    its columns, so one search (and its memo) serves a whole hole.

    ``columns``: ranks bottom to top (0 joker, 1..13); ``adj[top][rank]``: may ``rank``
    go on ``top``; ``blocked_only``: the stock may be turned only when no card fits.
    """

    def __init__(
        self, columns: Sequence[Sequence[int]], adj: Adjacency, blocked_only: bool
    ) -> None:
        check_columns(columns)
        self.columns = [list(col) for col in columns]
        self.adj = adj
        self.blocked_only = blocked_only
        self._moves: dict[int, tuple[tuple[int, int, int], ...]] = {}
        self._stops: dict[int, tuple[int, ...]] = {}
        self._chance: dict[int, float] = {}

    @property
    def states(self) -> int:
        """How many (heights, unseen) states have been valued so far."""
        return len(self._chance)

    def moves(self, h: int, top: int) -> tuple[tuple[int, int, int], ...]:
        """The plays from heights ``h`` onto ``top``: (column, heights after, rank played)."""
        key = h << 4 | top
        found = self._moves.get(key)
        if found is None:
            row = self.adj[top]
            plays = []
            for c, col in enumerate(self.columns):
                height = (h >> (3 * c)) & 7
                if height and row[col[height - 1]]:
                    plays.append((c, h - (1 << (3 * c)), col[height - 1]))
            found = self._moves[key] = tuple(plays)
        return found

    def stops(self, h: int, top: int) -> tuple[int, ...]:
        """Every heights vector the run from ``(h, top)`` may stop at to turn the stock,
        and the empty tableau (0) if the run can reach it. ``top`` is a card's rank here
        (the run starts from a stock card), never the empty foundation."""
        key = h << 4 | top
        found = self._stops.get(key)
        if found is None:
            plays = self.moves(h, top)
            ends = set()
            if h == 0 or not (self.blocked_only and plays):
                ends.add(h)
            for _c, after, r in plays:
                ends.update(self.stops(after, r))
            found = self._stops[key] = tuple(ends)
        return found

    def chance(self, h: int, unseen: int, left: int) -> float:
        """The best chance to clear from heights ``h`` about to turn the stock, with
        ``left`` cards unseen (the multiset ``unseen``)."""
        if h == 0:
            return 1.0
        if left == 0:
            return 0.0
        key = unseen << 21 | h
        value = self._chance.get(key)
        if value is None:
            total = 0.0
            for r in range(_RANKS):
                count = (unseen >> (3 * r)) & 7
                if count:
                    rest = unseen - (1 << (3 * r))
                    best = 0.0
                    for end in self.stops(h, r):
                        best = max(best, self.chance(end, rest, left - 1))
                        if best == 1.0:
                            break
                    total += count * best
            value = self._chance[key] = total / left
        return value

    def best_run(
        self, heights: Sequence[int], top: int, unseen: Sequence[int]
    ) -> tuple[float, list[int]]:
        """From a position mid-hole (``heights`` of this tableau's columns, ``top`` the
        foundation's top rank, ``unseen`` the ranks still in the stock): the best chance to
        clear and the columns to play, in order, before turning the stock (or to the end of
        the hole). On equal chances the run leaving fewest cards is taken."""
        start = heights_key(heights)
        d, left = unseen_key(unseen), len(unseen)
        path: dict[int, list[int]] = {start << 4 | top: []}
        stack = [(start, top)]
        best: tuple[float, int] = (-1.0, 0)
        best_path: list[int] = []
        while stack:
            h, t = stack.pop()
            here = path[h << 4 | t]
            plays = self.moves(h, t)
            may_stop = h == 0 or left == 0 or (t != EMPTY and not (self.blocked_only and plays))
            if may_stop:
                value = (self.chance(h, d, left), -cards_left(h))
                if value > best:
                    best, best_path = value, here
            for c, after, r in plays:
                key = after << 4 | r
                if key not in path:
                    path[key] = [*here, c]
                    stack.append((after, r))
        return best[0], best_path
