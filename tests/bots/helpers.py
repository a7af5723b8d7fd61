"""Shared pieces of the in-process strategy-vs-random tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.local import Chooser


def checked(choose: Chooser, observation_type: type[Any]) -> Chooser:
    """A chooser that asserts it is given the game's typed observation and answers with
    one of the legal codes."""

    def wrapped(obs: Any, legal: Sequence[str]) -> str:
        assert isinstance(obs, observation_type)
        code = choose(obs, legal)
        assert code in legal, f"illegal code {code!r}; legal: {legal}"
        return code

    return wrapped
