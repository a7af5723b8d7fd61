"""A golf strategy bot: expected-value play from what the seat can see.

It decides only from the observation (``referee.v1.golf_pb2.GolfObservation``):

- Card tracking: every card it can see (face up, publicly known, its own known
  cards, the discard pile, a drawn card) is out of the unseen pool; an unknown
  card is worth the mean value of that pool, so the cards others collect and
  keep are not hoped for.
- Keep low cards, build pairs: a placement is worth the drop of its layout's
  expected score (the engine's own cancellation: column pairs, lines of three,
  row/column pairs, pairs in hand), so a card matching a lone face-up card of a
  column is worth that card plus an unknown.
- Draw: the discard pile's top card when placing it beats the expected gain of
  a stock card (averaged over the unseen pool, a bad stock card being
  discarded).
- Do not feed the next player: a card put on the discard pile costs part of
  what the next seat would gain by taking it.
- End the hole when ahead: turning up the last card, or knocking, is worth it
  only when its score is lower than every other player's expected score by a
  margin (larger under an early-end penalty); otherwise the last face-down card
  is kept face down.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from referee.botkit import (
    Card,
    MatchRandom,
    card,
    golf_card_value,
    golf_deck,
    golf_layout_points,
    golf_rules,
)

_rng = MatchRandom()  # reseeded from ARENA_BOT_SEED and the match id at every match

FEED_WEIGHT = 0.4  # share of the next seat's gain counted against a discard
OPPONENT_LAST_TURN_GAIN = 3.0  # what a player is expected to gain in their last turn
KNOCK_MARGIN = 3.0
END_WEIGHT = 0.5  # share of the lead kept by ending the hole now


class Table:
    """What the seat knows, with the unseen pool and the layout values it implies."""

    def __init__(self, obs: Any) -> None:
        self.obs = obs
        self.rules = golf_rules(obs)
        self.seat = obs.seat
        r = self.rules
        seen: Counter[str] = Counter(c.code for c in obs.discard)
        self.layouts: list[list[Card | None]] = []  # None: unknown or removed
        self.unknown: list[int] = []  # bitmask of unknown places per seat
        for lay in obs.layouts:
            cells: list[Card | None] = []
            mask = 0
            for sl in lay.slots:
                if sl.state in ("face_up", "public", "known"):
                    cells.append(card(sl.card.code))
                    seen[sl.card.code] += 1
                else:
                    cells.append(None)
                    if sl.state == "unknown":
                        mask |= 1 << sl.position
            self.layouts.append(cells)
            self.unknown.append(mask)
        if obs.HasField("drawn"):
            seen[obs.drawn.code] += 1
        deck = Counter(c.code for c in golf_deck(r))
        pool = deck - seen
        self.pool: list[tuple[Card, int]] = sorted((card(code), n) for code, n in pool.items())
        total = sum(n for _, n in self.pool)
        self.pool_size = max(total, 1)
        self.mean = sum(self.value(c) * n for c, n in self.pool) / total if total else 5.0
        self._expected: dict[int, float] = {}
        self.feed_cache: dict[Card, float] = {}

    def value(self, c: Card) -> int:
        return golf_card_value(c, self.rules)

    def expected(self, cells: Sequence[Card | None], unknown: int) -> float:
        """Expected points of a layout: known cards after cancellation, unknowns at the mean."""
        points = golf_layout_points(self.rules, cells)
        return points + self.mean * bin(unknown).count("1")

    def seat_expected(self, seat: int) -> float:
        if seat not in self._expected:
            self._expected[seat] = self.expected(self.layouts[seat], self.unknown[seat])
        return self._expected[seat]

    def placed(self, seat: int, pos: int, c: Card) -> tuple[list[Card | None], int]:
        cells = list(self.layouts[seat])
        cells[pos] = c
        return cells, self.unknown[seat] & ~(1 << pos)

    def gain(self, seat: int, pos: int, c: Card) -> float:
        """How much placing ``c`` at ``pos`` lowers that seat's expected points."""
        before = self.seat_expected(seat)
        cells, unknown = self.placed(seat, pos, c)
        return before - self.expected(cells, unknown)

    def best_gain(self, seat: int, c: Card, positions: Sequence[int]) -> float:
        return max((self.gain(seat, p, c) for p in positions), default=0.0)

    # -- ending the hole

    def others_expected(self) -> float:
        return min(
            self.seat_expected(p) - OPPONENT_LAST_TURN_GAIN
            for p in range(len(self.layouts))
            if p != self.seat
        )

    def end_value(self, my_score: float) -> float:
        """The worth of ending the hole now with ``my_score`` (negative: do not end)."""
        lead = self.others_expected() - my_score
        if lead > 0:
            return END_WEIGHT * lead
        # add_lowest adds the lowest other score (my_score + lead), a negative one too
        penalty = {"none": 0.0, "plus_ten": 10.0, "add_lowest": my_score + lead}
        return lead - penalty[self.rules.early_end_penalty] - 5.0


def _positions(legal: Sequence[str], verb: str) -> list[int]:
    return [int(code.split()[1]) for code in legal if code.startswith(verb + " ")]


def _feed_cost(t: Table, c: Card) -> float:
    """Part of what the next seat would gain by taking ``c`` from the discard pile."""
    if c in t.feed_cache:
        return t.feed_cache[c]
    nxt = (t.seat + 1) % len(t.layouts)
    cost = 0.0
    # After the hole was ended the next seat plays again only if it is still owed a turn.
    if not (t.obs.ended_by == nxt or (t.obs.ended_by >= 0 and t.obs.final_turns_left <= 1)):
        places = [p for p, cell in enumerate(t.obs.layouts[nxt].slots) if cell.state != "removed"]
        cost = FEED_WEIGHT * max(0.0, t.best_gain(nxt, c, places))
    t.feed_cache[c] = cost
    return cost


def _face_up_variant(t: Table) -> bool:
    return t.rules.variant in ("six", "eight", "ten", "nine")


def _place_value(t: Table, pos: int, c: Card) -> float:
    """The worth of swapping ``c`` in at ``pos`` (the replaced card goes to the pile)."""
    value = t.gain(t.seat, pos, c)
    old = t.layouts[t.seat][pos]
    if old is not None:
        value -= _feed_cost(t, old)
    if _face_up_variant(t) and t.obs.ended_by < 0 and t.unknown[t.seat] == 1 << pos:
        cells, _ = t.placed(t.seat, pos, c)
        value += t.end_value(golf_layout_points(t.rules, cells))
    return value


def _choose_place(t: Table, legal: Sequence[str]) -> str:
    held = card(t.obs.drawn.code)
    options: list[tuple[float, str]] = [
        (_place_value(t, p, held), f"swap {p}") for p in _positions(legal, "swap")
    ]
    if "discard" in legal:
        options.append((-_feed_cost(t, held), "discard"))
    return max(options, key=lambda o: o[0])[1]


def _stock_gain(t: Table, positions: Sequence[int]) -> float:
    total = 0.0
    for c, n in t.pool:
        best = max((_place_value(t, p, c) for p in positions), default=0.0)
        total += n * max(best, -_feed_cost(t, c))
    return total / t.pool_size


def _choose_draw(t: Table, legal: Sequence[str]) -> str:
    if "knock" in legal:
        mine = t.seat_expected(t.seat)
        margin = KNOCK_MARGIN + (3.0 if t.rules.early_end_penalty != "none" else 0.0)
        if mine + margin <= t.others_expected() + OPPONENT_LAST_TURN_GAIN or mine <= 1:
            return "knock"
    if "draw discard" not in legal:
        return "draw stock"
    positions = [i for i, c in enumerate(t.obs.layouts[t.seat].slots) if c.state != "removed"]
    top = card(t.obs.discard[-1].code)
    take = max(_place_value(t, p, top) for p in positions)
    return "draw discard" if take > 0 and take >= _stock_gain(t, positions) else "draw stock"


def _choose_opening(t: Table, legal: Sequence[str]) -> str:
    """Flips in columns with nothing turned up yet (more chances to pair); peeks as dealt."""
    if t.obs.phase == "flip":
        cols = t.obs.columns
        up_cols = {
            sl.position % cols for sl in t.obs.layouts[t.seat].slots if sl.state == "face_up"
        }
        fresh = [code for code in legal if int(code.split()[1]) % cols not in up_cols]
        if fresh:
            return _rng.choice(fresh)
    return _rng.choice(list(legal))


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    legal = list(legal_actions)
    if len(legal) == 1:
        return legal[0]
    t = Table(observation)
    phase = observation.phase
    if phase in ("flip", "peek"):
        code = _choose_opening(t, legal)
    elif phase == "draw":
        code = _choose_draw(t, legal)
    elif phase == "place" and observation.HasField("drawn"):
        code = _choose_place(t, legal)
    else:
        code = legal[0]
    return code if code in legal else legal[0]


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(
        choose, name="golf_strategy", on_match_start=lambda start: _rng.start_match(start.match_id)
    )
