"""A gin rummy strategy bot: keeps melds, sheds deadwood, takes only discards that meld,
knocks early and goes gin when it can, and avoids feeding the opponent.

It decides from the observation alone (``referee.v1.gin_rummy_pb2.GinRummyObservation``)
and the legal codes, using the engine's meld arithmetic (``referee.games.gin_rummy.melds``)
on card masks. Works for every format (players 2, 3 and 4): it plays its own table.

Run: ``python -m sample_bots.gin_strategy`` with ARENA_TARGET and ARENA_TOKEN set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.botkit import GIN_CARD_POINTS as VALUE
from referee.botkit import GIN_SUIT_MASK as M13
from referee.botkit import MatchRandom, card, mask_of
from referee.botkit import gin_deadwood as deadwood

_rng = MatchRandom()  # reseeded from ARENA_BOT_SEED and the match id at every match

# Knock at once with this much deadwood or less; above it, only while the opponent is
# probably still far from melded (early in the hand) or when the hand is about to be void.
_SAFE_KNOCK = 5
_EARLY_TURNS = 10


def _mask(codes: Iterable[str]) -> int:
    return mask_of(card(code) for code in codes)


def _melds_with(hand: int, c: int) -> bool:
    """True when card ``c`` joins a meld in the best arrangement of ``hand`` plus ``c``."""
    return deadwood(hand | 1 << c) < deadwood(hand) + VALUE[c]


def _potential(hand: int, c: int) -> int:
    """How many held cards could one day meld with ``c`` (same rank, or same suit within 2)."""
    suit, rank = divmod(c, 13)
    same_rank = sum(1 for s in range(4) if s != suit and hand >> (13 * s + rank) & 1)
    row = (hand >> (13 * suit)) & M13
    near = sum(1 for d in (-2, -1, 1, 2) if 0 <= rank + d < 13 and row >> (rank + d) & 1)
    return same_rank + near


def _danger(c: int, opponent_took: int) -> int:
    """Whether the opponent, who took these cards from the pile, likely wants ``c``."""
    if not opponent_took:
        return 0
    suit, rank = divmod(c, 13)
    for s in range(4):
        if opponent_took >> (13 * s + rank) & 1:
            return 1
    row = (opponent_took >> (13 * suit)) & M13
    return int(any(0 <= rank + d < 13 and row >> (rank + d) & 1 for d in (-2, -1, 1, 2)))


def _discard_key(hand: int, c: int, opponent_took: int) -> tuple[int, int, int, int]:
    return (deadwood(hand & ~(1 << c)), _danger(c, opponent_took), _potential(hand, c), -VALUE[c])


def _should_knock(dead: int, turns: int, stock: int) -> bool:
    return dead <= _SAFE_KNOCK or turns <= _EARLY_TURNS or stock <= 4


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    legal = list(legal_actions)
    if len(legal) == 1:
        return legal[0]
    obs = observation
    hand = _mask(c.code for c in obs.hand)
    table = obs.tables[obs.table] if obs.table >= 0 else None
    if table is None:
        return _rng.choice(legal)
    mine = list(table.seats).index(obs.seat)
    opponent_took = _mask(c.code for c in table.taken[1 - mine].cards)
    pile = table.discard_pile

    if "take upcard" in legal or "draw discard" in legal:
        top = card(pile[-1].code).index
        wants = _melds_with(hand, top)
        if "take upcard" in legal:
            return "take upcard" if wants else "pass"
        return "draw discard" if wants else "draw stock"

    if "big gin" in legal:
        return "big gin"
    gins = [a for a in legal if a.startswith("gin ")]
    if gins:
        return min(gins, key=lambda a: _discard_key(hand, card(a[4:]).index, opponent_took))
    knocks = [a for a in legal if a.startswith("knock ")]
    if knocks:
        best = min(knocks, key=lambda a: _discard_key(hand, card(a[6:]).index, opponent_took))
        dead = deadwood(hand & ~(1 << card(best[6:]).index))
        if _should_knock(dead, table.turns, table.stock_count):
            return best
    discards = [a for a in legal if a.startswith("discard ")]
    if not discards:
        return legal[0]
    return min(discards, key=lambda a: _discard_key(hand, card(a[8:]).index, opponent_took))


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(
        choose, name="gin_strategy", on_match_start=lambda start: _rng.start_match(start.match_id)
    )
