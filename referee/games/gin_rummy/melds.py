"""Gin rummy meld arithmetic on 52-bit card masks: melds, deadwood, knock options, layoffs.

A hand is an ``int`` whose bit ``Card.index`` is set for every card held
(suit-major: bits 0-12 are AC..KC, 13-25 AD..KD, 26-38 AH..KH, 39-51 AS..KS),
so a run is a block of consecutive bits inside one suit and a set is one bit
per suit at the same offset. Everything here is pure and cached where the same
question comes back (the showdown, the strategy bot); the per-turn knock check
(:func:`discard_deadwoods`) is written to be cheap without a cache because a
random playout rarely meets the same 11-card hand twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from referee.cards import STANDARD_DECK

M13 = (1 << 13) - 1

# Card value by index: ace 1, 2-10 face value, J Q K 10.
VALUE: tuple[int, ...] = tuple(min(c.rank, 10) for c in STANDARD_DECK)


def _suit_value_table() -> tuple[int, ...]:
    table = [0] * (1 << 13)
    for m in range(1, 1 << 13):
        low = m & -m
        table[m] = table[m ^ low] + min(low.bit_length(), 10)
    return tuple(table)


# Sum of card values for every 13-bit suit mask, so a hand's value is 4 lookups.
_SUIT_VALUE = _suit_value_table()

# For a rank offset b (0 = ace): the mask of its four cards.
RANK_MASK: tuple[int, ...] = tuple(
    (1 << b) | (1 << (13 + b)) | (1 << (26 + b)) | (1 << (39 + b)) for b in range(13)
)


def _quad_sets(b: int) -> tuple[int, ...]:
    full = RANK_MASK[b]
    triples = tuple(full & ~(1 << (13 * s + b)) for s in range(4))
    return (full, *triples)


_QUAD_SETS: tuple[tuple[int, ...], ...] = tuple(_quad_sets(b) for b in range(13))


def mask_value(m: int) -> int:
    """Total card value of the cards in ``m``."""
    return (
        _SUIT_VALUE[m & M13]
        + _SUIT_VALUE[(m >> 13) & M13]
        + _SUIT_VALUE[(m >> 26) & M13]
        + _SUIT_VALUE[m >> 39]
    )


@cache
def _suit_indices(m: int) -> tuple[int, ...]:
    """The card indices in ``m``, a mask of one suit's 13 bits shifted into place."""
    return tuple(i for i in range(m.bit_length()) if m >> i & 1)


# Meld search turns masks into card indices on every decision: a cached lookup per suit
# beats a loop over the bits.
_SUITS = (0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39)


def bits(m: int) -> list[int]:
    """The card indices in ``m``, ascending."""
    c, d, h, s = _SUITS
    return [
        *_suit_indices(m & c),
        *_suit_indices(m & d),
        *_suit_indices(m & h),
        *_suit_indices(m & s),
    ]


@cache
def _suit_runs(sm: int) -> tuple[int, ...]:
    """Every run (3+ consecutive ranks) inside a 13-bit suit mask, as 13-bit masks."""
    out: list[int] = []
    b = 0
    while b < 13:
        if not (sm >> b) & 1:
            b += 1
            continue
        end = b
        while end + 1 < 13 and (sm >> (end + 1)) & 1:
            end += 1
        for lo in range(b, end - 1):
            for hi in range(lo + 2, end + 1):
                out.append(((1 << (hi - lo + 1)) - 1) << lo)
        b = end + 1
    return tuple(out)


def melds_in(h: int) -> list[int]:
    """Every meld (run of 3+, set of 3 or 4) contained in hand ``h``, as masks.

    Sub-melds are listed too (each 3-card part of a set of four, every sub-run of a
    long run), because an arrangement may use part of a meld and the rest elsewhere.
    """
    out: list[int] = []
    s0 = h & M13
    s1 = (h >> 13) & M13
    s2 = (h >> 26) & M13
    s3 = h >> 39
    for sm, shift in ((s0, 0), (s1, 13), (s2, 26), (s3, 39)):
        if sm & (sm >> 1) & (sm >> 2):
            out.extend(r << shift for r in _suit_runs(sm))
    tri = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    while tri:
        low = tri & -tri
        b = low.bit_length() - 1
        tri ^= low
        held = RANK_MASK[b] & h
        if held == RANK_MASK[b]:
            out.extend(_QUAD_SETS[b])
        else:
            out.append(held)
    return out


def has_meld(h: int) -> bool:
    """True when hand ``h`` contains at least one run or set."""
    s0 = h & M13
    s1 = (h >> 13) & M13
    s2 = (h >> 26) & M13
    s3 = h >> 39
    return bool(
        (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
        or s0 & (s0 >> 1) & (s0 >> 2)
        or s1 & (s1 >> 1) & (s1 >> 2)
        or s2 & (s2 >> 1) & (s2 >> 2)
        or s3 & (s3 >> 1) & (s3 >> 2)
    )


def _collections(melds: list[int]) -> list[tuple[int, int]]:
    """(union mask, melded value) of every set of pairwise disjoint melds, the empty one first."""
    out = [(0, 0)]
    n = len(melds)
    if not n:
        return out
    values = [mask_value(m) for m in melds]

    def extend(start: int, used: int, val: int) -> None:
        for i in range(start, n):
            m = melds[i]
            if not m & used:
                u = used | m
                v = val + values[i]
                out.append((u, v))
                extend(i + 1, u, v)

    extend(0, 0, 0)
    return out


@lru_cache(maxsize=1 << 18)
def deadwood(h: int) -> int:
    """The least deadwood count of hand ``h`` over all meld arrangements."""
    melds = melds_in(h)
    if not melds:
        return mask_value(h)
    return mask_value(h) - max(v for _, v in _collections(melds))


def discard_deadwoods(h: int) -> list[tuple[int, int]]:
    """For every card ``c`` in ``h``: (c, least deadwood of ``h`` without ``c``).

    One meld search of ``h`` serves all discards: the best arrangement without
    ``c`` is the best collection of disjoint melds that does not use ``c``.
    """
    total = mask_value(h)
    melds = melds_in(h)
    idx = bits(h)
    if not melds:
        return [(c, total - VALUE[c]) for c in idx]
    cols = _collections(melds)
    out = []
    for c in idx:
        bit = 1 << c
        best = 0
        for u, v in cols:
            if v > best and not u & bit:
                best = v
        out.append((c, total - VALUE[c] - best))
    return out


# ---------------------------------------------------------------------------------------
# The showdown: the knocker's arrangement, the defender's melds and layoffs.


@dataclass(frozen=True, slots=True)
class Showdown:
    """The laid-down result of a knock, as masks. ``layoffs[i]`` went onto ``knocker_melds[i]``."""

    knocker_melds: tuple[int, ...]
    knocker_deadwood: int  # mask of the knocker's unmelded cards
    defender_melds: tuple[int, ...]
    layoffs: tuple[int, ...]
    defender_deadwood: int  # mask of the defender's cards left unmelded and not laid off


def _arrangements(h: int) -> list[tuple[int, ...]]:
    """Every set of pairwise disjoint melds in ``h`` (the empty one first), as meld tuples."""
    melds = sorted(melds_in(h))
    out: list[tuple[int, ...]] = [()]

    def extend(start: int, used: int, chosen: tuple[int, ...]) -> None:
        for i in range(start, len(melds)):
            m = melds[i]
            if not m & used:
                nxt = (*chosen, m)
                out.append(nxt)
                extend(i + 1, used | m, nxt)

    extend(0, 0, ())
    return out


def _union(melds: tuple[int, ...]) -> int:
    u = 0
    for m in melds:
        u |= m
    return u


def layoffs_onto(knocker_melds: tuple[int, ...], rest: int) -> tuple[int, ...]:
    """The cards of ``rest`` laid off onto each knocker meld, laying off as much as possible.

    Runs take every card that extends them at either end, chaining (a card extends
    a run that an earlier layoff extended); a set of three takes its fourth card.
    Runs go first: a card that could complete a set or extend a run is better on the
    run, where it may carry further cards.
    """
    laid = 0
    out = [0] * len(knocker_melds)
    for i, m in enumerate(knocker_melds):
        if not is_run(m):
            continue
        first = (m & -m).bit_length() - 1
        base = 13 * (first // 13)
        got = 0
        for b in range(first - 1, base - 1, -1):
            bit = 1 << b
            if not bit & rest or bit & laid:
                break
            got |= bit
        for b in range(m.bit_length(), base + 13):
            bit = 1 << b
            if not bit & rest or bit & laid:
                break
            got |= bit
        laid |= got
        out[i] = got
    for i, m in enumerate(knocker_melds):
        if is_run(m) or m.bit_count() != 3:
            continue
        fourth = RANK_MASK[((m & -m).bit_length() - 1) % 13] & ~m
        if fourth & rest and not fourth & laid:
            laid |= fourth
            out[i] = fourth
    return tuple(out)


def is_run(m: int) -> bool:
    """True for a run (cards of one suit), False for a set."""
    low = (m & -m).bit_length() - 1
    return m >> (13 * (low // 13)) <= M13


def _defender_best(
    defender: int, knocker_melds: tuple[int, ...], allow_layoffs: bool
) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(deadwood count, own melds, layoffs) minimising the defender's deadwood."""
    total = mask_value(defender)
    best: tuple[int, int, tuple[int, ...], tuple[int, ...]] | None = None
    for own in _arrangements(defender):
        u = _union(own)
        own_value = mask_value(u)
        lay = layoffs_onto(knocker_melds, defender & ~u) if allow_layoffs else ()
        removed = own_value + mask_value(_union(lay))
        # Most removed wins; on a tie prefer melding own cards to laying them off.
        if best is None or (removed, own_value) > (best[0], best[1]):
            best = (removed, own_value, own, lay)
    assert best is not None
    removed, _, own, lay = best
    return total - removed, own, lay if lay else (0,) * len(knocker_melds)


@lru_cache(maxsize=4096)
def showdown(knocker: int, defender: int, allow_layoffs: bool) -> Showdown:
    """Lay down a knock: the knocker's least-deadwood arrangement (ties: the one leaving the
    defender the highest deadwood, i.e. the fewest layoff points; then fewer melds; then the
    lowest meld masks), and the defender's arrangement and layoffs that minimise its deadwood.
    ``allow_layoffs`` is False against gin."""
    arrangements = _arrangements(knocker)
    best_value = max(mask_value(_union(a)) for a in arrangements)
    best_key: tuple[int, int, tuple[int, ...]] | None = None
    chosen: Showdown | None = None
    for a in arrangements:
        if mask_value(_union(a)) != best_value:
            continue
        melds = tuple(sorted(a))
        dead, own, lay = _defender_best(defender, melds, allow_layoffs)
        key = (-dead, len(melds), melds)
        if best_key is None or key < best_key:
            best_key = key
            laid = _union(lay)
            chosen = Showdown(
                knocker_melds=melds,
                knocker_deadwood=knocker & ~_union(melds),
                defender_melds=tuple(sorted(own)),
                layoffs=lay,
                defender_deadwood=defender & ~_union(own) & ~laid,
            )
    assert chosen is not None
    return chosen
