from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GinHandResult(_message.Message):
    __slots__ = ("hand_number", "seats", "result", "knocker", "knock_card", "hands", "knocker_melds", "knocker_deadwood_cards", "layoffs", "defender_melds", "defender_deadwood_cards", "knocker_deadwood", "defender_deadwood", "winner", "points")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_FIELD_NUMBER: _ClassVar[int]
    KNOCK_CARD_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_MELDS_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_DEADWOOD_CARDS_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_MELDS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_DEADWOOD_CARDS_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    result: str
    knocker: int
    knock_card: _cards_pb2.Card
    hands: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    knocker_melds: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    knocker_deadwood_cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    layoffs: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    defender_melds: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    defender_deadwood_cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    knocker_deadwood: int
    defender_deadwood: int
    winner: int
    points: int
    def __init__(self, hand_number: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., result: _Optional[str] = ..., knocker: _Optional[int] = ..., knock_card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., hands: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., knocker_melds: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., knocker_deadwood_cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., layoffs: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., defender_melds: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., defender_deadwood_cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., knocker_deadwood: _Optional[int] = ..., defender_deadwood: _Optional[int] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class GinTable(_message.Message):
    __slots__ = ("seats", "dealer", "phase", "to_act", "stock_count", "discard_pile", "hand_sizes", "taken", "turns", "result")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    dealer: int
    phase: str
    to_act: int
    stock_count: int
    discard_pile: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    taken: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    turns: int
    result: GinHandResult
    def __init__(self, seats: _Optional[_Iterable[int]] = ..., dealer: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[int] = ..., stock_count: _Optional[int] = ..., discard_pile: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., taken: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., turns: _Optional[int] = ..., result: _Optional[_Union[GinHandResult, _Mapping]] = ...) -> None: ...

class GinRummyObservation(_message.Message):
    __slots__ = ("seat", "players", "hand_number", "phase", "to_act", "hand", "cannot_discard", "table", "opponent", "dealer", "tables", "teams", "scores", "hands_won", "target_score", "last_hand", "last_hand_points", "match_over", "final_scores")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    CANNOT_DISCARD_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HANDS_WON_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_POINTS_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    FINAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    hand_number: int
    phase: str
    to_act: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    cannot_discard: _cards_pb2.Card
    table: int
    opponent: int
    dealer: int
    tables: _containers.RepeatedCompositeFieldContainer[GinTable]
    teams: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    hands_won: _containers.RepeatedScalarFieldContainer[int]
    target_score: int
    last_hand: _containers.RepeatedCompositeFieldContainer[GinHandResult]
    last_hand_points: _containers.RepeatedScalarFieldContainer[int]
    match_over: bool
    final_scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., hand_number: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., cannot_discard: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., table: _Optional[int] = ..., opponent: _Optional[int] = ..., dealer: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[GinTable, _Mapping]]] = ..., teams: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., hands_won: _Optional[_Iterable[int]] = ..., target_score: _Optional[int] = ..., last_hand: _Optional[_Iterable[_Union[GinHandResult, _Mapping]]] = ..., last_hand_points: _Optional[_Iterable[int]] = ..., match_over: _Optional[bool] = ..., final_scores: _Optional[_Iterable[int]] = ...) -> None: ...
