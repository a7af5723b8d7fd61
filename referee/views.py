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
import types
import typing
from enum import Enum
from functools import cache
from typing import Any

from google.protobuf import descriptor_pool
from google.protobuf.message import Message

from referee.cards import JOKER, STANDARD_DECK, Card
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


def fill_message(msg: Message, view: Any) -> Message:
    """Copy a view dataclass into ``msg`` field by field; returns ``msg``."""
    for name, kind in _plan(view.__class__, msg.DESCRIPTOR.full_name):
        value = getattr(view, name)
        if value is None:
            continue
        if kind == _SCALAR:
            setattr(msg, name, value.value if isinstance(value, Enum) else value)
        elif kind == _CARD:
            getattr(msg, name).CopyFrom(_CARD_MESSAGES[value])
        elif kind == _CARDS:
            getattr(msg, name).extend([_CARD_MESSAGES[c] for c in value])
        elif kind == _SCALARS:
            getattr(msg, name).extend([v.value if isinstance(v, Enum) else v for v in value])
        elif kind == _VIEW:
            fill_message(getattr(msg, name), value)
        elif kind == _VIEWS:
            target = getattr(msg, name)
            for item in value:
                fill_message(target.add(), item)
        else:  # _GROUPS: a tuple of card tuples onto repeated CardGroup
            target = getattr(msg, name)
            for group in value:
                target.add().cards.extend([_CARD_MESSAGES[c] for c in group])
    return msg


_SCALAR, _CARD, _CARDS, _SCALARS, _VIEW, _VIEWS, _GROUPS = range(7)
_CARD_MESSAGES: dict[Card, cards_pb2.Card] = {}


def _kind(tp: Any) -> int:
    """How a field of this annotated type maps onto protobuf."""
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _kind(args[0]) if len(args) == 1 else _SCALAR
    if origin is tuple:
        inner = args[0]
        if inner is Card:
            return _CARDS
        if typing.get_origin(inner) is tuple:
            return _GROUPS
        if dataclasses.is_dataclass(inner):
            return _VIEWS
        return _SCALARS
    if tp is Card:
        return _CARD
    if dataclasses.is_dataclass(tp):
        return _VIEW
    return _SCALAR


@cache
def _plan(cls: Any, message_name: str) -> tuple[tuple[str, int], ...]:
    """The conversion steps for one view class, worked out once from its annotations."""
    from referee.v1 import referee_pb2 as _  # noqa: F401 - every message registered

    if not _CARD_MESSAGES:
        _CARD_MESSAGES.update({c: card_message(c) for c in (*STANDARD_DECK, JOKER)})
    descriptor = descriptor_pool.Default().FindMessageTypeByName(message_name)
    hints = typing.get_type_hints(cls)
    steps = []
    for f in dataclasses.fields(cls):
        if f.name not in descriptor.fields_by_name:
            raise ViewError(f"{cls.__name__}.{f.name} has no field in {message_name}")
        steps.append((f.name, _kind(hints[f.name])))
    return tuple(steps)


def fill_observation(target: referee_pb2.Observation, game: str, view: Any) -> None:
    """Fill a wire ``Observation`` in place (its oneof field is the game name)."""
    sub = getattr(target, game)
    sub.SetInParent()
    fill_message(sub, view)


def observation_message(game: str, view: Any) -> referee_pb2.Observation:
    """The wire ``Observation`` for a view of game ``game``."""
    obs = referee_pb2.Observation()
    fill_observation(obs, game, view)
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
