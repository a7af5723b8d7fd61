"""What a gin rummy seat (or a spectator) sees: the view dataclasses behind GinRummyObservation.

Field names match proto/referee/v1/gin_rummy.proto one for one (referee.views maps
them by name). Everything here is public table information except ``hand`` and
``cannot_discard``, which belong to the viewing seat alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card


@dataclass(frozen=True, slots=True)
class GinHandResult:
    """The laid-down, public result of one table's hand (a knock, gin, big gin or a void hand)."""

    hand_number: int
    seats: tuple[int, ...]  # (first player, dealer) at that table
    result: str  # "knock", "gin", "big_gin", "undercut" or "void"
    knocker: int  # seat, -1 for a void hand
    knock_card: Card | None  # the face-down discard, shown at the showdown; None: big gin, void
    hands: tuple[tuple[Card, ...], ...]  # final hands in `seats` order; empty for a void hand
    knocker_melds: tuple[tuple[Card, ...], ...]
    knocker_deadwood_cards: tuple[Card, ...]
    layoffs: tuple[tuple[Card, ...], ...]  # layoffs[i]: defender cards laid on knocker_melds[i]
    defender_melds: tuple[tuple[Card, ...], ...]
    defender_deadwood_cards: tuple[Card, ...]
    knocker_deadwood: int
    defender_deadwood: int
    winner: int  # seat that scores the hand at this table, -1 for a void hand
    points: int  # what the winner scores at this table


@dataclass(frozen=True, slots=True)
class GinTable:
    """One table's public state in the current hand (players=4 has two tables)."""

    seats: tuple[int, ...]  # (first player = non-dealer, dealer)
    dealer: int  # seat dealing at this table (with players=3 the dealer sits out)
    phase: str  # "upcard_offer", "draw", "discard" or "hand_over"
    to_act: int  # seat whose decision is awaited, -1 when the table's hand is over
    stock_count: int
    discard_pile: tuple[Card, ...]  # bottom first, top (the card one may take) last
    hand_sizes: tuple[int, ...]  # in `seats` order
    taken: tuple[tuple[Card, ...], ...]  # in `seats` order: cards taken from the pile, still held
    turns: int  # turns completed in this hand at this table
    result: GinHandResult | None  # once this table's hand is over (players=4: while waiting)


@dataclass(frozen=True, slots=True)
class GinRummyView:
    """A seat's observation (``seat=-1``: the public view)."""

    seat: int
    players: int
    hand_number: int
    phase: str  # this seat's table phase, or "sitting_out" / "match_over" (seat -1: tables[0]'s)
    to_act: tuple[int, ...]  # seats whose decision is awaited, all tables
    hand: tuple[Card, ...]  # own cards, by suit then rank
    cannot_discard: Card | None  # the card this seat took from the pile this turn
    table: int  # index into `tables` of this seat's table, -1 if none
    opponent: int  # this hand's opponent, -1 if none
    dealer: int  # seat that dealt this seat's table (tables[0] for others)
    tables: tuple[GinTable, ...]
    teams: tuple[int, ...]  # team per seat (players=4: 0,1,0,1), else the seat itself
    scores: tuple[int, ...]  # running score per seat (players=4: the team's score)
    hands_won: tuple[int, ...]  # hands won per seat (players=4: by the team)
    target_score: int
    last_hand: tuple[GinHandResult, ...]  # results of the last finished hand, one per table
    last_hand_points: tuple[int, ...]  # per seat: points scored in the last finished hand
    match_over: bool
    final_scores: tuple[int, ...]  # per seat when the match is over: totals with bonuses
