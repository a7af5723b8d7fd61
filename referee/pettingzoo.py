"""PettingZoo environments for every game: ``env("gin_rummy", **rules)``.

An AEC environment (PettingZoo's turn-based API) over the same engines, the same typed
observation messages and the same action codes a bot receives over the wire, so a
policy trained here plays unchanged as a bot (docs/writing-a-bot.md shows both).

- Agents are ``"seat_0"`` ... ``"seat_{n-1}"``. A game that asks several seats at once
  (simultaneous decisions) is asked one seat after another, as ``referee.local`` does.
- The action space is ``Discrete(len(action_codes))``: every code the game can ever
  accept under these rules, sorted (:attr:`CardArenaEnv.action_codes`); the action mask
  marks the legal ones.
- An observation is ``{"observation": float32 vector, "action_mask": int8 vector}``;
  the vector's layout is documented per game in docs/games/<game>.md ("Numeric
  observation"), generated from :data:`ENCODINGS` (``describe_encoding``). It is computed
  from the wire observation message, which ``env.infos[agent]["observation"]`` holds
  for the agent to act (with ``"legal_actions"``, the codes).
- ``reset(seed=N)`` deals what a referee match created with seed N deals (N a whole
  number of 64 bits).
- A seat's view is ``observe(agent)`` and ``infos[agent]``: what a bot receives. The
  environment is a simulator its caller runs every seat of, not a boundary; the game
  state is private and ``state()`` is PettingZoo's (not implemented). One thing outside
  a seat's view shows more than a bot sees: a seat that has finished its solitaire hole
  is asked no more, so the order of ``agent_selection`` tells when the others finished
  (over the wire each seat plays its hole at its own pace). A policy meant to play as a
  bot reads only its observation.
- Rewards come at the end only: with several seats, +1 for the best rank down to -1 for
  the worst (linear in rank); alone (golf solitaire), minus the match's score.

Needs the optional extra: ``scripts/bootstrap rl`` in the clone (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import contextlib
import operator
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "referee.pettingzoo needs PettingZoo, Gymnasium and NumPy: "
        "scripts/bootstrap rl in the clone (or pip install -e '.[rl]')"
    ) from exc

from referee.cards import card
from referee.game import Game, PlayLoop, get_game, parse_rules, seats_refused
from referee.views import observation_message

# ---- the numeric observation ----------------------------------------------------------

CARD_SLOTS = 53  # card index: suit-major C D H S, ace..king; 52 the joker


def card_index(c: Any) -> int | None:
    """A wire Card's index (None when unset)."""
    if not c.code:
        return None
    return 52 if c.rank == 0 else (c.suit - 1) * 13 + c.rank - 1


@dataclass(frozen=True)
class Feature:
    """One block of the vector: ``size`` numbers computed from the observation message."""

    name: str
    size: int
    doc: str
    values: Callable[[Any], Sequence[float]]


def cards(field: str, doc: str) -> Feature:
    def values(o: Any) -> list[float]:
        out = [0.0] * CARD_SLOTS
        for c in getattr(o, field):
            if (i := card_index(c)) is not None:
                out[i] += 1
        return out

    return Feature(field, CARD_SLOTS, f"{doc}: count per card index", values)


def one_card(field: str, doc: str, get: Callable[[Any], Any] | None = None) -> Feature:
    def values(o: Any) -> list[float]:
        out = [0.0] * CARD_SLOTS
        c = get(o) if get else getattr(o, field)
        if c is not None and (i := card_index(c)) is not None:
            out[i] = 1.0
        return out

    return Feature(field, CARD_SLOTS, f"{doc}: one-hot card index, all 0 when none", values)


def number(field: str, doc: str, get: Callable[[Any], float] | None = None) -> Feature:
    return Feature(field, 1, doc, lambda o: [float(get(o) if get else getattr(o, field))])


def choice(field: str, options: Sequence[str], doc: str) -> Feature:
    def values(o: Any) -> list[float]:
        value = getattr(o, field)
        return [1.0 if value == x else 0.0 for x in options]

    listed = ", ".join(f'"{x}"' for x in options)
    return Feature(field, len(options), f"{doc}: one-hot over {listed}", values)


def numbers(field: str, size: int, doc: str) -> Feature:
    def values(o: Any) -> list[float]:
        got = [float(v) for v in getattr(o, field)][:size]
        return got + [0.0] * (size - len(got))

    return Feature(field, size, f"{doc}: one per seat, 0 past the end", values)


def from_your_seat(field: str, size: int, seats: int, doc: str) -> Feature:
    """A per-seat field rotated so your seat's value comes first, then the next seat's:
    the same numbers mean the same to a policy whatever seat it plays."""

    def values(o: Any) -> list[float]:
        per_seat = list(getattr(o, field))
        if len(per_seat) != seats or not 0 <= o.seat < seats:
            return [0.0] * size
        return [float(per_seat[(o.seat + k) % seats]) for k in range(size)]

    return Feature(field, size, f"{doc}, from your seat onwards", values)


def seat_onehot(
    field: str, seats: int, doc: str, get: Callable[[Any], int] | None = None
) -> Feature:
    def values(o: Any) -> list[float]:
        seat = get(o) if get else getattr(o, field)
        return [1.0 if seat == s else 0.0 for s in range(seats)]

    return Feature(field, seats, f"{doc}: one-hot seat, all 0 for none", values)


SUITS = ("C", "D", "H", "S")


def _gin(seats: int, rules: Any) -> list[Feature]:
    def my_table(o: Any) -> Any:
        return o.tables[o.table] if 0 <= o.table < len(o.tables) else None

    def pile(o: Any) -> list[Any]:
        t = my_table(o)
        return list(t.discard_pile) if t is not None else []

    def taken(o: Any) -> list[float]:
        out = [0.0] * CARD_SLOTS
        t = my_table(o)
        if t is not None:
            for group in t.taken:
                for c in group.cards:
                    if (i := card_index(c)) is not None:
                        out[i] = 1.0
        return out

    def pile_cards(o: Any) -> list[float]:
        out = [0.0] * CARD_SLOTS
        for c in pile(o):
            if (i := card_index(c)) is not None:
                out[i] = 1.0
        return out

    players = rules.players
    return [
        choice(
            "phase",
            ("upcard_offer", "draw", "discard", "hand_over", "sitting_out", "match_over"),
            "your table's phase",
        ),
        cards("hand", "your hand"),
        one_card("cannot_discard", "the card you may not discard now"),
        one_card(
            "upcard", "the top of your table's discard pile", lambda o: (pile(o) or [None])[-1]
        ),
        Feature(
            "discard_pile",
            CARD_SLOTS,
            "cards in your table's discard pile: 1 per card index",
            pile_cards,
        ),
        Feature(
            "taken",
            CARD_SLOTS,
            "cards the players at your table took from the discard pile: 1 per card index",
            taken,
        ),
        number(
            "stock_count",
            "cards left in your table's stock",
            lambda o: t.stock_count if (t := my_table(o)) else 0,
        ),
        number("hand_number", "the hand number, 1-based"),
        from_your_seat(
            "scores",
            players if players != 4 else 2,
            players,
            "running scores (with 4 players your team's, then the other's)",
        ),
        number("target_score", "the score that ends the match"),
    ]


def _golf(seats: int, rules: Any) -> list[Feature]:
    cells = {"six": 6, "eight": 8, "ten": 10, "nine": 9, "four_face_down": 4, "four_in_hand": 4}[
        rules.variant
    ]
    states = ("face_up", "public", "known", "unknown", "removed")

    def layouts(o: Any) -> list[float]:
        out: list[float] = []
        for offset in range(seats):  # your layout first, then the next seats in turn
            seat = (o.seat + offset) % seats
            slots = {s.position: s for s in o.layouts[seat].slots} if seat < len(o.layouts) else {}
            for pos in range(cells):
                slot = slots.get(pos)
                state = slot.state if slot is not None else "removed"
                out.extend(1.0 if state == x else 0.0 for x in states)
                out.append(float(slot.card.rank) if slot is not None and slot.card.code else -1.0)
        return out

    return [
        choice("phase", ("flip", "peek", "draw", "place", "over"), "the phase"),
        number("my_turn", "1 when the decision is yours", lambda o: o.to_act == o.seat),
        Feature(
            "layouts",
            seats * cells * (len(states) + 1),
            f"per seat from yours onwards, per position 0..{cells - 1}: one-hot state "
            f"({', '.join(states)}), then the card's rank (0 joker, 1-13) or -1 when not known",
            layouts,
        ),
        one_card(
            "discard_top",
            "the top of the discard pile",
            lambda o: o.discard[-1] if o.discard else None,
        ),
        cards("discard", "the discard pile"),
        one_card("drawn", "the card you hold after drawing"),
        choice("drawn_from", ("stock", "discard"), "where the held card came from"),
        number("stock_count", "cards in the stock"),
        number("opening_left", "flips or peeks still to make in the opening"),
        number("knocked", "1 after a knock"),
        number("final_turns_left", "turns left after the hole was ended"),
        number("hole", "the hole, 1-based"),
        from_your_seat("totals", seats, seats, "running totals"),
    ]


def _golf_solitaire(seats: int, rules: Any) -> list[Feature]:
    depth = 5

    def tableau(o: Any) -> list[float]:
        out: list[float] = []
        for column in range(7):
            group = list(o.tableau[column].cards) if column < len(o.tableau) else []
            ranks = [float(c.rank) for c in group][:depth]
            out.extend(ranks + [-1.0] * (depth - len(ranks)))
        return out

    return [
        Feature(
            "tableau",
            7 * depth,
            "per column 0..6, from the bottom (dealt first) card to the top: the rank (0 joker, 1-13), -1 for no card",
            tableau,
        ),
        number(
            "foundation_top",
            "the rank of the foundation's top card (0 joker), -1 when empty",
            lambda o: o.foundation[-1].rank if o.foundation else -1,
        ),
        cards("unseen", "the cards still in the stock (order unknown)"),
        number("stock_count", "cards in the stock"),
        number("moves", "moves made in this hole"),
        number("hole", "the hole, 1-based"),
    ]


def _dingo(seats: int, rules: Any) -> list[Feature]:
    def pile(field: str) -> Callable[[Any], list[float]]:
        def values(o: Any) -> list[float]:
            return [
                float(len(getattr(o, field)[s].cards)) if s < len(getattr(o, field)) else 0.0
                for s in range(seats)
            ]

        return values

    return [
        choice(
            "phase",
            (
                "discard",
                "pass_left",
                "pass_across",
                "pass_right",
                "hunt",
                "ace_hunt",
                "ace_rabbit",
                "over",
            ),
            "the decision awaited",
        ),
        number("step", "discard/pass step 1-7, else 0"),
        number("hunt_rank", "the rank hunted, else 0"),
        cards("hand", "your hand"),
        cards("hunt_deck", "the hunt deck still face up"),
        cards("table", "cards on the table in the current hunt"),
        numbers("hand_sizes", seats, "cards in each seat's hand"),
        Feature("scoring_piles", seats, "cards in each seat's scoring pile", pile("scoring_piles")),
        Feature("penalty_piles", seats, "cards in each seat's penalty pile", pile("penalty_piles")),
        numbers("deal_scores", seats, "this deal's scores"),
        numbers("totals", seats, "match totals"),
        seat_onehot("seat", seats, "your seat"),
        seat_onehot("dealer", seats, "the dealer"),
    ]


def _goninkan(seats: int, rules: Any) -> list[Feature]:
    def played(o: Any) -> list[float]:
        out = [0.0] * CARD_SLOTS
        for trick in o.tricks:
            for c in trick.cards:
                if (i := card_index(c)) is not None:
                    out[i] = 1.0
        return out

    def kankei(o: Any) -> list[float]:
        return [1.0 if s in o.kankei else 0.0 for s in range(seats)]

    return [
        choice(
            "phase",
            ("lead choice", "show", "trump", "play", "sixteen", "over"),
            "the decision awaited",
        ),
        cards("hand", "your hand"),
        cards("trick", "the cards of the trick in progress"),
        one_card(
            "trick_lead",
            "the card that led the trick in progress",
            lambda o: o.trick[0] if o.trick else None,
        ),
        Feature(
            "played",
            CARD_SLOTS,
            "cards played in this deal's finished tricks: 1 per card index",
            played,
        ),
        cards("shown_cards", "cards shown to you (or by you) this deal"),
        choice("trump", SUITS, "this deal's trump suit"),
        choice("led_suit", SUITS, "the suit to follow in the trick in progress"),
        seat_onehot("seat", seats, "your seat"),
        seat_onehot("dealer", seats, "the dealer (sits out)"),
        Feature("kankei", seats, "1 for each seat in the kankei team (when known)", kankei),
        numbers("hand_sizes", seats, "cards in each seat's hand"),
        number("trick_number", "the trick in progress, 1-10"),
        number("kankei_honours", "honours won by the kankei this deal"),
        number("mukankei_honours", "honours won by the mukankei this deal"),
        number("kankei_target", "honours the kankei need"),
        number("mukankei_target", "honours the mukankei need"),
        number("round_points", "points of the trump round so far"),
        numbers("scores", seats, "match scores"),
    ]


ENCODINGS: dict[str, Callable[[int, Any], list[Feature]]] = {
    "gin_rummy": _gin,
    "golf": _golf,
    "golf_solitaire": _golf_solitaire,
    "dingo": _dingo,
    "goninkan": _goninkan,
}


def encoding(game: str, seats: int, rules: Any) -> list[Feature]:
    return ENCODINGS[game](seats, rules)


def describe_encoding(game: str, seats: int | None = None, **rules: Any) -> str:
    """The observation vector's layout as a Markdown table (docs/games/<game>.md)."""
    engine = get_game(game)
    parsed = parse_rules(engine.Rules, rules)
    n = seats if seats is not None else engine.seats(parsed)[0]
    lines = ["| offset | size | block | meaning |", "|---|---|---|---|"]
    offset = 0
    for f in encoding(game, n, parsed):
        lines.append(f"| {offset} | {f.size} | `{f.name}` | {f.doc} |")
        offset += f.size
    return "\n".join(lines) + f"\n\nTotal: {offset} numbers ({n} seats, these rules).\n"


# ---- the action space -----------------------------------------------------------------

_CARD_CODES = tuple(c.code for c in (card(f"{r}{s}") for s in "CDHS" for r in "A23456789TJQK"))


def _candidate_codes(game: str) -> list[str]:
    """Every code the game's grammar can form (docs/games/<game>.md, "Action codes");
    the engine's decoder keeps the valid ones."""
    if game == "gin_rummy":
        return ["take upcard", "pass", "draw stock", "draw discard", "big gin"] + [
            f"{verb} {c}" for verb in ("discard", "knock", "gin") for c in _CARD_CODES
        ]
    if game == "golf":
        return ["draw stock", "draw discard", "knock", "discard"] + [
            f"{verb} {n}" for verb in ("flip", "peek", "swap") for n in range(12)
        ]
    if game == "golf_solitaire":
        return ["stock"] + [f"play {n}" for n in range(7)]
    if game == "dingo":
        return ["decline", "ace rabbit"] + [
            f"{v} {c}" for v in ("discard", "pass", "wolf") for c in _CARD_CODES
        ]
    if game == "goninkan":
        deck = [*_CARD_CODES, "JK"]
        return (
            ["lead", "partner leads", "sixteen", "no sixteen"]
            + [f"trump {s}" for s in SUITS]
            + [f"play {c}" for c in deck]
            + [f"play JK name {s}" for s in SUITS]
            + [f"show {a} {b}" for i, a in enumerate(deck) for b in deck[i + 1 :]]
        )
    raise ValueError(f"unknown game {game!r}")


def action_codes(game: str, seats: int, rules: Any) -> tuple[str, ...]:
    """The fixed action space: every canonical code of the game under these rules."""
    engine = get_game(game)
    out = set()
    for code in _candidate_codes(game):
        try:
            out.add(engine.encode(engine.decode(code)))
        except ValueError:
            continue
    if game == "golf":  # positions beyond this variant's layout are never legal
        cells = {"six": 6, "eight": 8, "ten": 10, "nine": 9}.get(rules.variant, 4)
        out = {c for c in out if not c[-1].isdigit() or int(c.split()[-1]) < cells}
    return tuple(sorted(out))


# ---- the environment ------------------------------------------------------------------


def _whole(name: str, value: Any) -> int:
    """``value`` if it is a whole number (NumPy's too); a bool, a float or text (which
    Python would take for one, or turn into one) is a ValueError naming ``name``."""
    if not isinstance(value, bool):
        with contextlib.suppress(TypeError):
            return operator.index(value)
    raise ValueError(f"{name} must be a whole number, not {value!r}")


class CardArenaEnv(AECEnv):  # type: ignore[misc]
    """One game of Card Arena as a PettingZoo AEC environment (see the module doc)."""

    def __init__(
        self, game: str, seats: int | None = None, render_mode: str | None = None, **rules: Any
    ):
        super().__init__()
        self.game_name = game
        self.engine: Game[Any, Any, Any] = get_game(game)
        self.rules = parse_rules(self.engine.Rules, rules)
        self.seats = (
            _whole("seats", seats) if seats is not None else self.engine.seats(self.rules).start
        )
        refused = seats_refused(game, self.rules, self.seats)
        if refused is not None:
            raise ValueError(refused)
        self.metadata = {
            "name": f"card_arena_{game}_v0",
            "render_modes": ["ansi"],
            "is_parallelizable": False,
        }
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: this environment renders 'ansi' only")
        self.render_mode = render_mode
        self.features = encoding(game, self.seats, self.rules)
        self.size = sum(f.size for f in self.features)
        self.action_codes = action_codes(game, self.seats, self.rules)
        self.action_index = {code: i for i, code in enumerate(self.action_codes)}
        self.possible_agents = [f"seat_{i}" for i in range(self.seats)]
        self._action_space = spaces.Discrete(len(self.action_codes))
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (self.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.action_codes),), np.int8),
            }
        )
        self._state: Any = None
        self._loop: PlayLoop[Any, Any] | None = None  # who is asked next, as referee.local asks
        self._rng = random.Random()
        self._cache_key: tuple[Any, str] | None = None
        self._cache: tuple[Any, tuple[str, ...]] = (None, ())

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    # -- wire views --

    def observation_message(self, agent: str) -> Any:
        """The typed observation a bot in this seat would receive now (e.g. GinRummyObservation)."""
        return self._views(agent)[0]

    def legal_codes(self, agent: str) -> tuple[str, ...]:
        """The codes a bot in this seat would be offered now (none when not asked)."""
        return self._views(agent)[1]

    def _views(self, agent: str) -> tuple[Any, tuple[str, ...]]:
        # observe(), step() and the infos all want these for the same state: built once.
        # Keyed on the state object itself (kept alive here), not its id: ids are reused.
        key = (self._state, agent)
        if (
            self._cache_key is None
            or key[0] is not self._cache_key[0]
            or key[1] != self._cache_key[1]
        ):
            seat = self.possible_agents.index(agent)
            wire = observation_message(self.game_name, self.engine.observation(self._state, seat))
            legal: tuple[str, ...] = ()
            if seat in self.engine.to_act(self._state):
                legal = tuple(
                    self.engine.encode(a) for a in self.engine.legal_actions(self._state, seat)
                )
            self._cache_key, self._cache = key, (getattr(wire, self.game_name), legal)
        return self._cache

    def encode_observation(self, message: Any) -> np.ndarray:
        """The numeric vector of a typed observation message (the same from the wire)."""
        out: list[float] = []
        for f in self.features:
            out.extend(f.values(message))
        return np.asarray(out, dtype=np.float32)

    # -- the AEC API --

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # A given seed is the deal seed itself (CreateMatch's seed deals the same cards);
        # later resets without one draw the next deal seeds from it.
        if seed is not None:
            # Seeds become text in the deal: "5" dealt as 5 did, 2.0 unlike 2, True unlike 1
            deal_seed = _whole("seed", seed)
            if not -(2**63) <= deal_seed < 2**63:
                raise ValueError(
                    f"seed must be a 64-bit whole number (as CreateMatch's), not {seed}"
                )
            self._rng.seed(deal_seed)
        else:
            deal_seed = self._rng.randrange(2**31)
        self._state = self.engine.initial_state(self.rules, self.seats, deal_seed)
        self._loop = PlayLoop(self.engine, self._state)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        """The next agent to act: the seats a round asks at once (gin's two tables, the
        seats of a solitaire hole) one after another, in the order referee.local asks
        them. Only its ``infos`` hold the observation and legal codes."""
        assert self._loop is not None
        seat = self._loop.next_seat()
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
            for agent in self.agents:
                self.infos[agent] = {}
            agent = self.agent_selection
            self.infos[agent] = {
                "observation": self.observation_message(agent),
                "legal_actions": self.legal_codes(agent),
            }
        elif self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation; its mask marks the legal actions when it is the agent
        to act, and none otherwise (another seat waiting in the same round acts later)."""
        mask = np.zeros(len(self.action_codes), dtype=np.int8)
        for code in self.legal_codes(agent) if agent == self.agent_selection else ():
            mask[self.action_index[code]] = 1
        return {
            "observation": self.encode_observation(self.observation_message(agent)),
            "action_mask": mask,
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        code = self._code(agent, action)
        if code not in self.legal_codes(agent):
            raise ValueError(
                f"{agent}: action {action} ({code!r}) is not legal now; legal: {self.legal_codes(agent)}"
            )
        self._cumulative_rewards[agent] = 0.0
        assert self._loop is not None
        self._loop.play(seat, self.engine.decode(code))
        self._state = self._loop.state
        self.rewards = dict.fromkeys(self.agents, 0.0)
        outcome = self.engine.outcome(self._state)
        if outcome is not None:
            for i, a in enumerate(self.agents):
                self.rewards[a] = self._reward(outcome, i)
                self.terminations[a] = True
                self.infos[a] = {}
        self._accumulate_rewards()
        self._select()

    def _code(self, agent: str, action: Any) -> str:
        """The code of an action index: an integer (NumPy's too) in the action space, not
        -1 (which Python would read from the end) nor 2.5 nor "3"."""
        if action is None:
            raise ValueError(f"{agent} is to act: an action index is needed, not None")
        try:
            index = _whole("action", action)
        except ValueError:
            index = -1
        if not 0 <= index < len(self.action_codes):
            raise ValueError(
                f"{agent}: action {action!r} is not an index of the action space "
                f"(0 to {len(self.action_codes) - 1})"
            )
        return self.action_codes[index]

    def _reward(self, outcome: Any, seat: int) -> float:
        if self.seats == 1:
            return -float(outcome.scores[seat])
        return 1.0 - 2.0 * float(outcome.ranks[seat] - 1) / (self.seats - 1)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._state is None:
            return None
        seat = self.possible_agents.index(self.agent_selection)
        return str(self.observation_message(self.possible_agents[seat]))

    def close(self) -> None:
        pass


def raw_env(
    game: str, seats: int | None = None, render_mode: str | None = None, **rules: Any
) -> CardArenaEnv:
    """The environment without PettingZoo's order-enforcing wrapper."""
    return CardArenaEnv(game, seats, render_mode, **rules)


def env(
    game: str, seats: int | None = None, render_mode: str | None = None, **rules: Any
) -> AECEnv:
    """The AEC environment of ``game`` with these rule options (as ``arena games`` lists
    them, as values or text) and seat count (default: the fewest the game allows)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, seats, render_mode, **rules))


__all__ = ["CardArenaEnv", "action_codes", "describe_encoding", "env", "raw_env"]
