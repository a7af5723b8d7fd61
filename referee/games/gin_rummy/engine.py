"""The gin rummy match: first dealer, deals, hand scoring, the game to target_score, the
3- and 4-player formats, seat views, and the ``Game`` implementation.

A match is the whole game to ``target_score``. Each hand is played at one table
(players 2 and 3) or at two tables at once (players 4, partners facing the two
opponents in turn); ``table`` plays the hand at a table. Chance comes only from
``chance_rng(seed, hand, purpose)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from referee.cards import STANDARD_DECK, Card, CardCodeError, card, cards_of
from referee.game import (
    Event,
    GameBase,
    InvalidAction,
    Outcome,
    chance_rng,
    ranks_from_scores,
    with_item,
)
from referee.games.gin_rummy.melds import VALUE
from referee.games.gin_rummy.rules import GinRummyRules
from referee.games.gin_rummy.table import (
    ACTIONS,
    CODE,
    DECK_SIZE,
    DISCARD,
    DONE,
    HAND_SIZE,
    PHASE_NAMES,
    Table,
    codes_text,
    deal_table,
    event,
    table_act,
    table_view,
    why_illegal,
)
from referee.games.gin_rummy.view import GinHandResult, GinRummyView
from referee.rules import RulesError


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished hand, for the outcome's details."""

    hand: int
    results: tuple[str, ...]  # per table
    points: tuple[int, ...]  # per side


@dataclass(frozen=True, slots=True)
class GinRummyState:
    """A whole match. Sides are seats (players 2 and 3) or teams seat % 2 (players 4)."""

    rules: GinRummyRules
    seed: int
    hand_number: int
    dealer: int  # players 2: dealer seat; 3: the dealer (sitting out); 4: the dealing team
    tables: tuple[Table, ...]
    scores: tuple[int, ...]  # running score per side
    wins: tuple[int, ...]  # hands won per side
    history: tuple[HandRecord, ...]
    last_hand: tuple[GinHandResult, ...]  # per table, the last finished hand
    last_points: tuple[int, ...]  # per side, the last finished hand
    over: bool
    end_reason: str  # "", "target_score" or "max_hands"
    events: tuple[Event, ...]
    scripted: tuple[tuple[int, ...], ...]  # deck orders still to deal before seeded ones


# ---------------------------------------------------------------------------------------
# Small helpers


def _sides(rules: GinRummyRules) -> int:
    return 2 if rules.players == 4 else rules.players


def side_of(rules: GinRummyRules, seat: int) -> int:
    return seat % 2 if rules.players == 4 else seat


def _deck_indices(deck: Sequence[Card | str]) -> tuple[int, ...]:
    out = tuple((c if isinstance(c, Card) else card(c)).index for c in deck)
    if sorted(out) != list(range(DECK_SIZE)):
        raise ValueError("a scripted deck must hold each of the 52 cards exactly once")
    return out


def _card_list(codes: str | Iterable[str]) -> list[Card]:
    return [card(c) for c in (codes.split() if isinstance(codes, str) else codes)]


def stack_deck(
    first_hand: str | Iterable[str],
    dealer_hand: str | Iterable[str],
    upcard: str,
    stock: str | Iterable[str] = (),
) -> tuple[Card, ...]:
    """A deck order that deals these hands (first player = non-dealer), this upcard and a
    stock starting with ``stock`` (the rest of the deck follows in index order)."""
    first, second, top = _card_list(first_hand), _card_list(dealer_hand), _card_list(stock)
    if len(first) != HAND_SIZE or len(second) != HAND_SIZE:
        raise ValueError("each hand needs exactly 10 cards")
    deck: list[Card] = []
    for a, b in zip(first, second, strict=True):
        deck += [a, b]
    deck.append(card(upcard))
    deck += top
    used = set(deck)
    if len(used) != len(deck):
        raise ValueError("a card appears twice in the stacked deck")
    deck += [c for c in STANDARD_DECK if c not in used]
    return tuple(deck)


# ---------------------------------------------------------------------------------------
# Hands and the match


def _first_dealer(players: int, seed: int) -> tuple[int, Event]:
    """Each seat draws a card from a shuffled deck; the lowest value deals (players 4: that
    seat's team). Equal lowest values (across teams) draw again."""
    rng = chance_rng(seed, 0, "first-dealer")
    rounds = []
    while True:
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        drawn = deck[:players]
        rounds.append(", ".join(f"seat {s} {CODE[c]}" for s, c in enumerate(drawn)))
        low = min(VALUE[c] for c in drawn)
        lowest = [s for s, c in enumerate(drawn) if VALUE[c] == low]
        sides = {s % 2 if players == 4 else s for s in lowest}
        if len(sides) == 1:
            winner = lowest[0] % 2 if players == 4 else lowest[0]
            break
    who = f"team {winner} (seats {winner} and {winner + 2})" if players == 4 else f"seat {winner}"
    text = f"draw for the first deal: {'; draw again: '.join(rounds)}; lowest card: {who} deals"
    return winner, event("first_dealer", text, 1)


def _table_seats(players: int, hand_no: int, dealer: int) -> tuple[tuple[int, int], ...]:
    """(first player, dealer) per table for this hand."""
    if players == 2:
        return ((1 - dealer, dealer),)
    if players == 3:
        return (((dealer + 1) % 3, (dealer + 2) % 3),)
    # Teams 0+2 and 1+3; partners swap opponents every hand; the dealing team deals at both.
    pairs = ((0, 1), (2, 3)) if hand_no % 2 == 1 else ((0, 3), (2, 1))
    out = []
    for a, b in pairs:
        out.append((b, a) if a % 2 == dealer else (a, b))
    return tuple(out)


def _deal_hand(
    rules: GinRummyRules,
    seed: int,
    hand_no: int,
    dealer: int,
    scripted: tuple[tuple[int, ...], ...],
) -> tuple[tuple[Table, ...], list[Event], tuple[tuple[int, ...], ...]]:
    tables = []
    evs: list[Event] = []
    for ti, seats in enumerate(_table_seats(rules.players, hand_no, dealer)):
        if scripted:
            deck, scripted = scripted[0], scripted[1:]
        else:
            order = list(range(DECK_SIZE))
            chance_rng(seed, hand_no, f"deal/table{ti}").shuffle(order)
            deck = tuple(order)
        t = deal_table(deck, seats)
        tables.append(t)
        where = f" at table {ti}" if rules.players == 4 else ""
        by = dealer if rules.players == 3 else seats[1]
        sitting = " and sits out" if rules.players == 3 else ""
        evs.append(
            event(
                "deal",
                f"hand {hand_no}{where}: seat {by} deals 10 cards each to seats {seats[0]} and "
                f"{seats[1]}{sitting}; upcard {CODE[t.pile[0]]}; stock {t.stock_count}",
                hand_no,
                by,
            )
        )
        for p in (0, 1):
            s = seats[p]
            evs.append(
                event(
                    "hand",
                    f"seat {s} is dealt 10 cards",
                    hand_no,
                    s,
                    f"you are dealt {codes_text(t.hands[p])}",
                    frozenset((s,)),
                )
            )
        evs.append(
            event(
                "upcard_offer",
                f"seat {seats[0]} may take the upcard {CODE[t.pile[0]]} or pass",
                hand_no,
                seats[0],
            )
        )
    return tuple(tables), evs, scripted


def new_match(
    rules: GinRummyRules,
    seed: int,
    *,
    dealer: int | None = None,
    decks: Sequence[Sequence[Card | str]] = (),
    scores: Sequence[int] | None = None,
    hands_won: Sequence[int] | None = None,
    hand_number: int = 1,
) -> GinRummyState:
    """The state at the start of a match, or (for tests and studies) of a chosen position:
    ``dealer`` overrides the simulated first-dealer draw (players 4: the dealing team);
    ``decks`` are deck orders (52 cards each, see :func:`stack_deck`) dealt before any
    seeded deck, one per table per hand; ``scores``/``hands_won`` (per side) and
    ``hand_number`` start the match part-way."""
    sides = _sides(rules)
    evs: list[Event] = []
    if dealer is None:
        dealer, ev = _first_dealer(rules.players, seed)
        evs.append(ev)
    elif not 0 <= dealer < sides:
        raise ValueError(f"dealer must be a side from 0 to {sides - 1}")
    run_scores = tuple(scores) if scores is not None else (0,) * sides
    run_wins = tuple(hands_won) if hands_won is not None else (0,) * sides
    if len(run_scores) != sides or len(run_wins) != sides:
        raise ValueError(f"scores and hands_won need one entry per side ({sides})")
    scripted = tuple(_deck_indices(d) for d in decks)
    tables, deal_evs, scripted = _deal_hand(rules, seed, hand_number, dealer, scripted)
    return GinRummyState(
        rules=rules,
        seed=seed,
        hand_number=hand_number,
        dealer=dealer,
        tables=tables,
        scores=run_scores,
        wins=run_wins,
        history=(),
        last_hand=(),
        last_points=(),
        over=False,
        end_reason="",
        events=(*evs, *deal_evs),
        scripted=scripted,
    )


def _final_totals(
    rules: GinRummyRules, scores: tuple[int, ...], wins: tuple[int, ...]
) -> dict[str, list[int]]:
    """Running scores plus the end bonuses, per side. The winner is the side with the
    unique highest running score (the one that reached the target, or the leader at the
    length bound); with no unique leader nobody gets the game or shutout bonus."""
    n = len(scores)
    top = max(scores)
    leaders = [i for i in range(n) if scores[i] == top]
    game = [0] * n
    line = [rules.line_bonus * w for w in wins]
    shut = [0] * n
    if len(leaders) == 1:
        w = leaders[0]
        game[w] = rules.game_bonus
        if all(wins[i] == 0 for i in range(n) if i != w):
            if rules.shutout == "bonus":
                shut[w] = rules.shutout_bonus
            else:
                shut[w] = scores[w] + game[w] + line[w]  # doubling adds the total once more
    final = [scores[i] + game[i] + line[i] + shut[i] for i in range(n)]
    return {
        "running": list(scores),
        "game_bonus": game,
        "line_bonus": line,
        "shutout": shut,
        "final": final,
    }


def _end_hand(s: GinRummyState, tables: tuple[Table, ...], evs: list[Event]) -> GinRummyState:
    """Score a finished hand (all tables done), then end the match or deal the next hand."""
    rules = s.rules
    hand_no = s.hand_number
    sides = _sides(rules)
    results = tuple(t.result for t in tables if t.result is not None)
    raw = [0] * sides
    for r in results:
        if r.winner >= 0:
            raw[side_of(rules, r.winner)] += r.points
    winner: int | None
    if all(r.result == "void" for r in results):
        winner = None
        points = [0] * sides
    elif rules.players == 4:
        net = raw[0] - raw[1]
        points = [max(net, 0), max(-net, 0)]
        winner = 0 if net > 0 else 1 if net < 0 else None
    else:
        points = raw
        winner = results[0].winner
    scores = tuple(a + b for a, b in zip(s.scores, points, strict=True))
    wins = tuple(w + (1 if i == winner else 0) for i, w in enumerate(s.wins))
    if winner is None:
        dealer = s.dealer
    elif rules.players == 2:
        dealer = 1 - winner
    elif rules.players == 3:
        dealer = (s.dealer + 1) % 3
    else:
        dealer = 1 - winner
    history = (*s.history, HandRecord(hand_no, tuple(r.result for r in results), tuple(points)))
    noun = "team" if rules.players == 4 else "seat"

    def who(i: int) -> str:
        return f"{noun} {i}"

    head = (
        f"hand {hand_no}: nobody scores"
        if winner is None
        else (f"hand {hand_no}: {who(winner)} wins {points[winner]}")
    )
    running = ", ".join(f"{who(i)} {scores[i]}" for i in range(sides))
    evs.append(event("hand_score", f"{head}; running scores: {running}", hand_no))
    over = max(scores) >= rules.target or hand_no >= rules.max_hands
    if over:
        reason = "target_score" if max(scores) >= rules.target else "max_hands"
        totals = _final_totals(rules, scores, wins)
        final = ", ".join(f"{who(i)} {totals['final'][i]}" for i in range(sides))
        why = (
            f"{who(scores.index(max(scores)))} reached {max(scores)}"
            if reason == "target_score"
            else f"the length bound max_hands={rules.max_hands} was reached"
        )
        text = f"match over: {why}; final totals with bonuses: {final}"
        evs.append(event("match_over", text, hand_no))
        # The final state keeps the last hand's tables, so it keeps that hand's dealer too.
        return dataclasses.replace(
            s,
            tables=tables,
            scores=scores,
            wins=wins,
            history=history,
            last_hand=results,
            last_points=tuple(points),
            over=True,
            end_reason=reason,
            events=tuple(evs),
        )
    nxt, deal_evs, scripted = _deal_hand(rules, s.seed, hand_no + 1, dealer, s.scripted)
    evs += deal_evs
    return dataclasses.replace(
        s,
        hand_number=hand_no + 1,
        dealer=dealer,
        tables=nxt,
        scores=scores,
        wins=wins,
        history=history,
        last_hand=results,
        last_points=tuple(points),
        events=tuple(evs),
        scripted=scripted,
    )


# ---------------------------------------------------------------------------------------
# Views


def _view(s: GinRummyState, seat: int) -> GinRummyView:
    rules = s.rules
    players = rules.players
    tables = tuple(table_view(t, s.dealer if players == 3 else t.seats[1]) for t in s.tables)
    ti = next((i for i, t in enumerate(s.tables) if seat in t.seats), -1)
    hand: tuple[Card, ...] = ()
    cannot: Card | None = None
    opponent = -1
    if ti >= 0:
        t = s.tables[ti]
        p = t.seats.index(seat)
        hand = cards_of(t.hands[p])
        opponent = t.seats[1 - p]
        if t.phase == DISCARD and t.turn == p and t.restricted >= 0:
            cannot = STANDARD_DECK[t.restricted]
    if s.over:
        phase = "match_over"
    elif ti >= 0:
        phase = PHASE_NAMES[s.tables[ti].phase]
    elif seat >= 0:
        phase = "sitting_out"
    else:
        phase = PHASE_NAMES[s.tables[0].phase]
    sides = [side_of(rules, i) for i in range(players)]
    final: tuple[int, ...] = ()
    if s.over:
        totals = _final_totals(rules, s.scores, s.wins)["final"]
        final = tuple(totals[x] for x in sides)
    return GinRummyView(
        seat=seat,
        players=players,
        hand_number=s.hand_number,
        phase=phase,
        to_act=GAME.to_act(s),
        hand=hand,
        cannot_discard=cannot,
        table=ti,
        opponent=opponent,
        dealer=tables[max(ti, 0)].dealer,
        tables=tables,
        teams=tuple(sides),
        scores=tuple(s.scores[x] for x in sides),
        hands_won=tuple(s.wins[x] for x in sides),
        target_score=rules.target,
        last_hand=s.last_hand,
        last_hand_points=tuple(s.last_points[x] for x in sides) if s.last_points else (),
        match_over=s.over,
        final_scores=final,
    )


# ---------------------------------------------------------------------------------------
# The Game


class GinRummy(GameBase[GinRummyState, str, GinRummyRules]):
    """The gin rummy engine (see the module docstring and docs/games/gin_rummy.md)."""

    name: ClassVar[str] = "gin_rummy"
    version: ClassVar[int] = 1
    Rules = GinRummyRules

    def seats(self, rules: GinRummyRules) -> range:
        return range(rules.players, rules.players + 1)

    def initial_state(self, rules: GinRummyRules, seats: int, seed: int) -> GinRummyState:
        if seats != rules.players:
            raise RulesError(
                f"gin_rummy with players={rules.players} needs {rules.players} seats, not {seats}"
            )
        return new_match(rules, seed)

    def to_act(self, s: GinRummyState) -> tuple[int, ...]:
        if s.over:
            return ()
        tables = s.tables
        if len(tables) == 1:
            t = tables[0]
            return (t.seats[t.turn],)
        return tuple(sorted(t.seats[t.turn] for t in tables if t.phase != DONE))

    def _table_index(self, s: GinRummyState, seat: int) -> int:
        if not s.over:
            for i, t in enumerate(s.tables):
                if t.phase != DONE and t.seats[t.turn] == seat:
                    return i
        return -1

    def legal_actions(self, s: GinRummyState, seat: int) -> tuple[str, ...]:
        i = self._table_index(s, seat)
        return s.tables[i].legal if i >= 0 else ()

    def _why_illegal(self, s: GinRummyState, seat: int, a: str) -> str:
        info = ACTIONS.get(a) if isinstance(a, str) else None
        if info is None:
            return f"{a!r} is not a gin_rummy action code (see docs/games/gin_rummy.md)"
        i = self._table_index(s, seat)
        if i < 0:
            if s.over:
                return "the match is over"
            return f"seat {seat} is not to act; waiting for seats {self.to_act(s)}"
        kind, c = info
        return f"{a!r} is not legal now: {why_illegal(s.tables[i], s.rules, a, kind, c)}"

    def _transition(self, s: GinRummyState, seat: int, a: str) -> GinRummyState:
        i = self._table_index(s, seat)
        kind, c = ACTIONS[a]
        nt, evs = table_act(s.tables[i], s.rules, s.hand_number, kind, c)
        tables = with_item(s.tables, i, nt)
        if nt.phase == DONE and all(x.phase == DONE for x in tables):
            return _end_hand(s, tables, evs)
        # Keyword construction, not dataclasses.replace: this runs on every decision, and
        # replace costs twice as much (docs/architecture.md, Performance).
        return GinRummyState(
            rules=s.rules,
            seed=s.seed,
            hand_number=s.hand_number,
            dealer=s.dealer,
            tables=tables,
            scores=s.scores,
            wins=s.wins,
            history=s.history,
            last_hand=s.last_hand,
            last_points=s.last_points,
            over=False,
            end_reason="",
            events=tuple(evs),
            scripted=s.scripted,
        )

    def _view(self, s: GinRummyState, seat: int) -> GinRummyView:
        return _view(s, seat)

    def standings(self, s: GinRummyState) -> Outcome:
        rules = s.rules
        totals = _final_totals(rules, s.scores, s.wins)
        sides = [side_of(rules, i) for i in range(rules.players)]
        scores = tuple(float(totals["final"][x]) for x in sides)
        details: dict[str, Any] = {
            "players": rules.players,
            "sides": "teams" if rules.players == 4 else "seats",
            "target_score": rules.target,
            "reason": s.end_reason if s.over else "in_progress",
            "hands_played": len(s.history),
            "hands_won": list(s.wins),
            **totals,
            "hands": [
                {"hand": r.hand, "results": list(r.results), "points": list(r.points)}
                for r in s.history
            ],
        }
        return Outcome(
            scores=scores,
            ranks=ranks_from_scores(scores, higher_is_better=True),
            teams=self.fixed_teams(rules, rules.players),
            details=details,
        )

    def fixed_teams(self, rules: GinRummyRules, seats: int) -> tuple[int, ...] | None:
        if rules.players != 4:
            return None
        return tuple(side_of(rules, seat) for seat in range(seats))

    def max_decisions(self, rules: GinRummyRules, seats: int) -> int:
        tables = 2 if rules.players == 4 else 1
        # Per table and hand: at most two upcard decisions, then two per turn, the first
        # turn's draw being the upcard offer itself.
        return rules.max_hands * tables * (2 * rules.max_turns + 1)

    def decode(self, code: str) -> str:
        if not isinstance(code, str) or len(code) > 40:
            raise InvalidAction("not a gin_rummy action code (see docs/games/gin_rummy.md)")
        if code in ACTIONS:
            return code
        words = code.split()
        if len(words) == 2 and words[0].lower() in ("discard", "knock", "gin"):
            try:
                canonical = f"{words[0].lower()} {card(words[1]).code}"
            except CardCodeError:
                canonical = ""
            if canonical in ACTIONS:
                return canonical
        joined = " ".join(w.lower() for w in words)
        if joined in ACTIONS:
            return joined
        raise InvalidAction(
            f"{code[:40]!r} is not a gin_rummy action code: use 'take upcard', 'pass', "
            "'draw stock', 'draw discard', 'discard QS', 'knock 7H', 'gin 7H' or 'big gin'"
        )


GAME = GinRummy()
