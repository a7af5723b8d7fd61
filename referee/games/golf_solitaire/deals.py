"""Golf solitaire deals: the ``Deal`` value, PySolFC-compatible deal numbers, and the deal
drawn from a match seed. Which deal a hole gets (``winnable_only`` needs the solver) is
:mod:`.holes`, above both this module and the solver.

PySolFC numbering (learned from PySolFC and shlomif's pysol_cards; written anew here):
the 52 cards are listed clubs, spades, hearts, diamonds, Ace to King within a suit.
Game numbers 1..31999 use the Microsoft C ``rand()`` generator seeded with the number,
on the deck first rearranged rank by rank (clubs, diamonds, hearts, spades within a
rank); 32000 and up use the Mersenne Twister seeded with the number (Python's
``random.Random(n)``), drawing ``int(random() * (i + 1))``. Both shuffle the list from
its end (swap position i with a drawn j in 0..i, for i from the last down to 1). Cards
are then dealt from the end of the shuffled list: round after round across the 7
columns (5 rounds), one card to the foundation, and the rest is the stock in the order
it is turned.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from referee.cards import SUITS, Card, Suit, card_of, make_deck, shuffled
from referee.game import chance_rng

from .rules import MAX_DEAL_NUMBER, GolfSolitaireRules

COLUMNS = 7
ROWS = 5
TABLEAU_CARDS = COLUMNS * ROWS
# Game numbers below this use the Microsoft generator: PySolFC's constructRandom. (The
# pysol_cards package also gives 32000 itself to it, so its deal 32000 is another one.)
MT_DEALS_FROM = 32000


@dataclass(frozen=True, slots=True)
class Deal:
    """One hole's cards: columns bottom to top (the last card is available), the first
    foundation card (None when the foundation starts empty) and the stock in the order
    it is turned. ``number`` is the PySolFC deal number when the deal has one."""

    tableau: tuple[tuple[Card, ...], ...]
    foundation: Card | None
    stock: tuple[Card, ...]
    number: int | None = None

    def cards(self) -> tuple[Card, ...]:
        out = [c for col in self.tableau for c in col]
        if self.foundation is not None:
            out.append(self.foundation)
        out.extend(self.stock)
        return tuple(out)


def deal_from_order(
    order: tuple[Card, ...] | list[Card], foundation_starts_empty: bool, number: int | None = None
) -> Deal:
    """Deal cards in the given order: 35 across the columns round by round, then the
    foundation card (unless it starts empty), then the stock in turning order."""
    if len(order) < TABLEAU_CARDS + 1:
        raise ValueError(f"a golf deal needs more than {TABLEAU_CARDS} cards, got {len(order)}")
    tableau = tuple(tuple(order[r * COLUMNS + c] for r in range(ROWS)) for c in range(COLUMNS))
    rest = tuple(order[TABLEAU_CARDS:])
    if foundation_starts_empty:
        return Deal(tableau, None, rest, number)
    return Deal(tableau, rest[0], rest[1:], number)


# PySolFC's card list: suits in the order clubs, spades, hearts, diamonds.
_PYSOL_SUITS = (Suit.CLUBS, Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS)
_PYSOL_DECK = tuple(card_of(rank, suit) for suit in _PYSOL_SUITS for rank in range(1, 14))
# The Microsoft-compatible order: rank by rank, clubs, diamonds, hearts, spades.
_MS_DECK = tuple(card_of(rank, suit) for rank in range(1, 14) for suit in SUITS)


def _ms_shuffle(deck: list[Card], number: int) -> None:
    state = number
    for i in range(len(deck) - 1, 0, -1):
        state = (state * 214013 + 2531011) & 0xFFFFFFFF
        j = ((state >> 16) & 0x7FFF) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]


def _mt_shuffle(deck: list[Card], number: int) -> None:
    rng = random.Random(number)  # integer seeding matches PySolFC's random2 generator
    for i in range(len(deck) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]


def pysol_deal_order(number: int) -> tuple[Card, ...]:
    """The 52 cards of PySolFC game ``number`` in the order they are dealt."""
    if not 1 <= number <= MAX_DEAL_NUMBER:
        raise ValueError(f"PySolFC deal numbers run from 1 to {MAX_DEAL_NUMBER}, not {number}")
    if number < MT_DEALS_FROM:
        deck = list(_MS_DECK)
        _ms_shuffle(deck, number)
    else:
        deck = list(_PYSOL_DECK)
        _mt_shuffle(deck, number)
    deck.reverse()  # PySolFC deals from the end of the shuffled list
    return tuple(deck)


def pysol_deal(number: int, foundation_starts_empty: bool = False) -> Deal:
    """PySolFC Golf deal ``number``. With an empty foundation start, the card PySolFC puts
    on the foundation is instead the first card of the stock."""
    return deal_from_order(pysol_deal_order(number), foundation_starts_empty, number)


def seed_deal(rules: GolfSolitaireRules, seed: int, hole: int, attempt: int = 0) -> Deal:
    """A deal from the match seed (attempt > 0: the redeals of ``winnable_only``)."""
    purpose = "deal" if attempt == 0 else f"deal/redeal {attempt}"
    order = shuffled(make_deck(1, rules.jokers), chance_rng(seed, hole, purpose))
    return deal_from_order(order, rules.foundation_starts_empty)
