"""One gin rummy table: two players' hands, the stock, the discard pile, and every move
of a hand from the upcard offer to the knock and its showdown.

Hands are 52-bit card masks (see ``melds``); the stock is a tuple read from
``stock_pos`` so a draw copies nothing. A table caches its actor's legal codes when
it is built, because they are always asked for and ``apply`` checks against them.

Action codes: ``take upcard``, ``pass`` (the upcard offer), ``draw stock``,
``draw discard``, ``discard QS``, ``knock 7H`` (face-down discard with deadwood
1..knock_limit), ``gin 7H`` (face-down discard leaving no deadwood) and ``big gin``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.cards import STANDARD_DECK, Card, cards_of
from referee.game import Event
from referee.games.gin_rummy.melds import (
    bits,
    deadwood,
    discard_deadwoods,
    has_meld,
    mask_value,
    showdown,
)
from referee.games.gin_rummy.rules import GinRummyRules
from referee.games.gin_rummy.view import GinHandResult, GinTable

# Table phases.
OFFER_FIRST, OFFER_SECOND, DRAW, DISCARD, DONE = range(5)
PHASE_NAMES = ("upcard_offer", "upcard_offer", "draw", "discard", "hand_over")

TAKE_UPCARD = "take upcard"
PASS = "pass"
DRAW_STOCK = "draw stock"
DRAW_DISCARD = "draw discard"
BIG_GIN = "big gin"

# Action kinds (the card, if any, travels next to the kind).
K_TAKE, K_PASS, K_STOCK, K_PILE, K_DISCARD, K_KNOCK, K_GIN, K_BIG = range(8)

CODE: tuple[str, ...] = tuple(c.code for c in STANDARD_DECK)
DISCARD_CODE = tuple(f"discard {c}" for c in CODE)
KNOCK_CODE = tuple(f"knock {c}" for c in CODE)
GIN_CODE = tuple(f"gin {c}" for c in CODE)
# Position of each card's code in sorted order, so codes of one kind come out sorted.
_BY_CODE = sorted(range(52), key=lambda i: CODE[i])
CODE_ORDER: tuple[int, ...] = tuple(_BY_CODE.index(i) for i in range(52))

ACTIONS: dict[str, tuple[int, int]] = {
    TAKE_UPCARD: (K_TAKE, -1),
    PASS: (K_PASS, -1),
    DRAW_STOCK: (K_STOCK, -1),
    DRAW_DISCARD: (K_PILE, -1),
    BIG_GIN: (K_BIG, -1),
}
for _i in range(52):
    ACTIONS[DISCARD_CODE[_i]] = (K_DISCARD, _i)
    ACTIONS[KNOCK_CODE[_i]] = (K_KNOCK, _i)
    ACTIONS[GIN_CODE[_i]] = (K_GIN, _i)

OFFER_LEGAL = (PASS, TAKE_UPCARD)
DRAW_LEGAL = (DRAW_DISCARD, DRAW_STOCK)

DECK_SIZE = 52
HAND_SIZE = 10


@dataclass(frozen=True, slots=True)
class Table:
    """One two-player game in the current hand. Local player 0 is the first player
    (the non-dealer), 1 the dealer; ``seats`` maps them to match seats."""

    seats: tuple[int, int]
    hands: tuple[int, int]  # card masks
    stock: tuple[int, ...]  # card indices, drawn from stock_pos on
    stock_pos: int
    pile: tuple[int, ...]  # discard pile, bottom first
    taken: tuple[int, int]  # per player: cards taken from the pile and still held
    phase: int
    turn: int  # local player to act
    restricted: int  # card taken from the pile this turn (may not be discarded), or -1
    turns: int  # completed turns
    legal: tuple[str, ...]  # the actor's legal codes (cached: apply checks against them)
    knock_card: int  # the face-down knock discard once knocked, else -1
    result: GinHandResult | None

    @property
    def stock_count(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def actor(self) -> int:
        """The seat to act, -1 once the hand is over at this table."""
        return -1 if self.phase == DONE else self.seats[self.turn]


def codes_text(m: int) -> str:
    return " ".join(CODE[i] for i in bits(m)) or "-"


def event(
    kind: str,
    text: str,
    hand: int,
    seat: int | None = None,
    private: str | None = None,
    visible: frozenset[int] = frozenset(),
) -> Event:
    return Event(kind, text, seat, private, visible, hand)


# ---------------------------------------------------------------------------------------
# Legal actions after a draw


def _discard_legal(h: int, restricted: int, rules: GinRummyRules) -> tuple[str, ...]:
    """Legal codes for a player holding 11 cards ``h`` (after the draw)."""
    limit = rules.knock_limit
    order = CODE_ORDER.__getitem__
    if not has_meld(h) and mask_value(h) - 10 > limit:
        # Most hands in play: no meld, so no discard leaves deadwood within the limit.
        cards = bits(h)
        cards.sort(key=order)
        return tuple([DISCARD_CODE[c] for c in cards if c != restricted])
    discards: list[int] = []
    gins: list[int] = []
    knocks: list[int] = []
    zero = False
    for c, d in discard_deadwoods(h):
        if c == restricted:
            zero = zero or d == 0
            continue
        discards.append(c)
        if d <= limit:
            if d == 0:
                zero = True
                gins.append(c)
            else:
                knocks.append(c)
    discards.sort(key=order)
    out = [DISCARD_CODE[c] for c in discards]
    if zero and rules.big_gin_bonus and deadwood(h) == 0:
        out.insert(0, BIG_GIN)
    if gins:
        gins.sort(key=order)
        out += [GIN_CODE[c] for c in gins]
    if knocks:
        knocks.sort(key=order)
        out += [KNOCK_CODE[c] for c in knocks]
    return tuple(out)


def why_illegal(t: Table, rules: GinRummyRules, code: str, kind: int, c: int) -> str:
    phase = PHASE_NAMES[t.phase]
    if kind in (K_TAKE, K_PASS) and t.phase not in (OFFER_FIRST, OFFER_SECOND):
        return f"{code!r} is only for the upcard offer; now it is the {phase} phase"
    if kind in (K_STOCK, K_PILE) and t.phase != DRAW:
        return f"{code!r} is only for the draw; now it is the {phase} phase"
    if kind in (K_DISCARD, K_KNOCK, K_GIN, K_BIG) and t.phase != DISCARD:
        return f"{code!r} is only after the draw; now it is the {phase} phase"
    if kind == K_BIG:
        if not rules.big_gin_bonus:
            return "big gin is off in these rules (big_gin_bonus=0)"
        return f"big gin needs all 11 cards melded; your deadwood is {deadwood(t.hands[t.turn])}"
    h = t.hands[t.turn]
    if not h >> c & 1:
        return f"you do not hold {CODE[c]}"
    if c == t.restricted:
        return (
            f"you took {CODE[c]} from the discard pile this turn: you may not discard it "
            "(nor knock with it) until a later turn"
        )
    left = deadwood(h & ~(1 << c))
    if kind == K_GIN:
        return f"gin needs no deadwood after the discard; without {CODE[c]} it is {left}"
    if left == 0:
        return f"without {CODE[c]} your deadwood is 0: that is gin, send 'gin {CODE[c]}'"
    return (
        f"knocking needs deadwood {rules.knock_limit} or less after the discard; "
        f"without {CODE[c]} it is {left}"
    )


# ---------------------------------------------------------------------------------------
# Table transitions


def deal_table(deck: Sequence[int], seats: tuple[int, int]) -> Table:
    """A fresh table: 10 cards each one at a time, first player first, then the upcard."""
    h0 = h1 = 0
    for i in range(0, 2 * HAND_SIZE, 2):
        h0 |= 1 << deck[i]
        h1 |= 1 << deck[i + 1]
    up = deck[2 * HAND_SIZE]
    return Table(
        seats=seats,
        hands=(h0, h1),
        stock=tuple(deck[2 * HAND_SIZE + 1 :]),
        stock_pos=0,
        pile=(up,),
        taken=(0, 0),
        phase=OFFER_FIRST,
        turn=0,
        restricted=-1,
        turns=0,
        legal=OFFER_LEGAL,
        knock_card=-1,
        result=None,
    )


def rebuild_table(
    t: Table, rules: GinRummyRules, hands: tuple[int, int], stock: Sequence[int]
) -> Table:
    """The same table with other hidden cards (for tests that resample what a seat cannot
    see): same phase, pile and taken cards; new hands and stock."""
    legal = _discard_legal(hands[t.turn], t.restricted, rules) if t.phase == DISCARD else t.legal
    return dataclasses.replace(
        t,
        hands=hands,
        stock=tuple(stock),
        stock_pos=0,
        legal=legal,
    )


def _after_draw(
    t: Table,
    rules: GinRummyRules,
    hands: tuple[int, int],
    stock_pos: int,
    pile: tuple[int, ...],
    taken: tuple[int, int],
    restricted: int,
) -> Table:
    legal = _discard_legal(hands[t.turn], restricted, rules)
    return Table(
        seats=t.seats,
        hands=hands,
        stock=t.stock,
        stock_pos=stock_pos,
        pile=pile,
        taken=taken,
        phase=DISCARD,
        turn=t.turn,
        restricted=restricted,
        turns=t.turns,
        legal=legal,
        knock_card=-1,
        result=None,
    )


def _draw_stock(t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event]) -> Table:
    p = t.turn
    c = t.stock[t.stock_pos]
    hands = (t.hands[0] | 1 << c, t.hands[1]) if p == 0 else (t.hands[0], t.hands[1] | 1 << c)
    seat = t.seats[p]
    evs.append(
        event(
            "draw",
            f"seat {seat} draws from the stock",
            hand_no,
            seat,
            f"you draw {CODE[c]} from the stock",
            frozenset((seat,)),
        )
    )
    return _after_draw(t, rules, hands, t.stock_pos + 1, t.pile, t.taken, -1)


def _take_from_pile(
    t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event], kind: str, text: str
) -> Table:
    p = t.turn
    c = t.pile[-1]
    bit = 1 << c
    if p == 0:
        hands = (t.hands[0] | bit, t.hands[1])
        taken = (t.taken[0] | bit, t.taken[1])
    else:
        hands = (t.hands[0], t.hands[1] | bit)
        taken = (t.taken[0], t.taken[1] | bit)
    seat = t.seats[p]
    evs.append(event(kind, text.format(seat=seat, card=CODE[c]), hand_no, seat))
    return _after_draw(t, rules, hands, t.stock_pos, t.pile[:-1], taken, c)


def _void_result(t: Table, hand_no: int) -> GinHandResult:
    return GinHandResult(
        hand_no,
        t.seats,
        "void",
        -1,
        None,
        (),
        (),
        (),
        (),
        (),
        (),
        0,
        0,
        -1,
        0,
    )


def _discard(t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event], c: int) -> Table:
    p = t.turn
    keep = ~(1 << c)
    if p == 0:
        hands = (t.hands[0] & keep, t.hands[1])
        taken = (t.taken[0] & keep, t.taken[1])
    else:
        hands = (t.hands[0], t.hands[1] & keep)
        taken = (t.taken[0], t.taken[1] & keep)
    pile = (*t.pile, c)
    turns = t.turns + 1
    seat = t.seats[p]
    evs.append(event("discard", f"seat {seat} discards {CODE[c]}", hand_no, seat))
    left = len(t.stock) - t.stock_pos
    if left <= rules.stock_floor or turns >= rules.max_turns:
        why = (
            f"the stock holds {left} card{'s' if left != 1 else ''}"
            if left <= rules.stock_floor
            else f"it reached max_turns={rules.max_turns}"
        )
        evs.append(event("void", f"hand {hand_no} is void: {why}; nobody scores", hand_no))
        return Table(
            seats=t.seats,
            hands=hands,
            stock=t.stock,
            stock_pos=t.stock_pos,
            pile=pile,
            taken=taken,
            phase=DONE,
            turn=p,
            restricted=-1,
            turns=turns,
            legal=(),
            knock_card=-1,
            result=_void_result(t, hand_no),
        )
    return Table(
        seats=t.seats,
        hands=hands,
        stock=t.stock,
        stock_pos=t.stock_pos,
        pile=pile,
        taken=taken,
        phase=DRAW,
        turn=1 - p,
        restricted=-1,
        turns=turns,
        legal=DRAW_LEGAL,
        knock_card=-1,
        result=None,
    )


def _groups(masks: Iterable[int]) -> tuple[tuple[Card, ...], ...]:
    return tuple(cards_of(m) for m in masks)


def _knock(
    t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event], kind: int, c: int
) -> Table:
    """A knock, gin or big gin, and its showdown."""
    k = t.turn
    d = 1 - k
    kh = t.hands[k] if kind == K_BIG else t.hands[k] & ~(1 << c)
    dh = t.hands[d]
    gin = kind != K_KNOCK
    sd = showdown(kh, dh, not gin)
    kd = mask_value(sd.knocker_deadwood)
    dd = mask_value(sd.defender_deadwood)
    knocker, defender = t.seats[k], t.seats[d]
    if kind == K_BIG:
        result, winner, points = "big_gin", knocker, dd + rules.big_gin_bonus
    elif kind == K_GIN:
        result, winner, points = "gin", knocker, dd + rules.gin_bonus
    elif dd < kd or (dd == kd and rules.undercut_on_tie):
        result, winner, points = "undercut", defender, kd - dd + rules.undercut_bonus
    else:
        result, winner, points = "knock", knocker, dd - kd
    hands = (kh, dh) if k == 0 else (dh, kh)
    res = GinHandResult(
        hand_number=hand_no,
        seats=t.seats,
        result=result,
        knocker=knocker,
        knock_card=None if kind == K_BIG else STANDARD_DECK[c],
        hands=_groups(hands),
        knocker_melds=_groups(sd.knocker_melds),
        knocker_deadwood_cards=cards_of(sd.knocker_deadwood),
        layoffs=_groups(sd.layoffs),
        defender_melds=_groups(sd.defender_melds),
        defender_deadwood_cards=cards_of(sd.defender_deadwood),
        knocker_deadwood=kd,
        defender_deadwood=dd,
        winner=winner,
        points=points,
    )
    if kind == K_BIG:
        evs.append(event("knock", f"seat {knocker} declares big gin", hand_no, knocker))
    else:
        word = "goes gin" if kind == K_GIN else "knocks"
        evs.append(event("knock", f"seat {knocker} {word}, discarding face down", hand_no, knocker))
    evs.append(event("showdown", _showdown_text(res, sd.knocker_melds, sd.layoffs), hand_no))
    taken = t.taken
    if kind != K_BIG:
        keep = ~(1 << c)
        taken = (taken[0] & keep, taken[1]) if k == 0 else (taken[0], taken[1] & keep)
    return Table(
        seats=t.seats,
        hands=hands,
        stock=t.stock,
        stock_pos=t.stock_pos,
        pile=t.pile,
        taken=taken,
        phase=DONE,
        turn=k,
        restricted=-1,
        turns=t.turns + 1,
        legal=(),
        knock_card=-1 if kind == K_BIG else c,
        result=res,
    )


def _showdown_text(res: GinHandResult, melds: tuple[int, ...], lay: tuple[int, ...]) -> str:
    k, d = res.knocker, res.seats[1] if res.seats[0] == res.knocker else res.seats[0]
    kmelds = " | ".join(codes_text(m) for m in melds) or "none"
    parts = [
        f"seat {k} shows melds {kmelds}; deadwood "
        f"{' '.join(c.code for c in res.knocker_deadwood_cards) or '-'} ({res.knocker_deadwood})"
    ]
    if res.knock_card is not None:
        parts.append(f"knock card {res.knock_card}")
    dmelds = " | ".join(" ".join(c.code for c in g) for g in res.defender_melds) or "none"
    laid = " ".join(codes_text(m) for m in lay if m)
    parts.append(
        f"seat {d} shows melds {dmelds}; lays off {laid or 'nothing'}; deadwood "
        f"{' '.join(c.code for c in res.defender_deadwood_cards) or '-'} ({res.defender_deadwood})"
    )
    label = {"big_gin": "big gin", "gin": "gin", "undercut": "undercut", "knock": "knock"}
    parts.append(f"{label[res.result]}: seat {res.winner} scores {res.points}")
    return "; ".join(parts)


def table_act(
    t: Table, rules: GinRummyRules, hand_no: int, kind: int, c: int
) -> tuple[Table, list[Event]]:
    """Apply one legal action to a table; returns the new table and its events."""
    evs: list[Event] = []
    if kind == K_STOCK:
        return _draw_stock(t, rules, hand_no, evs), evs
    if kind == K_DISCARD:
        return _discard(t, rules, hand_no, evs, c), evs
    if kind == K_PILE:
        return _take_from_pile(
            t, rules, hand_no, evs, "draw_discard", "seat {seat} takes {card} from the discard pile"
        ), evs
    if kind == K_TAKE:
        return _take_from_pile(
            t, rules, hand_no, evs, "take_upcard", "seat {seat} takes the upcard {card}"
        ), evs
    if kind == K_PASS:
        seat = t.seats[t.turn]
        evs.append(
            event("pass", f"seat {seat} passes the upcard {CODE[t.pile[-1]]}", hand_no, seat)
        )
        # The offer holds no restriction, knock card or result: only whose turn it is
        # and what may be done change.
        if t.phase == OFFER_FIRST:
            return dataclasses.replace(t, phase=OFFER_SECOND, turn=1, legal=OFFER_LEGAL), evs
        # Both passed: the first player draws from the stock and plays on.
        first = dataclasses.replace(t, phase=DRAW, turn=0, legal=DRAW_LEGAL)
        return _draw_stock(first, rules, hand_no, evs), evs
    return _knock(t, rules, hand_no, evs, kind, c), evs


def table_view(t: Table, dealer: int) -> GinTable:
    deck = STANDARD_DECK
    return GinTable(
        seats=t.seats,
        dealer=dealer,
        phase=PHASE_NAMES[t.phase],
        to_act=t.actor,
        stock_count=len(t.stock) - t.stock_pos,
        discard_pile=tuple(deck[i] for i in t.pile),
        hand_sizes=(t.hands[0].bit_count(), t.hands[1].bit_count()),
        taken=(cards_of(t.taken[0]), cards_of(t.taken[1])),
        turns=t.turns,
        result=t.result,
    )
