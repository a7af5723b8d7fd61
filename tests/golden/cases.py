"""The golden playthroughs: which matches are committed, and how one is recorded.

One seeded match per game and main variant, played through the real match driver
(:class:`referee.match.MatchDriver`) by a seeded random policy: every seat draws its
action uniformly from the legal codes the turn lists, with a ``random.Random`` seeded
from the match seed and the seat. The result is an ordinary replay
(:mod:`referee.replay`) whose wall-clock fields (start and finish times, the time each
decision took) are set to fixed values, so recording the same match twice gives the
same bytes. ``scripts/regen_golden`` writes the files; ``tests/golden/test_golden.py``
re-simulates them and records them again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.game import get_game, parse_rules
from referee.match import (
    MatchConfig,
    MatchDriver,
    MatchSpec,
)
from tests.agents import RandomAgent

GOLDEN_DIR = Path(__file__).resolve().parent

# The values wall-clock fields are given in a golden file: they would differ on every run.
FIXED_TIME = "2000-01-01T00:00:00+00:00"
WALL_CLOCK_FIELDS = {"header": ("started",), "decision": ("ms",), "end": ("finished",)}


@dataclass(frozen=True)
class GoldenCase:
    """One committed match: ``tests/golden/<game>__<variant>.jsonl``."""

    game: str
    variant: str
    rules: Mapping[str, Any]  # option values, as ``parse_rules`` takes them
    seats: int
    seed: int
    config: MatchConfig = field(default_factory=MatchConfig)

    @property
    def filename(self) -> str:
        return f"{self.game}__{self.variant}.jsonl"

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / self.filename


# Short matches (one hand, one hole, one deal) where the rules allow, so the files stay
# small; every variant of golf, the 2-, 3- and 4-player formats of gin rummy and the
# rule presets of golf solitaire. A loose knock_limit (and three holes of the golf
# variants where anyone may knock at once) makes random play reach showdowns; the seeds
# were picked among the first fifteen for matches of some length.
CASES: tuple[GoldenCase, ...] = (
    GoldenCase("dingo", "one_deal", {"deals": 1}, seats=4, seed=1),
    GoldenCase("goninkan", "one_round", {"yaku_count": 1}, seats=6, seed=1),
    GoldenCase("gin_rummy", "two_players", {"max_hands": 1}, seats=2, seed=1),
    GoldenCase(
        "gin_rummy",
        "pagat_classic",
        {"preset": "pagat_classic", "max_hands": 1, "knock_limit": 60},
        seats=2,
        seed=6,
    ),
    GoldenCase(
        "gin_rummy",
        "three_players",
        {"players": 3, "max_hands": 1, "knock_limit": 60},
        seats=3,
        seed=14,
    ),
    GoldenCase(
        "gin_rummy",
        "four_teams",
        {"players": 4, "max_hands": 1, "knock_limit": 60},
        seats=4,
        seed=9,
    ),
    GoldenCase("golf", "six", {"variant": "six", "holes": 1}, seats=2, seed=1),
    GoldenCase("golf", "eight", {"variant": "eight", "holes": 1}, seats=2, seed=2),
    GoldenCase("golf", "nine", {"variant": "nine", "holes": 1}, seats=2, seed=3),
    GoldenCase("golf", "ten", {"variant": "ten", "holes": 1}, seats=2, seed=4),
    GoldenCase(
        "golf", "four_face_down", {"variant": "four_face_down", "holes": 3}, seats=2, seed=9
    ),
    GoldenCase("golf", "four_in_hand", {"variant": "four_in_hand", "holes": 3}, seats=2, seed=4),
    GoldenCase("golf_solitaire", "strict", {"preset": "strict", "holes": 1}, seats=1, seed=1),
    GoldenCase("golf_solitaire", "relaxed", {"preset": "relaxed", "holes": 1}, seats=2, seed=2),
    GoldenCase("golf_solitaire", "putt_putt", {"preset": "putt_putt", "holes": 1}, seats=2, seed=3),
    GoldenCase(
        "golf_solitaire",
        "match_jokers",
        {"holes": 2, "scoring": "match", "jokers": 2},
        seats=2,
        seed=4,
    ),
)


def record(case: GoldenCase) -> str:
    """Play the case's match and return its replay, wall-clock fields fixed."""
    engine = get_game(case.game)
    spec = MatchSpec(
        match_id=f"golden-{case.game}-{case.variant}",
        game=case.game,
        rules=parse_rules(engine.Rules, dict(case.rules)),
        seats=case.seats,
        seed=case.seed,
        players=tuple(f"random{seat}" for seat in range(case.seats)),
        config=case.config,
    )
    agents = [RandomAgent(f"golden/{case.seed}/{seat}") for seat in range(case.seats)]
    driver = MatchDriver(spec, agents, started_at=FIXED_TIME)
    # In a thread of its own, so that a caller already inside an event loop can record too.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(asyncio.run, driver.run()).result()
    return "".join(
        json.dumps(row, separators=(",", ":"), ensure_ascii=False) + "\n"
        for row in without_wall_clock(result.replay)
    )


def without_wall_clock(text: str) -> list[dict[str, Any]]:
    """The replay's lines as objects, with the wall-clock fields set to fixed values."""
    rows: list[dict[str, Any]] = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        row = json.loads(raw)
        for name in WALL_CLOCK_FIELDS.get(row.get("type"), ()):
            if name in row:
                row[name] = 0 if name == "ms" else FIXED_TIME
        rows.append(row)
    return rows


def engine_class(game: str) -> str:
    """The engine's class name, as a maintainer finds its ``version`` in the source."""
    return type(get_game(game)).__name__


def recorded_version(text: str) -> int:
    """The engine version a golden file's header records."""
    header = json.loads(text.split("\n", 1)[0])
    return int(header["game_version"])


def first_difference(recorded: str, fresh: str) -> str | None:
    """Where two replays of the same match part, wall-clock fields aside; None if nowhere."""
    old, new = without_wall_clock(recorded), without_wall_clock(fresh)
    for number, (was, now) in enumerate(zip(old, new, strict=False), start=1):
        if was != now:
            changed = [
                f"{key}: {_brief(was.get(key))} -> {_brief(now.get(key))}"
                for key in dict.fromkeys([*was, *now])
                if was.get(key) != now.get(key)
            ]
            return f"line {number} ({was.get('type')}): " + "; ".join(changed)
    if len(old) != len(new):
        return f"the file has {len(old)} lines, the engine now gives {len(new)}"
    return None


def _brief(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
