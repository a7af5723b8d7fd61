from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GolfSolitaireHoleResult(_message.Message):
    __slots__ = ("hole", "deal_number", "scores", "cleared")
    HOLE_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    CLEARED_FIELD_NUMBER: _ClassVar[int]
    hole: int
    deal_number: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    cleared: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, hole: _Optional[int] = ..., deal_number: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ..., cleared: _Optional[_Iterable[bool]] = ...) -> None: ...

class GolfSolitaireObservation(_message.Message):
    __slots__ = ("seat", "seats", "hole", "holes", "tableau", "foundation", "stock_count", "unseen", "moves", "finished", "match_over", "results", "totals", "holes_won", "queen_on_king", "wrap", "jokers", "foundation_starts_empty", "stock_only_when_blocked", "scoring")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    HOLE_FIELD_NUMBER: _ClassVar[int]
    HOLES_FIELD_NUMBER: _ClassVar[int]
    TABLEAU_FIELD_NUMBER: _ClassVar[int]
    FOUNDATION_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNSEEN_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    HOLES_WON_FIELD_NUMBER: _ClassVar[int]
    QUEEN_ON_KING_FIELD_NUMBER: _ClassVar[int]
    WRAP_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    FOUNDATION_STARTS_EMPTY_FIELD_NUMBER: _ClassVar[int]
    STOCK_ONLY_WHEN_BLOCKED_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seats: int
    hole: int
    holes: int
    tableau: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    foundation: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    stock_count: int
    unseen: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    moves: int
    finished: bool
    match_over: bool
    results: _containers.RepeatedCompositeFieldContainer[GolfSolitaireHoleResult]
    totals: _containers.RepeatedScalarFieldContainer[int]
    holes_won: _containers.RepeatedScalarFieldContainer[int]
    queen_on_king: bool
    wrap: bool
    jokers: int
    foundation_starts_empty: bool
    stock_only_when_blocked: bool
    scoring: str
    def __init__(self, seat: _Optional[int] = ..., seats: _Optional[int] = ..., hole: _Optional[int] = ..., holes: _Optional[int] = ..., tableau: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., foundation: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., stock_count: _Optional[int] = ..., unseen: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., moves: _Optional[int] = ..., finished: _Optional[bool] = ..., match_over: _Optional[bool] = ..., results: _Optional[_Iterable[_Union[GolfSolitaireHoleResult, _Mapping]]] = ..., totals: _Optional[_Iterable[int]] = ..., holes_won: _Optional[_Iterable[int]] = ..., queen_on_king: _Optional[bool] = ..., wrap: _Optional[bool] = ..., jokers: _Optional[int] = ..., foundation_starts_empty: _Optional[bool] = ..., stock_only_when_blocked: _Optional[bool] = ..., scoring: _Optional[str] = ...) -> None: ...
