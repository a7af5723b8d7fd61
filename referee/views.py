"""Converting an engine's view (a frozen dataclass) to its typed protobuf message and to JSON.

One generic mapping serves every game, so engines never import protobuf and
the wire types cannot drift from the views silently: a view field with no
protobuf field of the same name raises :class:`ViewError` (the conformance
tests convert every observation they meet).

Conventions for view dataclasses: fields are ``int``, ``float``, ``str``,
``bool``, ``Card``, nested view dataclasses, ``None`` (left unset; use proto3
``optional`` for scalars), or tuples of one of those (``repeated``). A tuple of card tuples maps onto
``repeated CardGroup`` (cards.proto); other nested tuples need a small
dataclass of their own.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from functools import cache
from typing import Any

from google.protobuf.message import Message

from referee.cards import Card
from referee.v1 import cards_pb2, referee_pb2

_SUIT_NUMBERS = {
    "C": cards_pb2.CLUBS,
    "D": cards_pb2.DIAMONDS,
    "H": cards_pb2.HEARTS,
    "S": cards_pb2.SPADES,
}


class ViewError(TypeError):
    """A view that does not fit its protobuf message (a programming error in an engine)."""


@cache
def _field_names(cls: type[Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _fill_card(msg: Any, c: Card) -> None:
    msg.rank = c.rank
    msg.suit = _SUIT_NUMBERS[c.suit.value] if c.suit is not None else cards_pb2.SUIT_NONE
    msg.code = c.code


def card_message(c: Card) -> cards_pb2.Card:
    msg = cards_pb2.Card()
    _fill_card(msg, c)
    return msg


def _group_cards(item: Any) -> tuple[Card, ...] | None:
    if isinstance(item, tuple) and all(isinstance(c, Card) for c in item):
        return item
    return None


def fill_message(msg: Message, view: Any) -> Message:
    """Copy a view dataclass into ``msg`` field by field; returns ``msg``."""
    descriptor = msg.DESCRIPTOR
    for name in _field_names(type(view)):
        value = getattr(view, name)
        if name not in descriptor.fields_by_name:
            raise ViewError(f"{type(view).__name__}.{name} has no field in {descriptor.full_name}")
        if value is None:
            continue
        target = getattr(msg, name)
        if isinstance(value, tuple):
            for item in value:
                if isinstance(item, Card):
                    _fill_card(target.add(), item)
                elif dataclasses.is_dataclass(item):
                    fill_message(target.add(), item)
                elif (group := _group_cards(item)) is not None:
                    # A tuple of card tuples maps onto repeated CardGroup.
                    sub = target.add()
                    for c in group:
                        _fill_card(sub.cards.add(), c)
                else:
                    target.append(item.value if isinstance(item, Enum) else item)
        elif isinstance(value, Card):
            _fill_card(target, value)
        elif dataclasses.is_dataclass(value):
            fill_message(target, value)
        else:
            setattr(msg, name, value.value if isinstance(value, Enum) else value)
    return msg


def observation_message(game: str, view: Any) -> referee_pb2.Observation:
    """The wire ``Observation`` for a view of game ``game`` (its oneof field is the game name)."""
    obs = referee_pb2.Observation()
    sub = getattr(obs, game)
    sub.SetInParent()
    fill_message(sub, view)
    return obs


def to_jsonable(value: Any) -> Any:
    """A view (or any value inside one) as plain JSON data: cards become their codes."""
    if isinstance(value, Card):
        return value.code
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_jsonable(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(to_jsonable(v) for v in value)
    if isinstance(value, Enum):
        return value.value
    return value
