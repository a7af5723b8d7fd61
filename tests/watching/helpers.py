"""Shared by the watching tests: real tournaments through the CLI (one small one per game),
in-process matches for rule variants, the headless browser, and what a seat's view must
show, computed from the engine."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import shutil
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from arena.web.frames import Frame, iter_frames
from referee.cards import Card
from referee.game import get_game, parse_rules
from referee.match import (
    DecisionRequest,
    MatchConfig,
    MatchDriver,
    MatchSpec,
)
from referee.replay import Replay, parse_replay
from tests.agents import RandomAgent
from tests.conftest import arena_process, sample_tournament

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# game -> (seats, bots as (name, sample bot module), quick rules): the smallest real matches
TABLES: dict[str, tuple[int, list[tuple[str, str]], list[str]]] = {
    "gin_rummy": (2, [("rnd", "random_bot"), ("gin", "gin_strategy")], ["max_hands=3"]),
    "dingo": (4, [("rnd", "random_bot"), ("dingo", "dingo_strategy")], ["deals=1"]),
    "golf": (2, [("rnd", "random_bot"), ("golf", "golf_strategy")], ["holes=2"]),
    "golf_solitaire": (
        2,
        [("rnd", "random_bot"), ("solitaire", "golf_solitaire_strategy")],
        ["holes=1"],
    ),
    "goninkan": (6, [("rnd", "random_bot"), ("gon", "goninkan_strategy")], ["yaku_count=1"]),
}


@contextlib.contextmanager
def arena_web(db: Path, log: Path | None = None) -> Iterator[str]:
    """A real `arena web` process on a free port for ``db``; yields its base URL. With
    ``log``, its request log (its stderr) is written there; without, it logs nothing."""
    quiet = [] if log else ["--quiet"]
    with contextlib.ExitStack() as stack:
        stderr = stack.enter_context(log.open("w")) if log else None
        _, line = stack.enter_context(
            arena_process("web", "--port", "0", *quiet, "--db", str(db), stderr=stderr)
        )
        assert line.startswith(f"serving {db} on http://127.0.0.1:"), line
        yield line.split()[-1].rstrip("/")


def run_tournament(db: Path, game: str) -> int:
    """A small round robin of ``game`` with the sample bots; returns the tournament id."""
    seats, bots, rules = TABLES[game]
    data = sample_tournament(db, game, bots, seats, rules)
    assert not data["errors"], data["errors"]
    return int(data["tournament"])


# ---- in-process matches (rule variants) -------------------------------------------------


class CheatingAgent(RandomAgent):
    """Random play, but every ``every``-th decision names a card it does not hold."""

    def __init__(self, seed: int, every: int) -> None:
        super().__init__(seed)
        self.every = every
        self.asked = 0

    async def decide(self, request: DecisionRequest) -> str:
        self.asked += 1
        if self.asked % self.every == 0:
            return "discard XX"
        return await super().decide(request)


def play_match(
    game: str,
    rules: Mapping[str, Any],
    seats: int,
    seed: int = 3,
    config: MatchConfig | None = None,
    cheat_every: int = 0,
) -> Replay:
    """A whole match of random play through the real match driver; its replay. With
    ``cheat_every``, seat 0 sends a bad code every that many decisions (faults)."""
    engine = get_game(game)
    spec = MatchSpec(
        f"{game}-{seed}",
        game,
        parse_rules(engine.Rules, dict(rules)),
        seats,
        seed,
        tuple(f"bot{s}" for s in range(seats)),
        config or MatchConfig(),
    )
    agents: list[RandomAgent] = [RandomAgent(seed * 31 + s) for s in range(seats)]
    if cheat_every:
        agents[0] = CheatingAgent(seed * 31, cheat_every)
    driver = MatchDriver(spec, agents)
    # In a thread of its own: the browser tests' Playwright runs an event loop in this one.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(asyncio.run, driver.run()).result()
    return parse_replay(result.replay)


# ---- what a view must show ---------------------------------------------------------------


def cards_in(value: Any) -> Counter[str]:
    """Every card in an engine view (a dataclass), by code, with multiplicity."""
    out: Counter[str] = Counter()
    if isinstance(value, Card):
        out[value.code] += 1
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            out += cards_in(getattr(value, f.name))
    elif isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            out += cards_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            out += cards_in(item)
    return out


def frames_of(replay: Replay) -> tuple[Any, list[Frame]]:
    game, frames = iter_frames(replay)
    return game, list(frames)


def hidden_from(game: Any, state: Any, seat: int, seats: int) -> set[str]:
    """Cards other seats can see that this seat cannot."""
    own = set(cards_in(game.observation(state, seat)))
    others: set[str] = set()
    for s in range(seats):
        if s != seat:
            others |= set(cards_in(game.observation(state, s)))
    return others - own


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; no browser download needed)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    return None


CARD_WORD = re.compile(r"\b(?:[A2-9TJQK][CDHS]|JK)\b")
