"""Whole numbers typed by people or sent by clients: ids, versions, seats, lengths."""

from __future__ import annotations


def whole_number(text: str) -> int | None:
    """``text`` as a whole number, or None: ASCII digits only (``str.isdigit`` also takes
    "²" and other scripts' digits, which ``int()`` refuses or reads), below 2**63 so it
    fits an SQLite INTEGER (the length check comes first, clear of ``int()``'s digit
    limit)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    value = int(text)
    return value if value < 2**63 else None
