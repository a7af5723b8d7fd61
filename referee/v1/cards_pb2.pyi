from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_NONE: _ClassVar[Suit]
    CLUBS: _ClassVar[Suit]
    DIAMONDS: _ClassVar[Suit]
    HEARTS: _ClassVar[Suit]
    SPADES: _ClassVar[Suit]
SUIT_NONE: Suit
CLUBS: Suit
DIAMONDS: Suit
HEARTS: Suit
SPADES: Suit

class Card(_message.Message):
    __slots__ = ("rank", "suit", "code")
    RANK_FIELD_NUMBER: _ClassVar[int]
    SUIT_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    rank: int
    suit: Suit
    code: str
    def __init__(self, rank: _Optional[int] = ..., suit: _Optional[_Union[Suit, str]] = ..., code: _Optional[str] = ...) -> None: ...

class CardGroup(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...
