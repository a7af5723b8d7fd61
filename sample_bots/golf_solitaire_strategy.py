"""A golf_solitaire strategy bot: choose each run of tableau plays by cheap rollouts over
sampled stock orders, the best candidates again card by card.

The bot sees the tableau, its foundation and which cards are still in the stock (the
observation's ``unseen``), never their order. Between two turns of the stock its only
real choice is where to stop: which tableau position (column heights) to turn the stock
at. So at each decision it lists every position the current run can stop at, and scores
each by playing the rest of the hole SAMPLES times, once per random order of the unseen
cards (the same orders for every candidate, so the comparison is fair), with a fast
policy: after each stock card, stop the run where the fewest cards are left once the
*next* card's run is played too (it peeks one card ahead in the sampled order, the
order that sample stands for). A clear counts CLEAR_BONUS better than its score, since a
cleared tableau is what this game is won by.

A rollout sees its sample's next card each time it stops a run, which a player never
does, so it overrates stopping places that only some next cards suit. The REFINED best
candidates are therefore scored again card by card: for every rank the next stock card may
have (weighted by how many are unseen), the best of the NEXT_ENDS places the run after it
can stop (those leaving fewest cards), each scored by rollouts over NEXT_ORDERS orders of
the rest. It then makes the first move toward the best stopping position (turning the
stock if that is the current one).

Cost: the runs reachable from a (column heights, top card) pair depend on nothing else
in a hole, so they, the fewest cards they can leave and the rollout policy's choices are
computed once per hole (each from the positions one play away) and cached; a rollout is
then a few dictionary look-ups per stock card. The candidates' scores are kept until the
stock is turned, so the plays of one run reuse the first decision's work.

Effort: a fixed number of samples and no clock, so the play is the same on any machine
and under any load, and reproducible from the seed.

Randomness: a module-level generator seeded from ARENA_BOT_SEED, reseeded at the start of
every match from it and the match id (``reseed``), so a match's play is reproducible.
Run: ``python -m sample_bots.golf_solitaire_strategy`` with ARENA_TARGET and ARENA_TOKEN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.botkit import MatchRandom
from referee.botkit import solitaire_adjacency as adjacency

EMPTY = 14  # the rank code of an empty foundation
SAMPLES = 16  # sampled stock orders per stock card (shared by the candidates)
CLEAR_BONUS = 10.0  # how much better than its score a clear counts
REFINED = 2  # the best candidates by rollouts, scored again card by card
NEXT_ORDERS = 4  # sampled orders of the rest, per possible next stock card
NEXT_ENDS = 3  # run ends weighed after each possible next card (those leaving fewest cards)
COLUMNS = 7

_rng = MatchRandom()  # reseeded from ARENA_BOT_SEED and the match id at every match
stats = {"decisions": 0, "planned": 0, "rollouts": 0}

# A position's column heights as one int, 3 bits per column (column c at bits 3c..3c+2).
_SHIFTS = tuple((3 * c, 1 << (3 * c), 8 * c) for c in range(COLUMNS))
# Cards and sum of squared heights of 3 columns (9 bits), for a whole vector in 3 look-ups.
_CARDS9 = tuple((x & 7) + ((x >> 3) & 7) + (x >> 6) for x in range(512))
_SQUARES9 = tuple((x & 7) ** 2 + ((x >> 3) & 7) ** 2 + (x >> 6) ** 2 for x in range(512))


def _cards(hk: int) -> int:
    return _CARDS9[hk & 511] + _CARDS9[(hk >> 9) & 511] + _CARDS9[hk >> 18]


def _squares(hk: int) -> int:
    return _SQUARES9[hk & 511] + _SQUARES9[(hk >> 9) & 511] + _SQUARES9[hk >> 18]


def _shape(hk: int) -> tuple[int, int, int]:
    """How run ends are ranked when all else is equal: fewest cards, then the flattest
    columns (deep columns uncovered first), then the heights themselves (no ties)."""
    return (_cards(hk), _squares(hk), hk)


def reseed(match_id: int | str) -> None:
    """Restart the random stream for a match (from ARENA_BOT_SEED and the match id) and
    forget the previous hole, so the bot's play in a match does not depend on what it
    played before."""
    _rng.start_match(str(match_id))
    _hole.clear()
    _segment.clear()


def set_move_seconds(seconds: float) -> None:
    """Accepted for the SDK hook; the bot's effort is fixed and does not use the clock."""


class _Hole:
    """The hole in play: its columns' ranks, and caches that depend on nothing else."""

    def __init__(self, columns: list[list[int]], adj: tuple[tuple[bool, ...], ...]) -> None:
        self.columns = columns
        self.adj = adj
        flat = [EMPTY] * (8 * COLUMNS)
        for c, col in enumerate(columns):
            for h, r in enumerate(col, start=1):
                flat[8 * c + h] = r
        self.ranks = tuple(flat)  # ranks[8c + h]: the rank of column c's h-th card
        self.reach_cache: dict[int, frozenset[int]] = {}
        self.fewest_cache: dict[int, int] = {}
        self.policy_cache: dict[int, int] = {}
        self.moves_cache: dict[int, list[tuple[int, int, int]]] = {}

    def fits(self, columns: list[list[int]], adj: tuple[tuple[bool, ...], ...]) -> bool:
        """Whether ``columns`` can be this hole later on (each column a prefix of ours):
        then every cached answer holds for it."""
        return adj == self.adj and all(
            len(now) <= len(was) and was[: len(now)] == now
            for now, was in zip(columns, self.columns, strict=True)
        )

    def moves(self, hk: int, top: int) -> list[tuple[int, int, int]]:
        """The tableau plays from (hk, top): (column, heights after, card played)."""
        key = hk << 4 | top
        out = self.moves_cache.get(key)
        if out is None:
            ranks, row = self.ranks, self.adj[top]
            out = []
            for c, (shift, one, base) in enumerate(_SHIFTS):
                x = (hk >> shift) & 7
                if x:
                    r = ranks[base + x]
                    if row[r]:
                        out.append((c, hk - one, r))
            self.moves_cache[key] = out
        return out

    def reach(self, hk: int, top: int) -> frozenset[int]:
        """Every heights vector reachable from (hk, top) by tableau plays alone."""
        key = hk << 4 | top
        ends = self.reach_cache.get(key)
        if ends is None:
            found = {hk}
            for _c, nxt, r in self.moves(hk, top):
                found |= self.reach(nxt, r)
            ends = self.reach_cache[key] = frozenset(found)
        return ends

    def fewest(self, hk: int, top: int) -> int:
        """The fewest cards a run from (hk, top) can leave."""
        key = hk << 4 | top
        n = self.fewest_cache.get(key)
        if n is None:
            n = _cards(hk)
            for _c, nxt, r in self.moves(hk, top):
                m = self.fewest(nxt, r)
                if m < n:
                    n = m
            self.fewest_cache[key] = n
        return n

    def _policy_key(self, e: int, after: int) -> tuple[int, ...]:
        if after == EMPTY:
            return _shape(e)
        # _shape(e) written out: this runs millions of times per hole, unpacking costs 7%
        return (self.fewest(e, after) if e else -1, _cards(e), _squares(e), e)

    def policy_end(self, hk: int, top: int, after: int) -> int:
        """Where the rollout policy stops the run from (hk, top) when the next stock card
        is ``after`` (EMPTY: none): fewest cards left after that card's run, then fewest
        now, then the flattest columns (deep columns uncovered first)."""
        key = (hk << 4 | top) << 4 | after
        end = self.policy_cache.get(key)
        if end is None:
            end, best = hk, self._policy_key(hk, after)
            for _c, nxt, r in self.moves(hk, top):
                e = self.policy_end(nxt, r, after)
                k = self._policy_key(e, after)
                if k < best:
                    end, best = e, k
            self.policy_cache[key] = end
        return end

    def rollout(self, hk: int, order: Sequence[int]) -> float:
        """The policy's score from hk (about to turn the stock) if the stock comes in
        ``order``, less CLEAR_BONUS for a clear."""
        left = len(order)
        for i, r in enumerate(order):
            left -= 1
            hk = self.policy_end(hk, r, order[i + 1] if left else EMPTY)
            if not hk:
                return -left - CLEAR_BONUS
        return _cards(hk)

    def mean_rollout(self, hk: int, orders: Sequence[Sequence[int]]) -> float:
        """The rollouts' mean score from hk over ``orders``."""
        stats["rollouts"] += len(orders)
        return sum(self.rollout(hk, o) for o in orders) / len(orders)


_hole: list[_Hole] = []
_segment: dict[str, Any] = {}


def _hole_for(columns: list[list[int]], adj: tuple[tuple[bool, ...], ...]) -> _Hole:
    if not _hole or not _hole[0].fits(columns, adj):
        _hole[:] = [_Hole(columns, adj)]
        _segment.clear()
    return _hole[0]


def _stopping_points(
    hole: _Hole, hk: int, top: int, blocked_only: bool
) -> dict[int, tuple[str, bool]]:
    """Every position the current run can stop at: the first move toward it, and whether
    the stock may be turned there."""
    out: dict[int, tuple[str, bool]] = {}
    seen = {hk << 4 | top}
    stack = [(hk, top, "stock")]
    while stack:
        h, t, first = stack.pop()
        plays = hole.moves(h, t)
        for c, nxt, r in plays:
            if nxt << 4 | r not in seen:
                seen.add(nxt << 4 | r)
                stack.append((nxt, r, f"play {c}" if first == "stock" else first))
        may_turn = t != EMPTY and not (blocked_only and plays)
        was = out.get(h)
        out[h] = (was[0] if was else first, may_turn or bool(was and was[1]))
    return out


def _next_card_value(
    hole: _Hole, end: int, unseen: Sequence[int], segment: dict[str, Any]
) -> float:
    """The value of turning the stock at ``end``, taken card by card: for each rank the next
    stock card may have (weighted by how many are unseen), the best of the NEXT_ENDS run
    ends that leave fewest cards after it, each scored by rollouts over NEXT_ORDERS orders
    of the rest. Unlike a rollout, which sees its sample's next card when it stops a run,
    this chooses where to stop without knowing the card after."""
    counts: dict[int, int] = {}
    for r in unseen:
        counts[r] = counts.get(r, 0) + 1
    rest_orders = segment["rest_orders"]
    scores = segment["after_card"]
    total = 0.0
    for r, n in counts.items():
        orders = rest_orders.get(r)
        if orders is None:
            rest = list(unseen)
            rest.remove(r)
            orders = []
            for _ in range(NEXT_ORDERS if rest else 0):
                _rng.shuffle(rest)
                orders.append(tuple(rest))
            rest_orders[r] = orders
        ends = sorted(hole.reach(end, r), key=_shape)
        best = float("inf")
        for after in ends[:NEXT_ENDS]:
            if not after:  # cleared: the score is the stock left
                value = 1.0 - len(unseen) - CLEAR_BONUS
            elif not orders:  # the stock is out: the score is the cards left
                value = float(_cards(after))
            else:
                value = scores.get((after, r))
                if value is None:
                    value = scores[after, r] = hole.mean_rollout(after, orders)
            best = min(best, value)
        total += n * best
    return total / len(unseen)


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    stats["decisions"] += 1
    if len(legal_actions) == 1:
        return legal_actions[0]
    adj = adjacency(observation.queen_on_king, observation.wrap)
    columns = [[c.rank for c in group.cards] for group in observation.tableau]
    hole = _hole_for(columns, adj)
    top = observation.foundation[-1].rank if observation.foundation else EMPTY
    unseen = sorted(c.rank for c in observation.unseen)
    hk = sum(len(col) << shift for col, (shift, _o, _b) in zip(columns, _SHIFTS, strict=True))
    stats["planned"] += 1
    key = (id(hole), tuple(unseen))
    if _segment.get("key") != key:
        # A new stock card (or hole): new sampled orders, no scores yet.
        orders = []
        for _ in range(SAMPLES if unseen else 0):
            _rng.shuffle(unseen)
            orders.append(tuple(unseen))
        _segment.clear()
        _segment.update(
            key=key, orders=orders, values={}, refined={}, rest_orders={}, after_card={}
        )
    orders, values, refined = _segment["orders"], _segment["values"], _segment["refined"]
    best_code, best_value = legal_actions[0], float("inf")
    candidates: list[tuple[float, int, int, str]] = []  # (rollout value, found, end, move)
    for found, (end, (first, may_turn)) in enumerate(
        _stopping_points(hole, hk, top, observation.stock_only_when_blocked).items()
    ):
        if end == hk and "stock" not in legal_actions:
            continue
        if not end or not unseen:  # the hole ends here: its score is known
            value = -len(unseen) - CLEAR_BONUS if not end else float(_cards(end))
            if value < best_value:
                best_code, best_value = first, value
        elif may_turn:
            value = values.get(end)
            if value is None:
                value = values[end] = hole.mean_rollout(end, orders)
            candidates.append((value, found, end, first))
    candidates.sort()  # on a tie the first found (the deepest run) stays ahead
    if len(candidates) > 1 and REFINED:  # the best few again, card by card
        for _value, _found, end, first in candidates[:REFINED]:
            value = refined.get(end)
            if value is None:
                value = refined[end] = _next_card_value(hole, end, unseen, _segment)
            if value < best_value:
                best_code, best_value = first, value
    elif candidates and candidates[0][0] < best_value:
        best_code = candidates[0][3]
    return best_code if best_code in legal_actions else legal_actions[0]


if __name__ == "__main__":
    from referee.client import run_bot

    def _on_start(start: Any) -> None:
        reseed(start.match_id)
        set_move_seconds(start.move_seconds)

    run_bot(choose, name="golf_solitaire_strategy", on_match_start=_on_start)
