"""Bots submitted from elsewhere: the one path that the ``SubmitBot`` RPC and the web
upload form share. It authenticates the submitter's token, reads the archive with the
upload limits, optionally checks the bot, and stores the new version.

Everything here runs in a worker thread with its own database connection (reading an
archive and checking a bot take seconds, and must not stall a server's event loop).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena import checks
from arena.artifacts import Artifact, ArtifactLimits, SubmissionError, read_archive
from arena.store import Store

UPLOAD_LIMITS = ArtifactLimits()


class QuotaExceeded(SubmissionError):
    """A submission past the room its submitter may fill; nothing was stored."""


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
) -> Accepted:
    """Store ``archive`` as the next version of ``name`` for the token's submitter.
    Raises UnknownSubmitter, NameTaken, SubmissionError (CheckFailed and QuotaExceeded
    among them)."""
    store = Store(db)
    try:
        submitter = store.submissions.submitter_for(token)
        artifact = read_archive(
            archive, limits, command=list(command) or None, games=list(games) or None
        )
        _check_quota(store, submitter, artifact, limits)  # before a check's seconds of work
        report: list[str] = []
        if check:
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
