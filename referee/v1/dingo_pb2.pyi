from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DingoDiscard(_message.Message):
    __slots__ = ("seat", "step", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    step: int
    card: _cards_pb2.Card
    def __init__(self, seat: _Optional[int] = ..., step: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class DingoPass(_message.Message):
    __slots__ = ("step", "from_seat", "to_seat", "card")
    STEP_FIELD_NUMBER: _ClassVar[int]
    FROM_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    step: int
    from_seat: int
    to_seat: int
    card: _cards_pb2.Card
    def __init__(self, step: _Optional[int] = ..., from_seat: _Optional[int] = ..., to_seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class DingoPlay(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: _cards_pb2.Card
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ...) -> None: ...

class DingoHunt(_message.Message):
    __slots__ = ("rank", "rabbit", "dingo_seat", "dingo", "wolves", "passed", "rabbit_seat", "result")
    RANK_FIELD_NUMBER: _ClassVar[int]
    RABBIT_FIELD_NUMBER: _ClassVar[int]
    DINGO_SEAT_FIELD_NUMBER: _ClassVar[int]
    DINGO_FIELD_NUMBER: _ClassVar[int]
    WOLVES_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    RABBIT_SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    rank: int
    rabbit: _cards_pb2.Card
    dingo_seat: int
    dingo: _cards_pb2.Card
    wolves: _containers.RepeatedCompositeFieldContainer[DingoPlay]
    passed: _containers.RepeatedScalarFieldContainer[int]
    rabbit_seat: int
    result: str
    def __init__(self, rank: _Optional[int] = ..., rabbit: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., dingo_seat: _Optional[int] = ..., dingo: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., wolves: _Optional[_Iterable[_Union[DingoPlay, _Mapping]]] = ..., passed: _Optional[_Iterable[int]] = ..., rabbit_seat: _Optional[int] = ..., result: _Optional[str] = ...) -> None: ...

class DingoDealScores(_message.Message):
    __slots__ = ("deal_number", "dealer", "scores")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    dealer: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class DingoObservation(_message.Message):
    __slots__ = ("seat", "deal_number", "deals", "target_score", "dealer", "phase", "step", "hunt_rank", "hand", "hand_sizes", "hunt_deck", "discards", "passes", "hunts", "table", "scoring_piles", "penalty_piles", "deal_scores", "totals", "deal_history")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    HUNT_RANK_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    HUNT_DECK_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    HUNTS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    SCORING_PILES_FIELD_NUMBER: _ClassVar[int]
    PENALTY_PILES_FIELD_NUMBER: _ClassVar[int]
    DEAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    DEAL_HISTORY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    deal_number: int
    deals: int
    target_score: int
    dealer: int
    phase: str
    step: int
    hunt_rank: int
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    hunt_deck: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    discards: _containers.RepeatedCompositeFieldContainer[DingoDiscard]
    passes: _containers.RepeatedCompositeFieldContainer[DingoPass]
    hunts: _containers.RepeatedCompositeFieldContainer[DingoHunt]
    table: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    scoring_piles: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    penalty_piles: _containers.RepeatedCompositeFieldContainer[_cards_pb2.CardGroup]
    deal_scores: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    deal_history: _containers.RepeatedCompositeFieldContainer[DingoDealScores]
    def __init__(self, seat: _Optional[int] = ..., deal_number: _Optional[int] = ..., deals: _Optional[int] = ..., target_score: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[str] = ..., step: _Optional[int] = ..., hunt_rank: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., hunt_deck: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., discards: _Optional[_Iterable[_Union[DingoDiscard, _Mapping]]] = ..., passes: _Optional[_Iterable[_Union[DingoPass, _Mapping]]] = ..., hunts: _Optional[_Iterable[_Union[DingoHunt, _Mapping]]] = ..., table: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., scoring_piles: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., penalty_piles: _Optional[_Iterable[_Union[_cards_pb2.CardGroup, _Mapping]]] = ..., deal_scores: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., deal_history: _Optional[_Iterable[_Union[DingoDealScores, _Mapping]]] = ...) -> None: ...
