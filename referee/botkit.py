"""Helpers for bot authors: cards, and the rule arithmetic strategies need, computed the
referee's way.

This module, the SDK (:mod:`referee.client`) and the generated messages
(:mod:`referee.v1`) are what a Python bot may import from this project; they are
documented in docs/writing-a-bot.md ("Helpers for strategies") and kept stable for bot
authors, whereas the engines under ``referee.games`` may change at any time (a policy
trained in :mod:`referee.pettingzoo` may import that too). The sample bots import
nothing else from the project, so any of them can be copied out of the repository and
run wherever the project is installed (``pip install PATH_TO_THE_CLONE``; ``rl_policy``
with its ``rl`` extra). The helpers delegate to the engines: a strategy's deadwood or
trick winner is always the one the referee computes.

Cards are :class:`Card` values (``rank`` 1-13, 0 for a joker; ``suit``; ``code`` as in
action codes, e.g. ``"QS"``; ``index`` 0-51 suit-major in the order C D H S, 52 for a
joker). ``card("QS")`` parses a code; ``mask_of(cards)`` and ``cards_of(mask)`` convert
between cards and card masks (bit ``index`` set per card).
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from functools import cache
from typing import Any

from referee.cards import Card, CardCodeError, Suit, card, cards_of, make_deck, mask_of
from referee.games import dingo as _dingo
from referee.games import goninkan as _goninkan
from referee.games.gin_rummy import melds as _gin
from referee.games.golf import GolfRules, card_value, layout_points
from referee.games.golf_solitaire import rules as _solitaire
from referee.games.golf_solitaire import solver as _solver
from referee.rules import parse_rules

# ---- Gin rummy ----------------------------------------------------------------------
# A hand is a bit mask over card indexes (bit ``card(code).index``).

GIN_SUIT_MASK: int = _gin.M13
"""13 bits set: ``(hand >> 13 * suit_number) & GIN_SUIT_MASK`` is one suit's ranks."""

GIN_CARD_POINTS: tuple[int, ...] = _gin.VALUE
"""Deadwood points per card index: ace 1, 2-10 face value, J Q K 10."""


def gin_deadwood(hand: int) -> int:
    """The least deadwood of a hand (bit mask), over every arrangement into melds."""
    return _gin.deadwood(hand)


# ---- Golf ---------------------------------------------------------------------------


@cache
def _golf_rules(options: tuple[tuple[str, str], ...]) -> GolfRules:
    return parse_rules(GolfRules, dict(options))


def golf_rules(observation: Any) -> GolfRules:
    """The match's rules from a ``GolfObservation`` (its ``rules`` field), as the
    object :func:`golf_layout_points` takes."""
    r = observation.rules
    options = {
        "variant": r.variant,
        "scoring": r.scoring,
        "jokers": str(r.jokers),
        "bonus_rank": r.bonus_rank,
        "decks": str(r.decks),
        "holes": str(r.holes) if r.HasField("holes") else "none",
        "target_score": str(r.target_score) if r.HasField("target_score") else "none",
        "max_reshuffles": str(r.max_reshuffles),
        "max_turns": str(r.max_turns),
        "early_end_penalty": r.early_end_penalty,
    }
    for flag in (
        "peek_near_only",
        "initial_flips_same_column",
        "pairs_anywhere",
        "four_of_a_kind_bonus",
        "diagonal_pairs",
        "no_pairs",
        "final_turn_stock_only",
        "remove_cancelled",
    ):
        options[flag] = "true" if getattr(r, flag) else "false"
    if options["holes"] == "none" and options["target_score"] == "none":
        options["holes"] = "1"  # cannot happen in a valid match; keeps parsing total
    return _golf_rules(tuple(sorted(options.items())))


def golf_card_value(c: Card, rules: GolfRules) -> int:
    """A card's points in a layout under these rules (before pairs cancel)."""
    return card_value(c, rules.scoring, rules.bonus_rank)


def golf_layout_points(rules: GolfRules, cells: Sequence[Card | None]) -> int:
    """A layout's score under these rules, pairs and bonuses applied; ``None`` cells
    (unknown or removed) count 0."""
    return layout_points(rules, cells)[0]


def golf_deck(rules: GolfRules) -> list[Card]:
    """Every card of the match's shoe (all its decks and jokers)."""
    decks = rules.decks or 1
    return make_deck(decks, rules.jokers * decks)


# ---- Golf solitaire -----------------------------------------------------------------
# Ranks as numbers: 0 joker, 1-13 ace to king, 14 an empty foundation.


def solitaire_adjacency(queen_on_king: bool, wrap: bool) -> tuple[tuple[bool, ...], ...]:
    """``table[top][rank]``: may a card of ``rank`` go on a foundation topped by ``top``?"""
    return _solitaire.adjacency(queen_on_king, wrap)


def solitaire_best_score(
    columns: Sequence[Sequence[int]],
    top: int,
    stock: Sequence[int],
    adjacency: tuple[tuple[bool, ...], ...],
    stock_only_when_blocked: bool = False,
) -> tuple[int, int]:
    """(best hole score, search work) of a position with the whole stock known, in
    order: exact, by the referee's solver. Work is the number of positions examined."""
    return _solver.best_score_and_work(columns, top, stock, adjacency, stock_only_when_blocked)


def solitaire_warm_up() -> None:
    """Build the solver's tables now (once per process) rather than in a first decision."""
    _solver.warm_up()


# ---- Dingo --------------------------------------------------------------------------

DINGO_DEALT_CARDS: tuple[Card, ...] = _dingo.DEALT_CARDS
"""The 40 cards dealt to the players (the 52-card deck without the hunt deck 2D-KD)."""

# ---- Goninkan -----------------------------------------------------------------------
# Card indexes as Card.index (the joker 52); suits 0-3 in the order C D H S.

GONINKAN_DECK: tuple[Card, ...] = _goninkan.DECK
GONINKAN_JOKER: int = _goninkan.JOKER_I
GONINKAN_SUIT_OF: tuple[int, ...] = _goninkan.SUIT_OF
"""Suit number per card index (-1 for the joker)."""
GONINKAN_STRENGTH: tuple[int, ...] = _goninkan.STRENGTH
"""Strength within its suit per card index (higher wins)."""
GONINKAN_IS_HONOUR: tuple[bool, ...] = _goninkan.IS_HONOUR
SUIT_LETTERS: str = _goninkan.SUIT_CODES
"""Suit letters by suit number: "CDHS"."""


def goninkan_trick_winner(cards: Sequence[int], led: int, trump: int) -> int:
    """The position in ``cards`` (card indexes in play order) of the card that wins the
    trick, given the led suit and the trump suit (suit numbers)."""
    return _goninkan.trick_winner(cards, led, trump)


class MatchRandom(random.Random):
    """A bot's random generator, seeded from ARENA_BOT_SEED and reseeded from it and the
    match id when a match starts (``on_match_start=lambda s: rng.start_match(s.match_id)``
    in ``run_bot``), so a bot's play in a match depends neither on which of its processes
    plays it nor on what it played before: a tournament replays the same, resumed or not,
    however many matches ran at once."""

    def __init__(self) -> None:
        self.base_seed = os.environ.get("ARENA_BOT_SEED", "")
        super().__init__(self.base_seed)

    def start_match(self, match_id: str) -> None:
        self.seed(f"{self.base_seed}/{match_id}")


__all__ = [
    "DINGO_DEALT_CARDS",
    "GIN_CARD_POINTS",
    "GIN_SUIT_MASK",
    "GONINKAN_DECK",
    "GONINKAN_IS_HONOUR",
    "GONINKAN_JOKER",
    "GONINKAN_STRENGTH",
    "GONINKAN_SUIT_OF",
    "SUIT_LETTERS",
    "Card",
    "CardCodeError",
    "MatchRandom",
    "Suit",
    "card",
    "cards_of",
    "gin_deadwood",
    "golf_card_value",
    "golf_deck",
    "golf_layout_points",
    "golf_rules",
    "goninkan_trick_winner",
    "make_deck",
    "mask_of",
    "solitaire_adjacency",
    "solitaire_best_score",
    "solitaire_warm_up",
]
