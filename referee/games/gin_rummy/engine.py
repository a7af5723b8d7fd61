"""The gin rummy engine: match state, deals, turns, knocks and showdowns, scoring, views.

A match is the whole game to ``target_score``. Each hand is played at one table
(players 2 and 3) or at two tables at once (players 4, partners facing the two
opponents in turn); a table holds the two players' hands as card masks, the stock
(a tuple read from ``stock_pos``), the discard pile and the cards each player took
from it. Chance comes only from ``chance_rng(seed, hand, purpose)``.

Action codes: ``take upcard``, ``pass`` (the upcard offer), ``draw stock``,
``draw discard``, ``discard QS``, ``knock 7H`` (face-down discard with deadwood
1..knock_limit), ``gin 7H`` (face-down discard leaving no deadwood) and ``big gin``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.cards import STANDARD_DECK, Card, CardCodeError, card
from referee.game import Event, IllegalAction, Outcome, chance_rng, ranks_from_scores
from referee.games.gin_rummy.melds import (
    VALUE,
    bits,
    cards_of,
    deadwood,
    discard_deadwoods,
    mask_value,
    showdown,
)
from referee.games.gin_rummy.rules import GinRummyRules
from referee.games.gin_rummy.view import GinHandResult, GinRummyView, GinTable
from referee.rules import RulesError

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
CODE_ORDER: tuple[int, ...] = tuple(sorted(range(52), key=lambda i: CODE[i]).index(i) for i in range(52))

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


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished hand, for the outcome's details."""

    hand: int
    results: tuple[str, ...]  # per table
    points: tuple[int, ...]  # per side


@dataclass(frozen=True, slots=True)
class GinRummyState:
    """A whole match. Sides are seats (players 2 and 3) or teams seat % 2 (players 4)."""

    rules: GinRummyRules
    seed: int
    hand_number: int
    dealer: int  # players 2: dealer seat; 3: the dealer (sitting out); 4: the dealing team
    tables: tuple[Table, ...]
    scores: tuple[int, ...]  # running score per side
    wins: tuple[int, ...]  # hands won per side
    history: tuple[HandRecord, ...]
    last_hand: tuple[GinHandResult, ...]  # per table, the last finished hand
    last_points: tuple[int, ...]  # per side, the last finished hand
    over: bool
    end_reason: str  # "", "target_score" or "max_hands"
    events: tuple[Event, ...]
    scripted: tuple[tuple[int, ...], ...]  # deck orders still to deal before seeded ones


# ---------------------------------------------------------------------------------------
# Small helpers


def _sides(rules: GinRummyRules) -> int:
    return 2 if rules.players == 4 else rules.players


def side_of(rules: GinRummyRules, seat: int) -> int:
    return seat % 2 if rules.players == 4 else seat


def _codes(m: int) -> str:
    return " ".join(CODE[i] for i in bits(m)) or "-"


def _ev(
    kind: str,
    text: str,
    hand: int,
    seat: int | None = None,
    private: str | None = None,
    visible: frozenset[int] = frozenset(),
) -> Event:
    return Event(kind, text, seat, private, visible, hand)


def _deck_indices(deck: Sequence[Card | str]) -> tuple[int, ...]:
    out = tuple((c if isinstance(c, Card) else card(c)).index for c in deck)
    if sorted(out) != list(range(DECK_SIZE)):
        raise ValueError("a scripted deck must hold each of the 52 cards exactly once")
    return out


def stack_deck(
    first_hand: str | Iterable[str],
    dealer_hand: str | Iterable[str],
    upcard: str,
    stock: str | Iterable[str] = (),
) -> tuple[Card, ...]:
    """A deck order that deals these hands (first player = non-dealer), this upcard and a
    stock starting with ``stock`` (the rest of the deck follows in index order)."""
    first = [card(c) for c in (first_hand.split() if isinstance(first_hand, str) else first_hand)]
    second = [card(c) for c in (dealer_hand.split() if isinstance(dealer_hand, str) else dealer_hand)]
    top = [card(c) for c in (stock.split() if isinstance(stock, str) else stock)]
    if len(first) != HAND_SIZE or len(second) != HAND_SIZE:
        raise ValueError("each hand needs exactly 10 cards")
    deck: list[Card] = []
    for a, b in zip(first, second, strict=True):
        deck += [a, b]
    deck.append(card(upcard))
    deck += top
    used = set(deck)
    if len(used) != len(deck):
        raise ValueError("a card appears twice in the stacked deck")
    deck += [c for c in STANDARD_DECK if c not in used]
    return tuple(deck)


# ---------------------------------------------------------------------------------------
# Legal actions after a draw


def _discard_legal(h: int, restricted: int, rules: GinRummyRules) -> tuple[str, ...]:
    """Legal codes for a player holding 11 cards ``h`` (after the draw)."""
    limit = rules.knock_limit
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
    order = CODE_ORDER.__getitem__
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


def _why_illegal(t: Table, rules: GinRummyRules, code: str, kind: int, c: int) -> str:
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
        seats, (h0, h1), tuple(deck[2 * HAND_SIZE + 1 :]), 0, (up,), (0, 0),
        OFFER_FIRST, 0, -1, 0, OFFER_LEGAL, -1, None,
    )


def rebuild_table(t: Table, rules: GinRummyRules, hands: tuple[int, int], stock: Sequence[int]) -> Table:
    """The same table with other hidden cards (for tests that resample what a seat cannot
    see): same phase, pile and taken cards; new hands and stock."""
    legal = _discard_legal(hands[t.turn], t.restricted, rules) if t.phase == DISCARD else t.legal
    return Table(
        t.seats, hands, tuple(stock), 0, t.pile, t.taken, t.phase, t.turn, t.restricted,
        t.turns, legal, t.knock_card, t.result,
    )


def _after_draw(t: Table, rules: GinRummyRules, hands: tuple[int, int], stock_pos: int,
                pile: tuple[int, ...], taken: tuple[int, int], restricted: int) -> Table:
    legal = _discard_legal(hands[t.turn], restricted, rules)
    return Table(
        t.seats, hands, t.stock, stock_pos, pile, taken, DISCARD, t.turn, restricted,
        t.turns, legal, -1, None,
    )


def _draw_stock(t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event]) -> Table:
    p = t.turn
    c = t.stock[t.stock_pos]
    hands = (t.hands[0] | 1 << c, t.hands[1]) if p == 0 else (t.hands[0], t.hands[1] | 1 << c)
    seat = t.seats[p]
    evs.append(_ev(
        "draw", f"seat {seat} draws from the stock", hand_no, seat,
        f"you draw {CODE[c]} from the stock", frozenset((seat,)),
    ))
    return _after_draw(t, rules, hands, t.stock_pos + 1, t.pile, t.taken, -1)


def _take_from_pile(t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event],
                    kind: str, what: str) -> Table:
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
    evs.append(_ev(kind, f"seat {seat} takes {what} {CODE[c]}", hand_no, seat))
    return _after_draw(t, rules, hands, t.stock_pos, t.pile[:-1], taken, c)


def _void_result(t: Table, hand_no: int) -> GinHandResult:
    return GinHandResult(
        hand_no, t.seats, "void", -1, None, (), (), (), (), (), (), 0, 0, -1, 0,
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
    evs.append(_ev("discard", f"seat {seat} discards {CODE[c]}", hand_no, seat))
    left = len(t.stock) - t.stock_pos
    if left <= rules.stock_floor or turns >= rules.max_turns:
        why = (
            f"the stock holds {left} card{'s' if left != 1 else ''}"
            if left <= rules.stock_floor
            else f"it reached max_turns={rules.max_turns}"
        )
        evs.append(_ev("void", f"hand {hand_no} is void: {why}; nobody scores", hand_no))
        return Table(
            t.seats, hands, t.stock, t.stock_pos, pile, taken, DONE, p, -1, turns, (), -1,
            _void_result(t, hand_no),
        )
    return Table(
        t.seats, hands, t.stock, t.stock_pos, pile, taken, DRAW, 1 - p, -1, turns, DRAW_LEGAL,
        -1, None,
    )


def _groups(masks: Iterable[int]) -> tuple[tuple[Card, ...], ...]:
    return tuple(cards_of(m) for m in masks)


def _knock(t: Table, rules: GinRummyRules, hand_no: int, evs: list[Event], kind: int, c: int) -> Table:
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
        evs.append(_ev("knock", f"seat {knocker} declares big gin", hand_no, knocker))
    else:
        word = "goes gin" if kind == K_GIN else "knocks"
        evs.append(_ev("knock", f"seat {knocker} {word}, discarding face down", hand_no, knocker))
    evs.append(_ev("showdown", _showdown_text(res, sd.knocker_melds, sd.layoffs), hand_no))
    taken = (t.taken[0] & ~(1 << c), t.taken[1]) if k == 0 else (t.taken[0], t.taken[1] & ~(1 << c))
    if kind == K_BIG:
        taken = t.taken
    return Table(
        t.seats, hands, t.stock, t.stock_pos, t.pile, taken, DONE, k, -1, t.turns + 1, (),
        -1 if kind == K_BIG else c, res,
    )


def _showdown_text(res: GinHandResult, melds: tuple[int, ...], lay: tuple[int, ...]) -> str:
    k, d = res.knocker, res.seats[1] if res.seats[0] == res.knocker else res.seats[0]
    kmelds = " | ".join(_codes(m) for m in melds) or "none"
    parts = [
        f"seat {k} shows melds {kmelds}; deadwood "
        f"{' '.join(c.code for c in res.knocker_deadwood_cards) or '-'} ({res.knocker_deadwood})"
    ]
    if res.knock_card is not None:
        parts.append(f"knock card {res.knock_card}")
    dmelds = " | ".join(" ".join(c.code for c in g) for g in res.defender_melds) or "none"
    laid = " ".join(_codes(m) for m in lay if m)
    parts.append(
        f"seat {d} shows melds {dmelds}; lays off {laid or 'nothing'}; deadwood "
        f"{' '.join(c.code for c in res.defender_deadwood_cards) or '-'} ({res.defender_deadwood})"
    )
    label = {"big_gin": "big gin", "gin": "gin", "undercut": "undercut", "knock": "knock"}
    parts.append(f"{label[res.result]}: seat {res.winner} scores {res.points}")
    return "; ".join(parts)


def table_act(t: Table, rules: GinRummyRules, hand_no: int, kind: int, c: int) -> tuple[Table, list[Event]]:
    """Apply one legal action to a table; returns the new table and its events."""
    evs: list[Event] = []
    if kind == K_STOCK:
        return _draw_stock(t, rules, hand_no, evs), evs
    if kind == K_DISCARD:
        return _discard(t, rules, hand_no, evs, c), evs
    if kind == K_PILE:
        return _take_from_pile(t, rules, hand_no, evs, "draw_discard", "from the discard pile"), evs
    if kind == K_TAKE:
        return _take_from_pile(t, rules, hand_no, evs, "take_upcard", "the upcard"), evs
    if kind == K_PASS:
        seat = t.seats[t.turn]
        evs.append(_ev("pass", f"seat {seat} passes the upcard {CODE[t.pile[-1]]}", hand_no, seat))
        if t.phase == OFFER_FIRST:
            return Table(
                t.seats, t.hands, t.stock, t.stock_pos, t.pile, t.taken, OFFER_SECOND, 1, -1,
                t.turns, OFFER_LEGAL, -1, None,
            ), evs
        # Both passed: the first player draws from the stock and plays on.
        first = Table(
            t.seats, t.hands, t.stock, t.stock_pos, t.pile, t.taken, DRAW, 0, -1, t.turns,
            DRAW_LEGAL, -1, None,
        )
        return _draw_stock(first, rules, hand_no, evs), evs
    return _knock(t, rules, hand_no, evs, kind, c), evs


# ---------------------------------------------------------------------------------------
# Hands and the match


def _first_dealer(players: int, seed: int) -> tuple[int, Event]:
    """Each seat draws a card from a shuffled deck; the lowest value deals (players 4: that
    seat's team). Equal lowest values (across teams) draw again."""
    rng = chance_rng(seed, 0, "first-dealer")
    rounds = []
    while True:
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        drawn = deck[:players]
        rounds.append(", ".join(f"seat {s} {CODE[c]}" for s, c in enumerate(drawn)))
        low = min(VALUE[c] for c in drawn)
        lowest = [s for s, c in enumerate(drawn) if VALUE[c] == low]
        sides = {s % 2 if players == 4 else s for s in lowest}
        if len(sides) == 1:
            winner = lowest[0] % 2 if players == 4 else lowest[0]
            break
    who = f"team {winner} (seats {winner} and {winner + 2})" if players == 4 else f"seat {winner}"
    text = f"draw for the first deal: {'; draw again: '.join(rounds)}; lowest card: {who} deals"
    return winner, _ev("first_dealer", text, 1)


def _table_seats(players: int, hand_no: int, dealer: int) -> tuple[tuple[int, int], ...]:
    """(first player, dealer) per table for this hand."""
    if players == 2:
        return ((1 - dealer, dealer),)
    if players == 3:
        return (((dealer + 1) % 3, (dealer + 2) % 3),)
    # Teams 0+2 and 1+3; partners swap opponents every hand; the dealing team deals at both.
    pairs = ((0, 1), (2, 3)) if hand_no % 2 == 1 else ((0, 3), (2, 1))
    out = []
    for a, b in pairs:
        out.append((b, a) if a % 2 == dealer else (a, b))
    return tuple(out)


def _deal_hand(
    rules: GinRummyRules, seed: int, hand_no: int, dealer: int, scripted: tuple[tuple[int, ...], ...]
) -> tuple[tuple[Table, ...], list[Event], tuple[tuple[int, ...], ...]]:
    tables = []
    evs: list[Event] = []
    for ti, seats in enumerate(_table_seats(rules.players, hand_no, dealer)):
        if scripted:
            deck, scripted = scripted[0], scripted[1:]
        else:
            order = list(range(DECK_SIZE))
            chance_rng(seed, hand_no, f"deal/table{ti}").shuffle(order)
            deck = tuple(order)
        t = deal_table(deck, seats)
        tables.append(t)
        where = f" at table {ti}" if rules.players == 4 else ""
        by = dealer if rules.players == 3 else seats[1]
        sitting = " and sits out" if rules.players == 3 else ""
        evs.append(_ev(
            "deal",
            f"hand {hand_no}{where}: seat {by} deals 10 cards each to seats {seats[0]} and "
            f"{seats[1]}{sitting}; upcard {CODE[t.pile[0]]}; stock {t.stock_count}",
            hand_no, by,
        ))
        for p in (0, 1):
            s = seats[p]
            evs.append(_ev(
                "hand", f"seat {s} is dealt 10 cards", hand_no, s,
                f"you are dealt {_codes(t.hands[p])}", frozenset((s,)),
            ))
        evs.append(_ev(
            "upcard_offer",
            f"seat {seats[0]} may take the upcard {CODE[t.pile[0]]} or pass",
            hand_no, seats[0],
        ))
    return tuple(tables), evs, scripted


def new_match(
    rules: GinRummyRules,
    seed: int,
    *,
    dealer: int | None = None,
    decks: Sequence[Sequence[Card | str]] = (),
    scores: Sequence[int] | None = None,
    hands_won: Sequence[int] | None = None,
    hand_number: int = 1,
) -> GinRummyState:
    """The state at the start of a match, or (for tests and studies) of a chosen position:
    ``dealer`` overrides the simulated first-dealer draw (players 4: the dealing team);
    ``decks`` are deck orders (52 cards each, see :func:`stack_deck`) dealt before any
    seeded deck, one per table per hand; ``scores``/``hands_won`` (per side) and
    ``hand_number`` start the match part-way."""
    sides = _sides(rules)
    evs: list[Event] = []
    if dealer is None:
        dealer, ev = _first_dealer(rules.players, seed)
        evs.append(ev)
    elif not 0 <= dealer < sides:
        raise ValueError(f"dealer must be a side from 0 to {sides - 1}")
    run_scores = tuple(scores) if scores is not None else (0,) * sides
    run_wins = tuple(hands_won) if hands_won is not None else (0,) * sides
    if len(run_scores) != sides or len(run_wins) != sides:
        raise ValueError(f"scores and hands_won need one entry per side ({sides})")
    scripted = tuple(_deck_indices(d) for d in decks)
    tables, deal_evs, scripted = _deal_hand(rules, seed, hand_number, dealer, scripted)
    return GinRummyState(
        rules, seed, hand_number, dealer, tables, run_scores, run_wins, (), (), (),
        False, "", (*evs, *deal_evs), scripted,
    )


def _final_totals(
    rules: GinRummyRules, scores: tuple[int, ...], wins: tuple[int, ...]
) -> dict[str, list[int]]:
    """Running scores plus the end bonuses, per side. The winner is the side with the
    unique highest running score (the one that reached the target, or the leader at the
    length bound); with no unique leader nobody gets the game or shutout bonus."""
    n = len(scores)
    top = max(scores)
    leaders = [i for i in range(n) if scores[i] == top]
    game = [0] * n
    line = [rules.line_bonus * w for w in wins]
    shut = [0] * n
    if len(leaders) == 1:
        w = leaders[0]
        game[w] = rules.game_bonus
        if all(wins[i] == 0 for i in range(n) if i != w):
            if rules.shutout == "bonus":
                shut[w] = rules.shutout_bonus
            else:
                shut[w] = scores[w] + game[w] + line[w]  # doubling adds the total once more
    final = [scores[i] + game[i] + line[i] + shut[i] for i in range(n)]
    return {"running": list(scores), "game_bonus": game, "line_bonus": line, "shutout": shut,
            "final": final}


def _end_hand(s: GinRummyState, tables: tuple[Table, ...], evs: list[Event]) -> GinRummyState:
    """Score a finished hand (all tables done), then end the match or deal the next hand."""
    rules = s.rules
    hand_no = s.hand_number
    sides = _sides(rules)
    results = tuple(t.result for t in tables if t.result is not None)
    raw = [0] * sides
    for r in results:
        if r.winner >= 0:
            raw[side_of(rules, r.winner)] += r.points
    winner: int | None
    if all(r.result == "void" for r in results):
        winner = None
        points = [0] * sides
    elif rules.players == 4:
        net = raw[0] - raw[1]
        points = [max(net, 0), max(-net, 0)]
        winner = 0 if net > 0 else 1 if net < 0 else None
    else:
        points = raw
        winner = results[0].winner
    scores = tuple(a + b for a, b in zip(s.scores, points, strict=True))
    wins = tuple(w + (1 if i == winner else 0) for i, w in enumerate(s.wins))
    if winner is None:
        dealer = s.dealer
    elif rules.players == 2:
        dealer = 1 - winner
    elif rules.players == 3:
        dealer = (s.dealer + 1) % 3
    else:
        dealer = 1 - winner
    history = (*s.history, HandRecord(hand_no, tuple(r.result for r in results), tuple(points)))
    who = (lambda i: f"team {i}") if rules.players == 4 else (lambda i: f"seat {i}")
    head = f"hand {hand_no}: nobody scores" if winner is None else (
        f"hand {hand_no}: {who(winner)} wins {points[winner]}"
    )
    running = ", ".join(f"{who(i)} {scores[i]}" for i in range(sides))
    evs.append(_ev("hand_score", f"{head}; running scores: {running}", hand_no))
    over = max(scores) >= rules.target or hand_no >= rules.max_hands
    if over:
        reason = "target_score" if max(scores) >= rules.target else "max_hands"
        totals = _final_totals(rules, scores, wins)
        final = ", ".join(f"{who(i)} {totals['final'][i]}" for i in range(sides))
        why = (
            f"{who(scores.index(max(scores)))} reached {max(scores)}"
            if reason == "target_score"
            else f"the length bound of {rules.max_hands} hands was reached"
        )
        evs.append(_ev("match_over", f"match over: {why}; final totals with bonuses: {final}", hand_no))
        return GinRummyState(
            rules, s.seed, hand_no, dealer, tables, scores, wins, history, results,
            tuple(points), True, reason, tuple(evs), s.scripted,
        )
    nxt, deal_evs, scripted = _deal_hand(rules, s.seed, hand_no + 1, dealer, s.scripted)
    evs += deal_evs
    return GinRummyState(
        rules, s.seed, hand_no + 1, dealer, nxt, scores, wins, history, results, tuple(points),
        False, "", tuple(evs), scripted,
    )


# ---------------------------------------------------------------------------------------
# Views


def _table_view(t: Table, dealer: int) -> GinTable:
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
    )


def _view(s: GinRummyState, seat: int) -> GinRummyView:
    rules = s.rules
    players = rules.players
    tables = tuple(
        _table_view(t, s.dealer if players == 3 else t.seats[1]) for t in s.tables
    )
    ti = next((i for i, t in enumerate(s.tables) if seat in t.seats), -1)
    hand: tuple[Card, ...] = ()
    cannot: Card | None = None
    opponent = -1
    if ti >= 0:
        t = s.tables[ti]
        p = t.seats.index(seat)
        hand = cards_of(t.hands[p])
        opponent = t.seats[1 - p]
        if t.phase == DISCARD and t.turn == p and t.restricted >= 0:
            cannot = STANDARD_DECK[t.restricted]
    if s.over:
        phase = "match_over"
    elif ti >= 0:
        phase = PHASE_NAMES[s.tables[ti].phase]
    elif seat >= 0:
        phase = "sitting_out"
    else:
        phase = PHASE_NAMES[s.tables[0].phase]
    sides = [side_of(rules, i) for i in range(players)]
    final: tuple[int, ...] = ()
    if s.over:
        totals = _final_totals(rules, s.scores, s.wins)["final"]
        final = tuple(totals[x] for x in sides)
    return GinRummyView(
        seat=seat,
        players=players,
        hand_number=s.hand_number,
        phase=phase,
        to_act=GAME.to_act(s),
        hand=hand,
        cannot_discard=cannot,
        table=ti,
        opponent=opponent,
        dealer=tables[max(ti, 0)].dealer,
        tables=tables,
        teams=tuple(sides),
        scores=tuple(s.scores[x] for x in sides),
        hands_won=tuple(s.wins[x] for x in sides),
        target_score=rules.target,
        last_hand=s.last_hand,
        last_hand_points=tuple(s.last_points[x] for x in sides) if s.last_points else (),
        match_over=s.over,
        final_scores=final,
    )


# ---------------------------------------------------------------------------------------
# The Game


class GinRummy:
    """The gin rummy engine (see the module docstring and docs/games/gin_rummy.md)."""

    name: ClassVar[str] = "gin_rummy"
    version: ClassVar[int] = 1
    Rules = GinRummyRules

    def seats(self, rules: GinRummyRules) -> range:
        return range(rules.players, rules.players + 1)

    def initial_state(self, rules: GinRummyRules, seats: int, seed: int) -> GinRummyState:
        if seats != rules.players:
            raise RulesError(
                f"gin_rummy with players={rules.players} needs {rules.players} seats, not {seats}"
            )
        return new_match(rules, seed)

    def to_act(self, s: GinRummyState) -> tuple[int, ...]:
        if s.over:
            return ()
        tables = s.tables
        if len(tables) == 1:
            t = tables[0]
            return (t.seats[t.turn],)
        return tuple(sorted(t.seats[t.turn] for t in tables if t.phase != DONE))

    def _table_index(self, s: GinRummyState, seat: int) -> int:
        if not s.over:
            for i, t in enumerate(s.tables):
                if t.phase != DONE and t.seats[t.turn] == seat:
                    return i
        return -1

    def legal_actions(self, s: GinRummyState, seat: int) -> tuple[str, ...]:
        i = self._table_index(s, seat)
        return s.tables[i].legal if i >= 0 else ()

    def apply(self, s: GinRummyState, seat: int, a: str) -> GinRummyState:
        info = ACTIONS.get(a) if isinstance(a, str) else None
        if info is None:
            raise IllegalAction(f"{a!r} is not a gin_rummy action code (see docs/games/gin_rummy.md)")
        i = self._table_index(s, seat)
        if i < 0:
            if s.over:
                raise IllegalAction("the match is over")
            raise IllegalAction(f"seat {seat} is not to act; waiting for seats {self.to_act(s)}")
        t = s.tables[i]
        kind, c = info
        if a not in t.legal:
            raise IllegalAction(f"{a!r} is not legal now: {_why_illegal(t, s.rules, a, kind, c)}")
        nt, evs = table_act(t, s.rules, s.hand_number, kind, c)
        tables = (nt,) if len(s.tables) == 1 else (*s.tables[:i], nt, *s.tables[i + 1 :])
        if nt.phase == DONE and all(x.phase == DONE for x in tables):
            return _end_hand(s, tables, evs)
        return GinRummyState(
            s.rules, s.seed, s.hand_number, s.dealer, tables, s.scores, s.wins, s.history,
            s.last_hand, s.last_points, False, "", tuple(evs), s.scripted,
        )

    def observation(self, s: GinRummyState, seat: int) -> GinRummyView:
        return _view(s, seat)

    def public_view(self, s: GinRummyState) -> GinRummyView:
        return _view(s, -1)

    def events(self, s: GinRummyState) -> tuple[Event, ...]:
        return s.events

    def standings(self, s: GinRummyState) -> Outcome:
        rules = s.rules
        totals = _final_totals(rules, s.scores, s.wins)
        sides = [side_of(rules, i) for i in range(rules.players)]
        scores = tuple(float(totals["final"][x]) for x in sides)
        details: dict[str, Any] = {
            "players": rules.players,
            "sides": "teams" if rules.players == 4 else "seats",
            "target_score": rules.target,
            "reason": s.end_reason if s.over else "in_progress",
            "hands_played": len(s.history),
            "hands_won": list(s.wins),
            **totals,
            "hands": [
                {"hand": r.hand, "results": list(r.results), "points": list(r.points)}
                for r in s.history
            ],
        }
        return Outcome(
            scores=scores,
            ranks=ranks_from_scores(scores, higher_is_better=True),
            teams=(0, 1, 0, 1) if rules.players == 4 else None,
            details=details,
        )

    def outcome(self, s: GinRummyState) -> Outcome | None:
        return self.standings(s) if s.over else None

    def max_decisions(self, rules: GinRummyRules, seats: int) -> int:
        tables = 2 if rules.players == 4 else 1
        # Per table and hand: at most two upcard decisions, then two per turn, the first
        # turn's draw being the upcard offer itself.
        return rules.max_hands * tables * (2 * rules.max_turns + 1)

    def encode(self, a: str) -> str:
        return a

    def decode(self, code: str) -> str:
        if not isinstance(code, str) or len(code) > 40:
            raise IllegalAction("not a gin_rummy action code (see docs/games/gin_rummy.md)")
        if code in ACTIONS:
            return code
        words = code.split()
        if len(words) == 2 and words[0].lower() in ("discard", "knock", "gin"):
            try:
                canonical = f"{words[0].lower()} {card(words[1]).code}"
            except CardCodeError:
                canonical = ""
            if canonical in ACTIONS:
                return canonical
        joined = " ".join(w.lower() for w in words)
        if joined in ACTIONS:
            return joined
        raise IllegalAction(
            f"{code[:40]!r} is not a gin_rummy action code: use 'take upcard', 'pass', "
            "'draw stock', 'draw discard', 'discard QS', 'knock 7H', 'gin 7H' or 'big gin'"
        )


GAME = GinRummy()


def all_cards(s: GinRummyState) -> list[Card]:
    """Every card in every zone of the current deal(s): hands, stock, pile, knock card."""
    out: list[Card] = []
    deck = STANDARD_DECK
    for t in s.tables:
        for m in t.hands:
            out += cards_of(m)
        out += [deck[i] for i in t.stock[t.stock_pos :]]
        out += [deck[i] for i in t.pile]
        if t.knock_card >= 0:
            out.append(deck[t.knock_card])
    return out


def resample_hidden(s: GinRummyState, seat: int | None, rng: random.Random) -> GinRummyState:
    """The state with every card ``seat`` cannot see redealt among the places it cannot see.

    At its own table a seat knows its hand, the pile and the cards its opponent took from
    the pile; everything else there (the opponent's other cards, the stock) is shuffled.
    At any other table (or as a spectator, or sitting out) only the pile and taken cards
    are known. A finished table's hands were laid down (public) and keep their cards.
    """
    tables = []
    for t in s.tables:
        if t.phase == DONE and t.result is not None and t.result.result != "void":
            rest = t.stock[t.stock_pos :]
            pool = list(rest)
            rng.shuffle(pool)
            tables.append(rebuild_table(t, s.rules, t.hands, pool))
            continue
        known = [seat is not None and t.seats[p] == seat for p in (0, 1)]
        pool = list(t.stock[t.stock_pos :])
        for p in (0, 1):
            if not known[p]:
                pool += bits(t.hands[p] & ~t.taken[p])
        rng.shuffle(pool)
        hands = list(t.hands)
        for p in (0, 1):
            if not known[p]:
                n = (t.hands[p] & ~t.taken[p]).bit_count()
                m = t.taken[p]
                for c in pool[:n]:
                    m |= 1 << c
                pool = pool[n:]
                hands[p] = m
        tables.append(rebuild_table(t, s.rules, (hands[0], hands[1]), pool))
    return GinRummyState(
        s.rules, s.seed, s.hand_number, s.dealer, tuple(tables), s.scores, s.wins, s.history,
        s.last_hand, s.last_points, s.over, s.end_reason, s.events, s.scripted,
    )
