"""In-process seats for the match driver, shared by the tests that play whole matches
without bot processes."""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.game import Event
from referee.match import DecisionRequest, FaultRecord, MatchResult, MatchSpec


class RandomAgent:
    """A seat that plays uniformly random legal codes from its own seeded stream (a string
    seed is hashed with SHA-512: the same stream on every machine and run)."""

    def __init__(self, seed: int | str) -> None:
        self.rng = random.Random(seed)

    async def start(self, spec: MatchSpec, seat: int) -> None:
        return None

    async def decide(self, request: DecisionRequest) -> str:
        return self.rng.choice(request.legal)

    async def fault(self, seat: int, record: FaultRecord, strikes: int) -> None:
        return None

    async def notify(self, seat: int, events: Sequence[Event]) -> None:
        return None

    async def finish(self, result: MatchResult, seat: int) -> None:
        return None
