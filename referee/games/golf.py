"""Golf, the multi-player card game (rules: docs/games/golf.md): the engine.

This module owns the golf rule options (:class:`GolfRules`), the immutable match
state (:class:`GolfState`), the turn structure of every variant (opening flips or
peeks, drawing, swapping, discarding, knocking, the last round of turns), the
cancellation and scoring of a layout (:func:`layout_points`), the views a seat or
a spectator receives (:class:`GolfView`) and the engine object ``GAME``.

Positions are numbered row-major from 0 (top-left); the bottom row is the row
nearest its owner. In ``four_in_hand`` positions 0-3 are simply the four cards
held in hand. Action codes: ``flip 3``, ``peek 2``, ``draw stock``,
``draw discard``, ``swap 4``, ``discard``, ``knock``.

Knowledge model (what the views show): a face-up card is known to everyone; in
the face-down variants a card the owner peeked at, or drew from the stock and
placed, is known to its owner only; a card taken from the discard pile and placed
is known to everyone; any other face-down card is known to nobody, its owner
included. In ``four_in_hand`` the owner always knows all four cards.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import ClassVar, Literal

from referee.cards import JACK, Card, Suit, make_deck, shuffled
from referee.game import (
    Event,
    GameBase,
    InvalidAction,
    Outcome,
    chance_rng,
    ranks_from_scores,
    with_item,
)
from referee.rules import RuleOptions, RulesError, option

__all__ = [
    "GAME",
    "Golf",
    "GolfAction",
    "GolfHoleResult",
    "GolfLayout",
    "GolfRules",
    "GolfRulesView",
    "GolfSlot",
    "GolfState",
    "GolfView",
    "cancel_groups",
    "card_value",
    "default_decks",
    "layout_points",
    "scripted_state",
]

MIN_SEATS, MAX_SEATS = 2, 12
# The most holes a match has: holes is at most this, and with holes=none (the match ends
# on target_score) the match stops after this many too, a hard length bound.
HOLE_CAP = 100
FACE_UP_VARIANTS = ("six", "eight", "ten", "nine")
COLUMN_PAIR_VARIANTS = ("six", "eight", "ten")
KNOCK_VARIANTS = ("four_face_down", "four_in_hand")


@dataclass(frozen=True, slots=True)
class _Shape:
    rows: int
    cols: int
    opening: int  # cards each player turns up (flip) or looks at (peek) before play
    opening_phase: Literal["flip", "peek", "draw"]

    @property
    def size(self) -> int:
        return self.rows * self.cols


SHAPES: dict[str, _Shape] = {
    "six": _Shape(2, 3, 2, "flip"),
    "eight": _Shape(2, 4, 2, "flip"),
    "ten": _Shape(2, 5, 2, "flip"),
    "nine": _Shape(3, 3, 3, "flip"),
    "four_face_down": _Shape(2, 2, 2, "peek"),
    "four_in_hand": _Shape(1, 4, 0, "draw"),
}


# ---------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class GolfRules(RuleOptions):
    """Every rule option of golf.md with its default."""

    variant: Literal["six", "eight", "ten", "nine", "four_face_down", "four_in_hand"] = option(
        "six",
        "layout: six (3x2), eight (4x2), ten (5x2), nine (3x3, lines of three cancel), "
        "four_face_down (2x2 never turned up, knocking), four_in_hand (4 cards in hand)",
    )
    scoring: Literal["basic", "hard"] = option(
        "basic", "scoring guide: basic (J Q 10, K 0) or hard (J 11, Q 12, K 13)"
    )
    jokers: int = option(0, "jokers shuffled in per deck (0 or 2), worth -2 each")
    bonus_rank: Literal["none", "2", "one_eyed_jacks"] = option(
        "none", "bonus cards worth -2: none, every 2, or the one-eyed jacks (JH, JS)"
    )
    decks: int | None = option(
        None,
        "decks shuffled together; none = by player count (6/8/9/10-card: 1 for 2-3, 2 for "
        "4-7, 3 for 8+; 4-card: 1 for 2-7, 2 for 8+)",
    )
    holes: int | None = option(9, "holes in the match (none: play to target_score)")
    target_score: int | None = option(
        None, "the match ends after the hole in which a total reaches this score"
    )
    max_reshuffles: int = option(
        2, "times the stock may be rebuilt from the discard pile; then an empty stock ends the hole"
    )
    max_turns: int = option(60, "turns per player after which the hole ends and is scored")
    peek_near_only: bool = option(
        False, "four_face_down: players peek only at the two nearest cards (the bottom row)"
    )
    initial_flips_same_column: bool = option(
        False, "six family: the opening cards must be turned up in one column"
    )
    pairs_anywhere: bool = option(
        False, "six family: any two equal cards in the layout cancel, not only in a column"
    )
    four_of_a_kind_bonus: bool = option(
        False,
        "six/eight/ten: two adjacent columns paired in the same rank score 0 and every "
        "other player adds 10 for the hole",
    )
    diagonal_pairs: bool = option(False, "four_face_down: diagonal pairs cancel too")
    no_pairs: bool = option(False, "four_face_down: nothing cancels")
    final_turn_stock_only: bool = option(
        False, "in the last turns after the hole was ended, only the stock may be drawn"
    )
    remove_cancelled: bool = option(
        False,
        "face-up variants: a completed cancelled column (nine: line) goes to the bottom of "
        "the discard pile; its places score 0 and cannot be swapped",
    )
    early_end_penalty: Literal["none", "plus_ten", "add_lowest"] = option(
        "none",
        "the player who ended the hole, unless lowest (ties count as lowest), adds 10 "
        "(plus_ten) or the lowest score among the others (add_lowest)",
    )

    def __post_init__(self) -> None:
        _check_rules(self)


def _check_rules(r: GolfRules) -> None:
    def need(cond: bool, message: str) -> None:
        if not cond:
            raise RulesError(message)

    need(r.variant in SHAPES, f"variant must be one of {', '.join(SHAPES)}")
    need(r.jokers in (0, 2), f"jokers={r.jokers}: jokers per deck must be 0 or 2")
    need(
        r.jokers == 0 or r.bonus_rank == "none",
        "use either jokers or bonus cards (bonus_rank), not both",
    )
    need(r.decks is None or 1 <= r.decks <= 12, f"decks={r.decks}: must be 1 to 12 (or none)")
    need(
        r.holes is None or 1 <= r.holes <= HOLE_CAP,
        f"holes={r.holes}: must be from 1 to {HOLE_CAP} (or none)",
    )
    need(
        r.target_score is None or r.target_score >= 1,
        f"target_score={r.target_score}: must be at least 1 (or none)",
    )
    need(
        r.holes is not None or r.target_score is not None,
        "holes=none needs a target_score, or the match would never end",
    )
    need(r.max_reshuffles >= 0, f"max_reshuffles={r.max_reshuffles}: must be 0 or more")
    need(r.max_turns >= 1, f"max_turns={r.max_turns}: must be at least 1")
    v = r.variant
    only = {
        "peek_near_only": ("four_face_down",),
        "initial_flips_same_column": FACE_UP_VARIANTS,
        "pairs_anywhere": FACE_UP_VARIANTS,
        "four_of_a_kind_bonus": COLUMN_PAIR_VARIANTS,
        "diagonal_pairs": ("four_face_down",),
        "no_pairs": ("four_face_down",),
        "remove_cancelled": FACE_UP_VARIANTS,
    }
    for name, variants in only.items():
        need(
            not getattr(r, name) or v in variants,
            f"{name} applies only to variant {' / '.join(variants)}, not {v}",
        )
    need(
        not (r.diagonal_pairs and r.no_pairs),
        "diagonal_pairs and no_pairs contradict each other: choose one",
    )


def default_decks(variant: str, seats: int) -> int:
    """Decks by player count (golf.md "Players and cards")."""
    if variant in FACE_UP_VARIANTS:
        return 1 if seats <= 3 else 2 if seats <= 7 else 3
    return 1 if seats <= 7 else 2


def _decks(rules: GolfRules, seats: int) -> int:
    return rules.decks if rules.decks is not None else default_decks(rules.variant, seats)


def _cards_needed(rules: GolfRules, seats: int) -> int:
    # The layouts, the card turned up to start the discard pile, and a stock of at least one.
    return seats * SHAPES[rules.variant].size + 2


def _cards_held(rules: GolfRules, seats: int) -> int:
    decks = _decks(rules, seats)
    return decks * (52 + rules.jokers)


def _check_deal(rules: GolfRules, seats: int) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise RulesError(f"golf is played by {MIN_SEATS} to {MAX_SEATS} players, not {seats}")
    need, held = _cards_needed(rules, seats), _cards_held(rules, seats)
    if need > held:
        decks = _decks(rules, seats)
        raise RulesError(
            f"{seats} players of {rules.variant} need {need} cards (layouts, the upcard and a "
            f"stock) but {decks} deck(s) hold {held}: raise decks or seat fewer players"
        )


# ---------------------------------------------------------------------------- scoring

_BASIC = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 0)
_HARD = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
_ONE_EYED = frozenset({(JACK, Suit.HEARTS), (JACK, Suit.SPADES)})


def card_value(c: Card, scoring: str = "basic", bonus_rank: str = "none") -> int:
    """Points of one uncancelled card under a scoring guide and bonus-card choice."""
    if c.is_joker:
        return -2
    if bonus_rank == "2" and c.rank == 2:
        return -2
    if bonus_rank == "one_eyed_jacks" and (c.rank, c.suit) in _ONE_EYED:
        return -2
    return (_HARD if scoring == "hard" else _BASIC)[c.rank]


@cache
def _value_table(scoring: str, bonus_rank: str) -> tuple[int, ...]:
    table = [0] * 53
    for c in make_deck(1, 1):
        table[c.index] = card_value(c, scoring, bonus_rank)
    return tuple(table)


def _pairs(cells: Sequence[int]) -> list[int]:
    return [(1 << a) | (1 << b) for i, a in enumerate(cells) for b in cells[i + 1 :]]


@cache
def cancel_groups(rules: GolfRules) -> tuple[int, ...]:
    """Bitmasks of the position groups that cancel when all their cards share a rank."""
    shape = SHAPES[rules.variant]
    rows, cols = shape.rows, shape.cols
    everything = list(range(shape.size))
    col_lines = [sum(1 << (r * cols + c) for r in range(rows)) for c in range(cols)]
    row_lines = [sum(1 << (r * cols + c) for c in range(cols)) for r in range(rows)]
    groups: list[int] = []
    v = rules.variant
    if v in COLUMN_PAIR_VARIANTS:
        groups = _pairs(everything) if rules.pairs_anywhere else col_lines
    elif v == "nine":
        groups = row_lines + col_lines + (_pairs(everything) if rules.pairs_anywhere else [])
    elif v == "four_face_down":
        if not rules.no_pairs:
            groups = row_lines + col_lines + ([0b1001, 0b0110] if rules.diagonal_pairs else [])
    else:  # four_in_hand: any two equal cards in hand
        groups = _pairs(everything)
    return tuple(dict.fromkeys(groups))


@cache
def _removal_lines(rules: GolfRules) -> tuple[int, ...]:
    """Groups that leave the layout under remove_cancelled: columns, and rows too in nine."""
    if not rules.remove_cancelled:
        return ()
    shape = SHAPES[rules.variant]
    cols = [sum(1 << (r * shape.cols + c) for r in range(shape.rows)) for c in range(shape.cols)]
    if rules.variant == "nine":
        rows = [
            sum(1 << (r * shape.cols + c) for c in range(shape.cols)) for r in range(shape.rows)
        ]
        return tuple(rows + cols)
    return tuple(cols)


def _best_groups(cands: tuple[int, ...], values: tuple[int, ...]) -> int:
    """The union of a maximal set of disjoint groups removing the most points.

    Every group that can still cancel must cancel (the rule is not optional, so a
    pair of jokers cancels even though that raises the score); among such maximal
    sets the one removing most points wins (golf.md, four_face_down resolution).
    """
    if len(cands) == 1:
        return cands[0]
    union = 0
    for g in cands:
        if union & g:
            break
        union |= g
    else:
        return union  # disjoint groups: all of them cancel
    worth = {g: sum(values[i] for i in range(len(values)) if g >> i & 1) for g in cands}
    memo: dict[int, tuple[int, int]] = {}

    def go(used: int) -> tuple[int, int]:
        if used in memo:
            return memo[used]
        best: tuple[int, int] | None = None
        for g in cands:
            if not g & used:
                pts, mask = go(used | g)
                pts += worth[g]
                if best is None or pts > best[0]:
                    best = (pts, mask | g)
        memo[used] = best if best is not None else (0, 0)
        return memo[used]

    return go(0)[1]


@lru_cache(maxsize=1 << 16)
def _cancelled(groups: tuple[int, ...], ranks: tuple[int, ...], values: tuple[int, ...]) -> int:
    by_rank: dict[int, int] = {}
    for i, r in enumerate(ranks):
        if r >= 0:
            by_rank[r] = by_rank.get(r, 0) | 1 << i
    mask = 0
    for cells in by_rank.values():
        if cells & (cells - 1) == 0:
            continue  # a single card of that rank
        cands = tuple(g for g in groups if g & cells == g)
        if cands:
            mask |= _best_groups(cands, values)
    return mask


def layout_points(rules: GolfRules, cells: Sequence[Card | None]) -> tuple[int, int]:
    """(points, cancelled positions bitmask) of a layout with every card turned up.

    ``None`` marks a place removed under remove_cancelled (it scores 0).
    """
    table = _value_table(rules.scoring, rules.bonus_rank)
    ranks = tuple(-1 if c is None else c.rank for c in cells)
    values = tuple(0 if c is None else table[c.index] for c in cells)
    mask = _cancelled(cancel_groups(rules), ranks, values)
    return sum(v for i, v in enumerate(values) if not mask >> i & 1), mask


def _four_of_a_kind_blocks(
    rules: GolfRules, cells: Sequence[Card | None], gone: Sequence[Card | None]
) -> int:
    """Pairs of adjacent columns that are pairs of one rank (counted left to right,
    disjoint). A column pair removed under remove_cancelled is still the pair its player
    made (else the two options would all but exclude each other: a face-up pair is
    removed as soon as it is made)."""
    shape = SHAPES[rules.variant]
    cols = shape.cols

    def col_rank(c: int) -> int:
        held = [gone[p] if cells[p] is None else cells[p] for p in (c, c + cols)]
        ranks = [-1 if h is None else h.rank for h in held]
        return ranks[0] if ranks[0] == ranks[1] and ranks[0] >= 0 else -1

    col_ranks = [col_rank(c) for c in range(cols)]
    blocks, c = 0, 0
    while c < cols - 1:
        if col_ranks[c] >= 0 and col_ranks[c] == col_ranks[c + 1]:
            blocks += 1
            c += 2
        else:
            c += 1
    return blocks


# ---------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class GolfAction:
    """One decision; build with :meth:`Golf.decode` (instances are interned)."""

    kind: Literal["flip", "peek", "draw stock", "draw discard", "swap", "discard", "knock"]
    pos: int = -1

    @property
    def code(self) -> str:
        return f"{self.kind} {self.pos}" if self.pos >= 0 else self.kind

    def __str__(self) -> str:
        return self.code


MAX_POSITIONS = 10
_ACTIONS: dict[str, GolfAction] = {}
for _kind in ("flip", "peek", "swap"):
    for _p in range(MAX_POSITIONS):
        _a = GolfAction(_kind, _p)
        _ACTIONS[_a.code] = _a
for _kind in ("draw stock", "draw discard", "discard", "knock"):
    _ACTIONS[_kind] = GolfAction(_kind)  # type: ignore[arg-type]
DRAW_STOCK = _ACTIONS["draw stock"]
DRAW_DISCARD = _ACTIONS["draw discard"]
DISCARD = _ACTIONS["discard"]
KNOCK = _ACTIONS["knock"]


@cache
def _positional(kind: str, mask: int, with_discard: bool = False) -> tuple[GolfAction, ...]:
    acts = [_ACTIONS[f"{kind} {p}"] for p in range(MAX_POSITIONS) if mask >> p & 1]
    if with_discard:
        acts.append(DISCARD)
    return tuple(sorted(acts, key=lambda a: a.code))


@cache
def _draws(discard_ok: bool, knock_ok: bool) -> tuple[GolfAction, ...]:
    acts = [DRAW_STOCK] + ([DRAW_DISCARD] if discard_ok else []) + ([KNOCK] if knock_ok else [])
    return tuple(sorted(acts, key=lambda a: a.code))


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class GolfHoleResult:
    """The scoring of one finished hole (also a view field)."""

    hole: int  # 1-based
    dealer: int
    ended_by: int  # the seat that turned its last card up or knocked; -1 if the bound ended it
    knocked: bool
    end: str  # "out", "knock", "max_turns", "max_reshuffles"
    card_points: tuple[int, ...]  # per seat: the layout's points after cancellation
    bonus_points: tuple[int, ...]  # per seat: +10 per four-of-a-kind block of another player
    penalties: tuple[int, ...]  # per seat: early-end penalty
    scores: tuple[int, ...]  # per seat: the hole's score (the sum of the three above)


Phase = Literal["flip", "peek", "draw", "place", "over"]


@dataclass(frozen=True, slots=True)
class GolfState:
    """A golf match at one moment. Stock and discard tuples have their top card last."""

    rules: GolfRules
    seats: int
    seed: int
    decks: int
    hole: int  # 0-based
    dealer: int
    cells: tuple[tuple[Card | None, ...], ...]  # per seat, row-major; None = removed
    face_up: tuple[int, ...]  # per seat, bitmask (removed places count as face up)
    owner_known: tuple[int, ...]  # per seat: face-down cards its owner knows
    public_known: tuple[int, ...]  # per seat: face-down cards everybody knows
    # per seat: the card removed from each place (None where none was). It stays the
    # place's own for the four-of-a-kind blocks and is shown in the removed slot.
    gone: tuple[tuple[Card | None, ...], ...]
    stock: tuple[Card, ...]
    discard: tuple[Card, ...]
    phase: Phase
    current: int  # the seat to act (-1 when over)
    opening_left: int  # flips or peeks the current seat still makes
    holding: Card | None  # the drawn card, between draw and place
    from_discard: bool
    ender: int  # who turned the last card up or knocked, -1
    knocked: bool
    final_left: int  # last turns still to be taken after the hole was ended
    turns: int  # turns completed this hole (a knock is a turn)
    reshuffles: int
    totals: tuple[int, ...]
    results: tuple[GolfHoleResult, ...]
    events: tuple[Event, ...]


def _full(rules: GolfRules) -> int:
    return (1 << SHAPES[rules.variant].size) - 1


def _deal_state(
    rules: GolfRules,
    seats: int,
    seed: int,
    hole: int,
    layouts: Sequence[Sequence[Card]],
    upcard: Card,
    stock_top_first: Sequence[Card],
    totals: tuple[int, ...],
    results: tuple[GolfHoleResult, ...],
    prior: tuple[Event, ...] = (),
) -> GolfState:
    shape = SHAPES[rules.variant]
    dealer = hole % seats
    first = (dealer + 1) % seats
    known = _full(rules) if rules.variant == "four_in_hand" else 0
    what = {"flip": f"turns up {shape.opening} cards", "peek": "peeks at 2 cards", "draw": ""}
    opening = what[shape.opening_phase]
    text = (
        f"Hole {hole + 1}: seat {dealer} deals {shape.size} cards each; the discard pile "
        f"starts with {upcard.code}; {len(stock_top_first)} cards in the stock; seat {first} "
        + (f"{opening} first" if opening else "plays first")
    )
    events = (*prior, Event("deal", text, seat=dealer, hand=hole + 1))
    if rules.variant == "four_in_hand":
        events += tuple(
            Event(
                "hand",
                f"seat {p} picks up {shape.size} cards",
                seat=p,
                private_text=f"seat {p} picks up {' '.join(c.code for c in layouts[p])}",
                visible_to=frozenset({p}),
                hand=hole + 1,
            )
            for p in range(seats)
        )
    return GolfState(
        rules=rules,
        seats=seats,
        seed=seed,
        decks=_decks(rules, seats),
        hole=hole,
        dealer=dealer,
        cells=tuple(tuple(lay) for lay in layouts),
        face_up=(0,) * seats,
        owner_known=(known,) * seats,
        public_known=(0,) * seats,
        gone=((None,) * shape.size,) * seats,
        stock=tuple(reversed(stock_top_first)),
        discard=(upcard,),
        phase=shape.opening_phase,
        current=first,
        opening_left=shape.opening,
        holding=None,
        from_discard=False,
        ender=-1,
        knocked=False,
        final_left=0,
        turns=0,
        reshuffles=0,
        totals=totals,
        results=results,
        events=events,
    )


def _random_deal(
    rules: GolfRules,
    seats: int,
    seed: int,
    hole: int,
    totals: tuple[int, ...],
    results: tuple[GolfHoleResult, ...],
    prior: tuple[Event, ...] = (),
) -> GolfState:
    size = SHAPES[rules.variant].size
    decks = _decks(rules, seats)
    deck = shuffled(make_deck(decks, rules.jokers * decks), chance_rng(seed, hole, "deal"))
    first = (hole % seats + 1) % seats
    layouts: list[list[Card]] = [[] for _ in range(seats)]
    # Dealt one at a time, clockwise from the dealer's left.
    for i in range(seats * size):
        layouts[(first + i) % seats].append(deck[i])
    n = seats * size
    return _deal_state(
        rules, seats, seed, hole, layouts, deck[n], deck[n + 1 :], totals, results, prior
    )


def scripted_state(
    rules: GolfRules,
    seats: int,
    layouts: Sequence[Sequence[Card]],
    upcard: Card,
    stock: Sequence[Card],
    *,
    seed: int = 0,
    hole: int = 0,
    totals: Sequence[int] | None = None,
) -> GolfState:
    """A match starting at hole ``hole`` (0-based) from a chosen deal, for tests and puzzles.

    ``layouts[seat]`` lists that seat's cards row-major; ``stock`` is listed top first.
    Later holes are dealt from the seeded stream as usual.
    """
    _check_deal(rules, seats)
    size = SHAPES[rules.variant].size
    if len(layouts) != seats or any(len(lay) != size for lay in layouts):
        raise ValueError(f"need {seats} layouts of {size} cards for {rules.variant}")
    if not stock:
        raise ValueError("the stock needs at least one card")
    start = tuple(totals) if totals is not None else (0,) * seats
    return _deal_state(rules, seats, seed, hole, layouts, upcard, stock, start, ())


# ---------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class GolfSlot:
    """One place of a layout (or a hand slot) as the viewer knows it."""

    position: int
    # "face_up": turned up (everyone sees it); "public": face down but known to everyone
    # (taken from the discard pile); "known": face down, known to the viewer only;
    # "unknown": not known to the viewer; "removed": cancelled and taken away (everyone
    # saw it: its card is the one removed from the place).
    state: str
    card: Card | None  # set for face_up, public, known and removed


@dataclass(frozen=True, slots=True)
class GolfLayout:
    seat: int
    slots: tuple[GolfSlot, ...]
    face_down: int  # places not turned up (and not removed)


@dataclass(frozen=True, slots=True)
class GolfRulesView:
    """The match's rule options (known to everyone at the table)."""

    variant: str
    scoring: str
    jokers: int
    bonus_rank: str
    decks: int
    holes: int | None
    target_score: int | None
    max_reshuffles: int
    max_turns: int
    peek_near_only: bool
    initial_flips_same_column: bool
    pairs_anywhere: bool
    four_of_a_kind_bonus: bool
    diagonal_pairs: bool
    no_pairs: bool
    final_turn_stock_only: bool
    remove_cancelled: bool
    early_end_penalty: str


@dataclass(frozen=True, slots=True)
class GolfView:
    """What one seat (or a spectator, seat -1) knows. Field docs: docs/games/golf.md."""

    seat: int
    rules: GolfRulesView
    rows: int
    columns: int
    hole: int  # 1-based
    dealer: int
    phase: str
    to_act: int
    opening_left: int
    layouts: tuple[GolfLayout, ...]
    discard: tuple[Card, ...]
    stock_count: int
    holder: int
    drawn_from: str
    drawn: Card | None
    ended_by: int
    knocked: bool
    final_turns_left: int
    turns: int
    reshuffles: int
    totals: tuple[int, ...]
    results: tuple[GolfHoleResult, ...]


@cache
def _slot(position: int, state: str, c: Card | None) -> GolfSlot:
    return GolfSlot(position, state, c)


@cache
def _rules_view(rules: GolfRules, decks: int) -> GolfRulesView:
    values = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    values["decks"] = decks
    return GolfRulesView(**values)


# ---------------------------------------------------------------------------- engine


class Golf(GameBase[GolfState, GolfAction, GolfRules]):
    """The golf engine (see the module docstring)."""

    name: ClassVar[str] = "golf"
    lower_scores_win: ClassVar[bool] = True  # for the arena: one-seat matches ranked by score
    version: ClassVar[int] = 2
    Rules: type[GolfRules] = GolfRules

    # -- setup

    def seats(self, rules: GolfRules) -> range:
        top = MAX_SEATS
        while top > MIN_SEATS and _cards_needed(rules, top) > _cards_held(rules, top):
            top -= 1
        return range(MIN_SEATS, top + 1)

    def initial_state(self, rules: GolfRules, seats: int, seed: int) -> GolfState:
        _check_deal(rules, seats)
        return _random_deal(rules, seats, seed, 0, (0,) * seats, ())

    def max_decisions(self, rules: GolfRules, seats: int) -> int:
        holes = rules.holes if rules.holes is not None else HOLE_CAP
        opening = SHAPES[rules.variant].opening
        # A turn is at most two decisions (draw, then swap or discard); the hole ends
        # after max_turns turns per player at the latest.
        return holes * seats * (opening + 2 * rules.max_turns)

    # -- queries

    def to_act(self, s: GolfState) -> tuple[int, ...]:
        return () if s.phase == "over" else (s.current,)

    def legal_actions(self, s: GolfState, seat: int) -> tuple[GolfAction, ...]:
        if s.phase == "over" or seat != s.current:
            return ()
        full = _full(s.rules)
        if s.phase == "draw":
            final = s.ender >= 0
            discard_ok = not (final and s.rules.final_turn_stock_only)
            return _draws(discard_ok, s.rules.variant in KNOCK_VARIANTS and not final)
        if s.phase == "place":
            return _positional("swap", _swappable(s, seat), not s.from_discard)
        if s.phase == "flip":
            allowed = full & ~s.face_up[seat]
            if s.rules.initial_flips_same_column and s.face_up[seat]:
                allowed &= _column_mask(s.rules, _lowest(s.face_up[seat]))
            return _positional("flip", allowed)
        # peek
        allowed = full & ~s.owner_known[seat]
        if s.rules.peek_near_only:
            allowed &= 0b1100  # the bottom row, nearest the player
        return _positional("peek", allowed)

    def encode(self, a: GolfAction) -> str:
        return a.code

    def decode(self, code: str) -> GolfAction:
        found = _ACTIONS.get(code) if isinstance(code, str) and len(code) <= 16 else None
        if found is None:
            shown = repr(code[:40]) if isinstance(code, str) else repr(type(code))
            raise InvalidAction(
                f"{shown} is not a golf action code: use 'flip N', 'peek N', 'draw stock', "
                "'draw discard', 'swap N', 'discard' or 'knock' (N = position, 0 top-left, "
                "row-major)"
            )
        return found

    # -- transitions

    def _why_illegal(self, s: GolfState, seat: int, a: GolfAction) -> str:
        return _why_illegal(s, seat, a)

    def _transition(self, s: GolfState, seat: int, a: GolfAction) -> GolfState:
        if a.kind == "flip":
            return _flip(s, seat, a.pos)
        if a.kind == "peek":
            return _peek(s, seat, a.pos)
        if a.kind == "draw stock":
            return _draw(s, seat, from_discard=False)
        if a.kind == "draw discard":
            return _draw(s, seat, from_discard=True)
        if a.kind == "knock":
            return _knock(s, seat)
        if a.kind == "discard":
            return _discard(s, seat)
        return _swap(s, seat, a.pos)

    # -- views

    def _view(self, s: GolfState, seat: int) -> GolfView:
        return _view(s, seat)

    def standings(self, s: GolfState) -> Outcome:
        details = {
            "holes_played": len(s.results),
            "totals": list(s.totals),
            "holes": [
                {
                    "hole": r.hole,
                    "dealer": r.dealer,
                    "ended_by": r.ended_by,
                    "end": r.end,
                    "card_points": list(r.card_points),
                    "bonus_points": list(r.bonus_points),
                    "penalties": list(r.penalties),
                    "scores": list(r.scores),
                }
                for r in s.results
            ],
        }
        return Outcome(
            scores=tuple(float(t) for t in s.totals),
            ranks=ranks_from_scores(s.totals, higher_is_better=False),
            details=details,
        )


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _column_mask(rules: GolfRules, pos: int) -> int:
    shape = SHAPES[rules.variant]
    col = pos % shape.cols
    return sum(1 << (r * shape.cols + col) for r in range(shape.rows))


def _swappable(s: GolfState, seat: int) -> int:
    return sum(1 << i for i, c in enumerate(s.cells[seat]) if c is not None)


def _why_illegal(s: GolfState, seat: int, a: GolfAction) -> str:
    if s.phase == "over":
        return "the match is over"
    if seat != s.current:
        return f"it is seat {s.current}'s decision, not seat {seat}'s"
    legal = ", ".join(b.code for b in GAME.legal_actions(s, seat))
    what = {
        "flip": "turn up a face-down card of your layout",
        "peek": "look at one of your cards",
        "draw": "draw from the stock or the discard pile"
        + (" or knock" if "knock" in legal else ""),
        "place": "swap the drawn card into your layout"
        + ("" if s.from_discard else " or discard it")
        + (" (a card taken from the discard pile must be swapped in)" if s.from_discard else ""),
    }[s.phase]
    code = getattr(a, "code", repr(a))  # a caller may pass something that is not an action
    return f"{code!r} is not legal now: {what}; legal: {legal}"


# ---------------------------------------------------------------------------- transitions


def _next_opening(s: GolfState, seat: int, events: list[Event]) -> GolfState:
    """After one flip or peek: the same seat again, the next seat, or the first turn."""
    left = s.opening_left - 1
    if left > 0:
        return dataclasses.replace(s, opening_left=left, events=tuple(events))
    first = (s.dealer + 1) % s.seats
    nxt = (seat + 1) % s.seats
    if nxt == first:
        return dataclasses.replace(
            s, phase="draw", current=first, opening_left=0, events=tuple(events)
        )
    opening = SHAPES[s.rules.variant].opening
    return dataclasses.replace(s, current=nxt, opening_left=opening, events=tuple(events))


def _flip(s: GolfState, seat: int, pos: int) -> GolfState:
    c = s.cells[seat][pos]
    assert c is not None
    events = [
        Event("flip", f"seat {seat} turns up {c.code} at position {pos}", seat, hand=s.hole + 1)
    ]
    s = dataclasses.replace(s, face_up=with_item(s.face_up, seat, s.face_up[seat] | 1 << pos))
    s = _remove_completed(s, seat, pos, events)
    return _next_opening(s, seat, events)


def _peek(s: GolfState, seat: int, pos: int) -> GolfState:
    c = s.cells[seat][pos]
    assert c is not None
    events = [
        Event(
            "peek",
            f"seat {seat} peeks at position {pos}",
            seat,
            private_text=f"seat {seat} peeks at position {pos}: {c.code}",
            visible_to=frozenset({seat}),
            hand=s.hole + 1,
        )
    ]
    s = dataclasses.replace(
        s, owner_known=with_item(s.owner_known, seat, s.owner_known[seat] | 1 << pos)
    )
    return _next_opening(s, seat, events)


def _draw(s: GolfState, seat: int, from_discard: bool) -> GolfState:
    if from_discard:
        c = s.discard[-1]
        ev = Event(
            "draw", f"seat {seat} takes {c.code} from the discard pile", seat, hand=s.hole + 1
        )
        return dataclasses.replace(
            s, discard=s.discard[:-1], holding=c, from_discard=True, phase="place", events=(ev,)
        )
    c = s.stock[-1]
    ev = Event(
        "draw",
        f"seat {seat} draws from the stock",
        seat,
        private_text=f"seat {seat} draws {c.code} from the stock",
        visible_to=frozenset({seat}),
        hand=s.hole + 1,
    )
    return dataclasses.replace(
        s, stock=s.stock[:-1], holding=c, from_discard=False, phase="place", events=(ev,)
    )


def _knock(s: GolfState, seat: int) -> GolfState:
    ev = Event(
        "knock",
        f"seat {seat} knocks: every other player takes one more turn",
        seat,
        hand=s.hole + 1,
    )
    s = dataclasses.replace(s, ender=seat, knocked=True)
    return _end_turn(s, seat, [ev], just_ended=True)


def _discard(s: GolfState, seat: int) -> GolfState:
    c = s.holding
    assert c is not None
    ev = Event("discard", f"seat {seat} discards {c.code}", seat, hand=s.hole + 1)
    s = dataclasses.replace(s, discard=(*s.discard, c), holding=None)
    return _end_turn(s, seat, [ev], just_ended=False)


def _swap(s: GolfState, seat: int, pos: int) -> GolfState:
    new, old = s.holding, s.cells[seat][pos]
    assert new is not None and old is not None
    bit = 1 << pos
    variant = s.rules.variant
    face_up, owner, public = s.face_up[seat], s.owner_known[seat], s.public_known[seat]
    if variant in FACE_UP_VARIANTS:
        face_up |= bit
        where = f"{new.code} at position {pos}"
        text = private = f"seat {seat} puts {where} and discards {old.code}"
    else:
        owner |= bit  # the owner saw the card it placed
        public = public | bit if s.from_discard else public & ~bit
        place = "into their hand" if variant == "four_in_hand" else f"face down at position {pos}"
        slot = f" (slot {pos})" if variant == "four_in_hand" else ""
        if s.from_discard:
            text = private = f"seat {seat} puts {new.code} {place}{slot} and discards {old.code}"
        else:
            text = f"seat {seat} puts the drawn card {place}{slot} and discards {old.code}"
            private = f"seat {seat} puts {new.code} {place}{slot} and discards {old.code}"
    ev = Event(
        "swap",
        text,
        seat,
        private_text=None if private == text else private,
        visible_to=frozenset() if private == text else frozenset({seat}),
        hand=s.hole + 1,
    )
    events = [ev]
    s = dataclasses.replace(
        s,
        cells=with_item(s.cells, seat, with_item(s.cells[seat], pos, new)),
        face_up=with_item(s.face_up, seat, face_up),
        owner_known=with_item(s.owner_known, seat, owner),
        public_known=with_item(s.public_known, seat, public),
        discard=(*s.discard, old),
        holding=None,
    )
    s = _remove_completed(s, seat, pos, events)
    just_ended = False
    if variant in FACE_UP_VARIANTS and s.ender < 0 and s.face_up[seat] == _full(s.rules):
        just_ended = True
        s = dataclasses.replace(s, ender=seat, knocked=False)
        events.append(
            Event(
                "out",
                f"seat {seat} has turned up their whole layout: every other player takes "
                "exactly one more turn",
                seat,
                hand=s.hole + 1,
            )
        )
    return _end_turn(s, seat, events, just_ended)


def _remove_completed(s: GolfState, seat: int, pos: int, events: list[Event]) -> GolfState:
    """remove_cancelled: a completed cancelled column or line through ``pos`` leaves the layout."""
    lines = _removal_lines(s.rules)
    if not lines:
        return s
    cells, up = s.cells[seat], s.face_up[seat]
    done = []
    for line in lines:
        if not line >> pos & 1 or line & up != line:
            continue
        members = [cells[i] for i in range(len(cells)) if line >> i & 1]
        first = members[0]
        if first is not None and all(m is not None and m.rank == first.rank for m in members):
            done.append(line)
    if not done:
        return s
    table = _value_table(s.rules.scoring, s.rules.bonus_rank)
    values = tuple(0 if c is None else table[c.index] for c in cells)
    mask = _best_groups(tuple(done), values)
    taken = [c for i, c in enumerate(cells) if mask >> i & 1 and c is not None]
    gone = tuple(
        c if mask >> i & 1 and c is not None else g
        for i, (c, g) in enumerate(zip(cells, s.gone[seat], strict=True))
    )
    new_cells = tuple(None if mask >> i & 1 else c for i, c in enumerate(cells))
    events.append(
        Event(
            "remove",
            f"seat {seat}'s cancelled {' '.join(c.code for c in taken)} go to the bottom of the "
            "discard pile",
            seat,
            hand=s.hole + 1,
        )
    )
    return dataclasses.replace(
        s,
        cells=with_item(s.cells, seat, new_cells),
        gone=with_item(s.gone, seat, gone),
        discard=(*taken, *s.discard),
    )


def _end_turn(s: GolfState, seat: int, events: list[Event], just_ended: bool) -> GolfState:
    turns = s.turns + 1
    if just_ended:
        final_left = s.seats - 1
    elif s.ender >= 0:
        final_left = s.final_left - 1
    else:
        final_left = 0
    s = dataclasses.replace(s, turns=turns, final_left=final_left, phase="draw")
    if s.ender >= 0 and final_left == 0:
        return _score_hole(s, "knock" if s.knocked else "out", events)
    if turns >= s.rules.max_turns * s.seats:
        events.append(
            Event(
                "bound",
                f"every player has taken {s.rules.max_turns} turns: the hole ends",
                hand=s.hole + 1,
            )
        )
        return _score_hole(s, "max_turns", events)
    if not s.stock:
        if s.reshuffles >= s.rules.max_reshuffles:
            events.append(
                Event(
                    "bound",
                    f"the stock is empty after {s.reshuffles} rebuilds: the hole ends",
                    hand=s.hole + 1,
                )
            )
            return _score_hole(s, "max_reshuffles", events)
        n = s.reshuffles + 1
        rng = chance_rng(s.seed, s.hole, f"reshuffle {n}")
        stock = shuffled(s.discard[:-1], rng)
        events.append(
            Event(
                "reshuffle",
                f"the stock is empty: the discard pile except its top card "
                f"({len(stock)} cards) is shuffled into a new stock (rebuild {n} of "
                f"{s.rules.max_reshuffles})",
                hand=s.hole + 1,
            )
        )
        s = dataclasses.replace(s, stock=stock, discard=s.discard[-1:], reshuffles=n)
    return dataclasses.replace(s, current=(seat + 1) % s.seats, events=tuple(events))


def _score_hole(s: GolfState, end: str, events: list[Event]) -> GolfState:
    rules, n = s.rules, s.seats
    points = []
    for p in range(n):
        pts, mask = layout_points(rules, s.cells[p])
        points.append(pts)
        shown = " ".join(
            "--" if c is None else c.code + ("*" if mask >> i & 1 else "")
            for i, c in enumerate(s.cells[p])
        )
        events.append(
            Event(
                "reveal",
                f"seat {p} shows {shown} (* cancelled, -- removed): {pts} points",
                p,
                hand=s.hole + 1,
            )
        )
    bonus = [0] * n
    if rules.four_of_a_kind_bonus:
        for p in range(n):
            blocks = _four_of_a_kind_blocks(rules, s.cells[p], s.gone[p])
            if blocks:
                for q in range(n):
                    if q != p:
                        bonus[q] += 10 * blocks
                events.append(
                    Event(
                        "bonus",
                        f"seat {p} has {blocks} four-of-a-kind block(s): every other player "
                        f"adds {10 * blocks}",
                        p,
                        hand=s.hole + 1,
                    )
                )
    base = [points[p] + bonus[p] for p in range(n)]
    penalty = [0] * n
    e = s.ender
    if rules.early_end_penalty != "none" and e >= 0:
        lowest_other = min(base[q] for q in range(n) if q != e)
        if base[e] > lowest_other:
            # add_lowest adds the lowest other score as it is, a negative one included.
            penalty[e] = 10 if rules.early_end_penalty == "plus_ten" else lowest_other
        if penalty[e]:
            events.append(
                Event(
                    "penalty",
                    f"seat {e} ended the hole without the lowest score: adds {penalty[e]}",
                    e,
                    hand=s.hole + 1,
                )
            )
    scores = tuple(base[p] + penalty[p] for p in range(n))
    totals = tuple(t + d for t, d in zip(s.totals, scores, strict=True))
    result = GolfHoleResult(
        hole=s.hole + 1,
        dealer=s.dealer,
        ended_by=e,
        knocked=s.knocked,
        end=end,
        card_points=tuple(points),
        bonus_points=tuple(bonus),
        penalties=tuple(penalty),
        scores=scores,
    )
    results = (*s.results, result)
    events.append(
        Event(
            "score",
            f"Hole {s.hole + 1} scores: {', '.join(map(str, scores))}; totals: "
            f"{', '.join(map(str, totals))}",
            hand=s.hole + 1,
        )
    )
    played = s.hole + 1
    over = (
        (rules.holes is not None and played >= rules.holes)
        or (rules.target_score is not None and max(totals) >= rules.target_score)
        or (rules.holes is None and played >= HOLE_CAP)
    )
    if not over:
        return _random_deal(rules, n, s.seed, played, totals, results, tuple(events))
    ranks = ranks_from_scores(totals, higher_is_better=False)
    events.append(
        Event(
            "match_over",
            f"Match over after {played} hole(s): totals {', '.join(map(str, totals))}; "
            f"ranks {', '.join(map(str, ranks))}",
            hand=s.hole + 1,
        )
    )
    full = _full(rules)
    return dataclasses.replace(
        s,
        phase="over",
        current=-1,
        face_up=(full,) * n,
        totals=totals,
        results=results,
        final_left=0,
        events=tuple(events),
    )


# ---------------------------------------------------------------------------- view building


def _layout_view(s: GolfState, p: int, viewer: int) -> GolfLayout:
    up, public = s.face_up[p], s.public_known[p]
    owner = s.owner_known[p] if p == viewer else 0
    slots = []
    down = 0
    for i, c in enumerate(s.cells[p]):
        bit = 1 << i
        if c is None:
            slots.append(_slot(i, "removed", s.gone[p][i]))
            continue
        if up & bit:
            slots.append(_slot(i, "face_up", c))
            continue
        down += 1
        if public & bit:
            slots.append(_slot(i, "public", c))
        elif owner & bit:
            slots.append(_slot(i, "known", c))
        else:
            slots.append(_slot(i, "unknown", None))
    return GolfLayout(p, tuple(slots), down)


def _view(s: GolfState, viewer: int) -> GolfView:
    shape = SHAPES[s.rules.variant]
    holder = s.current if s.holding is not None else -1
    drawn = s.holding if holder >= 0 and (s.from_discard or holder == viewer) else None
    return GolfView(
        seat=viewer,
        rules=_rules_view(s.rules, s.decks),
        rows=shape.rows,
        columns=shape.cols,
        hole=s.hole + 1,
        dealer=s.dealer,
        phase=s.phase,
        to_act=s.current,
        opening_left=s.opening_left,
        layouts=tuple(_layout_view(s, p, viewer) for p in range(s.seats)),
        discard=s.discard,
        stock_count=len(s.stock),
        holder=holder,
        drawn_from="" if holder < 0 else "discard" if s.from_discard else "stock",
        drawn=drawn,
        ended_by=s.ender,
        knocked=s.knocked,
        final_turns_left=s.final_left,
        turns=s.turns,
        reshuffles=s.reshuffles,
        totals=s.totals,
        results=s.results,
    )


GAME = Golf()
