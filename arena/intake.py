"""Bots submitted from elsewhere: the one path that the ``SubmitBot`` RPC and the web
upload form share. A server admits an upload before its archive is read (the submitter's
token, then a place among the uploads it takes in at once: ``UploadPlaces``);
``submit_archive`` reads the archive with the upload limits, optionally checks the bot,
and stores the new version.

``submit_archive`` runs in a worker thread with its own database connection (reading an
archive and checking a bot take seconds, and must not stall a server's event loop).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena import checks
from arena.artifacts import Artifact, ArtifactLimits, SubmissionError, read_archive
from arena.store import Store
from referee.service.peers import PerAddress

UPLOAD_LIMITS = ArtifactLimits()
UPLOADS_AT_ONCE = 4  # uploads a server takes in at once (each held whole in memory)
UPLOADS_PER_SUBMITTER = 2
# How long an admitted upload may take to arrive: 50 MiB at 85 KB/s. A client trickling
# its archive would otherwise hold its place for as long as it liked.
UPLOAD_SECONDS = 600.0


class QuotaExceeded(SubmissionError):
    """A submission past the room its submitter may fill; nothing was stored."""


class TryLater(SubmissionError):
    """An upload the server cannot take now (nothing was stored); the same upload may be
    sent again later."""


def authenticate(db: Path, token: str) -> str:
    """The submitter ``token`` belongs to; UnknownSubmitter for a missing or wrong one."""
    store = Store(db)
    try:
        return store.submissions.submitter_for(token)
    finally:
        store.close()


class UploadPlaces:
    """How many uploads one server takes in at once. An archive (up to the upload limit,
    50 MiB) is held whole in memory while it is read, checked and stored: 30 uploads of
    45 MiB at once, without a token, took an ``arena serve`` to 5 GB. So an upload is
    admitted before a byte of its archive is read: its token must be a submitter's (a
    client without one makes the server read nothing), and past ``at_once`` uploads in
    all, or ``per_submitter`` from one submitter, it is refused (TryLater)."""

    def __init__(
        self,
        at_once: int = UPLOADS_AT_ONCE,
        per_submitter: int = UPLOADS_PER_SUBMITTER,
        arrive_seconds: float = UPLOAD_SECONDS,
    ) -> None:
        self.at_once = at_once
        self.arrive_seconds = arrive_seconds  # an admitted upload's time to arrive
        self.taking = 0
        self.by_submitter = PerAddress(per_submitter)
        self.lock = threading.Lock()

    @contextmanager
    def place(self, submitter: str) -> Iterator[None]:
        """Admit one upload of ``submitter`` (authenticated) while the block reads and
        submits it."""
        with self.lock:
            if self.taking >= self.at_once:
                raise TryLater(
                    f"the arena is taking in {self.at_once} uploads already; "
                    "send it again in a minute"
                )
            if not self.by_submitter.take(submitter):
                raise TryLater(
                    f"submitter {submitter!r} is sending {self.by_submitter.limit} uploads "
                    "already; send this one when one of them has ended"
                )
            self.taking += 1
        try:
            yield
        finally:
            with self.lock:
                self.taking -= 1
                self.by_submitter.give_back(submitter)


class CheckPlaces:
    """How many bot checks one server runs at once. A check plays the bot's matches for up
    to its CPU limit, a minute, beside tournaments whose bots' clocks run on wall time; so
    without a cap, uploads with a check could start any number. A submitter has one check
    at a time (another is refused at once); past ``at_once`` checks, an upload waits up to
    ``wait_seconds`` for a place, and is refused after that."""

    def __init__(self, at_once: int, wait_seconds: float) -> None:
        self.places = threading.BoundedSemaphore(at_once)
        self.wait_seconds = wait_seconds
        self.checking = PerAddress(1)  # by submitter
        self.lock = threading.Lock()

    @contextmanager
    def place(self, submitter: str) -> Iterator[None]:
        with self.lock:
            if not self.checking.take(submitter):
                raise TryLater(
                    f"a bot of submitter {submitter!r} is being checked already; "
                    "send this one again when that check has ended"
                )
        try:
            if not self.places.acquire(timeout=self.wait_seconds):
                raise TryLater(
                    f"the arena is checking other bots (waited {self.wait_seconds:.0f} s "
                    "for a place); send it again in a minute"
                )
            try:
                yield
            finally:
                self.places.release()
        finally:
            with self.lock:
                self.checking.give_back(submitter)


CHECK_PLACES = CheckPlaces(at_once=2, wait_seconds=30.0)


class CheckFailed(SubmissionError):
    """A submission whose check failed; nothing was stored."""

    def __init__(self, message: str, report: Sequence[str]) -> None:
        super().__init__(message)
        self.report = tuple(report)


@dataclass(frozen=True)
class Accepted:
    name: str
    version: int
    sha256: str
    size: int
    games: tuple[str, ...]
    command: tuple[str, ...]
    check_report: tuple[str, ...]


def _check_quota(store: Store, submitter: str, artifact: Artifact, limits: ArtifactLimits) -> None:
    if store.submissions.has_artifact(artifact.sha256):
        return  # stored already: it takes no more room
    held = store.submissions.stored_bytes(submitter)
    if held + artifact.size > limits.max_stored_bytes:
        raise QuotaExceeded(
            f"submitter {submitter!r} holds {held:,} bytes of bots; this one "
            f"({artifact.size:,} bytes unpacked) would pass the {limits.max_stored_bytes:,} "
            "a submitter may store (every version is kept); ask the operator for more room"
        )


def submit_archive(
    db: Path,
    token: str,
    name: str,
    archive: bytes,
    command: Sequence[str] = (),
    games: Sequence[str] = (),
    check: bool = False,
    move_seconds: float = 5.0,
    limits: ArtifactLimits = UPLOAD_LIMITS,
    check_places: CheckPlaces = CHECK_PLACES,
) -> Accepted:
    """Store ``archive`` as the next version of ``name`` for the token's submitter.
    Raises UnknownSubmitter, NameTaken, SubmissionError (CheckFailed, TryLater and
    QuotaExceeded among them)."""
    store = Store(db)
    try:
        submitter = store.submissions.submitter_for(token)
        artifact = read_archive(
            archive, limits, command=list(command) or None, games=list(games) or None
        )
        _check_quota(store, submitter, artifact, limits)  # before a check's seconds of work
        report: list[str] = []
        if check:
            with check_places.place(submitter):
                results = checks.check_artifact(name, artifact, move_seconds)
            report = [line for r in results for line in checks.report_lines(name, r)]
            if not results or not all(r.ok for r in results):
                raise CheckFailed(f"{name} failed its check; nothing was stored", report)
        # Again under SQLite's write lock, so uploads at once (from any process) stay in it.
        with store.writing():
            _check_quota(store, submitter, artifact, limits)
            entrant = store.submit_bot(name, artifact, submitter)
        version = int(entrant.name.rpartition("@")[2])
        return Accepted(
            name,
            version,
            artifact.sha256,
            artifact.size,
            entrant.games,
            entrant.command,
            tuple(report),
        )
    finally:
        store.close()
