from referee.v1 import dingo_pb2 as _dingo_pb2
from referee.v1 import gin_rummy_pb2 as _gin_rummy_pb2
from referee.v1 import golf_pb2 as _golf_pb2
from referee.v1 import golf_solitaire_pb2 as _golf_solitaire_pb2
from referee.v1 import goninkan_pb2 as _goninkan_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "action")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: Action
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "bot_name", "bot_version")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    token: str
    bot_name: str
    bot_version: str
    def __init__(self, token: _Optional[str] = ..., bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("request_id", "code")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    code: str
    def __init__(self, request_id: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "match_start", "turn", "events", "action_result", "match_over", "error", "goodbye")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ACTION_RESULT_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    turn: Turn
    events: Events
    action_result: ActionResult
    match_over: MatchOver
    error: Error
    goodbye: Goodbye
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., turn: _Optional[_Union[Turn, _Mapping]] = ..., events: _Optional[_Union[Events, _Mapping]] = ..., action_result: _Optional[_Union[ActionResult, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("player", "protocol")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    player: str
    protocol: str
    def __init__(self, player: _Optional[str] = ..., protocol: _Optional[str] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "game_version", "seat", "seats", "rules", "players", "move_seconds", "time_bank_seconds", "fault_policy", "max_strikes")
    class RulesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FAULT_POLICY_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    game_version: int
    seat: int
    seats: int
    rules: _containers.ScalarMap[str, str]
    players: _containers.RepeatedScalarFieldContainer[str]
    move_seconds: float
    time_bank_seconds: float
    fault_policy: str
    max_strikes: int
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., game_version: _Optional[int] = ..., seat: _Optional[int] = ..., seats: _Optional[int] = ..., rules: _Optional[_Mapping[str, str]] = ..., players: _Optional[_Iterable[str]] = ..., move_seconds: _Optional[float] = ..., time_bank_seconds: _Optional[float] = ..., fault_policy: _Optional[str] = ..., max_strikes: _Optional[int] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("request_id", "match_id", "seat", "seconds_left", "deadline_unix_ms", "time_bank_left", "observation", "legal_actions", "decision_number", "events")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_LEFT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    match_id: str
    seat: int
    seconds_left: float
    deadline_unix_ms: int
    time_bank_left: float
    observation: Observation
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    decision_number: int
    events: _containers.RepeatedCompositeFieldContainer[EventNotice]
    def __init__(self, request_id: _Optional[int] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., seconds_left: _Optional[float] = ..., deadline_unix_ms: _Optional[int] = ..., time_bank_left: _Optional[float] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., decision_number: _Optional[int] = ..., events: _Optional[_Iterable[_Union[EventNotice, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("gin_rummy", "golf", "golf_solitaire", "dingo", "goninkan")
    GIN_RUMMY_FIELD_NUMBER: _ClassVar[int]
    GOLF_FIELD_NUMBER: _ClassVar[int]
    GOLF_SOLITAIRE_FIELD_NUMBER: _ClassVar[int]
    DINGO_FIELD_NUMBER: _ClassVar[int]
    GONINKAN_FIELD_NUMBER: _ClassVar[int]
    gin_rummy: _gin_rummy_pb2.GinRummyObservation
    golf: _golf_pb2.GolfObservation
    golf_solitaire: _golf_solitaire_pb2.GolfSolitaireObservation
    dingo: _dingo_pb2.DingoObservation
    goninkan: _goninkan_pb2.GoninkanObservation
    def __init__(self, gin_rummy: _Optional[_Union[_gin_rummy_pb2.GinRummyObservation, _Mapping]] = ..., golf: _Optional[_Union[_golf_pb2.GolfObservation, _Mapping]] = ..., golf_solitaire: _Optional[_Union[_golf_solitaire_pb2.GolfSolitaireObservation, _Mapping]] = ..., dingo: _Optional[_Union[_dingo_pb2.DingoObservation, _Mapping]] = ..., goninkan: _Optional[_Union[_goninkan_pb2.GoninkanObservation, _Mapping]] = ...) -> None: ...

class Events(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[EventNotice]
    def __init__(self, events: _Optional[_Iterable[_Union[EventNotice, _Mapping]]] = ...) -> None: ...

class EventNotice(_message.Message):
    __slots__ = ("match_id", "kind", "text", "seat", "hand")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    kind: str
    text: str
    seat: int
    hand: int
    def __init__(self, match_id: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., seat: _Optional[int] = ..., hand: _Optional[int] = ...) -> None: ...

class ActionResult(_message.Message):
    __slots__ = ("request_id", "match_id", "status", "message", "strikes")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    match_id: str
    status: str
    message: str
    strikes: int
    def __init__(self, request_id: _Optional[int] = ..., match_id: _Optional[str] = ..., status: _Optional[str] = ..., message: _Optional[str] = ..., strikes: _Optional[int] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("seat", "kind", "reason", "decision_number")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    reason: str
    decision_number: int
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., reason: _Optional[str] = ..., decision_number: _Optional[int] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("match_id", "seat", "scores", "ranks", "reason", "faults", "details_json")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    DETAILS_JSON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    scores: _containers.RepeatedScalarFieldContainer[float]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    details_json: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., scores: _Optional[_Iterable[float]] = ..., ranks: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ..., details_json: _Optional[str] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("match_id", "delay_seconds")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DELAY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    delay_seconds: float
    def __init__(self, match_id: _Optional[str] = ..., delay_seconds: _Optional[float] = ...) -> None: ...

class WatchMessage(_message.Message):
    __slots__ = ("match_id", "events", "view", "match_over", "match_start")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    events: _containers.RepeatedCompositeFieldContainer[EventNotice]
    view: Observation
    match_over: MatchOver
    match_start: MatchStart
    def __init__(self, match_id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[EventNotice, _Mapping]]] = ..., view: _Optional[_Union[Observation, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RuleOption(_message.Message):
    __slots__ = ("name", "type", "default", "choices", "doc")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    default: str
    choices: _containers.RepeatedScalarFieldContainer[str]
    doc: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default: _Optional[str] = ..., choices: _Optional[_Iterable[str]] = ..., doc: _Optional[str] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("name", "version", "min_seats", "max_seats", "options", "presets")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PRESETS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    min_seats: int
    max_seats: int
    options: _containers.RepeatedCompositeFieldContainer[RuleOption]
    presets: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., min_seats: _Optional[int] = ..., max_seats: _Optional[int] = ..., options: _Optional[_Iterable[_Union[RuleOption, _Mapping]]] = ..., presets: _Optional[_Iterable[str]] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "rules", "seed", "seats", "players", "names", "move_seconds", "time_bank_seconds", "fault_policy", "max_strikes", "spectator_delay_seconds", "start_timeout_seconds")
    class RulesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FAULT_POLICY_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_SECONDS_FIELD_NUMBER: _ClassVar[int]
    START_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    game: str
    rules: _containers.ScalarMap[str, str]
    seed: int
    seats: int
    players: _containers.RepeatedScalarFieldContainer[str]
    names: _containers.RepeatedScalarFieldContainer[str]
    move_seconds: float
    time_bank_seconds: float
    fault_policy: str
    max_strikes: int
    spectator_delay_seconds: float
    start_timeout_seconds: float
    def __init__(self, game: _Optional[str] = ..., rules: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., seats: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., names: _Optional[_Iterable[str]] = ..., move_seconds: _Optional[float] = ..., time_bank_seconds: _Optional[float] = ..., fault_policy: _Optional[str] = ..., max_strikes: _Optional[int] = ..., spectator_delay_seconds: _Optional[float] = ..., start_timeout_seconds: _Optional[float] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seat_tokens")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_tokens: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., seat_tokens: _Optional[_Iterable[str]] = ...) -> None: ...

class IssuePlayerTokenRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class IssuePlayerTokenResponse(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class MatchStatusRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class MatchStatusResponse(_message.Message):
    __slots__ = ("match_id", "game", "state", "decisions", "to_act", "result")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    state: str
    decisions: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    result: MatchOver
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., state: _Optional[str] = ..., decisions: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., result: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...
