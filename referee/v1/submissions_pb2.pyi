from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SubmitBotRequest(_message.Message):
    __slots__ = ("name", "archive", "command", "games", "check")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    name: str
    archive: bytes
    command: _containers.RepeatedScalarFieldContainer[str]
    games: _containers.RepeatedScalarFieldContainer[str]
    check: bool
    def __init__(self, name: _Optional[str] = ..., archive: _Optional[bytes] = ..., command: _Optional[_Iterable[str]] = ..., games: _Optional[_Iterable[str]] = ..., check: _Optional[bool] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("name", "version", "sha256", "size_bytes", "games", "command", "check_report")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    CHECK_REPORT_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    sha256: str
    size_bytes: int
    games: _containers.RepeatedScalarFieldContainer[str]
    command: _containers.RepeatedScalarFieldContainer[str]
    check_report: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., sha256: _Optional[str] = ..., size_bytes: _Optional[int] = ..., games: _Optional[_Iterable[str]] = ..., command: _Optional[_Iterable[str]] = ..., check_report: _Optional[_Iterable[str]] = ...) -> None: ...

class UploadBotRequest(_message.Message):
    __slots__ = ("submission", "chunk")
    SUBMISSION_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    submission: SubmitBotRequest
    chunk: bytes
    def __init__(self, submission: _Optional[_Union[SubmitBotRequest, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class UploadBotResponse(_message.Message):
    __slots__ = ("submitted",)
    SUBMITTED_FIELD_NUMBER: _ClassVar[int]
    submitted: SubmitBotResponse
    def __init__(self, submitted: _Optional[_Union[SubmitBotResponse, _Mapping]] = ...) -> None: ...
