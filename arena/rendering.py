"""Text rendering shared by the terminal and the web viewers: who a text is for, what each
point of view may read of a recorded event, and views drawn as 'field: value' lines.

Points of view, with one meaning each everywhere (as :meth:`referee.game.Event.text_for`):
a seat number is that seat; ``None`` is a spectator (public texts only); :data:`ALL_HANDS`
is someone allowed to read every seat's private texts (the replay viewers' "all hands").
"""

from __future__ import annotations

import enum
import unicodedata
from typing import Any, Final, TypeAlias

from referee.views import to_jsonable


class AllHands(enum.Enum):
    """The type of :data:`ALL_HANDS` (an enum, so type checkers tell it from a seat)."""

    ALL_HANDS = "all hands"


ALL_HANDS: Final = AllHands.ALL_HANDS
# A seat; None: a spectator; ALL_HANDS: every seat's private texts too.
Viewpoint: TypeAlias = int | AllHands | None


# Bidirectional overrides and isolates: they can make a line read other than it is.
_BIDI_CONTROLS = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))


def _escaped(ch: str) -> str:
    if ch in "\n\t" or (unicodedata.category(ch) != "Cc" and ch not in _BIDI_CONTROLS):
        return ch
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def terminal_text(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (but newlines and tabs)
    and bidirectional controls are shown as escapes (``\\x1b``), so a bot's stderr or
    action cannot move the cursor, retitle the window or disguise what it says."""
    return "".join(map(_escaped, text))


def event_text(line: dict[str, Any], viewer: Viewpoint) -> str:
    """What ``viewer`` may read of a recorded event line (its private text only if it is
    one of the seats the text is for, or all hands)."""
    private = line.get("private_text")
    if private is None or viewer is None:
        return str(line["text"])
    if viewer is ALL_HANDS or viewer in line.get("visible_to", []):
        return str(private)
    return str(line["text"])


def format_value(value: Any) -> str:
    """A JSON value as compact text: lists of cards as codes separated by spaces."""
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " ".join(value) or "-"
        return "; ".join(format_value(v) for v in value) or "-"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def render_data(data: dict[str, Any]) -> list[str]:
    """A view as JSON data (cards as codes) as 'field: value' lines."""
    return [f"  {key}: {format_value(value)}" for key, value in data.items()]


def render_view(view: Any) -> list[str]:
    """A view dataclass as 'field: value' lines."""
    return render_data(to_jsonable(view))
