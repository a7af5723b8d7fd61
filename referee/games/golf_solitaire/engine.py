"""The golf solitaire engine: holes played in duplicate by every seat at once.

Each seat plays its own copy of the same deal for each hole (the deal is a pure function
of the rules, the seed and the hole number: see deals.py). Every seat still playing the
hole is to act; a seat that has finished waits with no legal action until all have
finished; then the hole's scores become public and the next hole is dealt. A seat sees
the whole tableau, its own foundation, the stock count and the results of finished
holes, never the stock order nor another seat's play in progress.

Action codes: ``play N`` (move the available card of column N, 0-6, to the foundation)
and ``stock`` (turn the next stock card onto the foundation).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.cards import Card, codes
from referee.game import Event, GameBase, InvalidAction, Outcome, RulesError, ranks_from_scores

from .deals import COLUMNS, Deal
from .holes import hindsight_best_scores, hole_deal
from .rules import EMPTY, MAX_SEATS, GolfSolitaireRules, rules_adjacency

STOCK_CODE = "stock"
PLAY_CODES = tuple(f"play {c}" for c in range(COLUMNS))
_CODE_MOVE = {**{code: c for c, code in enumerate(PLAY_CODES)}, STOCK_CODE: COLUMNS}


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """One seat's copy of the current hole: how many cards are left in each column, how
    many stock cards it has turned, its foundation pile (bottom first)."""

    heights: tuple[int, ...]
    stock_pos: int
    foundation: tuple[Card, ...]
    moves: int = 0
    finished: bool = False


@dataclass(frozen=True, slots=True)
class HoleResult:
    """A finished hole, public to everybody (also a part of the view)."""

    hole: int  # 1-based
    deal_number: str  # the PySolFC deal number ("" for a deal from the seed); text, as
    # PySolFC numbers reach 10**20, past a 64-bit integer
    scores: tuple[int, ...]  # per seat
    cleared: tuple[bool, ...]  # per seat: was the tableau cleared


@dataclass(frozen=True, slots=True)
class GolfSolitaireView:
    """What one seat knows (``seat`` -1: a spectator, who sees the hole as dealt)."""

    seat: int
    seats: int
    hole: int
    holes: int
    tableau: tuple[tuple[Card, ...], ...]
    foundation: tuple[Card, ...]
    stock_count: int
    unseen: tuple[Card, ...]
    moves: int
    finished: bool
    match_over: bool
    results: tuple[HoleResult, ...]
    totals: tuple[int, ...]
    holes_won: tuple[int, ...]
    queen_on_king: bool
    wrap: bool
    jokers: int
    foundation_starts_empty: bool
    stock_only_when_blocked: bool
    scoring: str


@dataclass(frozen=True, slots=True)
class GolfSolitaireState:
    rules: GolfSolitaireRules
    seats: int
    seed: int
    hole: int  # 0-based
    deal: Deal
    plays: tuple[SeatPlay, ...]
    results: tuple[HoleResult, ...]
    events: tuple[Event, ...]
    over: bool = False
    script: tuple[Deal, ...] = ()  # deals chosen by hand (tests, analysis), one per hole


def start_play(rules: GolfSolitaireRules, deal: Deal) -> SeatPlay:
    """A seat's copy of the hole as dealt (finished at once if the deal leaves no move)."""
    start = () if deal.foundation is None else (deal.foundation,)
    return _finish_if_over(rules, deal, SeatPlay(tuple(len(col) for col in deal.tableau), 0, start))


def _finish_if_over(rules: GolfSolitaireRules, deal: Deal, play: SeatPlay) -> SeatPlay:
    # The hole ends when the tableau is empty, or the stock is out and nothing plays.
    done = not any(play.heights) or (
        play.stock_pos == len(deal.stock) and not playable_columns(rules, deal, play)
    )
    return dataclasses.replace(play, finished=True) if done else play


def _top_rank(play: SeatPlay) -> int:
    return play.foundation[-1].rank if play.foundation else EMPTY


def playable_columns(rules: GolfSolitaireRules, deal: Deal, play: SeatPlay) -> list[int]:
    row = rules_adjacency(rules)[_top_rank(play)]
    return [c for c, h in enumerate(play.heights) if h and row[deal.tableau[c][h - 1].rank]]


def legal_moves(rules: GolfSolitaireRules, deal: Deal, play: SeatPlay) -> tuple[str, ...]:
    """The legal codes of a seat's copy of the hole, sorted ("play N" before "stock")."""
    if play.finished:
        return ()
    playable = playable_columns(rules, deal, play)
    out = [PLAY_CODES[c] for c in playable]
    can_turn = (
        play.stock_pos < len(deal.stock)
        and play.foundation  # the stock never starts an empty foundation
        and not (rules.stock_only_when_blocked and playable)
    )
    if can_turn:
        out.append(STOCK_CODE)
    return tuple(out)


def play_score(deal: Deal, play: SeatPlay) -> int:
    """Cards left in the tableau, or minus the stock cards left when it is cleared."""
    left = sum(play.heights)
    return left if left else -(len(deal.stock) - play.stock_pos)


def advance(
    rules: GolfSolitaireRules, deal: Deal, play: SeatPlay, code: str
) -> tuple[SeatPlay, Card]:
    """A seat's copy after a legal move, and the card that moved onto the foundation."""
    move = _CODE_MOVE[code]
    if move == COLUMNS:
        moved = deal.stock[play.stock_pos]
        heights, pos = play.heights, play.stock_pos + 1
    else:
        moved = deal.tableau[move][play.heights[move] - 1]
        heights = tuple(h - 1 if c == move else h for c, h in enumerate(play.heights))
        pos = play.stock_pos
    nxt = SeatPlay(heights, pos, (*play.foundation, moved), play.moves + 1)
    return _finish_if_over(rules, deal, nxt), moved


def _holes_won(results: tuple[HoleResult, ...], seats: int) -> tuple[int, ...]:
    won = [0] * seats
    if seats > 1:
        for r in results:
            low = min(r.scores)
            if r.scores.count(low) == 1:
                won[r.scores.index(low)] += 1
    return tuple(won)


def _totals(results: tuple[HoleResult, ...], seats: int) -> tuple[int, ...]:
    return tuple(sum(r.scores[s] for r in results) for s in range(seats))


def _describe_deal(deal: Deal, hole: int, holes: int) -> str:
    cols = " ".join(f"[{codes(col)}]" for col in deal.tableau)
    start = deal.foundation.code if deal.foundation is not None else "empty"
    return (
        f"hole {hole + 1} of {holes} dealt: columns {cols}; foundation {start}; "
        f"{len(deal.stock)} cards in the stock"
    )


class GolfSolitaire(GameBase[GolfSolitaireState, str, GolfSolitaireRules]):
    """The engine (see the module docstring)."""

    name: ClassVar[str] = "golf_solitaire"
    lower_scores_win: ClassVar[bool] = True  # for the arena: one-seat matches ranked by score
    # Seats play their own copies: in rounds, a seat would wait on the others' thinking and
    # learn from the wait when another finished its hole, that is how many moves it made.
    independent_seats: ClassVar[bool] = True
    # 2: hole_over events name the hole they end (1-based), not the hole counter after it.
    version: ClassVar[int] = 2
    Rules = GolfSolitaireRules

    # ---- setup -------------------------------------------------------------------

    def seats(self, rules: GolfSolitaireRules) -> range:
        return range(2, 3) if rules.scoring == "match" else range(1, MAX_SEATS + 1)

    def initial_state(self, rules: GolfSolitaireRules, seats: int, seed: int) -> GolfSolitaireState:
        if rules.deal_numbers is not None:
            # With winnable_only a later hole's skip can run past PySolFC's last number:
            # refuse the rules now, not from apply() in mid-match (the numbers are cached).
            hole_deal(rules, seed, rules.holes - 1)
        return self.state_from_deals(rules, seats, seed, ())

    def state_from_deals(
        self, rules: GolfSolitaireRules, seats: int, seed: int, deals: tuple[Deal, ...]
    ) -> GolfSolitaireState:
        """A new match; with ``deals`` (one per hole) those deals are played instead of the
        seed's: scripted deals for tests and analysis."""
        if seats not in self.seats(rules):
            allowed = self.seats(rules)
            raise RulesError(
                f"golf_solitaire with scoring={rules.scoring} takes {allowed.start} to "
                f"{allowed.stop - 1} seats, not {seats}"
            )
        if deals and len(deals) != rules.holes:
            raise ValueError(f"give one deal per hole: {rules.holes} holes, {len(deals)} deals")
        deal = deals[0] if deals else hole_deal(rules, seed, 0)
        state = GolfSolitaireState(
            rules=rules,
            seats=seats,
            seed=seed,
            hole=0,
            deal=deal,
            plays=(),
            results=(),
            events=(),
            script=tuple(deals),
        )
        return self._deal_hole(state, 0, deal, [])

    def _deal_hole(
        self, s: GolfSolitaireState, hole: int, deal: Deal, events: list[Event]
    ) -> GolfSolitaireState:
        """Deal hole ``hole`` (0-based) to every seat; a hole dealt with no move to make (a
        scripted deal) is scored at once."""
        events.append(Event("deal", _describe_deal(deal, hole, s.rules.holes), hand=hole + 1))
        play = start_play(s.rules, deal)
        state = dataclasses.replace(s, hole=hole, deal=deal, plays=(play,) * s.seats)
        if play.finished:
            events.extend(self._finish_event(state, seat, play) for seat in range(s.seats))
            return self._close_hole(state, events)
        return dataclasses.replace(state, events=tuple(events))

    # ---- turns ---------------------------------------------------------------------

    def to_act(self, s: GolfSolitaireState) -> tuple[int, ...]:
        if s.over:
            return ()
        return tuple(i for i, p in enumerate(s.plays) if not p.finished)

    def legal_actions(self, s: GolfSolitaireState, seat: int) -> tuple[str, ...]:
        if s.over or not 0 <= seat < s.seats:
            return ()
        return legal_moves(s.rules, s.deal, s.plays[seat])

    def _why_illegal(self, s: GolfSolitaireState, seat: int, a: str) -> str:
        if s.over:
            return "the match is over"
        if not 0 <= seat < s.seats:
            return f"there is no seat {seat}"
        if s.plays[seat].finished:
            return f"seat {seat} has finished hole {s.hole + 1}: wait for the other seats"
        return f"{a!r} is not legal now; legal: {', '.join(self.legal_actions(s, seat))}"

    def _transition(self, s: GolfSolitaireState, seat: int, a: str) -> GolfSolitaireState:
        play = s.plays[seat]
        nxt, moved = advance(s.rules, s.deal, play, a)
        plays = tuple(nxt if i == seat else p for i, p in enumerate(s.plays))
        events = [self._move_event(s, seat, a, play, moved, nxt)]
        if nxt.finished:
            events.append(self._finish_event(s, seat, nxt))
        state = dataclasses.replace(s, plays=plays)
        if all(p.finished for p in plays):
            return self._close_hole(state, events)
        return dataclasses.replace(state, events=tuple(events))

    def _move_event(
        self,
        s: GolfSolitaireState,
        seat: int,
        code: str,
        before: SeatPlay,
        moved: Card,
        after: SeatPlay,
    ) -> Event:
        under = f" onto {before.foundation[-1].code}" if before.foundation else ""
        if code == STOCK_CODE:
            left = len(s.deal.stock) - after.stock_pos
            detail = f"turned {moved.code} from the stock{under} ({left} left)"
        else:
            detail = f"played {moved.code} from column {code.split()[1]}{under}"
        # Secret: other seats do not see a seat's play during a hole, not even its count of
        # moves, which would tell its score (35 tableau cards + 16 stock cards - score).
        return Event(
            "move",
            f"seat {seat} moved",
            seat=seat,
            private_text=f"seat {seat} {detail}",
            visible_to=frozenset({seat}),
            hand=s.hole + 1,
            secret=True,
        )

    def _finish_event(self, s: GolfSolitaireState, seat: int, play: SeatPlay) -> Event:
        score = play_score(s.deal, play)
        how = (
            f"cleared the tableau with {-score} stock cards left"
            if not any(play.heights)
            else f"stuck with {score} cards in the tableau"
        )
        return Event(
            "finish",
            f"seat {seat} finished hole {s.hole + 1}",
            seat=seat,
            private_text=f"seat {seat} finished hole {s.hole + 1}: {how}, score {score}",
            visible_to=frozenset({seat}),
            hand=s.hole + 1,
            secret=True,
        )

    def _close_hole(self, s: GolfSolitaireState, events: list[Event]) -> GolfSolitaireState:
        result = HoleResult(
            s.hole + 1,
            "" if s.deal.number is None else str(s.deal.number),
            tuple(play_score(s.deal, p) for p in s.plays),
            tuple(not any(p.heights) for p in s.plays),
        )
        results = (*s.results, result)
        over = len(results) == s.rules.holes
        # The deal number only once the match is over, as in the view: numbered deals often
        # run in sequence, and the number would give the next holes' stock orders away.
        numbered = f" (PySolFC deal {s.deal.number})" if over and s.deal.number is not None else ""
        scores = ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(result.scores))
        totals = ", ".join(f"seat {i} {v:+d}" for i, v in enumerate(_totals(results, s.seats)))
        events.append(
            Event(
                "hole_over",
                f"hole {result.hole}{numbered}: {scores}; totals {totals}",
                hand=result.hole,
            )
        )
        if over:
            state = dataclasses.replace(s, results=results, over=True)
            summary = self._summary(state)
            events.append(Event("match_over", summary, hand=s.hole + 1))
            return dataclasses.replace(state, events=tuple(events))
        hole = s.hole + 1
        deal = s.script[hole] if s.script else hole_deal(s.rules, s.seed, hole)
        return self._deal_hole(dataclasses.replace(s, results=results), hole, deal, events)

    # ---- views -------------------------------------------------------------------

    def observation(self, s: GolfSolitaireState, seat: int) -> GolfSolitaireView:
        if not 0 <= seat < s.seats:
            raise ValueError(f"there is no seat {seat}")
        play = s.plays[seat]
        tableau = tuple(col[:h] for col, h in zip(s.deal.tableau, play.heights, strict=True))
        return self._seat_view(
            s,
            seat,
            tableau,
            play.foundation,
            s.deal.stock[play.stock_pos :],
            play.moves,
            play.finished,
        )

    def public_view(self, s: GolfSolitaireState) -> GolfSolitaireView:
        # A spectator sees the hole as dealt: every seat's play is private until it ends.
        start = () if s.deal.foundation is None else (s.deal.foundation,)
        return self._seat_view(s, -1, s.deal.tableau, start, s.deal.stock, 0, False)

    def _seat_view(
        self,
        s: GolfSolitaireState,
        seat: int,
        tableau: tuple[tuple[Card, ...], ...],
        foundation: tuple[Card, ...],
        stock_left: tuple[Card, ...],
        moves: int,
        finished: bool,
    ) -> GolfSolitaireView:
        r = s.rules
        return GolfSolitaireView(
            seat=seat,
            seats=s.seats,
            hole=s.hole + 1,
            holes=r.holes,
            tableau=tableau,
            foundation=foundation,
            stock_count=len(stock_left),
            unseen=tuple(sorted(stock_left)),
            moves=moves,
            finished=finished,
            match_over=s.over,
            # Deal numbers only once the match is over: numbered deals often run in
            # sequence, and the next number would give away the next stock order.
            results=s.results
            if s.over
            else tuple(dataclasses.replace(h, deal_number="") for h in s.results),
            totals=_totals(s.results, s.seats),
            holes_won=_holes_won(s.results, s.seats),
            queen_on_king=r.allows_queen_on_king,
            wrap=r.wrap,
            jokers=r.jokers,
            foundation_starts_empty=r.foundation_starts_empty,
            stock_only_when_blocked=r.stock_only_when_blocked,
            scoring=r.scoring,
        )

    # ---- results -------------------------------------------------------------------

    def standings(self, s: GolfSolitaireState) -> Outcome:
        totals = _totals(s.results, s.seats)
        won = _holes_won(s.results, s.seats)
        details: dict[str, Any] = {
            "scoring": s.rules.scoring,
            "holes_played": len(s.results),
            "par": 5 * s.rules.holes,
            "hole_scores": [list(r.scores) for r in s.results],
            "cleared": [list(r.cleared) for r in s.results],
            "deal_numbers": [int(r.deal_number) if r.deal_number else None for r in s.results],
            "totals": list(totals),
            "holes_won": list(won),
        }
        if s.rules.scoring == "match":
            up = won[0] - won[1]
            details["holes_up"] = [up, -up]
            details["result"] = _match_result(up)
            return Outcome(
                (float(up), float(-up)), ranks_from_scores((up, -up), True), details=details
            )
        details["result"] = ", ".join(f"seat {i} {t:+d}" for i, t in enumerate(totals))
        return Outcome(
            tuple(float(t) for t in totals), ranks_from_scores(totals, False), details=details
        )

    def _summary(self, s: GolfSolitaireState) -> str:
        out = self.standings(s)
        return f"match over after {len(s.results)} holes: {out.details['result']}"

    def hindsight_best(self, rules: GolfSolitaireRules, seed: int) -> tuple[int, ...]:
        """The best score achievable on each hole of the match with these rules and seed,
        with the stock known (the solver); the deals depend on nothing else. Their sum is
        the best possible stroke total, to set a seat's score against."""
        return hindsight_best_scores(rules, seed)

    def hindsight_best_total(self, rules: GolfSolitaireRules, seed: int) -> float | None:
        """The best stroke total achievable on this match's deals (the arena's leaderboard
        shows it next to each bot's mean score); None under match scoring, whose scores
        are holes up and not strokes."""
        return float(sum(self.hindsight_best(rules, seed))) if rules.scoring == "stroke" else None

    def max_decisions(self, rules: GolfSolitaireRules, seats: int) -> int:
        # Every decision moves one card of the seat's own copy to the foundation.
        return rules.holes * seats * (52 + rules.jokers)

    # ---- codes ---------------------------------------------------------------------

    def decode(self, code: str) -> str:
        if not isinstance(code, str) or code not in _CODE_MOVE:
            shown = repr(code[:40]) if isinstance(code, str) else type(code).__name__
            raise InvalidAction(
                f"{shown} is not a golf_solitaire action: use 'play N' (column N, 0-6) or 'stock'"
            )
        return code


def _match_result(up: int) -> str:
    if up == 0:
        return "all square"
    return f"seat {0 if up > 0 else 1} {abs(up)} up"


GAME = GolfSolitaire()
