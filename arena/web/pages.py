"""The plain HTML pages around the replays (tournament reports, the web server's lists):
one page skeleton with inline CSS, and escaping table helpers."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.web.csp import meta_tag

CSS = """
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1d2330; background: #f4f6f3; }
header { padding: .8em 1.2em; background: #10301f; color: #eef2ee; }
header h1 { margin: 0; font-size: 1.3em; }
header .meta { color: #b9c9bd; }
header a { color: #f2c14e; }
main { padding: 1em 1.2em 2em; max-width: 1200px; }
h2 { margin: 1.4em 0 .5em; font-size: 1.1em; border-bottom: 2px solid #1f5f3f; padding-bottom: .2em; }
table { border-collapse: collapse; background: #fff; margin: .3em 0 1em;
        box-shadow: 0 1px 3px rgba(0,0,0,.08); }
th, td { padding: .3em .7em; border-bottom: 1px solid #e3e6e1; text-align: left; vertical-align: top; }
th { background: #e9efe9; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.self { background: #f0f0f0; color: #999; text-align: center; }
td.good { background: #e4f4e4; } td.bad { background: #fbe4e4; }
a { color: #1f5f3f; }
td a { white-space: nowrap; }
.none { color: #6b7280; font-style: italic; }
.note { color: #555; font-size: .92em; max-width: 60em; }
svg.chart { background: #fff; box-shadow: 0 1px 3px rgba(0,0,0,.08); max-width: 100%; height: auto; }
"""


@dataclass(frozen=True)
class Raw:
    """HTML that is already safe (a link built here)."""

    html: str


Cell = str | int | float | Raw | None


def cell_html(value: Cell) -> str:
    if isinstance(value, Raw):
        return value.html
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    return html.escape(str(value))


def link(href: str, text: str) -> Raw:
    return Raw(f'<a href="{html.escape(href)}">{html.escape(text)}</a>')


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    numeric: Sequence[int] = (),
    cls: str = "",
) -> str:
    """A table; columns listed in ``numeric`` are right-aligned."""
    num = set(numeric)
    head = "".join(
        f"<th{' class=num' if i in num else ''}>{html.escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = []
    for row in rows:
        cells = "".join(
            f"<td{' class=num' if i in num else ''}>{cell_html(v)}</td>" for i, v in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    if not body:
        return '<p class="none">nothing yet</p>'
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><tr>{head}</tr>{''.join(body)}</table>"


def page(
    title: str,
    body: str,
    meta: str = "",
    back: tuple[str, str] | None = None,
    script: str = "",
) -> str:
    """A whole HTML page (no external resources); ``script``, if any, runs at its end, the
    only script its Content-Security-Policy lets run."""
    back_html = "" if back is None else f" · {link(back[0], back[1]).html}"
    script_html = f"<script>{script}</script>" if script else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"{meta_tag([script] if script else [])}"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        f'<header><h1>{html.escape(title)}</h1><span class="meta">{html.escape(meta)}{back_html}'
        f"</span></header><main>{body}</main>{script_html}</body></html>\n"
    )
