from referee.v1 import cards_pb2 as _cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GoninkanTrick(_message.Message):
    __slots__ = ("number", "leader", "seats", "cards", "named_suit", "winner", "honours", "kankei_won")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    NAMED_SUIT_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    HONOURS_FIELD_NUMBER: _ClassVar[int]
    KANKEI_WON_FIELD_NUMBER: _ClassVar[int]
    number: int
    leader: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    named_suit: str
    winner: int
    honours: int
    kankei_won: bool
    def __init__(self, number: _Optional[int] = ..., leader: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., named_suit: _Optional[str] = ..., winner: _Optional[int] = ..., honours: _Optional[int] = ..., kankei_won: _Optional[bool] = ...) -> None: ...

class GoninkanDeal(_message.Message):
    __slots__ = ("hand", "deal", "trump", "kankei_honours", "mukankei_honours", "result", "round_points")
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    KANKEI_HONOURS_FIELD_NUMBER: _ClassVar[int]
    MUKANKEI_HONOURS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ROUND_POINTS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    deal: int
    trump: str
    kankei_honours: int
    mukankei_honours: int
    result: str
    round_points: int
    def __init__(self, hand: _Optional[int] = ..., deal: _Optional[int] = ..., trump: _Optional[str] = ..., kankei_honours: _Optional[int] = ..., mukankei_honours: _Optional[int] = ..., result: _Optional[str] = ..., round_points: _Optional[int] = ...) -> None: ...

class GoninkanRound(_message.Message):
    __slots__ = ("yaku", "dealer", "trump", "kankei", "double_kankei", "results", "points")
    YAKU_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    KANKEI_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_KANKEI_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    yaku: int
    dealer: int
    trump: str
    kankei: _containers.RepeatedScalarFieldContainer[int]
    double_kankei: bool
    results: _containers.RepeatedScalarFieldContainer[str]
    points: int
    def __init__(self, yaku: _Optional[int] = ..., dealer: _Optional[int] = ..., trump: _Optional[str] = ..., kankei: _Optional[_Iterable[int]] = ..., double_kankei: _Optional[bool] = ..., results: _Optional[_Iterable[str]] = ..., points: _Optional[int] = ...) -> None: ...

class GoninkanObservation(_message.Message):
    __slots__ = ("seat", "phase", "to_act", "yaku", "yaku_count", "deal", "hand_number", "dealer", "first_dealer", "first_draw", "order", "round_trump", "trump", "kankei", "ace_holder", "joker_holder", "double_kankei", "kankei_target", "mukankei_target", "hand", "hand_sizes", "shown_cards", "exchange_gave", "exchange_received", "trick_number", "leader", "led_suit", "trick", "trick_seats", "tricks", "kankei_honours", "mukankei_honours", "declared", "round_points", "deals", "rounds", "scores")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    YAKU_FIELD_NUMBER: _ClassVar[int]
    YAKU_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DRAW_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    ROUND_TRUMP_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    KANKEI_FIELD_NUMBER: _ClassVar[int]
    ACE_HOLDER_FIELD_NUMBER: _ClassVar[int]
    JOKER_HOLDER_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_KANKEI_FIELD_NUMBER: _ClassVar[int]
    KANKEI_TARGET_FIELD_NUMBER: _ClassVar[int]
    MUKANKEI_TARGET_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    SHOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_GAVE_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_RECEIVED_FIELD_NUMBER: _ClassVar[int]
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    LED_SUIT_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICK_SEATS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    KANKEI_HONOURS_FIELD_NUMBER: _ClassVar[int]
    MUKANKEI_HONOURS_FIELD_NUMBER: _ClassVar[int]
    DECLARED_FIELD_NUMBER: _ClassVar[int]
    ROUND_POINTS_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: str
    to_act: int
    yaku: int
    yaku_count: int
    deal: int
    hand_number: int
    dealer: int
    first_dealer: int
    first_draw: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    order: _containers.RepeatedScalarFieldContainer[int]
    round_trump: str
    trump: str
    kankei: _containers.RepeatedScalarFieldContainer[int]
    ace_holder: int
    joker_holder: int
    double_kankei: bool
    kankei_target: int
    mukankei_target: int
    hand: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    shown_cards: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    exchange_gave: _cards_pb2.Card
    exchange_received: _cards_pb2.Card
    trick_number: int
    leader: int
    led_suit: str
    trick: _containers.RepeatedCompositeFieldContainer[_cards_pb2.Card]
    trick_seats: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedCompositeFieldContainer[GoninkanTrick]
    kankei_honours: int
    mukankei_honours: int
    declared: str
    round_points: int
    deals: _containers.RepeatedCompositeFieldContainer[GoninkanDeal]
    rounds: _containers.RepeatedCompositeFieldContainer[GoninkanRound]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[str] = ..., to_act: _Optional[int] = ..., yaku: _Optional[int] = ..., yaku_count: _Optional[int] = ..., deal: _Optional[int] = ..., hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., first_dealer: _Optional[int] = ..., first_draw: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., order: _Optional[_Iterable[int]] = ..., round_trump: _Optional[str] = ..., trump: _Optional[str] = ..., kankei: _Optional[_Iterable[int]] = ..., ace_holder: _Optional[int] = ..., joker_holder: _Optional[int] = ..., double_kankei: _Optional[bool] = ..., kankei_target: _Optional[int] = ..., mukankei_target: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., shown_cards: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., exchange_gave: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., exchange_received: _Optional[_Union[_cards_pb2.Card, _Mapping]] = ..., trick_number: _Optional[int] = ..., leader: _Optional[int] = ..., led_suit: _Optional[str] = ..., trick: _Optional[_Iterable[_Union[_cards_pb2.Card, _Mapping]]] = ..., trick_seats: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[_Union[GoninkanTrick, _Mapping]]] = ..., kankei_honours: _Optional[int] = ..., mukankei_honours: _Optional[int] = ..., declared: _Optional[str] = ..., round_points: _Optional[int] = ..., deals: _Optional[_Iterable[_Union[GoninkanDeal, _Mapping]]] = ..., rounds: _Optional[_Iterable[_Union[GoninkanRound, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...
