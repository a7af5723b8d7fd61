"""Watching matches: the HTML replay page, live spectating, tournament reports and the web
server. (Being built; see the issue "Watching".)"""

from __future__ import annotations

import typer


def register(app: typer.Typer, replay_app: typer.Typer) -> None:
    """Add the watching commands to the CLI (``arena replay html``, ``arena watch``,
    ``arena report``, ``arena web``)."""
