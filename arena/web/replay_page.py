"""The self-contained HTML replay page of one match: the frames of the replay (see
:mod:`arena.web.frames`) as JSON, with the page's CSS and JavaScript inline. No network,
no server: the file works opened from disk, and its Content-Security-Policy
(:mod:`arena.web.csp`) lets only its own script run."""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from arena.web.csp import meta_tag
from arena.web.frames import page_data
from referee.replay import Replay

_PLACEHOLDER = re.compile(r"@@([A-Z]+)@@")


@cache
def asset(name: str) -> str:
    """A file shipped in this package (the page template, its script)."""
    return resources.files("arena.web").joinpath(name).read_text(encoding="utf-8")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace every ``@@NAME@@`` in one pass, so that values are never scanned again."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def script_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no '<', '>' or '&' appear literally."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_html(replay: Replay, seat: str = "all", back_link: tuple[str, str] | None = None) -> str:
    """The replay page of a finished match. ``seat`` is the view it opens on ("all" or a
    seat number); ``back_link`` (href, text) adds a link to a page listing matches."""
    data = page_data(replay)
    match = data["match"]
    players = ", ".join(f"{s}: {p}" for s, p in enumerate(match["players"]))
    rules = " ".join(f"{k}={v}" for k, v in match["rules"].items())
    meta = (
        f"match {match['id']} · seed {match['seed']} · players {players} · "
        f"rules {rules or 'default'} · {match['started']}"
    )
    back = ""
    if back_link is not None:
        back = f'<a href="{html.escape(back_link[0])}">{html.escape(back_link[1])}</a>'
    title = f"{match['game']} · {match['id']} · Card Arena replay"
    script = asset("replay.js").replace("</", "<\\/")
    return fill(
        asset("replay.html"),
        {
            "TITLE": html.escape(title),
            "HEADING": html.escape(f"{match['game']} replay"),
            "META": html.escape(meta),
            "BACK": back,
            "SEAT": html.escape(seat),
            "DATA": script_json(data),
            "SCRIPT": script,
            "CSP": meta_tag([script]),
        },
    )
