"""Fixtures of the watching tests: one small real tournament per game (shared by every
test of the session) and a headless Chromium."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.watching.helpers import CHROMIUM, CHROMIUM_ARGS, browser_missing, run_tournament


@pytest.fixture(scope="session")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, int]]:
    """game -> (database, tournament id), played once per session through the CLI."""
    made: dict[str, tuple[Path, int]] = {}

    def get(game: str) -> tuple[Path, int]:
        if game not in made:
            db = tmp_path_factory.mktemp(f"arena-{game}") / "arena.db"
            made[game] = (db, run_tournament(db, game))
        return made[game]

    return get


# Module scope: Playwright's sync API keeps an event loop running in this thread while it is
# open, and tests elsewhere call asyncio.run().
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    reason = browser_missing()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
