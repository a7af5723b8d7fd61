"""Submitted bots in the database: submitters and their tokens, the content-addressed
artifacts, and the numbered versions of each bot name.

A bot name belongs to the submitter who first used it; each submission under that name
is a new version (``NAME@1``, ``NAME@2``, ...), and ``NAME`` alone means the latest one
not removed. A version is immutable: its files live in the ``artifacts`` table under
their sha256 (one row per distinct content), and are unpacked read-only into a cache
folder beside the database when a bot is launched. Removing a version only stops it
being scheduled; its results and ratings stay.

Submitter tokens are stored as their sha256 only; the token itself is shown once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.artifacts import Artifact, unpack
from arena.transactions import write_transaction
from referee.numbers import whole_number
from referee.replay import now_iso

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # fullmatch: "$" lets a newline end it


class SubmissionRefused(ValueError):
    """A submission or registry change that is not allowed; the message says why."""


class UnknownSubmitter(SubmissionRefused):
    """A missing or wrong submitter token."""


class NameTaken(SubmissionRefused):
    """A bot name that belongs to another submitter (or to a plain-command bot)."""


@dataclass(frozen=True)
class BotVersion:
    name: str
    version: int
    sha256: str
    size: int
    files: int
    games: tuple[str, ...]
    command: tuple[str, ...]
    description: str
    submitter: str
    created: str
    removed: bool

    @property
    def ref(self) -> str:
        """The versioned name schedules, results and ratings use."""
        return f"{self.name}@{self.version}"


def check_name(name: str, what: str = "bot name") -> None:
    if not _NAME.fullmatch(name):
        raise SubmissionRefused(
            f"{what} {name!r}: up to 64 letters, digits, '-', '_' and '.', starting with a letter or digit"
        )


def split_ref(ref: str) -> tuple[str, int | None]:
    """``NAME`` -> (NAME, None); ``NAME@3`` -> (NAME, 3)."""
    name, at, version = ref.partition("@")
    if not at:
        return name, None
    number = whole_number(version)
    if number is None or number < 1:
        raise SubmissionRefused(f"{ref!r}: a version is a whole number from 1, as in {name}@2")
    return name, number


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Submissions:
    """The submitters, artifacts and bot versions tables of one arena database."""

    def __init__(self, db: sqlite_utils.Database, cache_dir: Path) -> None:
        self.db = db
        self.cache_dir = cache_dir
        self._ensure_tables()

    def _ensure_tables(self) -> None:
        db = self.db
        if {"submitters", "artifacts", "bot_versions"} <= set(db.table_names()):
            return  # checked first without the write lock, which every open would take
        with write_transaction(db):
            db.table("submitters").create(
                {"name": str, "token_sha256": str, "created": str}, pk="name", if_not_exists=True
            )
            db.table("artifacts").create(
                {"sha256": str, "size": int, "files": int, "archive": bytes, "created": str},
                pk="sha256",
                if_not_exists=True,
            )
            db.table("bot_versions").create(
                {
                    "name": str,
                    "version": int,
                    "sha256": str,
                    "games": str,
                    "command": str,
                    "description": str,
                    "submitter": str,
                    "created": str,
                    "removed": int,
                },
                pk=("name", "version"),
                foreign_keys=[("sha256", "artifacts", "sha256")],
                if_not_exists=True,
            )

    # ---- submitters -----------------------------------------------------------

    def add_submitter(self, name: str) -> str:
        """Register a submitter; returns its token (shown once, stored hashed)."""
        check_name(name, "submitter name")
        token = secrets.token_urlsafe(32)
        with write_transaction(self.db):  # the name is free, as stored now
            if self.db.table("submitters").count_where("name = ?", [name]):
                raise SubmissionRefused(f"a submitter named {name!r} exists already")
            self.db.table("submitters").insert(
                {"name": name, "token_sha256": _token_hash(token), "created": now_iso()}
            )
        return token

    def submitters(self) -> list[dict[str, Any]]:
        return [
            {"name": r["name"], "created": r["created"]}
            for r in self.db.table("submitters").rows_where(order_by="name")
        ]

    def submitter_for(self, token: str) -> str:
        """The submitter a token belongs to, or SubmissionRefused."""
        if token:
            wanted = _token_hash(token)
            for row in self.db.table("submitters").rows:
                if hmac.compare_digest(row["token_sha256"], wanted):
                    return str(row["name"])
        raise UnknownSubmitter("a missing or unknown submitter token")

    # ---- versions -------------------------------------------------------------

    def check_owner(self, name: str, submitter: str) -> None:
        """Refuse ``name`` if its versions belong to another submitter (not named: the
        refusal reaches any token holder, and submitters are not public)."""
        owner = self.owner(name)
        if owner is not None and owner != submitter:
            raise NameTaken(
                f"the bot name {name!r} belongs to another submitter; choose another name"
            )

    def submit(self, name: str, artifact: Artifact, submitter: str) -> BotVersion:
        """Store ``artifact`` as the next version of ``name`` for ``submitter``."""
        check_name(name)
        manifest = artifact.manifest
        with write_transaction(self.db):  # the name's owner and next version, as stored now
            self.check_owner(name, submitter)
            if not self.has_artifact(artifact.sha256):
                self.db.table("artifacts").insert(
                    {
                        "sha256": artifact.sha256,
                        "size": artifact.size,
                        "files": len(artifact.files),
                        "archive": artifact.archive(),
                        "created": now_iso(),
                    }
                )
            row = self.db.execute(
                "select coalesce(max(version), 0) from bot_versions where name = ?", [name]
            ).fetchone()
            version = int(row[0]) + 1
            self.db.table("bot_versions").insert(
                {
                    "name": name,
                    "version": version,
                    "sha256": artifact.sha256,
                    "games": json.dumps(list(manifest.games)),
                    "command": json.dumps(list(manifest.command)),
                    "description": manifest.description,
                    "submitter": submitter,
                    "created": now_iso(),
                    "removed": 0,
                }
            )
        return self.version(name, version)

    def stored_bytes(self, submitter: str) -> int:
        """The unpacked size of every distinct content ``submitter``'s versions hold."""
        rows = self.db.execute(
            "select coalesce(sum(size), 0) from artifacts where sha256 in "
            "(select sha256 from bot_versions where submitter = ?)",
            [submitter],
        )
        return int(rows.fetchone()[0])

    def has_artifact(self, sha256: str) -> bool:
        return bool(self.db.table("artifacts").count_where("sha256 = ?", [sha256]))

    def owner(self, name: str) -> str | None:
        row = self.db.execute(
            "select submitter from bot_versions where name = ? order by version limit 1", [name]
        ).fetchone()
        return None if row is None else str(row[0])

    def is_submitted(self, name: str) -> bool:
        return bool(self.db.table("bot_versions").count_where("name = ?", [name]))

    def versions(self, name: str | None = None) -> list[BotVersion]:
        where, args = ("v.name = ?", [name]) if name is not None else ("1", [])
        rows = self.db.execute(
            "select v.*, a.size, a.files from bot_versions v join artifacts a using (sha256) "
            f"where {where} order by v.name, v.version",
            args,
        )
        columns = [d[0] for d in rows.description]
        return [self._version(dict(zip(columns, r, strict=True))) for r in rows.fetchall()]

    def version(self, name: str, version: int | None = None) -> BotVersion:
        """A given version, or with None the latest one not removed."""
        found = self.versions(name)
        if not found:
            raise SubmissionRefused(f"no submitted bot named {name!r}")
        if version is None:
            live = [v for v in found if not v.removed]
            if not live:
                raise SubmissionRefused(f"every version of {name!r} has been removed")
            return live[-1]
        for v in found:
            if v.version == version:
                return v
        raise SubmissionRefused(
            f"{name!r} has no version {version} (versions: {', '.join(str(v.version) for v in found)})"
        )

    def resolve(self, ref: str) -> BotVersion:
        name, version = split_ref(ref)
        return self.version(name, version)

    def remove(self, ref: str) -> list[BotVersion]:
        """Stop scheduling ``NAME@v`` (or every version of ``NAME``); history stays.
        Returns the versions this removed (none if they all were already)."""
        name, version = split_ref(ref)
        targets = [self.version(name, version)] if version is not None else self.versions(name)
        if not targets:
            raise SubmissionRefused(f"no submitted bot named {name!r}")
        targets = [v for v in targets if not v.removed]
        with write_transaction(self.db):
            for v in targets:
                self.db.table("bot_versions").update((v.name, v.version), {"removed": 1})
        return [self.version(v.name, v.version) for v in targets]

    def sha256_of(self, ref: str) -> str | None:
        """The content hash behind a versioned name; None for a plain-command bot."""
        name, version = ref.partition("@")[::2]
        number = whole_number(version)
        if number is None:
            return None
        row = self.db.execute(
            "select sha256 from bot_versions where name = ? and version = ?", [name, number]
        ).fetchone()
        return None if row is None else str(row[0])

    def archive(self, sha256: str) -> bytes:
        row = self.db.execute("select archive from artifacts where sha256 = ?", [sha256]).fetchone()
        if row is None:
            raise SubmissionRefused(f"no stored artifact {sha256[:12]}")
        return bytes(row[0])

    def unpacked(self, version: BotVersion) -> Path:
        """The version's files, read-only, in the cache beside the database."""
        return unpack(self.archive(version.sha256), version.sha256, self.cache_dir)

    @staticmethod
    def _version(row: dict[str, Any]) -> BotVersion:
        return BotVersion(
            name=row["name"],
            version=row["version"],
            sha256=row["sha256"],
            size=row["size"],
            files=row["files"],
            games=tuple(json.loads(row["games"])),
            command=tuple(json.loads(row["command"])),
            description=row["description"] or "",
            submitter=row["submitter"],
            created=row["created"],
            removed=bool(row["removed"]),
        )
