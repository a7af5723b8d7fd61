"""Write docs/screenshots/<game>.png: one replay page per game, from a small real
tournament of the sample bots, in headless Chromium (seat 0's view, a third of the way in).

    .venv/bin/python -m tests.watching.screenshots [OUTPUT_DIR]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from referee.game import game_names
from tests.conftest import arena
from tests.watching.helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    browser_missing,
    run_tournament,
)

# Where in the match each picture is taken (a fraction of its steps), and whose view.
MOMENT = {"golf": (0.2, "0"), "golf_solitaire": (0.3, "0"), "goninkan": (0.55, "0")}


def main(out: Path) -> int:
    reason = browser_missing()
    if reason is not None:
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for game in game_names():
            db = Path(tmp) / f"{game}.db"
            tid = run_tournament(db, game)
            listed = arena(db, "matches", "list", "--tournament", str(tid), "--json").stdout
            match_id = json.loads(listed)[0]["id"]
            html = Path(tmp) / f"{game}.html"
            arena(db, "replay", "html", match_id, "-o", str(html))
            page.goto(html.as_uri())
            page.wait_for_selector("body[data-ready='1']")
            steps = int(page.get_attribute("#scrub", "max") or "0") + 1
            fraction, seat = MOMENT.get(game, (0.33, "0"))
            page.goto(f"{html.as_uri()}#f={max(1, int(steps * fraction))}&s={seat}")
            page.reload()
            page.wait_for_selector("body[data-ready='1']")
            page.screenshot(path=str(out / f"{game}.png"))
            print(f"wrote {out / f'{game}.png'}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"))
