"""Dingo (4 players; Cleveland, Ohio): the rules engine.

Owns the whole match of the rules in docs/games/dingo.md: the deal (the
♦2-♦K hunt deck, 10 cards each), the seven discard and pass steps, the hunt of
ranks 2 to K, the ace hunt, scoring piles, the match of ``deals`` deals (or to
``target_score``), what each seat may see, and the events of every transition.

Suits: rabbits = diamonds, dingoes = hearts, wolves = clubs and spades.
Forced plays that show a card everyone sees (the dingo, A♥, the four-aces show) are
automatic. Every seat after the dingo is asked in the hunt, even one holding no wolf
(its only choice is to decline), and a seat that plays a wolf is asked about the other
one, held or not: passing for it would tell the others, by the timing of the events,
which seats were asked, that is who holds wolves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from referee.cards import STANDARD_DECK, Card, card, cards_of, mask_of, shuffled
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
    "Action",
    "DealScoresView",
    "DingoGame",
    "DingoRules",
    "DingoState",
    "DingoView",
    "DiscardView",
    "HuntView",
    "PassView",
    "PlayView",
    "card_points",
    "pile_score",
    "state_from_hands",
]

SEATS = 4
HAND_SIZE = 10
MAX_DEALS = 10_000
# Per deal: 16 discards, 12 passes, for each of the 12 ranks at most 4 hunt decisions
# (the 3 seats after the dingo, and the first to play a wolf once more: after the
# second wolf nobody is asked), at most 5 in the ace hunt (4 seats, one more) and the
# ace rabbit.
DECISIONS_PER_DEAL = 16 + 12 + 4 * 12 + 5 + 1

# Card.index is suit-major: clubs 0-12, diamonds 13-25, hearts 26-38, spades 39-51.
_C, _D, _H, _S = 0, 13, 26, 39
ACE_CLUBS = STANDARD_DECK[_C]
ACE_RABBIT = STANDARD_DECK[_D]
ACE_HEARTS = STANDARD_DECK[_H]
ACE_SPADES = STANDARD_DECK[_S]
_BIT_AD = 1 << _D
_BIT_AH = 1 << _H
ACE_MASK = (1 << _C) | _BIT_AD | _BIT_AH | (1 << _S)
WOLF_ACE_MASK = (1 << _C) | (1 << _S)
HUNT_DECK: tuple[Card, ...] = STANDARD_DECK[_D + 1 : _D + 13]  # ♦2 on top ... ♦K
DEALT_CARDS: tuple[Card, ...] = tuple(c for c in STANDARD_DECK if c not in HUNT_DECK)
DEALT_MASK = sum(1 << c.index for c in DEALT_CARDS)
NON_ACE_MASK = DEALT_MASK & ~ACE_MASK
# WOLVES[r]: the two wolves of rank r (index 1 = the wolf aces).
WOLVES: tuple[int, ...] = tuple(
    0 if r == 0 else (1 << (_C + r - 1)) | (1 << (_S + r - 1)) for r in range(14)
)


def card_points(c: Card, scoring: bool = True) -> int:
    """A card's value: 2-9 are 1, 10-K are 2, aces 3; A♦ is +10 scoring, 3 as a penalty."""
    if c.rank == 1:
        return 10 if (c is ACE_RABBIT and scoring) else 3
    return 1 if c.rank <= 9 else 2


_SCORE_POINTS = tuple(card_points(c, True) for c in STANDARD_DECK)
_PENALTY_POINTS = tuple(card_points(c, False) for c in STANDARD_DECK)


def pile_score(scoring: Iterable[Card], penalty: Iterable[Card]) -> int:
    """A deal score: the scoring pile minus the penalty pile."""
    return sum(_SCORE_POINTS[c.index] for c in scoring) - sum(
        _PENALTY_POINTS[c.index] for c in penalty
    )


# --- rules -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DingoRules(RuleOptions):
    """Dingo's rule options (spec: "Rule option names")."""

    deals: int = option(
        4,
        "number of deals in the match (4: everyone deals once); with target_score set, "
        "the most deals played",
    )
    target_score: int | None = option(
        None,
        "end the match after the deal in which someone's total reaches this (none: off)",
    )

    def __post_init__(self) -> None:
        if not 1 <= self.deals <= MAX_DEALS:
            raise RulesError(f"rule deals={self.deals}: must be from 1 to {MAX_DEALS}")
        if self.target_score is not None and self.target_score < 1:
            raise RulesError(
                f"rule target_score={self.target_score}: must be at least 1, or none to play "
                "all the deals"
            )


# --- views (also the public records kept in the state) ----------------------------------


@dataclass(frozen=True, slots=True)
class DiscardView:
    """A card in the discard pile: who put it there and in which step."""

    seat: int  # -1: a rabbit discarded from the hunt deck
    step: int  # 1, 3, 5, 7: the discard steps; 8: the hunt (a rabbit or an unhunted dingo)
    card: Card


@dataclass(frozen=True, slots=True)
class PassView:
    """A card passed face down; ``card`` is set only for the two seats involved."""

    step: int  # 2 left, 4 across, 6 right
    from_seat: int
    to_seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class PlayView:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class HuntView:
    """One hunt: a rank 2-13, or 1 for the ace hunt. ``result`` is "" while in progress."""

    rank: int
    rabbit: Card
    dingo_seat: int  # -1: the dingo was discarded, the rabbit with it
    dingo: Card | None
    wolves: tuple[PlayView, ...]
    passed: tuple[int, ...]
    rabbit_seat: int  # who scored the rabbit; -1 nobody
    result: str


@dataclass(frozen=True, slots=True)
class DealScoresView:
    deal_number: int
    dealer: int
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DingoView:
    """What one seat knows (``seat`` -1: a spectator). See docs/games/dingo.md."""

    seat: int
    deal_number: int
    deals: int
    target_score: int | None
    dealer: int
    phase: str
    step: int
    hunt_rank: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    hunt_deck: tuple[Card, ...]
    discards: tuple[DiscardView, ...]
    passes: tuple[PassView, ...]
    hunts: tuple[HuntView, ...]
    table: tuple[Card, ...]
    scoring_piles: tuple[tuple[Card, ...], ...]
    penalty_piles: tuple[tuple[Card, ...], ...]
    deal_scores: tuple[int, ...]
    totals: tuple[int, ...]
    deal_history: tuple[DealScoresView, ...]


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """A decision. Compared and sorted by ``key`` only; build them with ``GAME.decode``."""

    key: int
    kind: str = field(compare=False)
    card: Card | None = field(compare=False)
    code: str = field(compare=False)


def _build_actions() -> tuple[
    dict[str, Action], list[Action | None], list[Action | None], list[Action | None], Action, Action
]:
    by_code: dict[str, Action] = {}
    discard: list[Action | None] = [None] * 52
    pass_: list[Action | None] = [None] * 52
    wolf: list[Action | None] = [None] * 52
    for c in DEALT_CARDS:
        # Aces have discard codes (so a bot gets "aces can never be discarded"), never legal.
        discard[c.index] = Action(c.index, "discard", c, f"discard {c.code}")
        pass_[c.index] = Action(100 + c.index, "pass", c, f"pass {c.code}")
        if c.index in range(_C, _C + 13) or c.index in range(_S, _S + 13):
            wolf[c.index] = Action(200 + c.index, "wolf", c, f"wolf {c.code}")
    rabbit = Action(300, "ace rabbit", None, "ace rabbit")
    decline = Action(400, "decline", None, "decline")
    for a in (*discard, *pass_, *wolf, rabbit, decline):
        if a is not None:
            by_code[a.code] = a
    return by_code, discard, pass_, wolf, rabbit, decline


_ACTIONS, _DISCARD, _PASS, _WOLF, PLAY_ACE_RABBIT, DECLINE = _build_actions()


def _chunk_actions(mask: int, table: list[Action | None]) -> tuple[Action, ...]:
    out = []
    while mask:
        low = mask & -mask
        a = table[low.bit_length() - 1]
        assert a is not None
        out.append(a)
        mask ^= low
    return tuple(out)


# Legal-action tuples cached per suit chunk of the mask: hands change every decision,
# but each suit of a hand takes few distinct values, so the caches fill fast.
_CACHES: dict[int, dict[int, tuple[Action, ...]]] = {}


def _actions(mask: int, table: list[Action | None]) -> tuple[Action, ...]:
    cache = _CACHES.setdefault(id(table), {})
    out: tuple[Action, ...] = ()
    for suit_mask in (0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39):
        chunk = mask & suit_mask
        if chunk:
            got = cache.get(chunk)
            if got is None:
                got = cache[chunk] = _chunk_actions(chunk, table)
            out += got
    return out


# --- state -------------------------------------------------------------------------------

# Phases: the kind of decision awaited.
DISCARD, PASS, HUNT, ACE_HUNT, ACE_RABBIT_CALL, OVER = range(6)
_PASS_NAMES = {2: "pass_left", 4: "pass_across", 6: "pass_right"}
_PHASE_NAMES = {HUNT: "hunt", ACE_HUNT: "ace_hunt", ACE_RABBIT_CALL: "ace_rabbit", OVER: "over"}
# (giver, receiver) offsets from the dealer, in order, for each pass step.
_PASS_ORDER = {
    2: ((0, 1), (1, 2), (2, 3), (3, 0)),
    4: ((0, 2), (2, 0), (1, 3), (3, 1)),
    6: ((0, 3), (3, 2), (2, 1), (1, 0)),
}
_STEP_NAMES = {
    1: "discard 1",
    2: "pass left",
    3: "discard 2",
    4: "pass across",
    5: "discard 3",
    6: "pass right",
    7: "discard 4",
}


@dataclass(frozen=True, slots=True)
class DingoState:
    """A Dingo match at a decision point (or over). Immutable."""

    rules: DingoRules
    seed: int
    deal_number: int  # 1-based
    dealer: int
    totals: tuple[int, ...]  # over the finished deals
    history: tuple[DealScoresView, ...]
    hands: tuple[int, ...]  # Card.index bitmasks
    phase: int
    step: int  # 1-7 during discards and passes, else 0
    turn: int  # position (0-3) within a discard or pass step
    actor: int  # -1 when over
    rank: int  # rank being hunted (1: the ace hunt), 0 before the hunt
    queue: tuple[int, ...]  # seats still to decide in this hunt, the actor first
    turn_played: bool  # the actor already played a wolf in this turn
    hunt_deck: tuple[Card, ...]
    discards: tuple[DiscardView, ...]
    discard_mask: int
    passes: tuple[PassView, ...]  # every card set (a view hides it from other seats)
    hunts: tuple[HuntView, ...]  # finished hunts of this deal
    current: HuntView | None  # the hunt in progress
    table: tuple[Card, ...]  # cards played in the hunt in progress
    scoring: tuple[tuple[Card, ...], ...]
    penalty: tuple[tuple[Card, ...], ...]
    events: tuple[Event, ...]


def _add(piles: tuple[tuple[Card, ...], ...], seat: int, *cs: Card) -> tuple[tuple[Card, ...], ...]:
    """``piles`` with ``cs`` put on the seat's pile."""
    return with_item(piles, seat, (*piles[seat], *cs))


def _event(
    deal_number: int,
    kind: str,
    text: str,
    seat: int | None = None,
    private: str | None = None,
    visible: Iterable[int] = (),
) -> Event:
    return Event(
        kind=kind,
        text=text,
        seat=seat,
        private_text=private,
        visible_to=frozenset(visible),
        hand=deal_number,
    )


def _deal_start(
    deal_number: int, dealer: int, hands: tuple[int, ...], events: tuple[Event, ...]
) -> dict[str, Any]:
    """The fields every deal starts from (step 1, ``dealer`` to discard), by keyword."""
    empty: tuple[tuple[Card, ...], ...] = ((),) * SEATS
    return {
        "deal_number": deal_number,
        "dealer": dealer,
        "hands": hands,
        "phase": DISCARD,
        "step": 1,
        "turn": 0,
        "actor": dealer,
        "rank": 0,
        "queue": (),
        "turn_played": False,
        "hunt_deck": HUNT_DECK,
        "discards": (),
        "discard_mask": 0,
        "passes": (),
        "hunts": (),
        "current": None,
        "table": (),
        "scoring": empty,
        "penalty": empty,
        "events": events,
    }


def _blank(rules: DingoRules, seed: int) -> DingoState:
    return DingoState(
        rules=rules,
        seed=seed,
        totals=(0,) * SEATS,
        history=(),
        **_deal_start(0, 0, (0,) * SEATS, ()),
    )


def _random_hands(seed: int, deal_number: int, dealer: int) -> tuple[int, ...]:
    order = shuffled(DEALT_CARDS, chance_rng(seed, deal_number, "deal"))
    masks = [0] * SEATS
    # One card at a time, clockwise from the dealer's left.
    for i, c in enumerate(order):
        masks[(dealer + 1 + i) % SEATS] |= 1 << c.index
    return tuple(masks)


# --- the flow of a deal -------------------------------------------------------------------
#
# Each step takes the state and returns the next one (dataclasses.replace), threading the
# transition's events in a list that becomes the ``events`` of the state a seat is asked in.
# A step that ends waiting for a seat sets every changed field in one replace: this runs on
# every decision (docs/architecture.md, Performance).


def _begin_deal(
    s: DingoState, deal_number: int, dealer: int, hands: tuple[int, ...], events: list[Event]
) -> DingoState:
    events.append(
        _event(
            deal_number,
            "deal",
            f"deal {deal_number}: seat {dealer} deals 10 cards each; "
            "the hunt deck 2D..KD lies face up, 2D on top",
        )
    )
    for seat in range(SEATS):
        held = " ".join(c.code for c in cards_of(hands[seat]))
        events.append(
            _event(
                deal_number,
                "hand",
                f"seat {seat} is dealt 10 cards",
                seat,
                f"seat {seat} is dealt {held}",
                (seat,),
            )
        )
    events.append(_event(deal_number, "step", f"step 1 (discard): seat {dealer} discards first"))
    return replace(s, **_deal_start(deal_number, dealer, hands, tuple(events)))


def state_from_hands(
    hands: Sequence[Iterable[Card | str]],
    rules: DingoRules | None = None,
    dealer: int = 0,
    seed: int = 0,
) -> DingoState:
    """The first deal of a match from chosen hands (for tests and analysis).

    ``hands`` are the 4 hands of 10 cards (cards or codes) that together are the
    40 cards other than ♦2-♦K. Later deals are shuffled from ``seed``; the deal
    after this one is dealt by the seat to ``dealer``'s left.
    """
    cs = [tuple(c if isinstance(c, Card) else card(c) for c in h) for h in hands]
    if len(cs) != SEATS or any(len(h) != HAND_SIZE for h in cs):
        raise ValueError("give 4 hands of 10 cards")
    masks = tuple(mask_of(h) for h in cs)
    if sum(len(h) for h in cs) != 40 or (masks[0] | masks[1] | masks[2] | masks[3]) != DEALT_MASK:
        raise ValueError("the hands must hold each card except 2D..KD exactly once")
    if not 0 <= dealer < SEATS:
        raise ValueError("dealer must be a seat 0-3")
    return _begin_deal(_blank(rules or DingoRules(), seed), 1, dealer, masks, [])


def _discard(s: DingoState, seat: int, c: Card) -> DingoState:
    bit = 1 << c.index
    return _next_turn(
        s,
        [_event(s.deal_number, "discard", f"seat {seat} discards {c.code}", seat)],
        hands=with_item(s.hands, seat, s.hands[seat] & ~bit),
        discards=(*s.discards, DiscardView(seat=seat, step=s.step, card=c)),
        discard_mask=s.discard_mask | bit,
    )


def _pass(s: DingoState, seat: int, c: Card) -> DingoState:
    to = (s.dealer + _PASS_ORDER[s.step][s.turn][1]) % SEATS
    bit = 1 << c.index
    hands = with_item(s.hands, seat, s.hands[seat] & ~bit)
    passed = _event(
        s.deal_number,
        "pass",
        f"seat {seat} passes a card to seat {to}",
        seat,
        f"seat {seat} passes {c.code} to seat {to}",
        (seat, to),
    )
    return _next_turn(
        s,
        [passed],
        hands=with_item(hands, to, hands[to] | bit),
        passes=(*s.passes, PassView(step=s.step, from_seat=seat, to_seat=to, card=c)),
    )


def _next_turn(s: DingoState, events: list[Event], **played: Any) -> DingoState:
    """After a discard or a pass (``played``: the fields it changed): the next seat of the
    step, the first seat of the next step, or the hunt after step 7."""
    step, turn = s.step, s.turn + 1
    if turn == SEATS:
        step, turn = step + 1, 0
        if step == 8:
            events.append(_event(s.deal_number, "step", "the hunt begins"))
            return _hunt_from(replace(s, step=0, turn=0, **played), 2, events)
        events.append(
            _event(
                s.deal_number, "step", f"step {step} ({_STEP_NAMES[step]}): seat {s.dealer} first"
            )
        )
    if step % 2:
        phase, actor = DISCARD, (s.dealer + turn) % SEATS
    else:
        phase, actor = PASS, (s.dealer + _PASS_ORDER[step][turn][0]) % SEATS
    return replace(
        s, step=step, turn=turn, phase=phase, actor=actor, events=tuple(events), **played
    )


def _holder(hands: tuple[int, ...], bit: int) -> int:
    for seat in range(SEATS):
        if hands[seat] & bit:
            return seat
    raise AssertionError("card not in any hand")


def _hunt_from(s: DingoState, rank: int, events: list[Event]) -> DingoState:
    """Hunt ranks from ``rank`` up to K until a seat must decide, then the ace hunt."""
    s, rank = _skip_unhunted(s, rank, events)
    if rank == 14:
        return _ace_hunt(s, events)
    heart = STANDARD_DECK[_H + rank - 1]
    dingo = _holder(s.hands, 1 << heart.index)
    events.append(
        _event(
            s.deal_number, "dingo", f"rank {rank}: seat {dingo} plays the dingo {heart.code}", dingo
        )
    )
    hunt = HuntView(
        rank=rank,
        rabbit=s.hunt_deck[0],
        dingo_seat=dingo,
        dingo=heart,
        wolves=(),
        passed=(),
        rabbit_seat=-1,
        result="",
    )
    hands = with_item(s.hands, dingo, s.hands[dingo] & ~(1 << heart.index))
    queue = tuple((dingo + k) % SEATS for k in (1, 2, 3))
    return _ask_next(s, hunt, queue, hands, (heart,), events)


def _skip_unhunted(s: DingoState, rank: int, events: list[Event]) -> tuple[DingoState, int]:
    """The ranks from ``rank`` on whose dingo was discarded are not hunted: their rabbits are
    discarded too. Returns the state and the next rank to hunt (14: none)."""
    first = rank
    hunt_deck, discards, discard_mask, hunts = s.hunt_deck, s.discards, s.discard_mask, s.hunts
    while rank < 14 and discard_mask >> (_H + rank - 1) & 1:
        rabbit = hunt_deck[0]
        events.append(
            _event(
                s.deal_number,
                "hunt",
                f"rank {rank}: the dingo {STANDARD_DECK[_H + rank - 1].code} was discarded, "
                f"so the rabbit {rabbit.code} is discarded",
            )
        )
        unhunted = HuntView(
            rank=rank,
            rabbit=rabbit,
            dingo_seat=-1,
            dingo=None,
            wolves=(),
            passed=(),
            rabbit_seat=-1,
            result="rabbit discarded",
        )
        hunt_deck = hunt_deck[1:]
        discards = (*discards, DiscardView(seat=-1, step=8, card=rabbit))
        discard_mask |= 1 << rabbit.index
        hunts = (*hunts, unhunted)
        rank += 1
    if rank == first:
        return s, rank
    s = replace(s, hunt_deck=hunt_deck, discards=discards, discard_mask=discard_mask, hunts=hunts)
    return s, rank


def _ask_next(
    s: DingoState,
    hunt: HuntView,
    queue: tuple[int, ...],
    hands: tuple[int, ...],
    table: tuple[Card, ...],
    events: list[Event],
) -> DingoState:
    """Go on with ``hunt`` (its seats still to decide, the hands and the cards on the table
    after its last step): the next seat decides, whether or not it holds a wolf (with
    none, its only choice is to decline). Passing for it would tell the other seats, by
    the timing of the events, which seats were asked: who holds wolves. With nobody
    left to ask, or after two wolves, the hunt is resolved and play goes on."""
    if queue and len(hunt.wolves) < 2:
        return replace(
            s,
            hands=hands,
            phase=ACE_HUNT if hunt.rank == 1 else HUNT,
            actor=queue[0],
            rank=hunt.rank,
            queue=queue,
            turn_played=False,
            current=hunt,
            table=table,
            events=tuple(events),
        )
    if hunt.rank == 1:
        return _resolve_ace_hunt(s, hunt, hands, events)
    return _hunt_from(_resolve_hunt(s, hunt, hands, events), hunt.rank + 1, events)


def _play_wolf(s: DingoState, seat: int, c: Card) -> DingoState:
    hunt = s.current
    assert hunt is not None
    hunt = replace(hunt, wolves=(*hunt.wolves, PlayView(seat=seat, card=c)))
    hands = with_item(s.hands, seat, s.hands[seat] & ~(1 << c.index))
    table = (*s.table, c)
    events = [_event(s.deal_number, "wolf", f"seat {seat} plays the wolf {c.code}", seat)]
    if len(hunt.wolves) < 2:
        # The player decides on the other wolf now, whether it holds it or not (then its
        # only choice is to decline): asking only a holder would tell the others, by the
        # timing of "ends its turn", that it holds both.
        return replace(
            s, hands=hands, table=table, current=hunt, turn_played=True, events=tuple(events)
        )
    return _ask_next(s, hunt, s.queue[1:], hands, table, events)


def _decline(s: DingoState, seat: int) -> DingoState:
    hunt = s.current
    assert hunt is not None
    if s.turn_played:
        # Same public text as a turn that ends after one wolf: holding both is not revealed.
        events = [_event(s.deal_number, "turn_end", f"seat {seat} ends its turn", seat)]
    else:
        hunt = replace(hunt, passed=(*hunt.passed, seat))
        events = [_event(s.deal_number, "hunt_pass", f"seat {seat} passes", seat)]
    return _ask_next(s, hunt, s.queue[1:], s.hands, s.table, events)


def _resolve_hunt(
    s: DingoState, hunt: HuntView, hands: tuple[int, ...], events: list[Event]
) -> DingoState:
    assert hunt.dingo is not None
    dingo, heart = hunt.dingo_seat, hunt.dingo
    rabbit = s.hunt_deck[0]
    scoring, penalty = s.scoring, s.penalty
    discards, discard_mask = s.discards, s.discard_mask
    if not hunt.wolves:
        penalty = _add(penalty, dingo, rabbit)
        discards = (*discards, DiscardView(seat=dingo, step=8, card=heart))
        discard_mask |= 1 << heart.index
        result, taker = "no wolf", -1
        text = (
            f"rank {hunt.rank}: no wolf; the rabbit {rabbit.code} goes to seat {dingo}'s "
            f"penalty pile and the dingo {heart.code} is discarded"
        )
    elif len(hunt.wolves) == 1:
        w = hunt.wolves[0]
        scoring = _add(_add(scoring, dingo, heart), w.seat, rabbit, w.card)
        result, taker = "one wolf", w.seat
        text = (
            f"rank {hunt.rank}: one wolf; seat {dingo} scores {heart.code}, seat {w.seat} "
            f"scores {rabbit.code} {w.card.code}"
        )
    else:
        w1, w2 = hunt.wolves
        scoring = _add(_add(scoring, dingo, heart, w1.card), w2.seat, rabbit, w2.card)
        result, taker = "two wolves", w2.seat
        text = (
            f"rank {hunt.rank}: two wolves; seat {dingo} scores {heart.code} "
            f"{w1.card.code}, seat {w2.seat} scores {rabbit.code} {w2.card.code}"
        )
    events.append(_event(s.deal_number, "hunt", text))
    return replace(
        s,
        hands=hands,
        hunt_deck=s.hunt_deck[1:],
        scoring=scoring,
        penalty=penalty,
        discards=discards,
        discard_mask=discard_mask,
        hunts=(*s.hunts, replace(hunt, rabbit_seat=taker, result=result)),
        current=None,
        table=(),
        queue=(),
    )


def _ace_hunt(s: DingoState, events: list[Event]) -> DingoState:
    for seat in range(SEATS):
        if s.hands[seat] & ACE_MASK == ACE_MASK:
            shown = HuntView(
                rank=1,
                rabbit=ACE_RABBIT,
                dingo_seat=seat,
                dingo=ACE_HEARTS,
                wolves=(PlayView(seat=seat, card=ACE_CLUBS), PlayView(seat=seat, card=ACE_SPADES)),
                passed=(),
                rabbit_seat=seat,
                result="four aces",
            )
            events.append(
                _event(
                    s.deal_number,
                    "ace_hunt",
                    f"ace hunt: seat {seat} shows all four aces and scores 19",
                    seat,
                )
            )
            s = replace(
                s,
                rank=1,
                hands=with_item(s.hands, seat, s.hands[seat] & ~ACE_MASK),
                scoring=_add(s.scoring, seat, ACE_CLUBS, ACE_RABBIT, ACE_HEARTS, ACE_SPADES),
                hunts=(*s.hunts, shown),
            )
            return _end_deal(s, events)
    h = _holder(s.hands, _BIT_AH)
    events.append(_event(s.deal_number, "dingo", f"ace hunt: seat {h} plays AH", h))
    hunt = HuntView(
        rank=1,
        rabbit=ACE_RABBIT,
        dingo_seat=h,
        dingo=ACE_HEARTS,
        wolves=(),
        passed=(),
        rabbit_seat=-1,
        result="",
    )
    hands = with_item(s.hands, h, s.hands[h] & ~_BIT_AH)
    queue = tuple((h + k) % SEATS for k in (1, 2, 3, 4))  # the dingo may hold a wolf ace
    return _ask_next(s, hunt, queue, hands, (ACE_HEARTS,), events)


def _resolve_ace_hunt(
    s: DingoState, hunt: HuntView, hands: tuple[int, ...], events: list[Event]
) -> DingoState:
    h = hunt.dingo_seat
    scoring, penalty = s.scoring, s.penalty
    if not hunt.wolves:
        penalty = _add(penalty, h, ACE_HEARTS)
        hunt = replace(hunt, result="no wolf ace")
        text = f"ace hunt: no wolf ace; AH goes to seat {h}'s penalty pile"
    else:
        scoring = _add(scoring, h, ACE_HEARTS)
        for w in hunt.wolves:
            scoring = _add(scoring, w.seat, w.card)
        hunt = replace(hunt, result="wolf aces")
        played = ", ".join(f"seat {w.seat} {w.card.code}" for w in hunt.wolves)
        text = f"ace hunt: every ace played scores for its player: seat {h} AH, {played}"
    events.append(_event(s.deal_number, "ace_hunt", text))
    x = _holder(hands, _BIT_AD)
    if any(w.seat == x for w in hunt.wolves):
        events.append(_event(s.deal_number, "ace_rabbit", "the dealer calls for the ace rabbit"))
        return replace(
            s,
            hands=hands,
            rank=1,
            scoring=scoring,
            penalty=penalty,
            table=(),
            queue=(),
            current=hunt,
            phase=ACE_RABBIT_CALL,
            actor=x,
            events=tuple(events),
        )
    events.append(
        _event(
            s.deal_number,
            "ace_rabbit",
            f"the ace rabbit AD was not played: it goes to seat {x}'s penalty pile (-3)",
            x,
        )
    )
    s = replace(
        s,
        hands=with_item(hands, x, hands[x] & ~_BIT_AD),
        rank=1,
        scoring=scoring,
        penalty=_add(penalty, x, ACE_RABBIT),
        hunts=(*s.hunts, hunt),
        current=None,
        table=(),
        queue=(),
    )
    return _end_deal(s, events)


def _ace_rabbit(s: DingoState, seat: int, play: bool) -> DingoState:
    hunt = s.current
    assert hunt is not None
    hands = with_item(s.hands, seat, s.hands[seat] & ~_BIT_AD)
    if play:
        events = [
            _event(
                s.deal_number,
                "ace_rabbit",
                f"seat {seat} plays the ace rabbit AD and scores 10",
                seat,
            )
        ]
        s = replace(
            s,
            hands=hands,
            scoring=_add(s.scoring, seat, ACE_RABBIT),
            hunts=(*s.hunts, replace(hunt, rabbit_seat=seat)),
            current=None,
        )
    else:
        events = [
            _event(
                s.deal_number,
                "ace_rabbit",
                f"seat {seat} does not play the ace rabbit AD: it goes to its penalty pile (-3)",
                seat,
            )
        ]
        s = replace(
            s,
            hands=hands,
            penalty=_add(s.penalty, seat, ACE_RABBIT),
            hunts=(*s.hunts, hunt),
            current=None,
        )
    return _end_deal(s, events)


def _end_deal(s: DingoState, events: list[Event]) -> DingoState:
    scores = tuple(pile_score(a, b) for a, b in zip(s.scoring, s.penalty, strict=True))
    totals = tuple(a + b for a, b in zip(s.totals, scores, strict=True))
    history = (
        *s.history,
        DealScoresView(deal_number=s.deal_number, dealer=s.dealer, scores=scores),
    )
    n = s.deal_number
    events.append(
        _event(n, "deal_end", f"deal {n} scores {_signed(scores)}; totals {_signed(totals)}")
    )
    target = s.rules.target_score
    if n >= s.rules.deals or (target is not None and max(totals) >= target):
        events.append(
            _event(
                n,
                "match_end",
                f"the match is over after {n} deal{'s' if n > 1 else ''}: totals {_signed(totals)}",
            )
        )
        return replace(
            s,
            totals=totals,
            history=history,
            phase=OVER,
            actor=-1,
            step=0,
            rank=0,
            queue=(),
            events=tuple(events),
        )
    dealer = (s.dealer + 1) % SEATS
    s = replace(s, totals=totals, history=history)
    return _begin_deal(s, n + 1, dealer, _random_hands(s.seed, n + 1, dealer), events)


def _signed(xs: Iterable[int]) -> str:
    return " ".join(f"{x:+d}" for x in xs)


def _is_legal(s: DingoState, seat: int, a: Action) -> bool:
    """Whether ``a`` is in ``legal_actions(s, seat)`` for the actor (without building them)."""
    phase, c = s.phase, a.card
    if phase == ACE_RABBIT_CALL:
        return c is None
    if c is None:
        return a == DECLINE and phase in (HUNT, ACE_HUNT)
    bit = 1 << c.index
    if not s.hands[seat] & bit:
        return False
    if phase == DISCARD:
        return a.kind == "discard" and c.rank != 1
    if phase == PASS:
        return a.kind == "pass"
    return a.kind == "wolf" and bool(WOLVES[s.rank] & bit)


# --- the engine ----------------------------------------------------------------------------


class DingoGame(GameBase[DingoState, Action, DingoRules]):
    """The Dingo engine (see the module docstring)."""

    name: ClassVar[str] = "dingo"
    # 2: seats holding no wolf are asked too; 3: and a seat that played a wolf is asked
    # about the other one, held or not
    version: ClassVar[int] = 3
    Rules = DingoRules

    def seats(self, rules: DingoRules) -> range:
        return range(SEATS, SEATS + 1)

    def initial_state(self, rules: DingoRules, seats: int, seed: int) -> DingoState:
        if seats != SEATS:
            raise ValueError(f"dingo is played by exactly 4 seats, not {seats}")
        return _begin_deal(_blank(rules, seed), 1, 0, _random_hands(seed, 1, 0), [])

    def to_act(self, s: DingoState) -> tuple[int, ...]:
        return () if s.phase == OVER else (s.actor,)

    def legal_actions(self, s: DingoState, seat: int) -> tuple[Action, ...]:
        if seat != s.actor:
            return ()
        hand = s.hands[seat]
        phase = s.phase
        if phase == DISCARD:
            return _actions(hand & NON_ACE_MASK, _DISCARD)
        if phase == PASS:
            return _actions(hand, _PASS)
        if phase in (HUNT, ACE_HUNT):
            return (*_actions(hand & WOLVES[s.rank], _WOLF), DECLINE)
        return (PLAY_ACE_RABBIT, DECLINE)

    def _is_legal(self, s: DingoState, seat: int, a: Action) -> bool:
        return s.phase != OVER and seat == s.actor and _is_legal(s, seat, a)

    def _transition(self, s: DingoState, seat: int, action: Action) -> DingoState:
        c = action.card
        if s.phase == DISCARD:
            assert c is not None
            return _discard(s, seat, c)
        if s.phase == PASS:
            assert c is not None
            return _pass(s, seat, c)
        if s.phase == ACE_RABBIT_CALL:
            return _ace_rabbit(s, seat, action == PLAY_ACE_RABBIT)
        if c is not None:
            return _play_wolf(s, seat, c)
        return _decline(s, seat)

    def _phase_name(self, s: DingoState) -> str:
        return (
            _PASS_NAMES[s.step]
            if s.phase == PASS
            else ("discard" if s.phase == DISCARD else _PHASE_NAMES[s.phase])
        )

    def _why_illegal(self, s: DingoState, seat: int, a: Action) -> str:
        if s.phase == OVER:
            return "the match is over"
        if seat != s.actor:
            return f"it is seat {s.actor}'s turn ({self._phase_name(s)}), not seat {seat}'s"
        hand = s.hands[seat]
        held = a.card is not None and bool(hand & (1 << a.card.index))
        if s.phase == DISCARD:
            if a.kind != "discard":
                return f"step {s.step} is a discard: send 'discard <card>', e.g. 'discard 7C'"
            if not held:
                return f"you do not hold {a.card}"
            return "aces can never be discarded"
        if s.phase == PASS:
            if a.kind != "pass":
                return f"step {s.step} is a pass: send 'pass <card>', e.g. 'pass QS'"
            return f"you do not hold {a.card}"
        if s.phase == ACE_RABBIT_CALL:
            return "the dealer calls for the ace rabbit: send 'ace rabbit' or 'decline'"
        what = "wolf ace (AC or AS)" if s.rank == 1 else f"wolf of rank {s.rank}"
        if a.kind != "wolf":
            return f"you may play a {what} ('wolf <card>') or 'decline'"
        if not held:
            return f"you do not hold {a.card}"
        return f"only a {what} may be played now"

    def _view(self, s: DingoState, seat: int) -> DingoView:
        passes = tuple(
            p if seat in (p.from_seat, p.to_seat) else replace(p, card=None) for p in s.passes
        )
        hunts = s.hunts if s.current is None else (*s.hunts, s.current)
        return DingoView(
            seat=seat,
            deal_number=s.deal_number,
            deals=s.rules.deals,
            target_score=s.rules.target_score,
            dealer=s.dealer,
            phase=self._phase_name(s),
            step=s.step if s.phase in (DISCARD, PASS) else 0,
            hunt_rank=s.rank,
            hand=cards_of(s.hands[seat]) if seat >= 0 else (),
            hand_sizes=tuple(m.bit_count() for m in s.hands),
            hunt_deck=s.hunt_deck,
            discards=s.discards,
            passes=passes,
            hunts=hunts,
            table=s.table,
            scoring_piles=s.scoring,
            penalty_piles=s.penalty,
            deal_scores=tuple(pile_score(a, b) for a, b in zip(s.scoring, s.penalty, strict=True)),
            totals=s.totals,
            deal_history=s.history,
        )

    def standings(self, s: DingoState) -> Outcome:
        scores = list(s.totals)
        if s.phase != OVER:  # the running deal's piles count; cards in hand score nothing
            for i in range(SEATS):
                scores[i] += pile_score(s.scoring[i], s.penalty[i])
        details = {
            "deals_played": len(s.history),
            "deal_scores": [list(h.scores) for h in s.history],
            "dealers": [h.dealer for h in s.history],
            "finished": s.phase == OVER,
        }
        return Outcome(
            scores=tuple(float(x) for x in scores),
            ranks=ranks_from_scores(scores, higher_is_better=True),
            details=details,
        )

    def max_decisions(self, rules: DingoRules, seats: int) -> int:
        return DECISIONS_PER_DEAL * rules.deals

    def encode(self, a: Action) -> str:
        return a.code

    def decode(self, code: str) -> Action:
        found = _ACTIONS.get(code) if isinstance(code, str) else None
        if found is None and isinstance(code, str) and len(code) <= 40:
            found = _ACTIONS.get(_normalise(code))
        if found is not None:
            return found
        shown = repr(code[:40]) if isinstance(code, str) else repr(code)
        raise InvalidAction(
            f"{shown} is not a dingo action: use 'discard <card>', 'pass <card>', "
            "'wolf <card>', 'decline' or 'ace rabbit' (cards like 7C, TS, AH)"
        )


def _normalise(code: str) -> str:
    """Lenient spelling of a code: any case and spacing, and 10 for T ('wolf 10s')."""
    words = code.split()
    if len(words) == 2 and words[0].lower() in ("discard", "pass", "wolf"):
        try:
            return f"{words[0].lower()} {card(words[1]).code}"
        except ValueError:
            return ""
    return " ".join(w.lower() for w in words)


GAME = DingoGame()
