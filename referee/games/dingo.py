"""Dingo (4 players; Cleveland, Ohio): the rules engine.

Owns the whole match of the rules in docs/games/dingo.md: the deal (the
♦2-♦K hunt deck, 10 cards each), the seven discard and pass steps, the hunt of
ranks 2 to K, the ace hunt, scoring piles, the match of ``deals`` deals (or to
``target_score``), what each seat may see, and the events of every transition.

Suits: rabbits = diamonds, dingoes = hearts, wolves = clubs and spades.
Forced plays (the dingo, A♥, the four-aces show, passing when holding no wolf)
are automatic; seats are asked only for real choices.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from referee.cards import STANDARD_DECK, Card, card, cards_of, mask_of, shuffled
from referee.game import Event, GameBase, InvalidAction, Outcome, chance_rng, ranks_from_scores
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
# Per deal: 16 discards, 12 passes, at most 2 wolf decisions for each of the 12
# ranks, at most 2 wolf-ace decisions and the ace rabbit.
DECISIONS_PER_DEAL = 16 + 12 + 2 * 12 + 2 + 1

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
    passes: tuple[tuple[int, int, int, Card], ...]  # (step, from, to, card)
    hunts: tuple[HuntView, ...]  # finished hunts of this deal
    current: HuntView | None  # the hunt in progress
    table: tuple[Card, ...]  # cards played in the hunt in progress
    scoring: tuple[tuple[Card, ...], ...]
    penalty: tuple[tuple[Card, ...], ...]
    events: tuple[Event, ...]


class _Table:
    """A mutable working copy of a state for one transition (frozen again at the end)."""

    rules: DingoRules
    seed: int
    deal_number: int
    dealer: int
    totals: tuple[int, ...]
    history: tuple[DealScoresView, ...]
    phase: int
    step: int
    turn: int
    actor: int
    rank: int
    queue: tuple[int, ...]
    turn_played: bool
    hunt_deck: tuple[Card, ...]
    discards: tuple[DiscardView, ...]
    discard_mask: int
    passes: tuple[tuple[int, int, int, Card], ...]
    hunts: tuple[HuntView, ...]
    current: HuntView | None
    table: tuple[Card, ...]
    hands_l: list[int]
    scoring_l: list[tuple[Card, ...]]
    penalty_l: list[tuple[Card, ...]]
    ev: list[Event]

    # Spelled out field by field: this runs on every decision (see docs/architecture.md, Performance).
    def __init__(self, s: DingoState) -> None:
        self.rules, self.seed, self.deal_number, self.dealer = (
            s.rules,
            s.seed,
            s.deal_number,
            s.dealer,
        )
        self.totals, self.history, self.phase, self.step = s.totals, s.history, s.phase, s.step
        self.turn, self.actor, self.rank, self.queue = s.turn, s.actor, s.rank, s.queue
        self.turn_played, self.hunt_deck, self.discards = s.turn_played, s.hunt_deck, s.discards
        self.discard_mask, self.passes, self.hunts = s.discard_mask, s.passes, s.hunts
        self.current, self.table = s.current, s.table
        self.hands_l = list(s.hands)
        self.scoring_l = list(s.scoring)
        self.penalty_l = list(s.penalty)
        self.ev = []

    def freeze(self) -> DingoState:
        return DingoState(
            rules=self.rules,
            seed=self.seed,
            deal_number=self.deal_number,
            dealer=self.dealer,
            totals=self.totals,
            history=self.history,
            hands=tuple(self.hands_l),
            phase=self.phase,
            step=self.step,
            turn=self.turn,
            actor=self.actor,
            rank=self.rank,
            queue=self.queue,
            turn_played=self.turn_played,
            hunt_deck=self.hunt_deck,
            discards=self.discards,
            discard_mask=self.discard_mask,
            passes=self.passes,
            hunts=self.hunts,
            current=self.current,
            table=self.table,
            scoring=tuple(self.scoring_l),
            penalty=tuple(self.penalty_l),
            events=tuple(self.ev),
        )

    def event(
        self,
        kind: str,
        text: str,
        seat: int | None = None,
        private: str | None = None,
        visible: Iterable[int] = (),
    ) -> None:
        self.ev.append(Event(kind, text, seat, private, frozenset(visible), self.deal_number))


def _blank(rules: DingoRules, seed: int) -> DingoState:
    empty: tuple[tuple[Card, ...], ...] = ((),) * SEATS
    return DingoState(
        rules=rules,
        seed=seed,
        deal_number=0,
        dealer=0,
        totals=(0,) * SEATS,
        history=(),
        hands=(0,) * SEATS,
        phase=DISCARD,
        step=1,
        turn=0,
        actor=0,
        rank=0,
        queue=(),
        turn_played=False,
        hunt_deck=HUNT_DECK,
        discards=(),
        discard_mask=0,
        passes=(),
        hunts=(),
        current=None,
        table=(),
        scoring=empty,
        penalty=empty,
        events=(),
    )


def _random_hands(seed: int, deal_number: int, dealer: int) -> tuple[int, ...]:
    order = shuffled(DEALT_CARDS, chance_rng(seed, deal_number, "deal"))
    masks = [0] * SEATS
    # One card at a time, clockwise from the dealer's left.
    for i, c in enumerate(order):
        masks[(dealer + 1 + i) % SEATS] |= 1 << c.index
    return tuple(masks)


def _begin_deal(t: _Table, deal_number: int, dealer: int, hands: Sequence[int]) -> None:
    t.deal_number = deal_number
    t.dealer = dealer
    t.hands_l = list(hands)
    t.phase, t.step, t.turn, t.actor = DISCARD, 1, 0, dealer
    t.rank, t.queue, t.turn_played = 0, (), False
    t.hunt_deck = HUNT_DECK
    t.discards, t.discard_mask, t.passes = (), 0, ()
    t.hunts, t.current, t.table = (), None, ()
    t.scoring_l = [()] * SEATS
    t.penalty_l = [()] * SEATS
    t.event(
        "deal",
        f"deal {deal_number}: seat {dealer} deals 10 cards each; "
        "the hunt deck 2D..KD lies face up, 2D on top",
    )
    for seat in range(SEATS):
        held = " ".join(c.code for c in cards_of(hands[seat]))
        t.event(
            "hand", f"seat {seat} is dealt 10 cards", seat, f"seat {seat} is dealt {held}", (seat,)
        )
    t.event("step", f"step 1 (discard): seat {dealer} discards first")


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
    masks = [mask_of(h) for h in cs]
    if sum(len(h) for h in cs) != 40 or (masks[0] | masks[1] | masks[2] | masks[3]) != DEALT_MASK:
        raise ValueError("the hands must hold each card except 2D..KD exactly once")
    if not 0 <= dealer < SEATS:
        raise ValueError("dealer must be a seat 0-3")
    t = _Table(_blank(rules or DingoRules(), seed))
    _begin_deal(t, 1, dealer, masks)
    return t.freeze()


# --- the flow of a deal -------------------------------------------------------------------


def _next_turn(t: _Table) -> None:
    t.turn += 1
    if t.turn == SEATS:
        t.step += 1
        t.turn = 0
        if t.step == 8:
            t.step = 0
            t.event("step", "the hunt begins")
            _hunt_from(t, 2)
            return
        t.event("step", f"step {t.step} ({_STEP_NAMES[t.step]}): seat {t.dealer} first")
    if t.step % 2:
        t.phase = DISCARD
        t.actor = (t.dealer + t.turn) % SEATS
    else:
        t.phase = PASS
        t.actor = (t.dealer + _PASS_ORDER[t.step][t.turn][0]) % SEATS


def _holder(t: _Table, bit: int) -> int:
    for seat in range(SEATS):
        if t.hands_l[seat] & bit:
            return seat
    raise AssertionError("card not in any hand")


def _hunt_from(t: _Table, rank: int) -> None:
    """Hunt ranks from ``rank`` up to K until a seat must decide, then the ace hunt."""
    for r in range(rank, 14):
        t.rank = r
        rabbit = t.hunt_deck[0]
        heart_bit = 1 << (_H + r - 1)
        if t.discard_mask & heart_bit:
            t.hunt_deck = t.hunt_deck[1:]
            t.discards += (DiscardView(-1, 8, rabbit),)
            t.discard_mask |= 1 << rabbit.index
            t.hunts += (HuntView(r, rabbit, -1, None, (), (), -1, "rabbit discarded"),)
            t.event(
                "hunt",
                f"rank {r}: the dingo {STANDARD_DECK[_H + r - 1].code} was "
                f"discarded, so the rabbit {rabbit.code} is discarded",
            )
            continue
        dingo = _holder(t, heart_bit)
        heart = STANDARD_DECK[_H + r - 1]
        t.hands_l[dingo] &= ~heart_bit
        t.table = (heart,)
        t.current = HuntView(r, rabbit, dingo, heart, (), (), -1, "")
        t.queue = tuple((dingo + k) % SEATS for k in (1, 2, 3))
        t.event("dingo", f"rank {r}: seat {dingo} plays the dingo {heart.code}", dingo)
        if _ask_next(t, WOLVES[r], HUNT):
            return
        _resolve_hunt(t)
    _ace_hunt(t)


def _ask_next(t: _Table, wolf_mask: int, phase: int) -> bool:
    """Walk the queue: seats holding no wolf pass automatically. True when a seat must decide."""
    cur = t.current
    assert cur is not None
    while t.queue:
        if len(cur.wolves) == 2:
            t.queue = ()
            break
        seat = t.queue[0]
        if t.hands_l[seat] & wolf_mask:
            t.current = cur
            t.phase, t.actor, t.turn_played = phase, seat, False
            return True
        cur = _with_pass(cur, seat)
        t.event("hunt_pass", f"seat {seat} passes", seat)
        t.queue = t.queue[1:]
    t.current = cur
    return False


def _with_pass(h: HuntView, seat: int) -> HuntView:
    return HuntView(h.rank, h.rabbit, h.dingo_seat, h.dingo, h.wolves, (*h.passed, seat), -1, "")


def _continue_hunt(t: _Table) -> None:
    """After the actor's turn ended: ask the next seats, resolve, go on."""
    t.queue = t.queue[1:]
    if t.rank == 1:
        if not _ask_next(t, WOLF_ACE_MASK, ACE_HUNT):
            _resolve_ace_hunt(t)
        return
    if not _ask_next(t, WOLVES[t.rank], HUNT):
        _resolve_hunt(t)
        _hunt_from(t, t.rank + 1)


def _play_wolf(t: _Table, seat: int, c: Card) -> None:
    cur = t.current
    assert cur is not None
    t.hands_l[seat] &= ~(1 << c.index)
    t.table += (c,)
    cur = HuntView(
        cur.rank,
        cur.rabbit,
        cur.dingo_seat,
        cur.dingo,
        (*cur.wolves, PlayView(seat, c)),
        cur.passed,
        -1,
        "",
    )
    t.current = cur
    t.event("wolf", f"seat {seat} plays the wolf {c.code}", seat)
    wolf_mask = WOLF_ACE_MASK if t.rank == 1 else WOLVES[t.rank]
    if len(cur.wolves) < 2 and t.hands_l[seat] & wolf_mask:
        t.turn_played = True  # a player holding both decides on the other one now
        return
    if len(cur.wolves) < 2:
        t.event("turn_end", f"seat {seat} ends its turn", seat)
    _continue_hunt(t)


def _decline(t: _Table, seat: int) -> None:
    if t.turn_played:
        # Same public text as a turn that ends after one wolf: holding both is not revealed.
        t.event("turn_end", f"seat {seat} ends its turn", seat)
    else:
        cur = t.current
        assert cur is not None
        t.current = _with_pass(cur, seat)
        t.event("hunt_pass", f"seat {seat} passes", seat)
    _continue_hunt(t)


def _resolve_hunt(t: _Table) -> None:
    cur = t.current
    assert cur is not None and cur.dingo is not None
    dingo, heart = cur.dingo_seat, cur.dingo
    rabbit = t.hunt_deck[0]
    t.hunt_deck = t.hunt_deck[1:]
    if not cur.wolves:
        t.penalty_l[dingo] += (rabbit,)
        t.discards += (DiscardView(dingo, 8, heart),)
        t.discard_mask |= 1 << heart.index
        result, taker = "no wolf", -1
        text = (
            f"rank {cur.rank}: no wolf; the rabbit {rabbit.code} goes to seat {dingo}'s "
            f"penalty pile and the dingo {heart.code} is discarded"
        )
    elif len(cur.wolves) == 1:
        w = cur.wolves[0]
        t.scoring_l[dingo] += (heart,)
        t.scoring_l[w.seat] += (rabbit, w.card)
        result, taker = "one wolf", w.seat
        text = (
            f"rank {cur.rank}: one wolf; seat {dingo} scores {heart.code}, seat {w.seat} "
            f"scores {rabbit.code} {w.card.code}"
        )
    else:
        w1, w2 = cur.wolves
        t.scoring_l[dingo] += (heart, w1.card)
        t.scoring_l[w2.seat] += (rabbit, w2.card)
        result, taker = "two wolves", w2.seat
        text = (
            f"rank {cur.rank}: two wolves; seat {dingo} scores {heart.code} "
            f"{w1.card.code}, seat {w2.seat} scores {rabbit.code} {w2.card.code}"
        )
    t.event("hunt", text)
    t.hunts += (replace(cur, rabbit_seat=taker, result=result),)
    t.current, t.table, t.queue = None, (), ()


def _ace_hunt(t: _Table) -> None:
    t.rank = 1
    for seat in range(SEATS):
        if t.hands_l[seat] & ACE_MASK == ACE_MASK:
            t.hands_l[seat] &= ~ACE_MASK
            t.scoring_l[seat] += (ACE_CLUBS, ACE_RABBIT, ACE_HEARTS, ACE_SPADES)
            wolves = (PlayView(seat, ACE_CLUBS), PlayView(seat, ACE_SPADES))
            t.hunts += (HuntView(1, ACE_RABBIT, seat, ACE_HEARTS, wolves, (), seat, "four aces"),)
            t.event("ace_hunt", f"ace hunt: seat {seat} shows all four aces and scores 19", seat)
            _end_deal(t)
            return
    h = _holder(t, _BIT_AH)
    t.hands_l[h] &= ~_BIT_AH
    t.table = (ACE_HEARTS,)
    t.current = HuntView(1, ACE_RABBIT, h, ACE_HEARTS, (), (), -1, "")
    t.queue = tuple((h + k) % SEATS for k in (1, 2, 3, 4))
    t.event("dingo", f"ace hunt: seat {h} plays AH", h)
    if not _ask_next(t, WOLF_ACE_MASK, ACE_HUNT):
        _resolve_ace_hunt(t)


def _resolve_ace_hunt(t: _Table) -> None:
    cur = t.current
    assert cur is not None
    h = cur.dingo_seat
    if not cur.wolves:
        t.penalty_l[h] += (ACE_HEARTS,)
        cur = replace(cur, result="no wolf ace")
        t.event("ace_hunt", f"ace hunt: no wolf ace; AH goes to seat {h}'s penalty pile")
    else:
        t.scoring_l[h] += (ACE_HEARTS,)
        for w in cur.wolves:
            t.scoring_l[w.seat] += (w.card,)
        cur = replace(cur, result="wolf aces")
        played = ", ".join(f"seat {w.seat} {w.card.code}" for w in cur.wolves)
        t.event(
            "ace_hunt", f"ace hunt: every ace played scores for its player: seat {h} AH, {played}"
        )
    t.table, t.queue = (), ()
    x = _holder(t, _BIT_AD)
    if any(w.seat == x for w in cur.wolves):
        t.current = cur
        t.phase, t.actor = ACE_RABBIT_CALL, x
        t.event("ace_rabbit", "the dealer calls for the ace rabbit")
        return
    t.hands_l[x] &= ~_BIT_AD
    t.penalty_l[x] += (ACE_RABBIT,)
    t.hunts += (cur,)
    t.current = None
    t.event(
        "ace_rabbit",
        f"the ace rabbit AD was not played: it goes to seat {x}'s penalty pile (-3)",
        x,
    )
    _end_deal(t)


def _ace_rabbit(t: _Table, seat: int, play: bool) -> None:
    cur = t.current
    assert cur is not None
    t.hands_l[seat] &= ~_BIT_AD
    if play:
        t.scoring_l[seat] += (ACE_RABBIT,)
        cur = replace(cur, rabbit_seat=seat)
        t.event("ace_rabbit", f"seat {seat} plays the ace rabbit AD and scores 10", seat)
    else:
        t.penalty_l[seat] += (ACE_RABBIT,)
        t.event(
            "ace_rabbit",
            f"seat {seat} does not play the ace rabbit AD: it goes to its penalty pile (-3)",
            seat,
        )
    t.hunts += (cur,)
    t.current = None
    _end_deal(t)


def _end_deal(t: _Table) -> None:
    scores = tuple(pile_score(t.scoring_l[i], t.penalty_l[i]) for i in range(SEATS))
    t.totals = tuple(a + b for a, b in zip(t.totals, scores, strict=True))
    t.history += (DealScoresView(t.deal_number, t.dealer, scores),)
    t.event(
        "deal_end", f"deal {t.deal_number} scores {_signed(scores)}; totals {_signed(t.totals)}"
    )
    rules: DingoRules = t.rules
    target = rules.target_score
    if t.deal_number >= rules.deals or (target is not None and max(t.totals) >= target):
        t.phase, t.actor, t.step, t.rank, t.queue = OVER, -1, 0, 0, ()
        t.event(
            "match_end",
            f"the match is over after {t.deal_number} deal{'s' if t.deal_number > 1 else ''}: "
            f"totals {_signed(t.totals)}",
        )
        return
    dealer = (t.dealer + 1) % SEATS
    _begin_deal(t, t.deal_number + 1, dealer, _random_hands(t.seed, t.deal_number + 1, dealer))


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
    version: ClassVar[int] = 1
    Rules = DingoRules

    def seats(self, rules: DingoRules) -> range:
        return range(SEATS, SEATS + 1)

    def initial_state(self, rules: DingoRules, seats: int, seed: int) -> DingoState:
        if seats != SEATS:
            raise ValueError(f"dingo is played by exactly 4 seats, not {seats}")
        t = _Table(_blank(rules, seed))
        _begin_deal(t, 1, 0, _random_hands(seed, 1, 0))
        return t.freeze()

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
        t = _Table(s)
        c = action.card
        if s.phase == DISCARD:
            assert c is not None
            bit = 1 << c.index
            t.hands_l[seat] &= ~bit
            t.discards += (DiscardView(seat, s.step, c),)
            t.discard_mask |= bit
            t.event("discard", f"seat {seat} discards {c.code}", seat)
            _next_turn(t)
        elif s.phase == PASS:
            assert c is not None
            to = (s.dealer + _PASS_ORDER[s.step][s.turn][1]) % SEATS
            t.hands_l[seat] &= ~(1 << c.index)
            t.hands_l[to] |= 1 << c.index
            t.passes += ((s.step, seat, to, c),)
            t.event(
                "pass",
                f"seat {seat} passes a card to seat {to}",
                seat,
                f"seat {seat} passes {c.code} to seat {to}",
                (seat, to),
            )
            _next_turn(t)
        elif s.phase == ACE_RABBIT_CALL:
            _ace_rabbit(t, seat, action == PLAY_ACE_RABBIT)
        elif c is not None:
            _play_wolf(t, seat, c)
        else:
            _decline(t, seat)
        return t.freeze()

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
            PassView(step, f, to, c if seat in (f, to) else None) for step, f, to, c in s.passes
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
