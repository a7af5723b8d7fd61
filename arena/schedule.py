"""Round-robin schedules: which entrants meet, in which seats, on which deals.

Every combination of entrants (a balanced subset when there are too many), every
seat rotation, repeated for each round. Every match of one round plays the same
seed (duplicate deals, as in duplicate bridge): each entrant plays every seat of
the same deal against every opponent, so the luck of the deal cancels, and in a
one-seat game (solitaire) every entrant plays the same deals. With fewer entrants
than seats the entrants are repeated around the table.

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
import math
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

MAX_COMBINATIONS = 60


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


def _balanced_subset(
    entrants: Sequence[str], seats: int, limit: int, secret: bytes
) -> list[tuple[str, ...]]:
    """``limit`` combinations chosen greedily so every entrant appears about equally often."""
    rng = random.Random(_keyed(secret, "subset"))
    combos = list(itertools.combinations(entrants, seats))
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
) -> list[tuple[str, ...]]:
    """The table compositions of one round, before rotation."""
    if len(entrants) < 1:
        raise ScheduleError("a tournament needs at least one bot")
    if len(set(entrants)) != len(entrants):
        raise ScheduleError("each bot may be entered once")
    if len(entrants) < seats:
        return [tuple(entrants[i % len(entrants)] for i in range(seats))]
    if math.comb(len(entrants), seats) <= max_combinations:
        return list(itertools.combinations(entrants, seats))
    return _balanced_subset(entrants, seats, max_combinations, secret)


def round_robin(entrants: Sequence[str], seats: int, rounds: int, secret: bytes) -> list[MatchPlan]:
    """The whole schedule, in the order matches are started and rated."""
    if rounds < 1:
        raise ScheduleError("rounds must be at least 1")
    plans: list[MatchPlan] = []
    tables = lineups(entrants, seats, secret)
    for rnd in range(rounds):
        seed = deal_seed(secret, rnd)  # one deal per round, for every table and seat
        for table in tables:
            rotations = {tuple(table[(i + r) % seats] for i in range(seats)) for r in range(seats)}
            ordered = sorted(rotations, key=lambda lineup: [table.index(n) for n in lineup])
            for lineup in ordered:
                plans.append(MatchPlan(len(plans), rnd, rnd, seed, lineup))
    return plans
