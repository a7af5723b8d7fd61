"""A Goninkan strategy bot: plays for its team, counts honours and trumps, times the joker.

It decides only from the observation (``referee.v1.goninkan_pb2.GoninkanObservation``):

- Teams: the kankei are in the observation once announced; everyone else is mukankei.
  A trick won by a teammate is ours, so it feeds honours (A K Q J) to a teammate whose
  card no opponent still to play can beat, and otherwise keeps its honours back.
- Counting: every card played this deal is known; the rest (minus its hand) are unseen.
  Seats that did not follow a suit are void in it. A card is safe when no unseen card
  can beat it from an opponent still to play (higher in suit; a trump from a seat void in
  the suit led; the joker).
- Leading: the joker (tricks 2-9) naming the suit with most unseen honours; then a card
  that is the highest left of its suit (trumps when long in them); else a low card of
  its shortest side suit, to make a void for trumping.
- Following: the cheapest safe winner when an opponent is winning; the joker when a
  trick holds two or more honours (or it would be forced anyway); else, if the trick
  holds an honour, its strongest non-honour winner; else its lowest card, never an
  honour to the opponents if it can help it.
- 決め役: shows the two best cards of its best suit; as chooser names the suit where its
  own cards and the two shown cards are strongest.
- Sixteen: declares only when it is sure: every honour still out is in its own hand, it
  holds every unplayed trump, and the joker is played or its own, so it wins every lead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.botkit import GONINKAN_DECK as DECK
from referee.botkit import GONINKAN_IS_HONOUR as IS_HONOUR
from referee.botkit import GONINKAN_JOKER as JOKER_I
from referee.botkit import GONINKAN_STRENGTH as STRENGTH
from referee.botkit import GONINKAN_SUIT_OF as SUIT_OF
from referee.botkit import SUIT_LETTERS as SUIT_CODES
from referee.botkit import MatchRandom, card
from referee.botkit import goninkan_trick_winner as trick_winner

# Only breaks exact ties.
_rng = MatchRandom()  # reseeded from ARENA_BOT_SEED and the match id at every match

_DECK_I = tuple(c.index for c in DECK)
_HONOUR_POINTS = {14: 4, 13: 3, 12: 2, 11: 1}  # A K Q J, for hand evaluation


def _ci(code: str) -> int:
    return card(code).index


@dataclass
class Table:
    """What this seat knows at a decision, in card indices."""

    me: int
    trump: int  # -1 if not named yet
    hand: list[int]
    played: set[int]
    unseen: set[int]
    teammates: set[int]  # playing seats of my team (me included)
    opponents: set[int]
    order: list[int]
    trick: list[int]
    trick_seats: list[int]
    led: int
    trick_number: int
    voids: dict[int, set[int]] = field(default_factory=dict)
    joker_at: int | None = None  # who holds the unplayed joker, when known

    def after_me(self) -> list[int]:
        """Seats still to play in this trick after me."""
        n = len(self.order)
        start = self.order.index(self.me)
        left = 4 - len(self.trick)
        return [self.order[(start + k) % n] for k in range(1, left + 1)]


def _suit(code: str) -> int:
    return -1 if code == "" else SUIT_CODES.index(code)


def _table(obs: Any) -> Table:
    me = obs.seat
    kankei = set(obs.kankei)
    order = list(obs.order)
    mine = me in kankei
    teammates = {s for s in order if (s in kankei) == mine}
    hand = [_ci(c.code) for c in obs.hand]
    played: set[int] = set()
    voids: dict[int, set[int]] = {s: set() for s in order}
    for t in obs.tricks:
        cards = [_ci(c.code) for c in t.cards]
        played.update(cards)
        led = _suit(t.named_suit) if cards[0] == JOKER_I else SUIT_OF[cards[0]]
        for seat, ci in zip(t.seats[1:], cards[1:], strict=True):
            if ci != JOKER_I and SUIT_OF[ci] != led:
                voids[seat].add(led)
    trick = [_ci(c.code) for c in obs.trick]
    played.update(trick)
    led = _suit(obs.led_suit)
    for seat, ci in zip(list(obs.trick_seats)[1:], trick[1:], strict=True):
        if ci != JOKER_I and SUIT_OF[ci] != led:
            voids[seat].add(led)
    unseen = set(_DECK_I) - played - set(hand)
    joker_at = None
    if (
        JOKER_I in unseen
        and obs.deal == 1
        and not obs.double_kankei
        and obs.HasField("joker_holder")
    ):
        joker_at = obs.joker_holder  # announced in deal 1
    return Table(
        me=me, trump=_suit(obs.trump), hand=hand, played=played, unseen=unseen,
        teammates=teammates, opponents=set(order) - teammates, order=order, trick=trick,
        trick_seats=list(obs.trick_seats), led=led, trick_number=obs.trick_number,
        voids=voids, joker_at=joker_at,
    )  # fmt: skip


# --- Card safety ---------------------------------------------------------------------------


def _can_beat(t: Table, seat: int, cards: list[int], led: int) -> bool:
    """Whether ``seat`` (to play later in this trick) might beat the trick as it stands."""
    best = cards[trick_winner(cards, led, t.trump)]
    if best == JOKER_I:
        return False
    # The joker beats anything: a threat from its known holder, or from anybody once it
    # must come out soon.
    joker_live = JOKER_I in t.unseen and 2 <= t.trick_number <= 9
    if joker_live and (t.joker_at == seat or (t.joker_at is None and t.trick_number >= 7)):
        return True
    voids = t.voids.get(seat, set())
    best_suit, best_str = SUIT_OF[best], STRENGTH[best]
    # A seat may be void in the suit led if it showed it, or if few such cards are left.
    led_left = sum(1 for u in t.unseen if SUIT_OF[u] == led)
    may_be_void = led in voids or led_left <= 2
    for u in t.unseen:
        if u == JOKER_I:
            continue
        us = SUIT_OF[u]
        # (the winning card is of the suit led or a trump, so a higher one of its suit wins)
        if us == best_suit and STRENGTH[u] > best_str and us not in voids:
            return True
        if us == t.trump and best_suit != t.trump and may_be_void and t.trump not in voids:
            return True
    return False


def _safe_after(t: Table, cards: list[int], led: int, later: Sequence[int]) -> bool:
    return not any(_can_beat(t, p, cards, led) for p in later if p in t.opponents)


def _is_boss(t: Table, ci: int) -> bool:
    """The highest card left in its suit (nothing unseen above it)."""
    s, st = SUIT_OF[ci], STRENGTH[ci]
    return not any(SUIT_OF[u] == s and STRENGTH[u] > st for u in t.unseen if u != JOKER_I)


def _low_key(t: Table, ci: int) -> tuple[int, int, int]:
    """Order for throwing a card away: non-honours, non-trumps, low ranks first."""
    return (IS_HONOUR[ci], SUIT_OF[ci] == t.trump, STRENGTH[ci])


# --- Decisions -----------------------------------------------------------------------------


def _suit_scores(hand: Sequence[int], shown: Sequence[int] = ()) -> list[float]:
    scores = [0.0] * 4
    for ci in hand:
        if ci != JOKER_I:
            scores[SUIT_OF[ci]] += 2 + _HONOUR_POINTS.get(STRENGTH[ci], 0)
    for ci in shown:
        if ci != JOKER_I:
            scores[SUIT_OF[ci]] += 1.5 + _HONOUR_POINTS.get(STRENGTH[ci], 0) / 2
    return scores


def _show(obs: Any, legal: Sequence[str]) -> str:
    hand = [_ci(c.code) for c in obs.hand]
    scores = _suit_scores(hand)
    best = max(range(4), key=lambda s: (scores[s], -s))
    ranked = sorted(hand, key=lambda ci: (SUIT_OF[ci] == best, ci == JOKER_I, STRENGTH[ci]))
    two = sorted(ranked[-2:])
    code = "show " + " ".join(DECK_BY_INDEX[ci] for ci in two)
    return code if code in legal else legal[0]


def _name_trump(obs: Any, legal: Sequence[str]) -> str:
    hand = [_ci(c.code) for c in obs.hand]
    shown = [_ci(c.code) for c in obs.shown_cards]
    scores = _suit_scores(hand, shown)
    best = max(range(4), key=lambda s: (scores[s], -s))
    return f"trump {SUIT_CODES[best]}"


def _lead_choice(obs: Any) -> str:
    trump = _suit(obs.round_trump)
    hand = [_ci(c.code) for c in obs.hand]
    trumps = sum(1 for ci in hand if SUIT_OF[ci] == trump)
    honours = sum(1 for ci in hand if IS_HONOUR[ci])
    return "lead" if trumps >= 3 or honours >= 4 else "partner leads"


def _sure_of_sixteen(t: Table, obs: Any) -> bool:
    """Every honour still out is mine, every unplayed trump is mine, the joker is mine or
    gone: then every card I lead wins, honours first, and we take all sixteen."""
    if any(IS_HONOUR[u] for u in t.unseen):
        return False
    if JOKER_I in t.unseen:
        return False
    return not any(SUIT_OF[u] == t.trump for u in t.unseen)


def _joker_code(t: Table, legal: Sequence[str]) -> str:
    if "play JK" in legal:
        return "play JK"
    # Lead the joker naming the suit whose unseen honours it may pull from the others.
    counts = [0] * 4
    for u in t.unseen:
        if u != JOKER_I and IS_HONOUR[u]:
            counts[SUIT_OF[u]] += 1
    best = max(range(4), key=lambda s: (counts[s], s == t.trump))
    return f"play JK name {SUIT_CODES[best]}"


def _lead(t: Table, obs: Any, legal_cards: list[int], legal: Sequence[str]) -> str:
    ours = obs.declared and ((obs.seat in obs.kankei) == (obs.declared == "sixteen"))
    if ours:
        # Sure-win order: trumps, then honours high to low, then the joker, then the rest.
        cards = [ci for ci in legal_cards if ci != JOKER_I]
        wins = [ci for ci in cards if SUIT_OF[ci] == t.trump or IS_HONOUR[ci]]
        if wins:
            return _play_code(max(wins, key=lambda ci: (SUIT_OF[ci] == t.trump, STRENGTH[ci])))
        if JOKER_I in legal_cards:
            return _joker_code(t, legal)
        return _play_code(min(cards, key=lambda ci: STRENGTH[ci]))
    unseen_honours = sum(1 for u in t.unseen if IS_HONOUR[u])
    if JOKER_I in legal_cards and (unseen_honours >= 3 or t.trick_number >= 8):
        return _joker_code(t, legal)
    cards = [ci for ci in legal_cards if ci != JOKER_I]
    my_trumps = sum(1 for ci in t.hand if SUIT_OF[ci] == t.trump)
    out_trumps = sum(1 for u in t.unseen if SUIT_OF[u] == t.trump)
    bosses = []
    for ci in cards:
        if not _is_boss(t, ci):
            continue
        s = SUIT_OF[ci]
        if s == t.trump:
            if out_trumps and my_trumps >= 2:
                bosses.append((2, STRENGTH[ci], ci))
            continue
        trumpable = out_trumps and any(s in t.voids[o] for o in t.opponents)
        if not trumpable:
            bosses.append((1 + IS_HONOUR[ci], STRENGTH[ci], ci))
    if bosses:
        return _play_code(max(bosses)[2])
    # A low card of the shortest side suit, keeping honours back.
    length = [0] * 4
    for ci in t.hand:
        if ci != JOKER_I:
            length[SUIT_OF[ci]] += 1
    lows = [ci for ci in cards if not IS_HONOUR[ci] and SUIT_OF[ci] != t.trump]
    pool = lows or [ci for ci in cards if not IS_HONOUR[ci]] or cards
    if not pool:
        return _joker_code(t, legal)
    return _play_code(min(pool, key=lambda ci: (length[SUIT_OF[ci]], STRENGTH[ci])))


def _follow(t: Table, legal_cards: list[int], legal: Sequence[str]) -> str:
    later = t.after_me()
    trick, led = t.trick, t.led
    best_pos = trick_winner(trick, led, t.trump)
    team_winning = t.trick_seats[best_pos] in t.teammates
    honours = sum(1 for ci in trick if IS_HONOUR[ci])
    cards = [ci for ci in legal_cards if ci != JOKER_I]
    # Joker is forced in trick 9 (then it is the only legal card).
    if not cards:
        return _joker_code(t, legal)
    safe_now = _safe_after(t, trick, led, later)
    if team_winning and safe_now:
        feed = [ci for ci in cards if IS_HONOUR[ci]]
        if feed:
            return _play_code(min(feed, key=lambda ci: (SUIT_OF[ci] == t.trump, STRENGTH[ci])))
        return _play_code(min(cards, key=lambda ci: _low_key(t, ci)))
    winners = [ci for ci in cards if trick_winner([*trick, ci], led, t.trump) == len(trick)]
    sure = [ci for ci in winners if _safe_after(t, [*trick, ci], led, later)]
    worth = honours + (1 if any(IS_HONOUR[ci] for ci in sure) else 0)
    if sure and (not team_winning) and (worth >= 1 or SUIT_OF[sure[0]] != t.trump):
        # The cheapest sure winner; an honour of the led suit wins itself too.
        return _play_code(min(sure, key=lambda ci: (SUIT_OF[ci] == t.trump, STRENGTH[ci])))
    joker_worth = honours >= 2 or (honours >= 1 and not later) or t.trick_number >= 8
    if JOKER_I in legal_cards and not team_winning and joker_worth:
        return "play JK"
    if sure and team_winning and honours >= 1:
        return _play_code(min(sure, key=lambda ci: (SUIT_OF[ci] == t.trump, STRENGTH[ci])))
    plain = [ci for ci in winners if not IS_HONOUR[ci]]
    if plain and not team_winning and honours >= 1:
        # No sure winner: try the strongest winner that risks no honour of ours.
        return _play_code(max(plain, key=lambda ci: (SUIT_OF[ci] != t.trump, STRENGTH[ci])))
    return _play_code(min(cards, key=lambda ci: _low_key(t, ci)))


DECK_BY_INDEX = {c.index: c.code for c in DECK}


def _play_code(ci: int) -> str:
    return f"play {DECK_BY_INDEX[ci]}"


def _legal_cards(legal: Sequence[str]) -> list[int]:
    out = set()
    for code in legal:
        if code.startswith("play "):
            out.add(_ci(code.split()[1]))
    return sorted(out)


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    legal = list(legal_actions)
    if len(legal) == 1:
        return legal[0]
    phase = observation.phase
    if phase == "lead choice":
        return _lead_choice(observation)
    if phase == "show":
        return _show(observation, legal)
    if phase == "trump":
        return _name_trump(observation, legal)
    t = _table(observation)
    if phase == "sixteen":
        return "sixteen" if _sure_of_sixteen(t, observation) else "no sixteen"
    if phase == "play":
        legal_cards = _legal_cards(legal)
        code = (
            _lead(t, observation, legal_cards, legal)
            if not t.trick
            else _follow(t, legal_cards, legal)
        )
        if code in legal:
            return code
    return _rng.choice(legal)  # not reached with a well-formed observation


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(
        choose,
        name="goninkan_strategy",
        on_match_start=lambda start: _rng.start_match(start.match_id),
    )
