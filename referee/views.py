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
from collections.abc import Callable
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


def _fill_card(msg: Any, c: Card) -> None:
    msg.rank = c.rank
    msg.suit = _SUIT_NUMBERS[c.suit.value] if c.suit is not None else cards_pb2.SUIT_NONE
    msg.code = c.code


def card_message(c: Card) -> cards_pb2.Card:
    msg = cards_pb2.Card()
    _fill_card(msg, c)
    return msg


# The wire message of every card, by Card.index (the joker is 52): copied, never rebuilt.
_CARD_MESSAGES: tuple[cards_pb2.Card, ...] = tuple(
    card_message(c) for c in sorted((*STANDARD_DECK, JOKER), key=lambda c: c.index)
)
_PLAIN = (int, str, bool, float)


def fill_message(msg: Message, view: Any) -> Message:
    """Copy a view dataclass into ``msg`` field by field; returns ``msg``."""
    _filler(view.__class__, msg.DESCRIPTOR.full_name)(msg, view)
    return msg


def _kind(tp: Any) -> str:
    """How a field of this annotated type maps onto protobuf."""
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if len(args) == 1:
            return _kind(args[0])
        return "plain" if all(a in _PLAIN for a in args) else "scalar"
    if origin is tuple:
        inner = args[0]
        if inner is Card:
            return "cards"
        if typing.get_origin(inner) is tuple:
            return "groups"
        if dataclasses.is_dataclass(inner):
            return "views"
        return "plains" if inner in _PLAIN else "scalars"
    if tp is Card:
        return "card"
    if dataclasses.is_dataclass(tp):
        return "view"
    return "plain" if tp in _PLAIN else "scalar"


# One line of generated code per kind of field; ``v`` holds the view's value (not None).
_STATEMENTS = {
    "plain": "msg.{name} = v",
    "scalar": "msg.{name} = v.value if isinstance(v, Enum) else v",
    "card": "msg.{name}.CopyFrom(CARDS[v.index])",
    "cards": "msg.{name}.extend([CARDS[c.index] for c in v])",
    "plains": "msg.{name}.extend(v)",
    "scalars": "msg.{name}.extend([x.value if isinstance(x, Enum) else x for x in v])",
    "view": "fill_{name}(msg.{name}, v)",
    "views": "add = msg.{name}.add\n        for x in v:\n            fill_{name}(add(), x)",
    "groups": "add = msg.{name}.add\n        for g in v:\n            add().cards.extend([CARDS[c.index] for c in g])",
}


@cache
def _filler(cls: Any, message_name: str) -> Callable[[Any, Any], None]:
    """A function that copies a view of class ``cls`` into a ``message_name`` message,
    generated once from the annotations (like dataclasses' own methods): the fill runs
    for every decision, and a generic loop over the fields costs twice as much."""
    from referee.v1 import referee_pb2 as _  # noqa: F401 - every message registered

    descriptor = descriptor_pool.Default().FindMessageTypeByName(message_name)
    hints = typing.get_type_hints(cls)
    namespace: dict[str, Any] = {"CARDS": _CARD_MESSAGES, "Enum": Enum}
    lines = ["def fill(msg, view):"]
    for f in dataclasses.fields(cls):
        proto_field = descriptor.fields_by_name.get(f.name)
        if proto_field is None:
            raise ViewError(f"{cls.__name__}.{f.name} has no field in {message_name}")
        kind = _kind(hints[f.name])
        if kind in ("view", "views"):
            inner = hints[f.name]
            inner = typing.get_args(inner)[0] if kind == "views" else _unwrap_optional(inner)
            message_type = proto_field.message_type
            if message_type is None:
                raise ViewError(
                    f"{cls.__name__}.{f.name} is a view but {message_name}.{f.name} is not a message"
                )
            namespace[f"fill_{f.name}"] = _filler(inner, message_type.full_name)
        lines.append(f"    v = view.{f.name}")
        lines.append("    if v is not None:")
        lines.append("        " + _STATEMENTS[kind].format(name=f.name))
    if len(lines) == 1:
        lines.append("    pass")
    exec("\n".join(lines), namespace)  # our own code, generated from annotations
    fill: Callable[[Any, Any], None] = namespace["fill"]
    return fill


def _unwrap_optional(tp: Any) -> Any:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    return args[0] if typing.get_origin(tp) in (typing.Union, types.UnionType) else tp


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
    kind: Any = type(value)  # (mypy takes no type[Any] as Hashable for the cache)
    if kind in _JSON_SCALARS:  # exact types: an IntEnum is an Enum here, not an int
        return value
    if kind is Card:
        return value.code
    names = _dataclass_field_names(kind)
    if names is not None:
        return {name: to_jsonable(getattr(value, name)) for name in names}
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(to_jsonable(v) for v in value)
    if isinstance(value, Enum):
        return value.value
    return value


# Replays and pages turn every view of a match into JSON: the common types are told apart
# by their exact type first (a view is thousands of values, and dataclasses.is_dataclass
# on each was most of the cost).
_JSON_SCALARS = frozenset({int, str, bool, float, type(None)})


@cache
def _dataclass_field_names(kind: type[Any]) -> tuple[str, ...] | None:
    """The field names of a dataclass type (not of a dataclass's class object), else None."""
    if dataclasses.is_dataclass(kind) and not issubclass(kind, type):
        return tuple(f.name for f in dataclasses.fields(kind))
    return None
