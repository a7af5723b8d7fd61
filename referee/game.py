"""The Game contract every engine implements, its value types, and the registry of games.

Engines are pure and deterministic: state in, state out, chance only from
:func:`chance_rng`. Nothing here knows about gRPC, SQLite or bots.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from referee.rules import RulesError, RulesT, describe_rules, parse_rules, rules_to_dict

__all__ = [
    "GAME_MODULES",
    "Event",
    "Game",
    "IllegalAction",
    "Outcome",
    "RulesError",
    "UnknownGame",
    "chance_rng",
    "describe_rules",
    "forfeit_outcome",
    "game_names",
    "get_game",
    "parse_rules",
    "ranks_from_scores",
    "rules_to_dict",
]


class IllegalAction(ValueError):
    """An action that is not legal for that seat in that state (or not a valid code)."""


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


def forfeit_outcome(standings: Outcome, forfeited: Sequence[int]) -> Outcome:
    """Standings with the forfeiting seats ranked last (sharing that rank); the other seats
    keep their order from the standings."""
    lost = set(forfeited)
    keep = [s for s in range(len(standings.ranks)) if s not in lost]
    ranks = list(standings.ranks)
    for s in keep:
        ranks[s] = 1 + sum(1 for o in keep if standings.ranks[o] < standings.ranks[s])
    for s in lost:
        ranks[s] = len(keep) + 1
    details = dict(standings.details)
    details["forfeited"] = sorted(lost)
    return Outcome(standings.scores, tuple(ranks), standings.teams, details)


def ranks_from_scores(scores: Sequence[float], higher_is_better: bool) -> tuple[int, ...]:
    """Competition ranks (1, 1, 3, ...): equal scores share a rank."""
    sign = -1 if higher_is_better else 1
    keyed = [sign * s for s in scores]
    return tuple(1 + sum(1 for other in keyed if other < mine) for mine in keyed)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at the table: a deal, a move, a reveal, a score.

    ``text`` is what everybody (spectators included) may know. Seats in
    ``visible_to`` know more and see ``private_text`` instead (a card drawn from
    the stock, a card passed to them). Replays of finished matches keep both.
    """

    kind: str
    text: str
    seat: int | None = None
    private_text: str | None = None
    visible_to: frozenset[int] = frozenset()
    hand: int = 0

    def text_for(self, seat: int | None) -> str:
        """The text this seat may read (``None``: a spectator)."""
        if self.private_text is not None and seat is not None and seat in self.visible_to:
            return self.private_text
        return self.text

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
        """The next state. Raises IllegalAction for anything not in legal_actions."""
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
        """The action for a code; raises IllegalAction for a malformed code."""
        ...


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


def replace_rules(rules: RulesT, **changes: Any) -> RulesT:
    """A copy of ``rules`` with some options changed (validated again)."""
    return dataclasses.replace(rules, **changes)  # type: ignore[type-var]
