"""The error the referee raises for requests it cannot carry out."""

from __future__ import annotations


class RefereeError(ValueError):
    """A request the referee cannot carry out (unknown match, bad settings, ...)."""
