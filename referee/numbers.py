"""Whole numbers typed by people or sent by clients: ids, versions, seats, lengths, rule
options. One parser, so that they all read the same text the same way."""

from __future__ import annotations

SQLITE_INTEGER_BOUND = 2**63  # ids and counts must fit an SQLite INTEGER


def whole_number(text: str, below: int = SQLITE_INTEGER_BOUND) -> int | None:
    """``text`` as a whole number under ``below``, or None: ASCII digits only
    (``str.isdigit`` also takes "²" and other scripts' digits, which ``int()`` refuses or
    reads; ``int()`` alone also takes "+5", "1_0" and " 5"). The length is checked before
    ``int()``, clear of its digit limit."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(below)):
        return None
    value = int(text)
    return value if value < below else None
