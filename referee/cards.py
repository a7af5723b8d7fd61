"""Playing cards: suits, ranks, interned Card values, decks and their text codes.

Every card in the project is one of the interned ``Card`` objects below, so
cards compare and hash cheaply and ``card("QS") is card("QS")``. Several
physical copies of a card (multi-deck games) are equal values; games that need
to tell copies apart track positions, not identities.

Text codes: rank character (A 2-9 T J Q K) + suit letter (C D H S); the joker
is ``JK``. These codes are what bots, replays and docs use.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache, total_ordering


class Suit(Enum):
    """The four suits, in bridge order (clubs lowest). Values are the code letters."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
SUITS: tuple[Suit, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
JOKER_RANK = 0
RANKS: tuple[int, ...] = tuple(range(1, 14))
RANK_CHARS = "A23456789TJQK"


class CardCodeError(ValueError):
    """A text that is not a card code."""


@total_ordering
@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """A playing card. ``rank`` is 1 (ace) to 13 (king), or 0 for a joker (``suit`` None).

    Instances are interned: build them with :func:`card` or take them from
    :data:`STANDARD_DECK` / :data:`JOKER`, never with ``Card(...)`` directly.
    """

    rank: int
    suit: Suit | None
    code: str
    index: int  # 0..51 for standard cards (suit-major), 52 for the joker: for bitmasks and tables

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    @property
    def rank_char(self) -> str:
        return "JK" if self.suit is None else RANK_CHARS[self.rank - 1]

    @property
    def label(self) -> str:
        """Human-friendly text, e.g. ``Q♠`` or ``Joker``."""
        if self.suit is None:
            return "Joker"
        rank = "10" if self.rank == 10 else RANK_CHARS[self.rank - 1]
        return rank + self.suit.symbol

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __repr__(self) -> str:
        return self.code

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Keep interning across pickling (multiprocessing, copy).
        return (card, (self.code,))


def _build() -> tuple[tuple[Card, ...], Card, dict[str, Card]]:
    deck = tuple(
        Card(rank, suit, RANK_CHARS[rank - 1] + suit.value, si * 13 + rank - 1)
        for si, suit in enumerate(SUITS)
        for rank in RANKS
    )
    joker = Card(JOKER_RANK, None, "JK", 52)
    by_code = {c.code: c for c in deck}
    by_code["JK"] = joker
    return deck, joker, by_code


STANDARD_DECK, JOKER, _BY_CODE = _build()
"""The 52 cards in suit-major order (AC..KC, AD..KD, AH..KH, AS..KS), and the joker."""


def card(code: str) -> Card:
    """The card for a text code (``"QS"``, ``"TD"``, ``"AH"``, ``"JK"``); also accepts ``10H``
    and lower case."""
    found = _BY_CODE.get(code) or _BY_CODE.get(code.strip().upper().replace("10", "T", 1))
    if found is None:
        raise CardCodeError(
            f"{code!r} is not a card code: use rank A 2-9 T J Q K then suit C D H S "
            "(e.g. 'QS', 'TD'), or 'JK' for a joker"
        )
    return found


def cards(codes: str | Iterable[str]) -> tuple[Card, ...]:
    """Cards from codes, given as an iterable or one space-separated string."""
    if isinstance(codes, str):
        codes = codes.split()
    return tuple(card(c) for c in codes)


def card_of(rank: int, suit: Suit) -> Card:
    return STANDARD_DECK[SUITS.index(suit) * 13 + rank - 1]


def codes(seq: Iterable[Card]) -> str:
    """Space-separated codes, for messages and event texts."""
    return " ".join(c.code for c in seq)


def make_deck(decks: int = 1, jokers: int = 0) -> list[Card]:
    """``decks`` standard decks plus ``jokers`` jokers, unshuffled."""
    return list(STANDARD_DECK) * decks + [JOKER] * jokers


def shuffled(deck: Sequence[Card], rng: random.Random) -> tuple[Card, ...]:
    """A shuffled copy of ``deck`` drawn from ``rng``."""
    out = list(deck)
    rng.shuffle(out)
    return tuple(out)


# Card masks: bit ``Card.index`` set for each card (0..51 suit-major, 52 the joker). Engines
# keep hands as masks so that legal moves and meld search are bit operations.
_SUIT_BITS = 0x1FFF
_JOKER_BIT = 1 << 52


def mask_of(cards: Iterable[Card]) -> int:
    """The mask of ``cards`` (copies of one card collapse into one bit)."""
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


@cache
def _suit_cards(m: int) -> tuple[Card, ...]:
    """The cards of ``m``, one suit's 13 bits in place (cached: views and meld search turn
    masks into cards on every decision, and a lookup per suit beats a loop over the bits)."""
    return tuple(STANDARD_DECK[i] for i in range(m.bit_length()) if m >> i & 1)


def cards_of(m: int) -> tuple[Card, ...]:
    """The cards in mask ``m`` in index order (suit, then rank; the joker last)."""
    out = (
        _suit_cards(m & _SUIT_BITS)
        + _suit_cards(m & _SUIT_BITS << 13)
        + _suit_cards(m & _SUIT_BITS << 26)
        + _suit_cards(m & _SUIT_BITS << 39)
    )
    return (*out, JOKER) if m & _JOKER_BIT else out
