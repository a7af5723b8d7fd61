"""The Game contract every engine implements, the base engines build on, their value
types, and the registry of games.

Engines are pure and deterministic: state in, state out, chance only from
:func:`chance_rng`. Nothing here knows about gRPC, SQLite or bots. An engine subclasses
:class:`GameBase`, which supplies every member whose shape is the same in every game
(views, events, outcome, the legality check of ``apply``, the optional abilities), so the
engine's own file holds its rules: the deal, the legal actions, the transitions, scoring.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from referee.rules import RulesError, RulesT, describe_rules, parse_rules, rules_to_dict

__all__ = [
    "GAME_MODULES",
    "ActionError",
    "Event",
    "Game",
    "GameBase",
    "IllegalAction",
    "InvalidAction",
    "Outcome",
    "PlayLoop",
    "RulesError",
    "UnknownGame",
    "chance_rng",
    "competition_ranks",
    "describe_rules",
    "forfeit_outcome",
    "game_names",
    "get_game",
    "parse_rules",
    "play_out",
    "ranks_from_scores",
    "rules_to_dict",
    "with_item",
]


class ActionError(ValueError):
    """A seat's action that cannot be played: :class:`InvalidAction` or :class:`IllegalAction`."""


class InvalidAction(ActionError):
    """A code that is no action of this game at all (raised by ``decode``)."""


class IllegalAction(ActionError):
    """An action of this game that is not legal for that seat in that state (raised by
    ``apply``)."""


class UnknownGame(ValueError):
    """A game name that is not in the registry."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished match (or the standings of an unfinished one).

    ``scores`` are the game's own totals (their direction is the game's: golf is
    lower-better, gin higher-better); ``ranks`` are 1-based competition ranks
    (ties share the rank, 1 is best) and are what ratings use. ``teams`` gives a
    team index per seat when the game is played in fixed teams (rated as teams).
    ``details`` is JSON-serialisable game-specific information for people.
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    teams: tuple[int, ...] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "teams": None if self.teams is None else list(self.teams),
            "details": dict(self.details),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        teams = data.get("teams")
        return cls(
            scores=tuple(data["scores"]),
            ranks=tuple(data["ranks"]),
            teams=None if teams is None else tuple(teams),
            details=dict(data.get("details") or {}),
        )


T = TypeVar("T")


def with_item(items: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """``items`` with item ``i`` replaced: the one-seat update of a per-seat tuple in a
    frozen state."""
    return (*items[:i], value, *items[i + 1 :])


def forfeit_outcome(standings: Outcome, forfeited: Sequence[int]) -> Outcome:
    """Standings with the forfeiting seats ranked last (sharing that rank); the other seats
    keep their order from the standings. In fixed teams a forfeit is the team's: its
    partners rank last with it (ranked by its partner, the team could win by a crash)."""
    lost = set(forfeited)
    if standings.teams is not None:
        losing_teams = {standings.teams[s] for s in lost}
        lost |= {s for s, team in enumerate(standings.teams) if team in losing_teams}
    keep = [s for s in range(len(standings.ranks)) if s not in lost]
    ranks = list(standings.ranks)
    for s, rank in zip(keep, competition_ranks([standings.ranks[s] for s in keep]), strict=True):
        ranks[s] = rank
    for s in lost:
        ranks[s] = len(keep) + 1
    details = dict(standings.details)
    details["forfeited"] = sorted(set(forfeited))
    return Outcome(standings.scores, tuple(ranks), standings.teams, details)


def competition_ranks(keys: Sequence[float]) -> tuple[int, ...]:
    """Competition ranks (1, 1, 3, ...) where a lower key is better: equal keys share a rank."""
    return tuple(1 + sum(1 for other in keys if other < mine) for mine in keys)


def ranks_from_scores(scores: Sequence[float], higher_is_better: bool) -> tuple[int, ...]:
    """Competition ranks (1, 1, 3, ...): equal scores share a rank."""
    return competition_ranks([-s for s in scores] if higher_is_better else scores)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at the table: a deal, a move, a reveal, a score.

    ``text`` is what everybody (spectators included) may know. Seats in
    ``visible_to`` know more and see ``private_text`` instead (a card drawn from
    the stock, a card passed to them). Replays of finished matches keep both.
    A ``secret`` event is told during the match only to the seats in ``visible_to``:
    the others, spectators included, do not learn it happened (a golf solitaire seat's
    moves, whose count would tell its score); its ``text`` is for the finished replay.
    """

    kind: str
    text: str
    seat: int | None = None
    private_text: str | None = None
    visible_to: frozenset[int] = frozenset()
    hand: int = 0
    secret: bool = False

    def text_for(self, seat: int | None) -> str:
        """The text this seat may read (``None``: a spectator)."""
        if self.private_text is not None and seat is not None and seat in self.visible_to:
            return self.private_text
        return self.text

    def told_to(self, seat: int | None) -> bool:
        """Whether this seat (``None``: a spectator) is told of the event while the match
        is played."""
        return not self.secret or (seat is not None and seat in self.visible_to)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text": self.text, "hand": self.hand}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.private_text is not None:
            out["private_text"] = self.private_text
            out["visible_to"] = sorted(self.visible_to)
        return out


def chance_rng(seed: int, hand: int, purpose: str) -> random.Random:
    """The only source of chance for engines: a stream seeded from (seed, hand, purpose).

    String seeds are hashed with SHA-512 by :class:`random.Random`, so the
    stream is the same on every machine and Python run.
    """
    return random.Random(f"{seed}/{hand}/{purpose}")


S = TypeVar("S")
A = TypeVar("A")


class Game(Protocol[S, A, RulesT]):
    """The protocol of a game engine. docs/architecture.md, "The Game contract"."""

    name: ClassVar[str]
    version: ClassVar[int]
    Rules: type[RulesT]
    # Optional abilities (GameBase gives the defaults):
    lower_scores_win: ClassVar[bool]
    """Lower scores rank better (golf); the arena ranks one-seat matches by score with it."""
    independent_seats: ClassVar[bool]
    """Each seat plays its own copy (golf solitaire): no seat's decision changes what
    another may do, so the match driver asks a seat again as soon as its answer is
    applied instead of in rounds."""

    def hindsight_best_total(self, rules: RulesT, seed: int) -> float | None:
        """The best total any play could reach on this match's deals (solitaire), or None."""
        ...

    def fixed_teams(self, rules: RulesT, seats: int) -> tuple[int, ...] | None:
        """A team per seat when the game is played in partnerships fixed by the seats
        (4-player gin: 0, 1, 0, 1), else None. The schedule varies who partners whom."""
        ...

    def seats(self, rules: RulesT) -> range:
        """Allowed seat counts for these rules."""
        ...

    def initial_state(self, rules: RulesT, seats: int, seed: int) -> S: ...

    def to_act(self, s: S) -> tuple[int, ...]:
        """Seats whose decision is awaited (several for simultaneous decisions); () when over."""
        ...

    def legal_actions(self, s: S, seat: int) -> tuple[A, ...]:
        """Legal actions in a deterministic sorted order; never empty for a seat in to_act."""
        ...

    def apply(self, s: S, seat: int, a: A) -> S:
        """The next state. Raises IllegalAction for anything not in legal_actions(s, seat)."""
        ...

    def observation(self, s: S, seat: int) -> Any:
        """The seat's view: a frozen dataclass, the only path from state to a bot."""
        ...

    def public_view(self, s: S) -> Any:
        """What a spectator may see live: the same dataclass as observation, seat -1."""
        ...

    def events(self, s: S) -> tuple[Event, ...]:
        """Events produced by the transition that made ``s`` (or by the deal, for the
        initial state), in order."""
        ...

    def outcome(self, s: S) -> Outcome | None:
        """The final result, or None while the match goes on."""
        ...

    def standings(self, s: S) -> Outcome:
        """The result if the match were stopped now (forfeits; the length bound)."""
        ...

    def max_decisions(self, rules: RulesT, seats: int) -> int:
        """A hard bound on the number of decisions in one match."""
        ...

    def encode(self, a: A) -> str: ...

    def decode(self, code: str) -> A:
        """The action for a code; raises InvalidAction for a code that is no action of
        this game (whether it is legal now is apply's question)."""
        ...


class _HasEvents(Protocol):
    @property
    def events(self) -> tuple[Event, ...]: ...


StateT = TypeVar("StateT", bound=_HasEvents)


class GameBase(Generic[StateT, A, RulesT]):
    """What every engine shares; an engine subclasses it and supplies its rules.

    An engine defines ``name``, ``version``, ``Rules``, ``seats``, ``initial_state``,
    ``to_act``, ``legal_actions``, ``standings``, ``max_decisions``, ``decode``,
    ``_view`` (the seat's view; seat -1 is a spectator) and ``_transition`` (the next
    state after an action already known to be legal). Its state keeps the events of the
    transition that made it in ``events``. It overrides a default only where its game
    differs: ``_is_legal`` for a faster check than membership of ``legal_actions``,
    ``_why_illegal`` for a message that helps, ``encode`` for actions that are not their
    own codes, the views when a spectator's view is not the seat view with seat -1.
    """

    name: ClassVar[str]
    version: ClassVar[int]
    Rules: type[RulesT]
    lower_scores_win: ClassVar[bool] = False
    independent_seats: ClassVar[bool] = False

    def hindsight_best_total(self, rules: RulesT, seed: int) -> float | None:
        return None

    def fixed_teams(self, rules: RulesT, seats: int) -> tuple[int, ...] | None:
        return None

    # -- what each engine supplies

    def to_act(self, s: StateT) -> tuple[int, ...]:
        raise NotImplementedError

    def legal_actions(self, s: StateT, seat: int) -> tuple[A, ...]:
        raise NotImplementedError

    def standings(self, s: StateT) -> Outcome:
        raise NotImplementedError

    def _view(self, s: StateT, seat: int) -> Any:
        raise NotImplementedError

    def _transition(self, s: StateT, seat: int, a: A) -> StateT:
        """The next state after legal action ``a`` of ``seat``."""
        raise NotImplementedError

    # -- the defaults

    def apply(self, s: StateT, seat: int, a: A) -> StateT:
        if not self._is_legal(s, seat, a):
            raise IllegalAction(self._why_illegal(s, seat, a))
        return self._transition(s, seat, a)

    def _is_legal(self, s: StateT, seat: int, a: A) -> bool:
        # legal_actions is empty for a seat not to act, and once the match is over.
        return a in self.legal_actions(s, seat)

    def _why_illegal(self, s: StateT, seat: int, a: A) -> str:
        to_act = self.to_act(s)
        if not to_act:
            return "the match is over"
        if seat not in to_act:
            return f"seat {seat} is not to act; waiting for seats {to_act}"
        legal = ", ".join(self.encode(b) for b in self.legal_actions(s, seat))
        return f"{a!r} is not legal now; legal: {legal}"

    def observation(self, s: StateT, seat: int) -> Any:
        return self._view(s, seat)

    def public_view(self, s: StateT) -> Any:
        return self._view(s, -1)

    def events(self, s: StateT) -> tuple[Event, ...]:
        return s.events

    def outcome(self, s: StateT) -> Outcome | None:
        return None if self.to_act(s) else self.standings(s)

    def encode(self, a: A) -> str:
        """The action's code: actions that are their own codes (str) by default."""
        assert isinstance(a, str), f"{type(self).__name__} must define encode"
        return a


def _every_waiting_seat(to_act: tuple[int, ...]) -> Sequence[int]:
    return to_act


class PlayLoop(Generic[S, A]):
    """The play loop (to_act -> legal_actions -> apply), the one piece of code that plays a
    match: which seats a round asks, which decisions still count, applying them, counting
    them, the end.

    A round asks the seats waiting (``to_act``), or those ``seats(to_act)`` picks. A
    decision is applied only while its seat is still waiting: an earlier decision of the
    same round can leave a seat nothing to do. The match is over when nobody waits.
    :func:`play_out` drives it in process, one seat at a time; the match driver
    (:mod:`referee.match`) asks a round's seats at once, awaiting remote answers, and plays
    them in order.
    """

    __slots__ = ("_round", "decisions", "game", "max_decisions", "state", "waiting")

    def __init__(self, game: Game[S, A, Any], state: S, max_decisions: int | None = None) -> None:
        self.game = game
        self.state = state
        self.waiting: tuple[int, ...] = game.to_act(state)  # () once the match is over
        self.decisions = 0
        self.max_decisions = max_decisions  # RuntimeError beyond it: an engine bug
        self._round: list[int] = []  # the seats of the round in play not yet asked

    def rounds(
        self, seats: Callable[[tuple[int, ...]], Sequence[int]] = _every_waiting_seat
    ) -> Iterator[Sequence[int]]:
        """Each round's seats to ask, in order, until the match is over."""
        while self.waiting:
            yield seats(self.waiting)

    def turns(
        self, seats: Callable[[tuple[int, ...]], Sequence[int]] = _every_waiting_seat
    ) -> Iterator[int]:
        """The seats to ask one at a time: each round's, while each is still waiting."""
        while (seat := self.next_seat(seats)) is not None:
            yield seat

    def next_seat(
        self, seats: Callable[[tuple[int, ...]], Sequence[int]] = _every_waiting_seat
    ) -> int | None:
        """The next seat to ask, one at a time (None once the match is over): what
        ``turns`` yields, for a caller that cannot hold a generator (an environment
        that is copied)."""
        while True:
            while self._round:
                seat = self._round.pop(0)
                if seat in self.waiting:
                    return seat
            if not self.waiting:
                return None
            self._round = list(seats(self.waiting))

    def play(self, seat: int, action: A) -> bool:
        """Apply ``seat``'s decision; False (nothing applied) when an earlier decision of
        the round left the seat nothing to do."""
        if seat not in self.waiting:
            return False
        if self.max_decisions is not None and self.decisions >= self.max_decisions:
            raise RuntimeError(f"{self.game.name}: no end after {self.max_decisions} decisions")
        self.state = self.game.apply(self.state, seat, action)
        self.decisions += 1
        self.waiting = self.game.to_act(self.state)
        return True


def play_out(
    game: Game[S, A, Any],
    state: S,
    choose: Callable[[S, int, tuple[A, ...]], A],
    *,
    seats: Callable[[tuple[int, ...]], Sequence[int]] = _every_waiting_seat,
    on_state: Callable[[S], None] | None = None,
    max_decisions: int | None = None,
) -> tuple[S, int]:
    """Play from ``state`` to the end in process (local play, the conformance suite, the
    benchmarks): returns the final state and the number of decisions.

    ``choose(state, seat, legal)`` picks the seat's action, one seat at a time
    (:meth:`PlayLoop.turns` with ``seats``: default every waiting seat, in order).
    ``on_state`` sees the starting state and the state after every decision. With
    ``max_decisions``, a match that does not end within that many decisions raises
    RuntimeError (an engine bug).
    """
    loop = PlayLoop(game, state, max_decisions)
    if on_state is not None:
        on_state(state)
    for seat in loop.turns(seats):
        loop.play(seat, choose(loop.state, seat, game.legal_actions(loop.state, seat)))
        if on_state is not None:
            on_state(loop.state)
    return loop.state, loop.decisions


# The registry: game name -> module defining ``GAME`` (an engine instance).
GAME_MODULES: dict[str, str] = {
    "dingo": "referee.games.dingo",
    "goninkan": "referee.games.goninkan",
    "gin_rummy": "referee.games.gin_rummy",
    "golf": "referee.games.golf",
    "golf_solitaire": "referee.games.golf_solitaire",
}

_loaded: dict[str, Game[Any, Any, Any]] = {}


def game_names() -> tuple[str, ...]:
    return tuple(GAME_MODULES)


def get_game(name: str) -> Game[Any, Any, Any]:
    """The engine registered under ``name``."""
    if name not in GAME_MODULES:
        raise UnknownGame(f"unknown game {name!r}; available: {', '.join(GAME_MODULES)}")
    if name not in _loaded:
        module = importlib.import_module(GAME_MODULES[name])
        game: Game[Any, Any, Any] = module.GAME
        _loaded[name] = game
    return _loaded[name]


def seats_refused(game: str, rules: Any, seats: int) -> str | None:
    """Why ``game`` with ``rules`` cannot seat ``seats`` players (None: it can), with the
    rule option that would, when a ``players`` option sets the format (3-player gin)."""
    engine = get_game(game)
    allowed = engine.seats(rules)
    if seats in allowed:
        return None
    why = f"{game} with these rules seats {allowed.start} to {allowed.stop - 1}, not {seats}"
    if "players" in {f.name for f in dataclasses.fields(rules)} and rules.players != seats:
        try:
            fits = seats in engine.seats(replace_rules(rules, players=seats))
        except (TypeError, ValueError):  # no such format
            fits = False
        if fits:
            why += f" (the rule option players={seats} makes it a {seats}-player game)"
    return why


def replace_rules(rules: RulesT, **changes: Any) -> RulesT:
    """A copy of ``rules`` with some options changed (validated again)."""
    return dataclasses.replace(rules, **changes)  # type: ignore[type-var]
