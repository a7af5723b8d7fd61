"""Schedules: which entrants meet, in which seats, on which deals (round robin, gauntlet,
and the duplicate pairs of an SPRT).

Every combination of entrants (a balanced subset when there are too many), every
seat rotation, repeated for each round. Every match of one round plays the same
seed (duplicate deals, as in duplicate bridge): each entrant plays every seat of
the same deal against every opponent, so the luck of the deal cancels, and in a
one-seat game (solitaire) every entrant plays the same deals. With fewer entrants
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
import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MAX_COMBINATIONS = 60
SCHEDULE_VERSION = 2  # 2: partnerships vary (fixed-team games); 1: one split per table


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


def _balanced_subset(
    combos: list[tuple[str, ...]], entrants: Sequence[str], limit: int, secret: bytes
) -> list[tuple[str, ...]]:
    """``limit`` of ``combos`` chosen greedily so every entrant appears about equally often."""
    rng = random.Random(_keyed(secret, "subset"))
    combos = list(combos)
    rng.shuffle(combos)
    uses: Counter[str] = Counter()
    pairs: Counter[frozenset[str]] = Counter()
    chosen: list[tuple[str, ...]] = []
    for _ in range(limit):
        best = min(
            combos,
            key=lambda c: (
                sum(uses[n] for n in c),
                sum(pairs[frozenset(p)] for p in itertools.combinations(c, 2)),
            ),
        )
        combos.remove(best)
        chosen.append(best)
        uses.update(best)
        pairs.update(frozenset(p) for p in itertools.combinations(best, 2))
    return sorted(chosen, key=lambda c: [entrants.index(n) for n in c])


def lineups(
    entrants: Sequence[str],
    seats: int,
    secret: bytes,
    max_combinations: int = MAX_COMBINATIONS,
    teams: Teams | None = None,
) -> list[tuple[str, ...]]:
    """The table compositions of one round, before rotation; with ``teams``, only tables
    where no two bots are of one team."""
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
        return [tuple(entrants[i % len(entrants)] for i in range(seats))]
    combos = [c for c in itertools.combinations(entrants, seats) if _apart(c, teams)]
    if not combos:
        raise ScheduleError(f"no table of {seats} seats has bots of {seats} different teams")
    if len(combos) <= max_combinations:
        return combos
    return _balanced_subset(combos, entrants, max_combinations, secret)


def round_robin(
    entrants: Sequence[str],
    seats: int,
    rounds: int,
    secret: bytes,
    teams: Teams | None = None,
    partners: Sequence[int] | None = None,
) -> list[MatchPlan]:
    """The whole schedule, in the order matches are started and rated. ``partners``: the
    game's team per seat when it is played in fixed partnerships."""
    if rounds < 1:
        raise ScheduleError("rounds must be at least 1")
    plans: list[MatchPlan] = []
    tables = lineups(entrants, seats, secret, teams=teams)
    for rnd in range(rounds):
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
) -> list[MatchPlan]:
    """Each challenger plays every combination of the field (every seat rotation, one deal
    per round); challengers do not meet each other and the field does not play itself.
    With ``teams``, no table holds two bots of one team; with ``partners`` (the game's
    fixed team per seat), a challenger partners each bot of its table in turn."""
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
    opponents = (
        lineups(field, seats - 1, secret, teams=teams) if len(field) > 1 or seats == 2 else None
    )
    if opponents is None:
        opponents = [tuple(field) * (seats - 1)]
    tables = {c: [o for o in opponents if _apart((c, *o), teams)] for c in challengers}
    alone = [c for c, found in tables.items() if not found]
    if alone:
        raise ScheduleError(f"{', '.join(alone)} would meet only bots of its own team")
    plans: list[MatchPlan] = []
    for rnd in range(rounds):
        seed = deal_seed(secret, rnd)
        for challenger in challengers:
            for others in tables[challenger]:
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
