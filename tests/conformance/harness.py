"""Shared conformance checks, run over every game and variant.

Each game contributes ``tests/conformance/cases_<game>.py`` defining:

- ``GAME``: the registry name;
- ``CASES``: a list of :class:`Case` (rule options, seat count, number of playouts);
- ``all_cards(state) -> Iterable[Card]``: every card in every zone of the state
  (hands, layouts, stock, piles, tricks, ...), for the conservation check;
- ``resample_hidden(state, seat, rng) -> state``: a state in which every card
  that ``seat`` cannot know (per the game's spec, "What a seat sees") is
  redealt at random among the places that seat cannot see, keeping everything
  it can. ``seat=None`` means a spectator. The seat's observation (or the
  public view) must not change: that is the leak test.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from referee.cards import Card
from referee.game import (
    Event,
    IllegalAction,
    InvalidAction,
    Outcome,
    get_game,
    parse_rules,
    play_out,
)
from referee.views import observation_message, to_jsonable


@dataclass(frozen=True)
class Case:
    id: str
    rules: Mapping[str, Any] = field(default_factory=dict)
    seats: int = 2
    playouts: int = 200  # with every view of every seat converted to its wire type at each step
    leak_checks: int = 20  # playouts (of the above) in which every step is leak-tested
    fast_playouts: int = 0  # more playouts with the cheaper checks only (see fast_playout)


AllCards = Callable[[Any], Iterable[Card]]
Resampler = Callable[[Any, "int | None", random.Random], Any]


def _check_events(events: tuple[Event, ...], seats: int) -> None:
    for e in events:
        assert isinstance(e, Event)
        assert e.text, "every event has a public text"
        assert e.seat is None or 0 <= e.seat < seats
        assert all(0 <= s < seats for s in e.visible_to)


def playout(
    case: Case,
    game_name: str,
    seed: int,
    all_cards: AllCards,
    resample_hidden: Resampler | None,
    leak_test: bool,
) -> tuple[list[str], Outcome]:
    """One random legal playout with every per-step check; returns the event log and outcome."""
    game = get_game(game_name)
    rules = parse_rules(game.Rules, case.rules)
    assert case.seats in game.seats(rules)
    rng = random.Random(seed)
    state = game.initial_state(rules, case.seats, seed)
    cards0 = Counter(all_cards(state))
    bound = game.max_decisions(rules, case.seats)
    log: list[str] = []

    def check(state: Any) -> None:
        evs = game.events(state)
        _check_events(evs, case.seats)
        log.extend(f"{e.kind}|{e.seat}|{e.text}|{e.private_text}" for e in evs)
        assert Counter(all_cards(state)) == cards0, "cards are conserved"
        to_act = game.to_act(state)
        for seat in range(case.seats):
            legal = game.legal_actions(state, seat) if seat in to_act else ()
            if seat in to_act:
                assert legal, f"seat {seat} must act but has no legal action"
                codes = [game.encode(a) for a in legal]
                assert len(set(codes)) == len(codes), "codes are unique"
                for a, c in zip(legal, codes, strict=True):
                    assert game.decode(c) == a, f"code {c!r} round-trips"
            view = game.observation(state, seat)
            observation_message(game_name, view)  # fits the wire type
            to_jsonable(view)
            if leak_test and resample_hidden is not None:
                other = resample_hidden(state, seat, rng)
                assert Counter(all_cards(other)) == cards0
                assert game.observation(other, seat) == view, f"seat {seat} observation leaks"
        public = game.public_view(state)
        observation_message(game_name, public)
        if leak_test and resample_hidden is not None:
            other = resample_hidden(state, None, rng)
            assert game.public_view(other) == public, "public view leaks"

    def choose(state: Any, seat: int, legal: tuple[Any, ...]) -> Any:
        action = rng.choice(legal)
        log.append(f"act|{seat}|{game.encode(action)}")
        return action

    state, _ = play_out(
        game,
        state,
        choose,
        seats=lambda to_act: (rng.choice(to_act),),
        on_state=check,
        max_decisions=bound,
    )
    outcome = game.outcome(state)
    assert outcome is not None
    assert len(outcome.scores) == len(outcome.ranks) == case.seats
    assert min(outcome.ranks) == 1 and all(1 <= r <= case.seats for r in outcome.ranks)
    assert game.standings(state) == outcome
    # Teams fixed by the seats are rated as teams, and the schedule varies them.
    assert outcome.teams == game.fixed_teams(rules, case.seats)
    return log, outcome


def fast_playout(case: Case, game_name: str, seed: int, all_cards: AllCards) -> int:
    """A random playout with the checks that cost little: the bound, legal actions exactly
    for the seats to act, the played code round-trips, cards conserved at every step, a
    valid outcome. Returns the number of decisions."""
    game = get_game(game_name)
    rules = parse_rules(game.Rules, case.rules)
    rng = random.Random(seed)
    state = game.initial_state(rules, case.seats, seed)
    cards0 = Counter(all_cards(state))
    bound = game.max_decisions(rules, case.seats)

    def choose(state: Any, seat: int, legal: tuple[Any, ...]) -> Any:
        assert legal
        action = rng.choice(legal)
        assert game.decode(game.encode(action)) == action
        return action

    def conserved(state: Any) -> None:
        assert Counter(all_cards(state)) == cards0, "cards are conserved"

    state, decisions = play_out(
        game,
        state,
        choose,
        seats=lambda to_act: (rng.choice(to_act),),
        on_state=conserved,
        max_decisions=bound,
    )
    assert all(not game.legal_actions(state, s) for s in range(case.seats))
    outcome = game.outcome(state)
    assert outcome is not None and len(outcome.ranks) == case.seats and min(outcome.ranks) == 1
    return decisions


def check_garbage_codes(game_name: str) -> None:
    game = get_game(game_name)
    for junk in ("", "???", "discard ZZ", "\x00" * 5, "play 99999999999999999999", "a" * 10000):
        with pytest.raises(InvalidAction):
            game.decode(junk)


def check_every_code_is_judged(case: Case, game_name: str, seed: int, states: int = 200) -> int:
    """``apply`` takes exactly the legal actions and raises IllegalAction for every other
    action of the game, in every phase and for every seat (the contract; the referee
    checks legality first, but direct callers, replays and environments rely on it).

    The game's actions are every code seen legal in a few random playouts of the case;
    at ``states`` of their states, spread over the playouts, each is tried for the
    seats to act, and a sample of them for the other seats. Returns the codes tried."""
    game = get_game(game_name)
    rules = parse_rules(game.Rules, case.rules)
    rng = random.Random(seed)
    seen: list[Any] = []
    codes: set[str] = set()

    def record(state: Any) -> None:
        seen.append(state)
        for seat in game.to_act(state):
            codes.update(game.encode(a) for a in game.legal_actions(state, seat))

    for i in range(4):
        play_out(
            game,
            game.initial_state(rules, case.seats, seed + i),
            lambda state, seat, legal: rng.choice(legal),
            seats=lambda to_act: (rng.choice(to_act),),
            on_state=record,
            max_decisions=game.max_decisions(rules, case.seats),
        )
    every_code = sorted(codes)
    tried = 0
    for state in rng.sample(seen, min(states, len(seen))):
        to_act = game.to_act(state)
        for seat in range(case.seats):
            legal = {game.encode(a) for a in game.legal_actions(state, seat)}
            assert seat in to_act or not legal, f"seat {seat} has legal actions out of turn"
            trying = (
                every_code if seat in to_act else rng.sample(every_code, min(20, len(every_code)))
            )
            for code in trying:
                action = game.decode(code)
                tried += 1
                if code in legal:
                    game.apply(state, seat, action)
                    continue
                with pytest.raises(IllegalAction):
                    game.apply(state, seat, action)
    return tried
