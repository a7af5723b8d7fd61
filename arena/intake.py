"""Bots submitted from elsewhere: the one path that the ``SubmitBot`` RPC and the web
upload form share. A server admits an upload before its archive is read (the submitter's
token, then a place among the uploads it takes in at once: ``UploadPlaces``);
``submit_archive`` reads the archive with the upload limits, optionally checks the bot,
and stores the new version.

``submit_archive`` runs in a worker thread with its own database connection (reading an
archive and checking a bot take seconds, and must not stall a server's event loop).
"""

from __future__ import annotations

import sqlite3
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


class Places:
    """How many of one kind of work (``what``: uploads, checks) a server has under way at
    once: ``per_submitter`` of one submitter, past which another is refused at once, and
    ``at_once`` in all, past which it waits up to ``wait_seconds`` for a place and is
    refused after that (TryLater)."""

    def __init__(self, what: str, at_once: int, per_submitter: int, wait_seconds: float) -> None:
        self.what = what
        self.at_once = at_once
        self.wait_seconds = wait_seconds
        self.free = threading.BoundedSemaphore(at_once)
        self.by_submitter = PerAddress(per_submitter)
        self.lock = threading.Lock()

    @contextmanager
    def place(self, submitter: str) -> Iterator[None]:
        """Hold a place for ``submitter`` (authenticated) while the block runs."""
        with self.lock:
            if not self.by_submitter.take(submitter):
                raise TryLater(
                    f"submitter {submitter!r} has {_count(self.by_submitter.limit, self.what)} "
                    "under way already; send this one when one of them has ended"
                )
        try:
            if not self.free.acquire(timeout=self.wait_seconds):
                raise TryLater(
                    f"the arena has {_count(self.at_once, self.what)} under way "
                    f"(waited {self.wait_seconds:g} s for a place); send it again in a minute"
                )
            try:
                yield
            finally:
                self.free.release()
        finally:
            with self.lock:
                self.by_submitter.give_back(submitter)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class UploadPlaces(Places):
    """The uploads one server takes in at once. An archive (up to the upload limit, 50 MiB)
    is held whole in memory while it is read, checked and stored: 30 uploads of 45 MiB at
    once, without a token, took an ``arena serve`` to 5 GB. So an upload is admitted
    before a byte of its archive is read: its token must be a submitter's (a client
    without one makes the server read nothing), and past the places it is refused at once.
    Once admitted it has ``arrive_seconds`` to arrive."""

    def __init__(
        self,
        at_once: int = UPLOADS_AT_ONCE,
        per_submitter: int = UPLOADS_PER_SUBMITTER,
        arrive_seconds: float = UPLOAD_SECONDS,
    ) -> None:
        super().__init__("upload", at_once, per_submitter, wait_seconds=0.0)
        self.arrive_seconds = arrive_seconds


# Bot checks one server runs at once. A check plays the bot's matches for up to its CPU
# limit, a minute, beside tournaments whose bots' clocks run on wall time; without a cap,
# uploads with a check could start any number. One per submitter; two in all, for which
# an upload waits up to 30 s.
CHECK_PLACES = Places("check", at_once=2, per_submitter=1, wait_seconds=30.0)


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
    submitter: str,
    name: str,
    archive: bytes,
    command: Sequence[str] = (),
    games: Sequence[str] = (),
    check: bool = False,
    move_seconds: float = 5.0,
    limits: ArtifactLimits = UPLOAD_LIMITS,
    check_places: Places = CHECK_PLACES,
    check_runs: checks.CheckRuns | None = None,
) -> Accepted:
    """Store ``archive`` as the next version of ``name`` for ``submitter``, whom the
    server authenticated when it admitted the upload. Raises NameTaken, SubmissionError
    (CheckFailed, TryLater and QuotaExceeded among them); TryLater too when the arena
    cannot store it now (a full disk, a database busy or failing), or its server stops
    during the check (``check_runs``): nothing is stored, as the version is one
    transaction, and the fault is the server's, not the upload's."""
    try:
        return _submit(
            db,
            submitter,
            name,
            archive,
            command,
            games,
            check,
            move_seconds,
            limits,
            check_places,
            check_runs,
        )
    except checks.ChecksStopped:
        raise TryLater(
            f"the arena stopped while checking {name!r}; nothing was stored: send it again "
            "when the arena is back"
        ) from None
    except (OSError, sqlite3.OperationalError) as exc:
        # An OSError's text names the server's files; the uploader gets its reason alone.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise TryLater(
            f"the arena cannot store {name!r} now ({why}); nothing was stored: send it again later"
        ) from exc


def _submit(
    db: Path,
    submitter: str,
    name: str,
    archive: bytes,
    command: Sequence[str],
    games: Sequence[str],
    check: bool,
    move_seconds: float,
    limits: ArtifactLimits,
    check_places: Places,
    check_runs: checks.CheckRuns | None,
) -> Accepted:
    store = Store(db)
    try:
        store.check_submittable(name, submitter)  # before reading, or a check's matches
        artifact = read_archive(
            archive, limits, command=list(command) or None, games=list(games) or None
        )
        _check_quota(store, submitter, artifact, limits)  # before a check's seconds of work
        report: list[str] = []
        if check:
            with check_places.place(submitter):
                results = checks.check_artifact(name, artifact, move_seconds, runs=check_runs)
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
