"""Schedules: which entrants meet, in which seats, on which deals (round robin, gauntlet,
and the duplicate pairs of an SPRT).

Every combination of entrants (past the limit, a balanced subset per round, each round
its own, so the rounds spread over every pair), every seat rotation, repeated for each
round. Every match of one round plays the same seed (duplicate deals, as in duplicate
bridge): each entrant plays every seat of the same deal against every opponent, so the
luck of the deal cancels, and in a one-seat game (solitaire) every entrant plays the
same deals. With fewer entrants
than seats the entrants are repeated around the table. Bots of one team (one author's, a
tournament's ``teams``) never share a table, so they cannot play for each other.

In a game of fixed partnerships (4-player gin: seats 0+2 against 1+3) a table also
plays every way of splitting it into partnerships, each with every seat rotation, so
every bot partners every other and ratings can tell a bot from its partner. Schedule
version 1 (tournaments created before this) kept the one split the rotations give; a
stored tournament keeps the version it was created with, so a resume plays its own
schedule.

Deals are secret: every seed derives from the tournament's secret (at least 128 random
bits, stored with the tournament, never given to a bot) through HMAC-SHA256, so knowing
the schedule, a bot's own ARENA_BOT_SEED or any finished deal tells nothing about another
deal. ``--seed S`` derives the secret from S instead: the tournament is then reproducible,
and anyone who knows S can rebuild its deals.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.game import get_game, parse_rules
from referee.rules import secret_options

MAX_COMBINATIONS = 60
# 3: past MAX_COMBINATIONS tables, each round picks its own subset; 2: partnerships vary
# (fixed-team games); 1: one split per table
SCHEDULE_VERSION = 3
# Tables a round's subset is picked from, per table picked: the least played ones, so the
# greedy pick stays cheap however many combinations there are.
CANDIDATES_PER_TABLE = 8


class ScheduleError(ValueError):
    """A schedule that cannot be made (too few bots, no rounds)."""


@dataclass(frozen=True, slots=True)
class MatchPlan:
    idx: int  # position in the schedule: the order results are rated in
    round: int
    deal: int  # matches with the same deal number share the seed (one deal per round)
    seed: int
    lineup: tuple[str, ...]  # entrant name per seat


SECRET_BYTES = 32


def tournament_secret(seed: int | None = None) -> bytes:
    """A fresh random secret, or (``seed`` given) one derived from it: reproducible, and
    public to anyone who knows the seed."""
    if seed is None:
        return secrets.token_bytes(SECRET_BYTES)
    return hashlib.sha256(f"card-arena/tournament-seed/{seed}".encode()).digest()


def _keyed(secret: bytes, purpose: str) -> bytes:
    return hmac.new(secret, purpose.encode(), hashlib.sha256).digest()


def deal_seed(secret: bytes, deal: int) -> int:
    """The 63-bit engine seed of one deal, stable across machines."""
    return int.from_bytes(_keyed(secret, f"deal/{deal}")[:8], "big") >> 1


def fixed_deal(game: str, rules: Mapping[str, Any]) -> int | None:
    """The deal every match of ``game`` with ``rules`` plays whatever its seed, as a
    number that stands for it where a seed would (which process has played a deal, which
    deals are in play): set when a secret rule option fixes the cards (golf solitaire's
    ``deal_numbers``: every round plays the same numbered deals), else None."""
    fixed = secret_options(parse_rules(get_game(game).Rules, dict(rules)))
    if not fixed:
        return None
    named = json.dumps([game, sorted(fixed.items())])
    return int.from_bytes(hashlib.sha256(named.encode()).digest()[:8], "big") >> 1


def match_deal(seed: int, fixed: int | None) -> int:
    """The deal a match plays: its ``fixed`` deal (``fixed_deal``) if its rules have one,
    else its seed."""
    return seed if fixed is None else fixed


def bot_seed(secret: bytes, name: str) -> str:
    """ARENA_BOT_SEED of an entrant: stable within a tournament, unrelated to any deal
    (another HMAC of the secret, which cannot be inverted to it)."""
    return str(int.from_bytes(_keyed(secret, f"bot/{name}")[:8], "big") >> 1)


# Bot -> its team: bots of one team never share a table (collusion). A bot not named is a
# team of its own.
Teams = Mapping[str, str]


def _apart(table: Sequence[str], teams: Teams) -> bool:
    """Whether no two different bots at ``table`` are of one team."""
    named = {teams[n] for n in set(table) if n in teams}
    return len(named) == len({n for n in table if n in teams})


def _pairs(table: Sequence[str]) -> list[frozenset[str]]:
    return [frozenset(p) for p in itertools.combinations(table, 2)]


def _balanced_subset(
    combos: list[tuple[str, ...]], entrants: Sequence[str], limit: int, secret: bytes
) -> list[tuple[str, ...]]:
    """``limit`` of ``combos`` chosen greedily so every entrant appears about equally often
    (schedule versions 1 and 2: the one subset every round plays)."""
    rng = random.Random(_keyed(secret, "subset"))
    combos = list(combos)
    rng.shuffle(combos)
    return _pick(combos, entrants, limit, Counter())


def _pick(
    candidates: list[tuple[str, ...]],
    entrants: Sequence[str],
    limit: int,
    meetings: Counter[frozenset[str]],
) -> list[tuple[str, ...]]:
    """``limit`` of ``candidates`` chosen greedily: the table whose bots have sat least
    often so far, then whose pairs have met least (``meetings``, updated), then the first
    in ``candidates``. Returned in the entrants' order."""
    candidates = list(candidates)
    uses: Counter[str] = Counter()
    chosen: list[tuple[str, ...]] = []
    for _ in range(limit):
        best = min(
            candidates,
            key=lambda c: (sum(uses[n] for n in c), sum(meetings[p] for p in _pairs(c))),
        )
        candidates.remove(best)
        chosen.append(best)
        uses.update(best)
        meetings.update(_pairs(best))
    return sorted(chosen, key=lambda c: [entrants.index(n) for n in c])


def _subsets_by_round(
    combos: list[tuple[str, ...]], entrants: Sequence[str], limit: int, rounds: int, secret: bytes
) -> list[list[tuple[str, ...]]]:
    """A balanced subset of ``limit`` tables per round, picked greedily from the tables
    played least in the rounds before (at random among those), preferring pairs of bots
    that have met least: the rounds spread over the tables and the pairs, though a greedy
    pick does not promise every pair a meeting."""
    plays: Counter[tuple[str, ...]] = Counter()
    meetings: Counter[frozenset[str]] = Counter()
    subsets: list[list[tuple[str, ...]]] = []
    for rnd in range(rounds):
        order = list(combos)
        random.Random(_keyed(secret, f"subset/{rnd}")).shuffle(order)
        order.sort(key=lambda c: plays[c])  # stable: at random among equally played
        chosen = _pick(order[: limit * CANDIDATES_PER_TABLE], entrants, limit, meetings)
        plays.update(chosen)
        subsets.append(chosen)
    return subsets


def _pairings_by_round(
    entrants: Sequence[str], limit: int, rounds: int, secret: bytes
) -> list[list[tuple[str, ...]]]:
    """Two-seat tables when every pair may meet, by the circle method: turns in which each
    bot plays once (or has the bye), in random order, every pair in one turn. A round plays
    as many whole turns as ``limit`` holds, the next ones in order, wrapping around: every
    bot plays as often as any other in a round (once fewer when it has a bye; with over
    2 x ``limit`` bots a turn does not fit in a round, and twice fewer), and over the
    rounds no pair meets more than once more than another."""
    rng = random.Random(_keyed(secret, "pairings"))
    seating: list[str | None] = list(entrants)
    rng.shuffle(seating)
    if len(seating) % 2:
        seating.append(None)  # the bye: who sits against it plays no one that turn
    size = len(seating)
    turns: list[list[tuple[str, ...]]] = []
    for turn in range(size - 1):
        ring = [seating[0], *seating[1 + turn :], *seating[1 : 1 + turn]]
        pairs = zip(ring[: size // 2], reversed(ring[size // 2 :]), strict=True)
        turns.append(
            [
                tuple(sorted((a, b), key=entrants.index))
                for a, b in pairs
                if a is not None and b is not None
            ]
        )
    rng.shuffle(turns)
    order = [pair for turn in turns for pair in turn]
    per_round = limit // len(turns[0]) * len(turns[0]) or limit  # whole turns, if one fits
    return [
        sorted(
            (order[(rnd * per_round + i) % len(order)] for i in range(per_round)),
            key=lambda c: [entrants.index(n) for n in c],
        )
        for rnd in range(rounds)
    ]


def lineups(
    entrants: Sequence[str],
    seats: int,
    secret: bytes,
    max_combinations: int = MAX_COMBINATIONS,
    teams: Teams | None = None,
    rounds: int = 1,
    vary: bool = True,
) -> list[list[tuple[str, ...]]]:
    """The table compositions of each of ``rounds`` rounds, before rotation; with
    ``teams``, only tables where no two bots are of one team. Past ``max_combinations``
    tables, a balanced subset: a new one each round with ``vary`` (schedule version 3),
    else the same one every round."""
    teams = teams or {}
    if len(entrants) < 1:
        raise ScheduleError("a tournament needs at least one bot")
    if len(set(entrants)) != len(entrants):
        raise ScheduleError("each bot may be entered once")
    if len(entrants) < 2 and seats > 1:
        # Self-play rule (docs/tournaments.md): a match where one bot fills every seat
        # teaches nothing and is never played; enter the program twice under two names.
        raise ScheduleError(
            f"{entrants[0]} would only play itself; a {seats}-seat game needs two bots or more"
        )
    if len(entrants) < seats:
        if teams:
            raise ScheduleError(
                f"with teams a table of {seats} seats needs {seats} bots of different "
                f"teams; there are {len(entrants)} bots"
            )
        return [[tuple(entrants[i % len(entrants)] for i in range(seats))]] * rounds
    combos = [c for c in itertools.combinations(entrants, seats) if _apart(c, teams)]
    if not combos:
        raise ScheduleError(f"no table of {seats} seats has bots of {seats} different teams")
    if len(combos) <= max_combinations:
        return [combos] * rounds
    if vary and seats == 2 and len(combos) == len(entrants) * (len(entrants) - 1) // 2:
        return _pairings_by_round(entrants, max_combinations, rounds, secret)
    if vary:
        return _subsets_by_round(combos, entrants, max_combinations, rounds, secret)
    return [_balanced_subset(combos, entrants, max_combinations, secret)] * rounds


def round_robin(
    entrants: Sequence[str],
    seats: int,
    rounds: int,
    secret: bytes,
    teams: Teams | None = None,
    partners: Sequence[int] | None = None,
    vary: bool = True,
) -> list[MatchPlan]:
    """The whole schedule, in the order matches are started and rated. ``partners``: the
    game's team per seat when it is played in fixed partnerships; ``vary``: whether each
    round picks its own subset of tables when there are too many (see :func:`lineups`)."""
    if rounds < 1:
        raise ScheduleError("rounds must be at least 1")
    plans: list[MatchPlan] = []
    by_round = lineups(entrants, seats, secret, teams=teams, rounds=rounds, vary=vary)
    for rnd, tables in enumerate(by_round):
        seed = deal_seed(secret, rnd)  # one deal per round, for every table and seat
        for table in tables:
            for lineup in _arrangements(table, seats, partners):
                plans.append(MatchPlan(len(plans), rnd, rnd, seed, lineup))
    return plans


def _with_rotations(table: tuple[str, ...], seats: int) -> list[tuple[str, ...]]:
    rotations = {tuple(table[(i + r) % seats] for i in range(seats)) for r in range(seats)}
    return sorted(rotations, key=lambda lineup: [table.index(n) for n in lineup])


def _split(lineup: Sequence[str], partners: Sequence[int]) -> tuple[tuple[str, ...], ...]:
    """Who plays with whom in ``lineup``: the sorted members of each team, sorted."""
    members: dict[int, list[str]] = {}
    for name, team in zip(lineup, partners, strict=True):
        members.setdefault(team, []).append(name)
    return tuple(sorted(tuple(sorted(m)) for m in members.values()))


def _each_bot_on_one_team(split: tuple[tuple[str, ...], ...]) -> bool:
    return sum(len(set(team)) for team in split) == len({n for team in split for n in team})


def _arrangements(
    table: tuple[str, ...], seats: int, partners: Sequence[int] | None
) -> list[tuple[str, ...]]:
    """The lineups one table plays: every seat rotation of it and, with fixed
    ``partners``, of one seating per way of splitting it into teams (the first found in
    permutation order, so the table's own seating comes first). A split that puts one
    bot on two teams is left out when another does not (a table repeats bots when
    there are fewer bots than seats)."""
    if partners is None:
        return _with_rotations(table, seats)
    seatings: dict[tuple[tuple[str, ...], ...], tuple[str, ...]] = {}
    for seating in itertools.permutations(table):
        seatings.setdefault(_split(seating, partners), seating)
    unsplit = [s for split, s in seatings.items() if _each_bot_on_one_team(split)]
    lineups_: list[tuple[str, ...]] = []
    for seating in unsplit or list(seatings.values()):
        lineups_.extend(x for x in _with_rotations(seating, seats) if x not in lineups_)
    return lineups_


def gauntlet(
    challengers: Sequence[str],
    field: Sequence[str],
    seats: int,
    rounds: int,
    secret: bytes,
    teams: Teams | None = None,
    partners: Sequence[int] | None = None,
    vary: bool = True,
) -> list[MatchPlan]:
    """Each challenger plays every combination of the field (every seat rotation, one deal
    per round; past the limit, a subset per round with ``vary``, see :func:`lineups`);
    challengers do not meet each other and the field does not play itself. With
    ``teams``, no table holds two bots of one team; with ``partners`` (the game's fixed
    team per seat), a challenger partners each bot of its table in turn."""
    teams = teams or {}
    if rounds < 1:
        raise ScheduleError("rounds must be at least 1")
    if not challengers:
        raise ScheduleError("a gauntlet needs at least one challenger")
    if len(set(challengers)) != len(challengers):
        raise ScheduleError("each challenger may be entered once")
    both = sorted(set(challengers) & set(field))
    if both:
        raise ScheduleError(f"{', '.join(both)} cannot be both a challenger and in the field")
    if seats < 2:
        raise ScheduleError("a gauntlet needs a game of two seats or more")
    if len(field) > 1 or seats == 2:
        by_round = lineups(field, seats - 1, secret, teams=teams, rounds=rounds, vary=vary)
    else:
        by_round = [[tuple(field) * (seats - 1)]] * rounds
    tables = [
        {c: [o for o in opponents if _apart((c, *o), teams)] for c in challengers}
        for opponents in by_round
    ]
    alone = sorted({c for round_ in tables for c, found in round_.items() if not found})
    if alone:
        raise ScheduleError(f"{', '.join(alone)} would meet only bots of its own team")
    plans: list[MatchPlan] = []
    for rnd, round_tables in enumerate(tables):
        seed = deal_seed(secret, rnd)
        for challenger in challengers:
            for others in round_tables[challenger]:
                for lineup in _arrangements((challenger, *others), seats, partners):
                    plans.append(MatchPlan(len(plans), rnd, rnd, seed, lineup))
    return plans


def sprt_pairs(
    new: str, base: str, field: Sequence[str], seats: int, max_matches: int, secret: bytes
) -> list[MatchPlan]:
    """The duplicate pairs of an SPRT, in order: pair ``p`` plays deal ``p`` twice. With two
    seats NEW and BASE swap seats; with more, NEW and then BASE take the same seat (turning
    with ``p``) against the same field in the same seats. Matches ``2p`` and ``2p+1``."""
    if new == base:
        raise ScheduleError("an SPRT compares two different bots (NEW,BASE)")
    if seats == 2 and field:
        raise ScheduleError("a two-seat SPRT has no field: NEW and BASE play each other")
    if seats > 2 and len(field) != seats - 1:
        raise ScheduleError(f"a {seats}-seat SPRT needs a field of {seats - 1} other bots")
    if {new, base} & set(field):
        raise ScheduleError("NEW and BASE cannot be in the field")
    if seats < 2:
        raise ScheduleError("an SPRT needs a game of two seats or more")
    plans: list[MatchPlan] = []
    for pair in range(max(1, max_matches // 2)):
        seed = deal_seed(secret, pair)
        if seats == 2:
            lineups_: list[tuple[str, ...]] = [(new, base), (base, new)]
        else:
            seat = pair % seats
            others = list(field)
            lineups_ = [tuple([*others[:seat], who, *others[seat:]]) for who in (new, base)]
        for lineup in lineups_:
            plans.append(MatchPlan(len(plans), pair, pair, seed, lineup))
    return plans
