from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GolfObservation(_message.Message):
    __slots__ = ("seat", "rules", "rows", "columns", "hole", "dealer", "phase", "to_act", "opening_left", "layouts", "discard", "stock_count", "holder", "drawn_from", "drawn", "ended_by", "knocked", "final_turns_left", "turns", "reshuffles", "totals", "results")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    HOLE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    OPENING_LEFT_FIELD_NUMBER: _ClassVar[int]
    LAYOUTS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FROM_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    KNOCKED_FIELD_NUMBER: _ClassVar[int]
    FINAL_TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rules: GolfRules
    rows: int
    columns: int
    hole: int
    dealer: int
    phase: str
    to_act: int
    opening_left: int
    layouts: _containers.RepeatedCompositeFieldContainer[GolfLayout]
    discard: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    stock_count: int
    holder: int
    drawn_from: str
    drawn: _cards_pb2.Card
    ended_by: int
    knocked: bool
    final_turns_left: int
    turns: int
    reshuffles: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedCompositeFieldContainer[GolfHoleResult]
    def __init__(self, seat: _Optional[int] = ..., rules: _Optional[_Union[GolfRules, _Mapping]] = ..., rows: _Optional[int] = ..., columns: _Optional[int] = ..., hole: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[int] = ..., opening_left: _Optional[int] = ..., layouts: _Optional[_Iterable[_Union[GolfLayout, _Mapping]]] = ..., discard: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., stock_count: _Optional[int] = ..., holder: _Optional[int] = ..., drawn_from: _Optional[str] = ..., drawn: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., ended_by: _Optional[int] = ..., knocked: _Optional[bool] = ..., final_turns_left: _Optional[int] = ..., turns: _Optional[int] = ..., reshuffles: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[GolfHoleResult, _Mapping]]] = ...) -> None: ...

class GolfSlot(_message.Message):
    __slots__ = ("position", "state", "card")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    position: int
    state: str
    card: _cards_pb2.Card
    def __init__(self, position: _Optional[int] = ..., state: _Optional[str] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class GolfLayout(_message.Message):
    __slots__ = ("seat", "slots", "face_down")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SLOTS_FIELD_NUMBER: _ClassVar[int]
    FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    slots: _containers.RepeatedCompositeFieldContainer[GolfSlot]
    face_down: int
    def __init__(self, seat: _Optional[int] = ..., slots: _Optional[_Iterable[_Union[GolfSlot, _Mapping]]] = ..., face_down: _Optional[int] = ...) -> None: ...

class GolfRules(_message.Message):
    __slots__ = ("variant", "scoring", "jokers", "bonus_rank", "decks", "holes", "target_score", "max_reshuffles", "max_turns", "peek_near_only", "initial_flips_same_column", "pairs_anywhere", "four_of_a_kind_bonus", "diagonal_pairs", "no_pairs", "final_turn_stock_only", "remove_cancelled", "early_end_penalty")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    BONUS_RANK_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    HOLES_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    MAX_RESHUFFLES_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    PEEK_NEAR_ONLY_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FLIPS_SAME_COLUMN_FIELD_NUMBER: _ClassVar[int]
    PAIRS_ANYWHERE_FIELD_NUMBER: _ClassVar[int]
    FOUR_OF_A_KIND_BONUS_FIELD_NUMBER: _ClassVar[int]
    DIAGONAL_PAIRS_FIELD_NUMBER: _ClassVar[int]
    NO_PAIRS_FIELD_NUMBER: _ClassVar[int]
    FINAL_TURN_STOCK_ONLY_FIELD_NUMBER: _ClassVar[int]
    REMOVE_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    EARLY_END_PENALTY_FIELD_NUMBER: _ClassVar[int]
    variant: str
    scoring: str
    jokers: int
    bonus_rank: str
    decks: int
    holes: int
    target_score: int
    max_reshuffles: int
    max_turns: int
    peek_near_only: bool
    initial_flips_same_column: bool
    pairs_anywhere: bool
    four_of_a_kind_bonus: bool
    diagonal_pairs: bool
    no_pairs: bool
    final_turn_stock_only: bool
    remove_cancelled: bool
    early_end_penalty: str
    def __init__(self, variant: _Optional[str] = ..., scoring: _Optional[str] = ..., jokers: _Optional[int] = ..., bonus_rank: _Optional[str] = ..., decks: _Optional[int] = ..., holes: _Optional[int] = ..., target_score: _Optional[int] = ..., max_reshuffles: _Optional[int] = ..., max_turns: _Optional[int] = ..., peek_near_only: _Optional[bool] = ..., initial_flips_same_column: _Optional[bool] = ..., pairs_anywhere: _Optional[bool] = ..., four_of_a_kind_bonus: _Optional[bool] = ..., diagonal_pairs: _Optional[bool] = ..., no_pairs: _Optional[bool] = ..., final_turn_stock_only: _Optional[bool] = ..., remove_cancelled: _Optional[bool] = ..., early_end_penalty: _Optional[str] = ...) -> None: ...

class GolfHoleResult(_message.Message):
    __slots__ = ("hole", "dealer", "ended_by", "knocked", "end", "card_points", "bonus_points", "penalties", "scores")
    HOLE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    KNOCKED_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    CARD_POINTS_FIELD_NUMBER: _ClassVar[int]
    BONUS_POINTS_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    hole: int
    dealer: int
    ended_by: int
    knocked: bool
    end: str
    card_points: _containers.RepeatedScalarFieldContainer[int]
    bonus_points: _containers.RepeatedScalarFieldContainer[int]
    penalties: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hole: _Optional[int] = ..., dealer: _Optional[int] = ..., ended_by: _Optional[int] = ..., knocked: _Optional[bool] = ..., end: _Optional[str] = ..., card_points: _Optional[_Iterable[int]] = ..., bonus_points: _Optional[_Iterable[int]] = ..., penalties: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...
