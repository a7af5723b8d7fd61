"""Goninkan (五人関): the six-seat trump-round trick game of Tsugaru, as a pure engine.

This module owns the goninkan rules (rules: docs/games/goninkan.md): the
50-card deck, the simulated first-dealer draw, trump rounds (役) of one to three
deals (戦), the kankei team (trump-ace holder, joker holder and dealer), the
二重関 blind exchange, the seat swap, the lead choice and the 決め役 show/trump of
deals 2 and 3, trick play with the joker, skunk / sixteen declarations, the
scoring table, the views each seat may see, and the action codes.

Action codes (see docs/games/goninkan.md): ``lead``, ``partner leads``,
``show 7C QS``, ``trump H``, ``play QH``, ``play JK``, ``play JK name H``,
``sixteen``, ``no sixteen``.

Hands are bitmasks over ``Card.index`` (0..51, joker 52) so legal moves and
trick resolution are a few integer operations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

from referee.cards import JOKER, STANDARD_DECK, Card, Suit, card, cards_of, mask_of, shuffled
from referee.game import Event, GameBase, InvalidAction, Outcome, chance_rng, ranks_from_scores
from referee.rules import RuleOptions, RulesError, option

__all__ = [
    "DECK",
    "GAME",
    "DealRecord",
    "GoninkanGame",
    "GoninkanRules",
    "GoninkanView",
    "Round",
    "RoundRecord",
    "State",
    "TrickRecord",
    "card_strength",
    "deal_hands",
    "draw_key",
    "evolve",
    "new_match",
    "trick_winner",
]

SEATS = 6
PLAYERS = 5
HAND_SIZE = 10
TRICKS = 10
HONOURS_TOTAL = 16
SUIT_CODES = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
ROUND_TRUMPS = (0, 1, 2)  # a trump round's first-deal trump cycles clubs, diamonds, hearts
KANKEI_TARGETS = (9, 8, 9)  # honours the kankei need in deals 1, 2, 3 (the mukankei: 17 - that)
WIN_BASE = (1, 2, 4)  # the source's running points of a round after a won deal 1, 2, 3
LOSE_BASE = (-1, 0, 1)  # ... and after a lost deal 1, 2, 3

# Phases of a deal.
LEAD_CHOICE, SHOW, TRUMP, PLAY, SIXTEEN, OVER = range(6)
PHASE_NAMES = ("lead choice", "show", "trump", "play", "sixteen", "over")

# Declarations in a deal.
NO_DECLARATION, SIXTEEN_DECLARED, REVERSE_SIXTEEN_DECLARED = range(3)
DECLARATION_NAMES = ("", "sixteen", "reverse sixteen")

# Deal results, as recorded and shown to bots.
WIN, SKUNK, LOSE, REVERSE_SKUNK = "win", "skunk", "lose", "reverse skunk"
SIXTEEN_MADE, SIXTEEN_MISSED = "sixteen made", "sixteen missed"
REVERSE_SIXTEEN_MADE, REVERSE_SIXTEEN_MISSED = "reverse sixteen made", "reverse sixteen missed"

# ---------------------------------------------------------------------------------------------
# Card tables


def _in_deck(c: Card) -> bool:
    # No 2s except the 2 of spades.
    return not (c.rank == 2 and c.suit is not Suit.SPADES)


DECK: tuple[Card, ...] = (*(c for c in STANDARD_DECK if _in_deck(c)), JOKER)
"""The 50 goninkan cards, in index order."""

JOKER_I = JOKER.index
JOKER_BIT = 1 << JOKER_I
CARD_AT: tuple[Card, ...] = (*STANDARD_DECK, JOKER)  # by Card.index
DECK_MASK = sum(1 << c.index for c in DECK)
SUIT_MASK: tuple[int, ...] = tuple(
    sum(1 << c.index for c in DECK if c.suit is s)
    for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
)
SUIT_OF: tuple[int, ...] = tuple(i // 13 if i < 52 else -1 for i in range(53))
HONOUR_RANKS = (1, 11, 12, 13)
IS_HONOUR: tuple[bool, ...] = tuple(c.rank in HONOUR_RANKS for c in CARD_AT)
HONOUR_MASK = sum(1 << i for i in range(53) if IS_HONOUR[i])


def card_strength(c: Card) -> int:
    """Rank strength within a suit: 2 lowest ... K 13, A 14; the joker 15."""
    if c.is_joker:
        return 15
    return 14 if c.rank == 1 else c.rank


STRENGTH: tuple[int, ...] = tuple(card_strength(c) for c in CARD_AT)

# The first-dealer draw: rank 2 lowest, A highest; among equal ranks spades lowest, then
# hearts, diamonds, clubs; the joker highest.
_DRAW_SUIT_ORDER = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.CLUBS: 3}


def draw_key(c: Card) -> int:
    """Order of the first-dealer draw (lowest deals)."""
    if c.is_joker or c.suit is None:
        return 1000
    return card_strength(c) * 4 + _DRAW_SUIT_ORDER[c.suit]


# ---------------------------------------------------------------------------------------------
# Action codes: short text, precomputed. An action is its canonical code string.

_PLAY, _PLAY_JOKER_NAMED, _LEAD, _PARTNER_LEADS, _SHOW, _TRUMP, _SIXTEEN, _NO_SIXTEEN = range(8)

PLAY_CODE: tuple[str, ...] = tuple(f"play {c.code}" for c in CARD_AT)
JOKER_NAMED_CODE: tuple[str, ...] = tuple(f"play JK name {s}" for s in SUIT_CODES)
TRUMP_CODE: tuple[str, ...] = tuple(f"trump {s}" for s in SUIT_CODES)
LEAD_CODES = ("lead", "partner leads")
SIXTEEN_CODES = ("no sixteen", "sixteen")


def _show_code(a: Card, b: Card) -> str:
    lo, hi = (a, b) if a.index < b.index else (b, a)
    return f"show {lo.code} {hi.code}"


_ACTIONS: dict[str, tuple[int, int, int]] = {}
for _c in DECK:
    _ACTIONS[PLAY_CODE[_c.index]] = (_PLAY, _c.index, -1)
for _s in range(4):
    _ACTIONS[JOKER_NAMED_CODE[_s]] = (_PLAY_JOKER_NAMED, JOKER_I, _s)
    _ACTIONS[TRUMP_CODE[_s]] = (_TRUMP, _s, -1)
for _a, _b in combinations(DECK, 2):
    _ACTIONS[_show_code(_a, _b)] = (_SHOW, _a.index, _b.index)
_ACTIONS["lead"] = (_LEAD, -1, -1)
_ACTIONS["partner leads"] = (_PARTNER_LEADS, -1, -1)
_ACTIONS["sixteen"] = (_SIXTEEN, -1, -1)
_ACTIONS["no sixteen"] = (_NO_SIXTEEN, -1, -1)

_GRAMMAR = (
    "codes are: 'lead', 'partner leads', 'show <card> <card>', 'trump C|D|H|S', "
    "'play <card>' (e.g. 'play QH'), 'play JK name C|D|H|S' when leading the joker, "
    "'sixteen', 'no sixteen'"
)


def _normalize(code: str) -> str | None:
    """A canonical code for a loosely written one (case, spacing, '10H', show order)."""
    words = code.split()
    if not 1 <= len(words) <= 4:
        return None
    head = words[0].lower()
    try:
        if head == "show" and len(words) == 3:
            return _show_code(card(words[1]), card(words[2]))
        if head == "play" and len(words) == 2:
            return f"play {card(words[1]).code}"
        if head == "play" and len(words) == 4 and words[2].lower() == "name":
            return f"play {card(words[1]).code} name {words[3].upper()}"
        if head == "trump" and len(words) == 2:
            return f"trump {words[1].upper()}"
    except ValueError:
        return None
    return " ".join(w.lower() for w in words)


# ---------------------------------------------------------------------------------------------
# Rules, records, views, state


@dataclass(frozen=True, slots=True)
class GoninkanRules(RuleOptions):
    """Rule options of goninkan."""

    yaku_count: int = option(
        6,
        "number of trump rounds (役) in a match; their first-deal trumps cycle clubs, diamonds, "
        "hearts and the dealer moves one seat on each round",
    )

    def __post_init__(self) -> None:
        if not 1 <= self.yaku_count <= 60:
            raise RulesError(f"rule yaku_count={self.yaku_count}: must be between 1 and 60")


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One completed trick of the current deal."""

    number: int  # 1..10
    leader: int
    seats: tuple[int, ...]  # who played, in play order
    cards: tuple[Card, ...]  # what they played, same order
    named_suit: str  # the suit named with a led joker ("" otherwise)
    winner: int
    honours: int  # honours (A K Q J) in the trick
    kankei_won: bool


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One finished deal of the current trump round."""

    hand: int  # deal number in the match (1-based)
    deal: int  # 1..3 in the trump round
    trump: str
    kankei_honours: int
    mukankei_honours: int
    result: str  # win, skunk, lose, reverse skunk, sixteen made/missed, reverse sixteen made/missed
    round_points: int  # the round's running points (kankei side) after this deal


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One finished trump round."""

    yaku: int  # 1-based
    dealer: int
    trump: str  # the first deal's trump
    kankei: tuple[int, ...]
    double_kankei: bool
    results: tuple[str, ...]  # each deal's result, in order
    points: int  # kankei side; each kankei seat scored this, each mukankei seat its negation


@dataclass(frozen=True, slots=True)
class GoninkanView:
    """What one seat knows (seat -1: a spectator). See docs/games/goninkan.md."""

    seat: int
    phase: str
    to_act: int | None
    yaku: int
    yaku_count: int
    deal: int
    hand_number: int
    dealer: int
    first_dealer: int
    first_draw: tuple[Card, ...]
    order: tuple[int, ...]
    round_trump: str
    trump: str
    kankei: tuple[int, ...]
    ace_holder: int | None
    joker_holder: int | None
    double_kankei: bool
    kankei_target: int
    mukankei_target: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    shown_cards: tuple[Card, ...]
    exchange_gave: Card | None
    exchange_received: Card | None
    trick_number: int
    leader: int | None
    led_suit: str
    trick: tuple[Card, ...]
    trick_seats: tuple[int, ...]
    tricks: tuple[TrickRecord, ...]
    kankei_honours: int
    mukankei_honours: int
    declared: str
    round_points: int
    deals: tuple[DealRecord, ...]
    rounds: tuple[RoundRecord, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """The parts of a match state that change only between deals (kept apart so that a
    card play copies a small object)."""

    rules: GoninkanRules
    seed: int
    first_dealer: int
    first_draw: tuple[Card, ...]
    scripted: tuple[tuple[int, ...], ...]  # hands (masks) for the coming deals, for tests
    yaku: int  # 0-based trump round
    dealer: int
    order: tuple[int, ...]  # the five players in play order, from the dealer's right
    round_trump: int
    kankei: int  # bitmask of kankei seats (dealer included)
    ace_role: int  # the trump-ace announcer (or the 二重関 holder)
    joker_role: int  # the joker announcer (or the 二重関 partner)
    double: bool
    exchange_key: Card | None  # 二重関: the key card that went to the partner
    exchange_back: Card | None  # 二重関: the partner's card that went to the holder
    round_base: int  # running points of the round from the table
    round_extra: int  # skunk, sixteen and reverse-sixteen bonuses of the round
    deal_records: tuple[DealRecord, ...]
    rounds: tuple[RoundRecord, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """A goninkan match in progress. Hands are card bitmasks; seats are 0..5. The fields
    of ``rnd`` read as attributes of the state too (``s.dealer``, ``s.order``, ...)."""

    rnd: Round
    deal: int  # 1..3
    hand_no: int  # deal number in the match, 1-based
    trump: int  # -1 until named (deals 2 and 3)
    hands: tuple[int, ...]
    phase: int
    actor: int
    trick_no: int
    leader: int
    trick: tuple[int, ...]  # card indices of the trick in progress
    trick_seats: tuple[int, ...]
    led: int  # suit to follow in the trick in progress (-1 before the lead)
    named: int  # suit named with a led joker (-1 otherwise)
    tricks: tuple[TrickRecord, ...]
    honours: tuple[int, int]  # (kankei, mukankei) honours taken this deal
    declared: int
    shown: tuple[Card, ...]  # the 決め役 cards of this deal
    events: tuple[Event, ...]

    @property
    def rules(self) -> GoninkanRules:
        return self.rnd.rules

    @property
    def seed(self) -> int:
        return self.rnd.seed

    @property
    def first_dealer(self) -> int:
        return self.rnd.first_dealer

    @property
    def first_draw(self) -> tuple[Card, ...]:
        return self.rnd.first_draw

    @property
    def scripted(self) -> tuple[tuple[int, ...], ...]:
        return self.rnd.scripted

    @property
    def yaku(self) -> int:
        return self.rnd.yaku

    @property
    def dealer(self) -> int:
        return self.rnd.dealer

    @property
    def order(self) -> tuple[int, ...]:
        return self.rnd.order

    @property
    def round_trump(self) -> int:
        return self.rnd.round_trump

    @property
    def kankei(self) -> int:
        return self.rnd.kankei

    @property
    def ace_role(self) -> int:
        return self.rnd.ace_role

    @property
    def joker_role(self) -> int:
        return self.rnd.joker_role

    @property
    def double(self) -> bool:
        return self.rnd.double

    @property
    def exchange_key(self) -> Card | None:
        return self.rnd.exchange_key

    @property
    def exchange_back(self) -> Card | None:
        return self.rnd.exchange_back

    @property
    def round_base(self) -> int:
        return self.rnd.round_base

    @property
    def round_extra(self) -> int:
        return self.rnd.round_extra

    @property
    def deal_records(self) -> tuple[DealRecord, ...]:
        return self.rnd.deal_records

    @property
    def rounds(self) -> tuple[RoundRecord, ...]:
        return self.rnd.rounds

    @property
    def scores(self) -> tuple[int, ...]:
        return self.rnd.scores

    @property
    def round_points(self) -> int:
        return self.rnd.round_base + self.rnd.round_extra

    def is_kankei(self, seat: int) -> bool:
        return bool(self.rnd.kankei >> seat & 1)

    def shower(self) -> int:
        """Who shows two cards in this deal's 決め役 (deals 2 and 3)."""
        return self.rnd.ace_role if self.deal == 2 else self.rnd.joker_role

    def chooser(self) -> int:
        """Who is shown the cards, names the trump and leads (deals 2 and 3)."""
        return self.rnd.joker_role if self.deal == 2 else self.rnd.ace_role


_ROUND_FIELDS = frozenset(f.name for f in dataclasses.fields(Round))


def evolve(s: State, **changes: Any) -> State:
    """``dataclasses.replace`` of ``s`` where the fields of ``s.rnd`` may be named too."""
    round_changes = {k: changes.pop(k) for k in [k for k in changes if k in _ROUND_FIELDS]}
    if round_changes:
        changes["rnd"] = dataclasses.replace(s.rnd, **round_changes)
    return dataclasses.replace(s, **changes)


# ---------------------------------------------------------------------------------------------
# Dealing


def deal_hands(deck: Sequence[Card], dealer: int) -> tuple[int, ...]:
    """Hands (bitmasks by seat) dealt from ``deck`` order: one card at a time, ten rounds,
    starting at the dealer's left (the previous seat number); the dealer gets none."""
    if sorted(c.index for c in deck) != sorted(c.index for c in DECK):
        raise ValueError("a goninkan deal uses exactly the 50 goninkan cards")
    receivers = [(dealer - k) % SEATS for k in range(1, SEATS)]
    hands = [0] * SEATS
    for i, c in enumerate(deck):
        hands[receivers[i % PLAYERS]] |= 1 << c.index
    return tuple(hands)


def _hands_from_spec(spec: Sequence[str | Sequence[Card]]) -> tuple[int, ...]:
    # The dealer (the empty hand) is checked when the deal is used.
    if len(spec) != SEATS:
        raise ValueError("a scripted deal gives 6 hands (the dealer's empty)")
    hands = []
    for seat, h in enumerate(spec):
        cs = tuple(card(x) for x in h.split()) if isinstance(h, str) else tuple(h)
        if len(cs) not in (0, HAND_SIZE):
            raise ValueError(f"scripted hand of seat {seat} has {len(cs)} cards, not 10 (or 0)")
        hands.append(mask_of(cs))
    total = 0
    for m in hands:
        total |= m
    if total != DECK_MASK or sum(m.bit_count() for m in hands) != len(DECK):
        raise ValueError("scripted hands must hold each of the 50 goninkan cards exactly once")
    return tuple(hands)


# ---------------------------------------------------------------------------------------------
# Transitions. Helpers take a state and an event list, and return the next state.


def _text_seats(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seats)


def _kankei_seats(s: State) -> tuple[int, ...]:
    return tuple(i for i in range(SEATS) if s.kankei >> i & 1)


def _mukankei_seats(s: State) -> tuple[int, ...]:
    return tuple(i for i in range(SEATS) if not s.kankei >> i & 1)


def _next_seat(s: State, seat: int) -> int:
    order = s.order
    return order[(order.index(seat) + 1) % PLAYERS]


def new_match(
    rules: GoninkanRules,
    seed: int,
    *,
    first_dealer: int | None = None,
    deals: Sequence[Sequence[str | Sequence[Card]]] = (),
) -> State:
    """The initial state of a match.

    Normally the first dealer comes from a simulated draw and every deal from the
    seeded shuffle. For scripted play (tests, puzzles) ``first_dealer`` skips the
    draw, and ``deals`` gives the hands of the first deals in order (6 hands each,
    the dealer's empty, as card lists or space-separated codes); later deals are
    shuffled from the seed as usual.
    """
    if first_dealer is None:
        draw = shuffled(DECK, chance_rng(seed, 0, "first dealer"))[:SEATS]
        first = min(range(SEATS), key=lambda i: draw_key(draw[i]))
        events = [
            Event(
                "draw",
                "first-dealer draw: "
                + ", ".join(f"seat {i} {c.code}" for i, c in enumerate(draw))
                + f"; seat {first} drew the lowest card and deals first",
                hand=1,
            )
        ]
    else:
        if not 0 <= first_dealer < SEATS:
            raise ValueError("first_dealer must be a seat 0..5")
        draw, first = (), first_dealer
        events = [Event("draw", f"seat {first} deals first (arranged)", hand=1)]
    scripted = tuple(_hands_from_spec(spec) for spec in deals)
    rnd = Round(
        rules=rules, seed=seed, first_dealer=first, first_draw=tuple(draw), scripted=scripted,
        yaku=0, dealer=first, order=(), round_trump=0, kankei=0, ace_role=-1, joker_role=-1,
        double=False, exchange_key=None, exchange_back=None, round_base=0, round_extra=0,
        deal_records=(), rounds=(), scores=(0,) * SEATS,
    )  # fmt: skip
    s = State(
        rnd=rnd, deal=0, hand_no=0, trump=-1, hands=(0,) * SEATS, phase=OVER, actor=-1,
        trick_no=0, leader=-1, trick=(), trick_seats=(), led=-1, named=-1, tricks=(),
        honours=(0, 0), declared=0, shown=(), events=(),
    )  # fmt: skip
    s = _start_round(s, 0, events)
    return evolve(s, events=tuple(events))


def _start_round(s: State, yaku: int, ev: list[Event]) -> State:
    dealer = (s.first_dealer + yaku) % SEATS
    order = tuple((dealer + k) % SEATS for k in range(1, SEATS))
    trump = ROUND_TRUMPS[yaku % 3]
    ev.append(
        Event(
            "round",
            f"trump round {yaku + 1} of {s.rules.yaku_count}: trump {SUIT_NAMES[trump]}, "
            f"seat {dealer} deals and sits out; play order {_text_seats(order)}",
            hand=s.hand_no + 1,
        )
    )
    s = evolve(
        s,
        yaku=yaku,
        dealer=dealer,
        order=order,
        round_trump=trump,
        kankei=0,
        ace_role=-1,
        joker_role=-1,
        double=False,
        exchange_key=None,
        exchange_back=None,
        round_base=0,
        round_extra=0,
        deal_records=(),
    )
    return _start_deal(s, 1, ev)


def _start_deal(s: State, deal: int, ev: list[Event]) -> State:
    hand_no = s.hand_no + 1
    if s.scripted:
        hands, scripted = s.scripted[0], s.scripted[1:]
        if hands[s.dealer]:
            raise ValueError(f"scripted deal {hand_no}: the dealer, seat {s.dealer}, gets no cards")
    else:
        deck = shuffled(DECK, chance_rng(s.seed, hand_no, "deal"))
        hands, scripted = deal_hands(deck, s.dealer), ()
    trump = s.round_trump if deal == 1 else -1
    s = evolve(
        s,
        scripted=scripted,
        deal=deal,
        hand_no=hand_no,
        trump=trump,
        hands=hands,
        trick_no=1,
        leader=-1,
        trick=(),
        trick_seats=(),
        led=-1,
        named=-1,
        tricks=(),
        honours=(0, 0),
        declared=0,
        shown=(),
    )
    trump_text = f", trump {SUIT_NAMES[trump]}" if deal == 1 else ""
    ev.append(
        Event(
            "deal",
            f"deal {deal} of trump round {s.yaku + 1}{trump_text}: seat {s.dealer} deals "
            f"10 cards to each other seat; the kankei need {KANKEI_TARGETS[deal - 1]} honours, "
            f"the mukankei {17 - KANKEI_TARGETS[deal - 1]}",
            seat=s.dealer,
            hand=hand_no,
        )
    )
    for seat in s.order:
        ev.append(
            Event(
                "hand",
                f"seat {seat} receives 10 cards",
                seat=seat,
                private_text=f"seat {seat} receives "
                + " ".join(c.code for c in cards_of(hands[seat])),
                visible_to=frozenset((seat,)),
                hand=hand_no,
            )
        )
    if deal == 1:
        return _form_team(s, ev)
    shower, chooser = s.shower(), s.chooser()
    ev.append(
        Event(
            "kimeyaku",
            f"決め役: seat {shower} shows two cards to seat {chooser}, who names the trump and "
            "leads",
            seat=shower,
            hand=hand_no,
        )
    )
    return evolve(s, phase=SHOW, actor=shower)


def _form_team(s: State, ev: list[Event]) -> State:
    ace_i = s.round_trump * 13  # the trump ace
    ace = CARD_AT[ace_i]
    holder = {i for i in s.order if s.hands[i] >> ace_i & 1}.pop()
    joker_holder = {i for i in s.order if s.hands[i] & JOKER_BIT}.pop()
    hands = list(s.hands)
    order = s.order
    if holder != joker_holder:
        partner = joker_holder
        kankei = 1 << holder | 1 << partner | 1 << s.dealer
        ev.append(
            Event(
                "team",
                f"kankei: seat {holder} holds {ace.code}, seat {partner} holds the joker, with "
                f"dealer seat {s.dealer}",
                seat=holder,
                hand=s.hand_no,
            )
        )
        pa, pb = order.index(holder), order.index(partner)
        if (pb - pa) % PLAYERS in (1, PLAYERS - 1):
            # The kankei on the right swaps with the player on their right, so that one or
            # two mukankei sit between the two playing kankei.
            right = pb if (pb - pa) % PLAYERS == 1 else pa
            other = (right + 1) % PLAYERS
            new = list(order)
            new[right], new[other] = new[other], new[right]
            ev.append(
                Event(
                    "swap",
                    f"seats {order[right]} and {order[other]} swap places; play order is now "
                    f"{_text_seats(new)} for this trump round",
                    seat=order[right],
                    hand=s.hand_no,
                )
            )
            order = tuple(new)
        exchange_key = exchange_back = None
    else:
        # 二重関: the partner is the second player to the holder's right (skipping the
        # dealer); a blind exchange (a chance event) gives one key card to the partner.
        partner = order[(order.index(holder) + 2) % PLAYERS]
        kankei = 1 << holder | 1 << partner | 1 << s.dealer
        rng = chance_rng(s.seed, s.hand_no, "exchange")
        key_i = rng.choice((ace_i, JOKER_I))
        back = rng.choice(cards_of(hands[partner]))
        hands[holder] = hands[holder] & ~(1 << key_i) | 1 << back.index
        hands[partner] = hands[partner] & ~(1 << back.index) | 1 << key_i
        exchange_key, exchange_back = CARD_AT[key_i], back
        ev.append(
            Event(
                "team",
                f"二重関: seat {holder} holds both {ace.code} and the joker; seat {partner} "
                f"(second to the right) becomes kankei, with dealer seat {s.dealer}",
                seat=holder,
                hand=s.hand_no,
            )
        )
        ev.append(
            Event(
                "exchange",
                f"a mukankei player exchanges blind one of seat {holder}'s two key cards with one "
                f"of seat {partner}'s cards",
                seat=holder,
                private_text=f"二重関 exchange: seat {holder} gave {exchange_key.code} to seat "
                f"{partner} and received {back.code}",
                visible_to=frozenset((holder, partner)),
                hand=s.hand_no,
            )
        )
    s = evolve(
        s,
        hands=tuple(hands),
        order=order,
        kankei=kankei,
        ace_role=holder,
        joker_role=partner,
        double=holder == joker_holder,
        exchange_key=exchange_key,
        exchange_back=exchange_back,
        phase=LEAD_CHOICE,
        actor=holder,
    )
    ev.append(
        Event(
            "teams",
            f"kankei {_text_seats(_kankei_seats(s))}; mukankei {_text_seats(_mukankei_seats(s))}; "
            f"seat {holder} chooses who leads",
            hand=s.hand_no,
        )
    )
    return s


def _legal_mask(s: State, seat: int) -> int:
    """The cards ``seat`` may play now (phase PLAY, its turn)."""
    h = s.hands[seat]
    t = s.trick_no
    if t == 9 and h & JOKER_BIT:
        return JOKER_BIT  # a player still holding the joker when trick 9 begins must play it
    no_joker = t == 1 or t == TRICKS
    if s.trick:
        follow = h & SUIT_MASK[s.led]
        if follow:
            return follow if no_joker else follow | (h & JOKER_BIT)
    return h & ~JOKER_BIT if no_joker else h


def _play(s: State, seat: int, ci: int, named: int) -> State:
    """The state after ``seat`` plays card ``ci``, with this transition's events."""
    ev: list[Event] = []
    c = CARD_AT[ci]
    hands = list(s.hands)
    hands[seat] &= ~(1 << ci)
    trick = (*s.trick, ci)
    trick_seats = (*s.trick_seats, seat)
    led, leader = s.led, s.leader
    if len(trick) == 1:
        leader = seat
        led = named if ci == JOKER_I else SUIT_OF[ci]
        what = f"leads the joker naming {SUIT_NAMES[named]}" if ci == JOKER_I else f"leads {c.code}"
    else:
        what = f"plays {c.code}"
    ev.append(Event("play", f"seat {seat} {what}", seat=seat, hand=s.hand_no))
    if len(trick) < PLAYERS:
        # Keyword construction, not evolve (dataclasses.replace): this runs for most cards,
        # and replace costs several times as much.
        return State(
            rnd=s.rnd,
            deal=s.deal,
            hand_no=s.hand_no,
            trump=s.trump,
            hands=tuple(hands),
            phase=s.phase,
            actor=_next_seat(s, seat),
            trick_no=s.trick_no,
            leader=leader,
            trick=trick,
            trick_seats=trick_seats,
            led=led,
            named=named if len(trick) == 1 else s.named,
            tricks=s.tricks,
            honours=s.honours,
            declared=s.declared,
            shown=s.shown,
            events=tuple(ev),
        )
    s = _finish_trick(s, tuple(hands), trick, trick_seats, led, leader, ev)
    return evolve(s, events=tuple(ev))


def trick_winner(cards: Sequence[int], led: int, trump: int) -> int:
    """Index (in play order) of the winning card of a trick of card indices."""
    best, best_key = 0, -1
    for pos, ci in enumerate(cards):
        if ci == JOKER_I:
            return pos
        suit = SUIT_OF[ci]
        key = 200 + STRENGTH[ci] if suit == trump else 100 + STRENGTH[ci] if suit == led else 0
        if key > best_key:
            best, best_key = pos, key
    return best


def _finish_trick(
    s: State,
    hands: tuple[int, ...],
    trick: tuple[int, ...],
    trick_seats: tuple[int, ...],
    led: int,
    leader: int,
    ev: list[Event],
) -> State:
    win_pos = trick_winner(trick, led, s.trump)
    winner = trick_seats[win_pos]
    n_honours = sum(1 for ci in trick if IS_HONOUR[ci])
    kankei_won = s.is_kankei(winner)
    k, m = s.honours
    if kankei_won:
        k += n_honours
    else:
        m += n_honours
    named = s.named if trick[0] == JOKER_I else -1
    record = TrickRecord(
        number=s.trick_no,
        leader=leader,
        seats=trick_seats,
        cards=tuple(CARD_AT[ci] for ci in trick),
        named_suit=SUIT_CODES[named] if named >= 0 else "",
        winner=winner,
        honours=n_honours,
        kankei_won=kankei_won,
    )
    side = "kankei" if kankei_won else "mukankei"
    win_card = CARD_AT[trick[win_pos]]
    ev.append(
        Event(
            "trick",
            f"seat {winner} ({side}) wins trick {s.trick_no} with {win_card.code}, taking "
            f"{n_honours} honour{'s' if n_honours != 1 else ''}; honours kankei {k}, mukankei {m}",
            seat=winner,
            hand=s.hand_no,
        )
    )
    s = evolve(
        s,
        hands=hands,
        trick=(),
        trick_seats=(),
        led=-1,
        named=-1,
        leader=winner,
        actor=winner,
        honours=(k, m),
        tricks=(*s.tricks, record),
        trick_no=s.trick_no + 1,
    )
    result = _deal_result(s, k, m)
    if result is None:
        return s
    if result == "offer":
        side_text = "sixteen" if kankei_won else "reverse sixteen"
        ev.append(
            Event(
                "offer",
                f"seat {winner} may declare {side_text} (play on to take all 16 honours) or not",
                seat=winner,
                hand=s.hand_no,
            )
        )
        return evolve(s, phase=SIXTEEN)
    return _finish_deal(s, result, ev)


def _deal_result(s: State, k: int, m: int) -> str | None:
    """The deal's result after a trick, "offer" for a sixteen decision, or None to play on."""
    if s.declared == SIXTEEN_DECLARED:
        return SIXTEEN_MISSED if m else SIXTEEN_MADE if k == HONOURS_TOTAL else None
    if s.declared == REVERSE_SIXTEEN_DECLARED:
        if k:
            return REVERSE_SIXTEEN_MISSED
        return REVERSE_SIXTEEN_MADE if m == HONOURS_TOTAL else None
    target = KANKEI_TARGETS[s.deal - 1]
    if k >= target:
        if m == 0:
            return "offer" if s.deal >= 2 else SKUNK
        return WIN
    if m >= 17 - target:
        if k == 0:
            return "offer" if s.deal >= 2 else REVERSE_SKUNK
        return LOSE
    return None


def _round_after(base: int, extra: int, deal: int, result: str) -> tuple[int, int, bool]:
    """The round's running points (base, extra) after a deal, and whether the round ends."""
    d = deal - 1
    if result == WIN:
        return WIN_BASE[d], extra, deal == 3
    if result == SKUNK:
        return WIN_BASE[d], extra + 1, deal == 3
    if result == LOSE:
        return LOSE_BASE[d], extra, True
    if result == REVERSE_SKUNK:
        # Deal 1: -10 (not -1). Deals 2 and 3: the round's earlier points are cancelled; -3.
        return (-10 if deal == 1 else -3), 0, True
    if result == SIXTEEN_MADE:
        # Counts as won through deal 3, plus every skunk bonus (this deal's too), plus 8.
        return WIN_BASE[2], extra + 1 + 8, True
    if result == SIXTEEN_MISSED:
        return base, extra - 16, True  # -16 for that deal; earlier points stand
    if result == REVERSE_SIXTEEN_MADE:
        return -16, 0, True  # the round's points are cancelled
    if result == REVERSE_SIXTEEN_MISSED:
        return WIN_BASE[d], extra + 32, deal == 3  # counts as a kankei win
    raise AssertionError(result)


def _finish_deal(s: State, result: str, ev: list[Event]) -> State:
    k, m = s.honours
    base, extra, round_over = _round_after(s.round_base, s.round_extra, s.deal, result)
    record = DealRecord(
        hand=s.hand_no,
        deal=s.deal,
        trump=SUIT_CODES[s.trump],
        kankei_honours=k,
        mukankei_honours=m,
        result=result,
        round_points=base + extra,
    )
    ev.append(
        Event(
            "deal_over",
            f"deal {s.deal} of trump round {s.yaku + 1}: {result} for the kankei "
            f"(honours kankei {k}, mukankei {m}); the round stands at {base + extra:+d} "
            "for the kankei",
            hand=s.hand_no,
        )
    )
    s = evolve(s, round_base=base, round_extra=extra, deal_records=(*s.deal_records, record))
    if not round_over:
        return _start_deal(s, s.deal + 1, ev)
    return _finish_round(s, ev)


def _finish_round(s: State, ev: list[Event]) -> State:
    points = s.round_points
    scores = tuple(sc + (points if s.kankei >> i & 1 else -points) for i, sc in enumerate(s.scores))
    record = RoundRecord(
        yaku=s.yaku + 1,
        dealer=s.dealer,
        trump=SUIT_CODES[s.round_trump],
        kankei=_kankei_seats(s),
        double_kankei=s.double,
        results=tuple(d.result for d in s.deal_records),
        points=points,
    )
    ev.append(
        Event(
            "round_over",
            f"trump round {s.yaku + 1} ends: kankei {_text_seats(record.kankei)} score "
            f"{points:+d} each, mukankei {_text_seats(_mukankei_seats(s))} {-points:+d} each; "
            f"totals {', '.join(str(x) for x in scores)}",
            hand=s.hand_no,
        )
    )
    s = evolve(s, scores=scores, rounds=(*s.rounds, record))
    if s.yaku + 1 < s.rules.yaku_count:
        return _start_round(s, s.yaku + 1, ev)
    ranks = ranks_from_scores(scores, higher_is_better=True)
    ev.append(
        Event(
            "match_over",
            "match over: "
            + ", ".join(
                f"seat {i} {sc} (rank {r})"
                for i, (sc, r) in enumerate(zip(scores, ranks, strict=True))
            ),
            hand=s.hand_no,
        )
    )
    return evolve(s, phase=OVER, actor=-1)


# ---------------------------------------------------------------------------------------------
# The engine


_ACTOR = tuple((i,) for i in range(SEATS))


class GoninkanGame(GameBase[State, str, GoninkanRules]):
    """The goninkan engine (see the module docstring)."""

    name: ClassVar[str] = "goninkan"
    # 2: the first-dealer draw's event says hand 1, not 0 (EventNotice.hand is 1-based).
    version: ClassVar[int] = 2
    Rules = GoninkanRules

    def seats(self, rules: GoninkanRules) -> range:
        return range(SEATS, SEATS + 1)

    def initial_state(self, rules: GoninkanRules, seats: int, seed: int) -> State:
        if seats != SEATS:
            raise ValueError(f"goninkan is played by exactly {SEATS} seats, not {seats}")
        return new_match(rules, seed)

    def to_act(self, s: State) -> tuple[int, ...]:
        return () if s.phase == OVER else _ACTOR[s.actor]

    def legal_actions(self, s: State, seat: int) -> tuple[str, ...]:
        if s.phase == OVER or seat != s.actor:
            return ()
        phase = s.phase
        if phase == PLAY:
            mask = _legal_mask(s, seat)
            out: list[str] = []
            while mask:
                low = mask & -mask
                ci = low.bit_length() - 1
                if ci == JOKER_I and not s.trick:
                    out.extend(JOKER_NAMED_CODE)
                else:
                    out.append(PLAY_CODE[ci])
                mask ^= low
            out.sort()
            return tuple(out)
        if phase == LEAD_CHOICE:
            return LEAD_CODES
        if phase == SHOW:
            return tuple(
                sorted(_show_code(a, b) for a, b in combinations(cards_of(s.hands[seat]), 2))
            )
        if phase == TRUMP:
            return TRUMP_CODE
        return SIXTEEN_CODES

    def _is_legal(self, s: State, seat: int, a: str) -> bool:
        spec = _ACTIONS.get(a)
        if s.phase == OVER or seat != s.actor or spec is None:
            return False
        kind, x, y = spec
        phase = s.phase
        if phase == PLAY:
            leading_joker = x == JOKER_I and not s.trick
            return (
                kind in (_PLAY, _PLAY_JOKER_NAMED)
                and bool(_legal_mask(s, seat) >> x & 1)
                and (kind == _PLAY_JOKER_NAMED) == leading_joker
            )
        if phase == LEAD_CHOICE:
            return kind in (_LEAD, _PARTNER_LEADS)
        if phase == SHOW:
            if kind != _SHOW:
                return False  # other codes have no second card (y is -1)
            pair = 1 << x | 1 << y
            return s.hands[seat] & pair == pair
        if phase == TRUMP:
            return kind == _TRUMP
        return phase == SIXTEEN and kind in (_SIXTEEN, _NO_SIXTEEN)

    def _why_illegal(self, s: State, seat: int, a: str) -> str:
        if s.phase == OVER:
            return "the match is over"
        if seat != s.actor:
            return f"it is not seat {seat}'s turn: seat {s.actor} is to act"
        if a not in _ACTIONS:
            return f"{a!r} is not a goninkan action code; {_GRAMMAR}"
        legal = self.legal_actions(s, seat)
        return (
            f"{a!r} is not legal for seat {seat} now ({PHASE_NAMES[s.phase]}); legal: "
            + ", ".join(legal)
        )

    def _transition(self, s: State, seat: int, a: str) -> State:
        kind, x, y = _ACTIONS[a]
        phase = s.phase
        if phase == PLAY:
            return _play(s, seat, x, y)
        if phase == LEAD_CHOICE:
            leader = s.ace_role if kind == _LEAD else s.joker_role
            event = Event(
                "lead_choice",
                f"seat {seat} chooses {a!r}: seat {leader} leads trick 1",
                seat=seat,
                hand=s.hand_no,
            )
            return evolve(s, phase=PLAY, actor=leader, leader=leader, events=(event,))
        if phase == SHOW:
            to = s.chooser()
            event = Event(
                "show",
                f"seat {seat} shows two cards face down to seat {to}",
                seat=seat,
                private_text=f"seat {seat} shows {a[5:]} to seat {to}",
                visible_to=frozenset((seat, to)),
                hand=s.hand_no,
            )
            shown = (CARD_AT[x], CARD_AT[y])
            return evolve(s, shown=shown, phase=TRUMP, actor=to, events=(event,))
        if phase == TRUMP:
            event = Event(
                "trump",
                f"seat {seat} names {SUIT_NAMES[x]} as trump and leads",
                seat=seat,
                hand=s.hand_no,
            )
            return evolve(s, trump=x, phase=PLAY, actor=seat, leader=seat, events=(event,))
        # the sixteen declaration
        kankei_side = s.is_kankei(seat)
        name = "sixteen" if kankei_side else "reverse sixteen"
        if kind == _SIXTEEN:
            event = Event("declare", f"seat {seat} declares {name}", seat=seat, hand=s.hand_no)
            declared = SIXTEEN_DECLARED if kankei_side else REVERSE_SIXTEEN_DECLARED
            return evolve(s, declared=declared, phase=PLAY, events=(event,))
        ev = [Event("declare", f"seat {seat} does not declare {name}", seat=seat, hand=s.hand_no)]
        s = _finish_deal(s, SKUNK if kankei_side else REVERSE_SKUNK, ev)
        return evolve(s, events=tuple(ev))

    def _view(self, s: State, seat: int) -> GoninkanView:
        return _view(s, seat)

    def standings(self, s: State) -> Outcome:
        """Totals of the finished trump rounds (a round in progress does not count)."""
        details: dict[str, Any] = {
            "first_dealer": s.first_dealer,
            "finished": s.phase == OVER,
            "rounds": [
                {
                    "yaku": r.yaku,
                    "dealer": r.dealer,
                    "trump": r.trump,
                    "kankei": list(r.kankei),
                    "double_kankei": r.double_kankei,
                    "results": list(r.results),
                    "points": r.points,
                }
                for r in s.rounds
            ],
        }
        return Outcome(
            scores=tuple(float(x) for x in s.scores),
            ranks=ranks_from_scores(s.scores, higher_is_better=True),
            teams=None,
            details=details,
        )

    def max_decisions(self, rules: GoninkanRules, seats: int) -> int:
        # Deal 1: a lead choice and 50 cards; deals 2 and 3: show, trump, 50 cards and at most
        # one sixteen decision.
        return rules.yaku_count * ((1 + 50) + 2 * (2 + 50 + 1))

    def decode(self, code: str) -> str:
        if not isinstance(code, str) or len(code) > 40:
            raise InvalidAction(f"not a goninkan action code; {_GRAMMAR}")
        if code in _ACTIONS:
            return code
        canonical = _normalize(code)
        if canonical is None or canonical not in _ACTIONS:
            raise InvalidAction(f"{code!r} is not a goninkan action code; {_GRAMMAR}")
        return canonical


def _view(s: State, seat: int) -> GoninkanView:
    own = 0 <= seat < SEATS
    shown: tuple[Card, ...] = ()
    if own and s.shown and seat in (s.shower(), s.chooser()):
        shown = s.shown
    gave = received = None
    if own and s.double and s.exchange_key is not None:
        if seat == s.ace_role:
            gave, received = s.exchange_key, s.exchange_back
        elif seat == s.joker_role:
            gave, received = s.exchange_back, s.exchange_key
    target = KANKEI_TARGETS[s.deal - 1]
    return GoninkanView(
        seat=seat,
        phase=PHASE_NAMES[s.phase],
        to_act=None if s.phase == OVER else s.actor,
        yaku=s.yaku + 1,
        yaku_count=s.rules.yaku_count,
        deal=s.deal,
        hand_number=s.hand_no,
        dealer=s.dealer,
        first_dealer=s.first_dealer,
        first_draw=s.first_draw,
        order=s.order,
        round_trump=SUIT_CODES[s.round_trump],
        trump=SUIT_CODES[s.trump] if s.trump >= 0 else "",
        kankei=_kankei_seats(s),
        ace_holder=s.ace_role if s.ace_role >= 0 else None,
        joker_holder=s.joker_role if s.joker_role >= 0 else None,
        double_kankei=s.double,
        kankei_target=target,
        mukankei_target=17 - target,
        hand=cards_of(s.hands[seat]) if own else (),
        hand_sizes=tuple(h.bit_count() for h in s.hands),
        shown_cards=shown,
        exchange_gave=gave,
        exchange_received=received,
        trick_number=s.trick_no,
        leader=s.leader if s.leader >= 0 else None,
        led_suit=SUIT_CODES[s.led] if s.led >= 0 else "",
        trick=tuple(CARD_AT[ci] for ci in s.trick),
        trick_seats=s.trick_seats,
        tricks=s.tricks,
        kankei_honours=s.honours[0],
        mukankei_honours=s.honours[1],
        declared=DECLARATION_NAMES[s.declared],
        round_points=s.round_points,
        deals=s.deal_records,
        rounds=s.rounds,
        scores=s.scores,
    )


GAME = GoninkanGame()
