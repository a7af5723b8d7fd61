"""The arena's SQLite database (through sqlite-utils): entrants, tournaments, matches,
per-seat results, faults, replays, and ratings with their history.

One file, WAL mode. A finished match is written in one transaction with its results,
faults and replay, so a crash loses at most the matches in flight.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import time
import zlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from arena import run_locks
from arena.artifacts import Artifact
from arena.run_locks import RUNS_SUFFIX
from arena.settings import SettingsError, TournamentSettings
from arena.submissions import (
    BotVersion,
    NameTaken,
    SubmissionRefused,
    Submissions,
    check_name,
    split_ref,
)
from arena.transactions import write_transaction
from referee.match import MatchResult
from referee.replay import ReplayError, decompress_replay, now_iso, with_bot_logs

SCHEMA_VERSION = 1

SUBMISSIONS_SUFFIX = ".bots"  # beside the database: the submitted bots, unpacked


class StoreError(ValueError):
    """A database that cannot be used, or a record that does not exist."""


@dataclass(frozen=True)
class Entrant:
    """A bot as schedules see it: a plain command (``bots add``), or one version of a
    submitted bot (``name`` is then ``NAME@v`` and ``cwd`` its unpacked files)."""

    name: str
    games: tuple[str, ...]  # games it declares; ("*",) for any
    command: tuple[str, ...]
    cwd: str
    created: str
    sha256: str | None = None  # the submitted artifact; None for a plain command
    removed: bool = False  # no longer scheduled; its history stays
    submitter: str = ""

    def plays(self, game: str) -> bool:
        return "*" in self.games or game in self.games

    @property
    def kind(self) -> str:
        return "command" if self.sha256 is None else "submitted"


@dataclass(frozen=True)
class TournamentRecord:
    id: int
    game: str
    rules: dict[str, Any]
    rules_key: str
    bots: tuple[str, ...]
    seats: int
    rounds: int
    seed: int | None  # --seed, when the tournament was made reproducible with one
    concurrency: int
    settings: TournamentSettings
    status: str
    total_matches: int
    created: str
    finished: str | None
    secret: bytes | None = field(default=None, repr=False)  # the deals' secret; None: legacy
    schedule_version: int = 1  # arena.schedule.SCHEDULE_VERSION when it was created


@dataclass(frozen=True)
class _Output:
    text: str
    dropped_bytes: int


BUSY_SECONDS = 30.0  # how long a process waits for another's write before giving up


def _use_wal(db: sqlite_utils.Database) -> None:
    """Put the file in WAL mode (readers never block the writer), once per file. Switching
    needs the file to itself, and SQLite answers "locked" at once, without the busy wait,
    while another process opening the same new file switches it too: so look first, and
    try again for up to BUSY_SECONDS."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            if db.execute("pragma journal_mode").fetchone()[0] != "wal":
                db.enable_wal()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def deal_name(tournament_id: int, seed: int) -> str:
    """How results name the deal a match played (one-seat matches of one deal are rated
    together)."""
    return f"{tournament_id}/{seed}"


# What to do about a file SQLite finds damaged (unreadable_database names the file too).
DAMAGED_REMEDY = "the file is damaged: restore it from a backup, or try sqlite3's .recover"


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite found the file damaged ("database disk image is malformed")."""
    return getattr(exc, "sqlite_errorname", "").startswith("SQLITE_CORRUPT") or (
        "malformed" in str(exc)
    )


def unreadable_database(path: Path | str, exc: sqlite3.DatabaseError) -> str:
    """Why SQLite cannot read ``path``, and what to do: a damaged file is not another
    program's, and wants another remedy."""
    recover = f"restore it from a backup, or try 'sqlite3 {path} .recover' into a new file"
    if damaged(exc):
        return f"{path} is damaged ({exc}): {recover}"
    if "file is not a database" in str(exc):  # its header: any file, or a damaged one
        return f"{path} is not a database ({exc}); if it was an arena's, it is damaged: {recover}"
    if "disk I/O error" in str(exc) or "unable to open" in str(exc):
        name = Path(path).name
        return (
            f"cannot open {path}: {exc} (is its disk full, or its folder read-only? SQLite "
            f"needs to make {name}-wal and {name}-shm beside it)"
        )
    return f"{path} is not an arena database: {exc}"


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.db = sqlite_utils.Database(self.path)
            self.db.execute(f"pragma busy_timeout = {int(BUSY_SECONDS * 1000)}")
            self._schema_version()  # another program's database is left as it is
            _use_wal(self.db)
        except sqlite3.DatabaseError as exc:
            if "readonly" not in str(exc):
                raise StoreError(unreadable_database(self.path, exc)) from exc
            # A file this user may only read: read it as it is (a write says why it fails).
        self._migrate()
        self._check_columns()
        self._absolute_path = self.path.absolute()  # the same file whatever the cwd
        self._file = self._file_at_path()
        # Submitted bots' files are unpacked beside the database, one folder per hash.
        self.submissions = Submissions(
            self.db, self.path.resolve().with_name(self.path.name + SUBMISSIONS_SUFFIX)
        )

    def close(self) -> None:
        self.db.conn.close()

    def writing(self) -> AbstractContextManager[None]:
        """One write transaction (its reads included) against every process using the file:
        see arena.transactions. It first checks that the file is still the one opened."""
        self.check_same_file()
        return write_transaction(self.db)

    def _file_at_path(self) -> tuple[int, int] | None:
        try:
            st = self._absolute_path.stat()
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def check_same_file(self) -> None:
        """StoreError when the file at the path is no longer the one this store opened
        (removed, or another file moved into its place): writing on would put results
        where nobody looks, and the write-ahead log left at the path would later be
        replayed into the newcomer. The connection is closed and that log removed (see
        _own_log_files). A file copied over the open one in place keeps its identity and
        is not caught: SQLite says never to do that."""
        if self._file is not None and self._file_at_path() == self._file:
            return
        if self._file is not None:
            self._file = None
            own_log = self._own_log_files()
            with contextlib.suppress(sqlite3.Error):
                self.db.conn.close()
            for log in own_log:
                with contextlib.suppress(OSError):
                    log.unlink()
        raise StoreError(
            f"{self.path} was removed or replaced while this command used it; nothing more "
            "is written to it (what was stored before the change went with the file it "
            "opened)"
        )

    def _own_log_files(self) -> list[Path]:
        """The -wal and -shm files at the path that belong to the file this store opened
        (this process holds them open). Closing folds the log into that file only when no
        other connection is open on it; left at the path, the next connection would
        replay it into whatever file is there now, so they are removed after closing."""
        held = set()
        with contextlib.suppress(OSError):
            for fd in os.listdir("/proc/self/fd"):
                with contextlib.suppress(OSError):
                    st = os.stat(f"/proc/self/fd/{fd}")
                    held.add((st.st_dev, st.st_ino))
        own = []
        for suffix in ("-wal", "-shm"):
            log = self._absolute_path.with_name(self._absolute_path.name + suffix)
            with contextlib.suppress(OSError):
                st = log.stat()
                if (st.st_dev, st.st_ino) in held:
                    own.append(log)
        return own

    # ---- schema -------------------------------------------------------------

    def _migrate(self) -> None:
        """Create the tables of a new database, or add the columns an older one lacks.
        Checked first without the write lock (every open does this); done under it, after
        checking again, since another process may be opening the same new file."""
        version = self._schema_version()
        if version is not None:
            self._check_schema(version)
            if not self._missing_columns():
                return
        with write_transaction(self.db):  # before the file's identity is taken
            version = self._schema_version()
            if version is None:
                _create_tables(self.db)
            else:
                self._check_schema(version)
            for table, column, kind, default in self._missing_columns():
                self.db.table(table).add_column(column, kind, not_null_default=default)

    def _check_schema(self, version: int) -> None:
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema {version}; this arena uses {SCHEMA_VERSION}")
        missing = sorted(set(_expected_columns()) - set(self.db.table_names()))
        if missing:
            raise StoreError(f"{self.path} is damaged: it has no table {', '.join(missing)}")

    def _check_columns(self) -> None:
        for table, columns in _expected_columns().items():
            missing = sorted(columns - set(self.db.table(table).columns_dict))
            if missing:
                raise StoreError(
                    f"{self.path} is damaged: its table {table} has no column {', '.join(missing)}"
                )

    def _schema_version(self) -> int | None:
        """The arena schema of the file; None for a new, empty one. StoreError for a
        database of another program (tables but no arena schema: it is not changed)."""
        try:
            names = set(self.db.table_names())
        except sqlite3.DatabaseError as exc:
            raise StoreError(unreadable_database(self.path, exc)) from exc
        if "meta" not in names:
            if names:
                shown = ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")
                raise StoreError(
                    f"{self.path} is not an arena database (it has tables {shown} and no "
                    "arena schema); give another --db"
                )
            return None
        try:
            return int(self.db.table("meta").get("schema")["value"])
        except (sqlite_utils.db.NotFoundError, TypeError, ValueError) as exc:
            raise StoreError(f"{self.path} is damaged: its meta table has no schema") from exc

    def _missing_columns(self) -> list[tuple[str, str, type, int | None]]:
        """Columns added since schema 1 that an older database lacks: (table, column, type,
        default)."""
        return [a for a in _ADDED_COLUMNS if a[1] not in self.db.table(a[0]).columns_dict]

    # ---- entrants -------------------------------------------------------------

    def add_entrant(
        self, name: str, games: Sequence[str], command: Sequence[str], cwd: str
    ) -> Entrant:
        try:
            check_name(name)
        except SubmissionRefused as exc:
            raise StoreError(str(exc)) from exc
        if not command:
            raise StoreError("give the command that starts the bot after '--'")
        with self.writing():  # the name is free, as stored now
            if self.submissions.is_submitted(name):
                raise StoreError(
                    f"{name!r} is a submitted bot; add versions with 'arena bots submit'"
                )
            if self.db.table("entrants").count_where("name = ?", [name]):
                raise StoreError(f"a bot named {name!r} exists already")
            entrant = Entrant(name, tuple(games), tuple(command), cwd, now_iso())
            self.db.table("entrants").insert(
                {
                    "name": name,
                    "games": json.dumps(list(games)),
                    "command": json.dumps(list(command)),
                    "cwd": cwd,
                    "created": entrant.created,
                }
            )
        return entrant

    def entrants(self) -> list[Entrant]:
        """Plain-command bots, and the latest version of each submitted bot."""
        plain = [
            self._entrant(row) for row in self.db.table("entrants").rows_where(order_by="name")
        ]
        latest: dict[str, Entrant] = {}
        for v in self.submissions.versions():
            latest[v.name] = self._version_entrant(v, unpack=False)
        return sorted([*plain, *latest.values()], key=lambda e: e.name)

    def entrant(self, ref: str) -> Entrant:
        """``NAME`` (a plain bot, or a submitted bot's latest version) or ``NAME@v``."""
        try:
            name, version = split_ref(ref)
            if version is not None or self.submissions.is_submitted(name):
                return self._version_entrant(self.submissions.version(name, version))
        except SubmissionRefused as exc:
            raise StoreError(str(exc)) from exc
        rows = list(self.db.table("entrants").rows_where("name = ?", [ref]))
        if not rows:
            known = ", ".join(e.name for e in self.entrants()) or "none yet"
            raise StoreError(
                f"no bot named {ref!r} (registered: {known}); "
                "add it with 'arena bots submit' or 'arena bots add'"
            )
        return self._entrant(rows[0])

    def submit_bot(self, name: str, artifact: Artifact, submitter: str) -> Entrant:
        """Store a new version of a submitted bot (see arena.submissions); raises
        SubmissionRefused (NameTaken for another's name)."""
        with self.writing():
            self.check_submittable(name, submitter)  # again, as stored now
            version = self.submissions.submit(name, artifact, submitter)
        return self._version_entrant(version, unpack=False)

    def check_submittable(self, name: str, submitter: str) -> None:
        """Refuse (SubmissionRefused, NameTaken) a name under which ``submitter`` may not
        store a version: checked before any work on a submission (reading it, a check's
        matches), and again when it is stored."""
        check_name(name)
        if self.db.table("entrants").count_where("name = ?", [name]):
            raise NameTaken(
                f"{name!r} is a plain-command bot ('arena bots add'); submit under another name"
            )
        self.submissions.check_owner(name, submitter)

    def remove_entrant(self, ref: str) -> list[str]:
        """Stop scheduling a bot (every version, or ``NAME@v``); its history stays.
        Returns the names this removed (none if they all were already)."""
        name, _ = split_ref(ref)
        try:
            if "@" in ref or self.submissions.is_submitted(name):
                return [v.ref for v in self.submissions.remove(ref)]
        except SubmissionRefused as exc:
            raise StoreError(str(exc)) from exc
        entrant = self.entrant(ref)
        if entrant.removed:
            return []
        self.db.table("entrants").update(entrant.name, {"removed": 1})
        return [entrant.name]

    def _version_entrant(self, v: BotVersion, unpack: bool = True) -> Entrant:
        return Entrant(
            v.ref,
            v.games,
            v.command,
            str(self.submissions.unpacked(v)) if unpack else "",
            v.created,
            sha256=v.sha256,
            removed=v.removed,
            submitter=v.submitter,
        )

    @staticmethod
    def _entrant(row: dict[str, Any]) -> Entrant:
        return Entrant(
            row["name"],
            tuple(json.loads(row["games"])),
            tuple(json.loads(row["command"])),
            row["cwd"],
            row["created"],
            removed=bool(row.get("removed")),
        )

    # ---- tournaments -------------------------------------------------------------

    def create_tournament(
        self,
        settings: TournamentSettings,
        rules: dict[str, Any],
        rules_key: str,
        total_matches: int,
        secret: bytes,
        schedule_version: int,
    ) -> TournamentRecord:
        """Record a tournament: ``rules`` every option's value, ``settings`` as given,
        ``schedule_version`` the schedule's, so a resume plays the same schedule."""
        row = {
            "game": settings.game,
            "rules": json.dumps(rules, sort_keys=True),
            "rules_key": rules_key,
            "bots": json.dumps(list(settings.bots)),
            "seats": settings.seats,
            "rounds": settings.rounds,
            "seed": settings.seed,
            "concurrency": settings.concurrency,
            "settings": json.dumps(settings.to_json(), sort_keys=True),
            "status": "running",
            "total_matches": total_matches,
            "created": now_iso(),
            "finished": None,
            "secret": secret.hex(),
            "schedule_version": schedule_version,
        }
        table = self.db.table("tournaments")
        table.insert(row)
        assert table.last_pk is not None
        return self.tournament(int(table.last_pk))

    def tournament(self, tournament_id: int) -> TournamentRecord:
        rows = list(self.db.table("tournaments").rows_where("id = ?", [tournament_id]))
        if not rows:
            raise StoreError(f"no tournament {tournament_id}")

        r = rows[0]
        return TournamentRecord(
            r["id"],
            r["game"],
            json.loads(r["rules"]),
            r["rules_key"],
            tuple(json.loads(r["bots"])),
            r["seats"],
            r["rounds"],
            r["seed"],
            r["concurrency"],
            _stored_settings(r),
            _live_status(self.path, r["id"], r["status"]),
            r["total_matches"],
            r["created"],
            r["finished"],
            bytes.fromhex(r["secret"]) if r.get("secret") else None,
            r["schedule_version"],
        )

    def tournaments(self) -> list[TournamentRecord]:
        return [
            self.tournament(r["id"]) for r in self.db.table("tournaments").rows_where(order_by="id")
        ]

    def set_tournament_settings(self, tournament_id: int, settings: TournamentSettings) -> None:
        self.db.table("tournaments").update(
            tournament_id, {"settings": json.dumps(settings.to_json(), sort_keys=True)}
        )

    def set_tournament_status(self, tournament_id: int, status: str) -> None:
        self.check_same_file()
        finished = now_iso() if status == "finished" else None
        self.db.table("tournaments").update(tournament_id, {"status": status, "finished": finished})

    def finished_indexes(self, tournament_id: int) -> set[int]:
        rows = self.db.execute("select idx from matches where tournament_id = ?", [tournament_id])
        return {r[0] for r in rows.fetchall()}

    # ---- matches -------------------------------------------------------------

    def save_match(
        self,
        tournament_id: int | None,
        idx: int,
        rules_key: str,
        entrants: Sequence[str],
        result: MatchResult,
        started: str,
        seconds: float,
        worker: str = "local",
    ) -> None:
        """Write a finished match, its results, faults and replay in one transaction."""
        spec = result.spec
        outcome = result.outcome
        fault_counts = [sum(1 for f in result.faults if f.seat == s) for s in range(spec.seats)]
        with self.writing():
            self.db.table("matches").insert(
                {
                    "id": spec.match_id,
                    "tournament_id": tournament_id,
                    "idx": idx,
                    "game": spec.game,
                    "rules_key": rules_key,
                    "seed": spec.seed,
                    "seats": spec.seats,
                    "entrants": json.dumps(list(entrants)),
                    "artifacts": json.dumps([self.submissions.sha256_of(e) for e in entrants]),
                    "reason": result.reason,
                    "decisions": result.decisions,
                    "started": started,
                    "finished": now_iso(),
                    "seconds": round(seconds, 3),
                    "outcome": json.dumps(outcome.to_json()),
                    "worker": worker,
                }
            )
            self.db.table("results").insert_all(
                {
                    "match_id": spec.match_id,
                    "seat": seat,
                    "entrant": entrants[seat],
                    "score": outcome.scores[seat],
                    "rank": outcome.ranks[seat],
                    "team": None if outcome.teams is None else outcome.teams[seat],
                    "faults": fault_counts[seat],
                    "forfeited": int(seat in result.forfeited),
                }
                for seat in range(spec.seats)
            )
            if result.faults:
                self.db.table("faults").insert_all(
                    {
                        "match_id": spec.match_id,
                        "seat": f.seat,
                        "entrant": entrants[f.seat],
                        "kind": f.kind,
                        "reason": f.reason,
                        "decision": f.decision,
                    }
                    for f in result.faults
                )
            self.db.table("replays").insert(
                {"match_id": spec.match_id, "jsonl_z": zlib.compress(result.replay.encode(), 6)}
            )

    def discard_matches(self, tournament_id: int, from_idx: int) -> int:
        """Delete a tournament's matches from index ``from_idx`` on, with their results,
        faults and replays (an SPRT's matches beyond its verdict), in one transaction; the
        game's stored ratings count as stale until rated again. Returns how many."""
        where = "select id from matches where tournament_id = ? and idx >= ?"
        args = [tournament_id, from_idx]
        with self.writing():
            ids = [r[0] for r in self.db.execute(where, args).fetchall()]
            if not ids:
                return 0
            for table in ("faults", "results", "replays"):
                self.db.execute(f"delete from {table} where match_id in ({where})", args)
            self.db.execute("delete from matches where tournament_id = ? and idx >= ?", args)
            game, rules_key = self.db.execute(
                "select game, rules_key from tournaments where id = ?", [tournament_id]
            ).fetchone()
            self.db.execute("delete from meta where key = ?", [_rated_matches_key(game, rules_key)])
        return len(ids)

    def append_bot_output(self, match_id: str, seat: int, text: str, dropped_bytes: int) -> None:
        """Add what a seat's bot wrote after the match ended to its stored replay (to the
        seat's ``stderr`` line, or a new one)."""
        with self.writing():
            lines = self.replay_text(match_id).rstrip("\n").split("\n")
            for i, line in enumerate(lines):
                entry = json.loads(line)
                if entry.get("type") == "stderr" and entry.get("seat") == seat:
                    entry["text"] += text
                    entry["dropped_bytes"] += dropped_bytes
                    lines[i] = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
                    replay = "\n".join(lines) + "\n"
                    break
            else:
                logs = [_Output("", 0)] * seat + [_Output(text, dropped_bytes)]
                replay = with_bot_logs("\n".join(lines) + "\n", logs)
            self.db.table("replays").update(
                match_id, {"jsonl_z": zlib.compress(replay.encode(), 6)}
            )

    def save_worker_logs(self, tournament_id: int, logs: dict[str, str]) -> None:
        """The last lines of each Dask worker's log after a run, kept per tournament."""
        table = self.db.table("worker_logs")
        with self.writing():
            for worker, text in logs.items():
                table.upsert(
                    {
                        "tournament_id": tournament_id,
                        "worker": worker,
                        "log": text,
                        "saved": now_iso(),
                    },
                    pk=("tournament_id", "worker"),
                )

    def worker_logs(self, tournament_id: int) -> dict[str, str]:
        if "worker_logs" not in self.db.table_names():
            return {}
        rows = self.db.table("worker_logs").rows_where("tournament_id = ?", [tournament_id])
        return {r["worker"]: r["log"] for r in rows}

    def matches(
        self,
        game: str | None = None,
        tournament_id: int | None = None,
        entrant: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> list[dict[str, Any]]:
        where: list[str] = []
        args: list[Any] = []
        if game:
            where.append("game = ?")
            args.append(game)
        if tournament_id is not None:
            where.append("tournament_id = ?")
            args.append(tournament_id)
        if entrant:
            where.append("id in (select match_id from results where entrant = ?)")
            args.append(entrant)
        rows = self.db.table("matches").rows_where(
            " and ".join(where) or None,
            args,
            order_by="tournament_id, idx",
            limit=limit if limit is not None or offset is None else -1,  # SQLite: no limit
            offset=offset,
        )
        out = []
        for row in rows:
            row = dict(row)
            row["entrants"] = json.loads(row["entrants"])
            row["outcome"] = json.loads(row["outcome"])
            # a sha256 per seat (null for a plain command), as a list like the entrants (it
            # reached `matches list --json` as JSON text inside the JSON); None for a match
            # stored before the column was added
            row["artifacts"] = json.loads(row["artifacts"]) if row.get("artifacts") else None
            out.append(row)
        return out

    def first_match_id(self, tournament_id: int, moved: bool = False) -> str | None:
        """The id of the tournament's first stored match in schedule order (with ``moved``:
        the first in which a bot made a move), or None; without loading every match."""
        row = self.db.execute(
            "select id from matches where tournament_id = ?"
            + (" and decisions > 0" if moved else "")
            + " order by idx limit 1",
            [tournament_id],
        ).fetchone()
        return None if row is None else str(row[0])

    def matches_per_worker(self, tournament_id: int) -> dict[str, int]:
        """How many of the tournament's stored matches each Dask worker played ("local":
        played in the arena's own process)."""
        rows = self.db.execute(
            "select coalesce(nullif(worker, ''), 'local'), count(*) from matches"
            " where tournament_id = ? group by 1 order by 1",
            [tournament_id],
        )
        return {str(worker): int(count) for worker, count in rows}

    def match(self, match_id: str) -> dict[str, Any]:
        rows = self.matches_by_ids([match_id])
        if not rows:
            raise StoreError(f"no match {match_id!r}; list them with 'arena matches list'")
        return rows[0]

    def matches_by_ids(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        out = []
        for match_id in ids:
            for row in self.db.table("matches").rows_where("id = ?", [match_id]):
                row = dict(row)
                row["entrants"] = json.loads(row["entrants"])
                row["outcome"] = json.loads(row["outcome"])
                out.append(row)
        return out

    def match_rules(self, match_id: str) -> dict[str, Any]:
        """Every rule option of a stored match (from its tournament)."""
        row = self.db.execute(
            "select t.rules from matches m join tournaments t on t.id = m.tournament_id where m.id = ?",
            [match_id],
        ).fetchone()
        if row is None:
            raise StoreError(f"no match {match_id!r}")
        rules: dict[str, Any] = json.loads(row[0])
        return rules

    def replay_text(self, match_id: str) -> str:
        """A stored replay's text: StoreError if there is none, ReplayError if it cannot
        be read (decompressed under MAX_REPLAY_BYTES: a small blob can inflate to GBs)."""
        blob = self.replay_blob(match_id)
        if blob is None:
            raise StoreError(f"no replay for match {match_id!r}")
        return decompress_replay(blob, f"the stored replay of {match_id}")

    def replay_blob(self, match_id: str) -> Any:
        """A stored replay as stored (compressed; None if there is none). ReplayError when
        it lies on a damaged page of the file: that match's alone, the others' can still
        be read."""
        try:
            row = self.db.execute(
                "select jsonl_z from replays where match_id = ?", [match_id]
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise
            raise ReplayError(
                f"the stored replay of {match_id} cannot be read: {exc} ({DAMAGED_REMEDY})"
            ) from exc
        return None if row is None else row[0]

    def replay_ids(self, match_ids: Sequence[str] | None = None) -> list[str]:
        """The stored matches that have a replay, in schedule order (of ``match_ids`` if
        given, in their order). Read from the matches and the replays' index, never the
        replays themselves: a damaged replay is that match's problem alone."""
        if match_ids is None:
            rows = self.db.execute(
                "select id from matches where id in (select match_id from replays)"
                " order by tournament_id, idx"
            )
            return [row[0] for row in rows]
        return [
            mid
            for mid in match_ids
            if self.db.execute("select 1 from replays where match_id = ?", [mid]).fetchone()
        ]

    def results_in_order(
        self, game: str, rules_key: str, tournament_id: int | None = None
    ) -> list[tuple[str, list[dict[str, Any]]]]:
        """Every match of a game and rules (of one tournament, if given), in schedule order
        (tournament, index), with its per-seat results (each row also carries the match's
        index and ``deal``: its tournament and seed): what ratings are computed from."""
        only = "" if tournament_id is None else " and m.tournament_id = ?"
        rows = self.db.execute(
            f"""select m.id, m.tournament_id, m.idx, m.seed, r.seat, r.entrant, r.score, r.rank,
                      r.team, r.faults, r.forfeited
               from matches m join results r on r.match_id = m.id
               where m.game = ? and m.rules_key = ?{only} order by m.tournament_id, m.idx, r.seat""",
            [game, rules_key] + ([] if tournament_id is None else [tournament_id]),
        ).fetchall()
        out: list[tuple[str, list[dict[str, Any]]]] = []
        for (
            match_id,
            tournament,
            idx,
            seed,
            seat,
            entrant,
            score,
            rank,
            team,
            faults,
            forfeited,
        ) in rows:
            if not out or out[-1][0] != match_id:
                out.append((match_id, []))
            out[-1][1].append(
                {
                    "match_id": match_id,
                    "idx": idx,
                    "deal": deal_name(tournament, seed),
                    "seat": seat,
                    "entrant": entrant,
                    "score": score,
                    "rank": rank,
                    "team": team,
                    "faults": faults,
                    "forfeited": forfeited,
                }
            )
        return out

    def rules_keys(self, game: str) -> list[str]:
        rows = self.db.execute(
            "select rules_key, count(*) from matches where game = ? group by rules_key order by 2 desc",
            [game],
        )
        return [r[0] for r in rows.fetchall()]

    # ---- ratings -------------------------------------------------------------

    def replace_ratings(
        self,
        game: str,
        rules_key: str,
        current: dict[str, tuple[float, float, int]],
        history: list[tuple[int, str, str, float, float]],
        rated_matches: int,
    ) -> None:
        """Store a game's ratings for one rule set, computed over its first
        ``rated_matches`` stored matches (all of them when it was computed)."""
        with self.writing():
            self.db.conn.execute(
                "delete from ratings where game = ? and rules_key = ?", [game, rules_key]
            )
            self.db.conn.execute(
                "delete from rating_history where game = ? and rules_key = ?", [game, rules_key]
            )
            stamp = now_iso()
            self.db.table("ratings").insert_all(
                {
                    "game": game,
                    "rules_key": rules_key,
                    "entrant": name,
                    "mu": mu,
                    "sigma": sigma,
                    "games": games,
                    "updated": stamp,
                }
                for name, (mu, sigma, games) in current.items()
            )
            self.db.table("rating_history").insert_all(
                {
                    "game": game,
                    "rules_key": rules_key,
                    "seq": seq,
                    "match_id": match_id,
                    "entrant": name,
                    "mu": mu,
                    "sigma": sigma,
                }
                for seq, match_id, name, mu, sigma in history
            )
            self.db.table("meta").upsert(
                {"key": _rated_matches_key(game, rules_key), "value": str(rated_matches)},
                pk="key",
            )

    def ratings(
        self, game: str, rules_key: str, matches: int
    ) -> dict[str, tuple[float, float, int]] | None:
        """The stored ratings of a game and rule set, if they were computed over all of its
        ``matches`` stored matches; None when they are stale: an arena stopped (killed, or
        by a full disk) after storing matches and before rating them, or a run still
        playing. Matches are otherwise only added, so their number tells; a discard
        (:meth:`discard_matches`) removes the count with the matches."""
        with contextlib.suppress(sqlite_utils.db.NotFoundError):
            if self.db.table("meta").get(_rated_matches_key(game, rules_key))["value"] == str(
                matches
            ):
                rows = self.db.table("ratings").rows_where(
                    "game = ? and rules_key = ?", [game, rules_key]
                )
                return {r["entrant"]: (r["mu"], r["sigma"], r["games"]) for r in rows}
        return None


def _rated_matches_key(game: str, rules_key: str) -> str:
    """The meta row saying how many stored matches a game's ratings were computed over."""
    return f"rated matches {game} {rules_key}"


def _settings_before_the_object(stored: dict[str, Any]) -> dict[str, Any]:
    """Settings stored by an arena before TournamentSettings kept stderr in bytes."""
    if "bot_output_bytes" in stored and "bot_output_kb" not in stored:
        stored = {**stored, "bot_output_kb": int(stored["bot_output_bytes"]) // 1024}
    return stored


def database_files(path: str | Path) -> tuple[str, ...]:
    """A database's files by absolute path (with SQLite's journals, the tournaments' run
    locks and the folder submitted bots are unpacked in), which no bot may see: the
    sandbox hides them. Both as given and with symbolic links resolved: a bot's folder is
    stored resolved, and the sandbox matches paths as written."""
    bases = dict.fromkeys((os.path.abspath(path), os.path.realpath(path)))
    suffixes = ("", "-wal", "-shm", "-journal", RUNS_SUFFIX, SUBMISSIONS_SUFFIX)
    return tuple(base + suffix for base in bases for suffix in suffixes)


def _stored_settings(row: dict[str, Any]) -> TournamentSettings:
    """A stored tournament's settings; StoreError when they are refused now (a bound
    added since they were stored)."""
    try:
        return TournamentSettings.from_mapping(
            {
                **_settings_before_the_object(json.loads(row["settings"])),
                "game": row["game"],
                "bots": json.loads(row["bots"]),
                "seats": row["seats"],
                "rounds": row["rounds"],
                "seed": row["seed"],
                "concurrency": row["concurrency"],
            },
            strict=False,
        )
    except SettingsError as exc:
        raise StoreError(f"tournament {row['id']} has settings this arena refuses: {exc}") from exc


def _live_status(path: Path, tournament_id: int, status: str) -> str:
    """A tournament stored as running that no live arena plays was left by an arena
    that died (SIGKILL, a crash of the machine): it is interrupted, to resume."""
    if status == "running" and not run_locks.playing(path, tournament_id):
        return "interrupted"
    return status


def _create_tables(db: sqlite_utils.Database) -> None:
    db.table("meta").insert({"key": "schema", "value": str(SCHEMA_VERSION)}, pk="key")
    db.table("entrants").create(
        {"name": str, "games": str, "command": str, "cwd": str, "created": str}, pk="name"
    )
    db.table("tournaments").create(
        {
            "id": int,
            "game": str,
            "rules": str,
            "rules_key": str,
            "bots": str,
            "seats": int,
            "rounds": int,
            "seed": int,
            "concurrency": int,
            "settings": str,
            "status": str,
            "total_matches": int,
            "created": str,
            "finished": str,
            "secret": str,
            "schedule_version": int,
        },
        pk="id",
    )
    db.table("matches").create(
        {
            "id": str,
            "tournament_id": int,
            "idx": int,
            "game": str,
            "rules_key": str,
            "seed": int,
            "seats": int,
            "entrants": str,
            "reason": str,
            "decisions": int,
            "started": str,
            "finished": str,
            "seconds": float,
            "outcome": str,
        },
        pk="id",
        foreign_keys=[("tournament_id", "tournaments", "id")],
    )
    db.table("matches").create_index(["tournament_id", "idx"], unique=True)
    db.table("matches").create_index(["game", "rules_key"])
    db.table("results").create(
        {
            "match_id": str,
            "seat": int,
            "entrant": str,
            "score": float,
            "rank": int,
            "team": int,
            "faults": int,
            "forfeited": int,
        },
        pk=("match_id", "seat"),
        foreign_keys=[("match_id", "matches", "id")],
    )
    db.table("results").create_index(["entrant"])
    db.table("faults").create(
        {
            "id": int,
            "match_id": str,
            "seat": int,
            "entrant": str,
            "kind": str,
            "reason": str,
            "decision": int,
        },
        pk="id",
        foreign_keys=[("match_id", "matches", "id")],
    )
    db.table("replays").create({"match_id": str, "jsonl_z": bytes}, pk="match_id")
    db.table("ratings").create(
        {
            "game": str,
            "rules_key": str,
            "entrant": str,
            "mu": float,
            "sigma": float,
            "games": int,
            "updated": str,
        },
        pk=("game", "rules_key", "entrant"),
    )
    db.table("rating_history").create(
        {
            "game": str,
            "rules_key": str,
            "seq": int,
            "match_id": str,
            "entrant": str,
            "mu": float,
            "sigma": float,
        },
        pk=("game", "rules_key", "seq", "entrant"),
    )


# Columns added since schema 1, which an older database lacks: (table, column, type, default).
_ADDED_COLUMNS: list[tuple[str, str, type, int | None]] = [
    ("entrants", "removed", int, 0),
    ("matches", "artifacts", str, None),
    ("tournaments", "secret", str, None),  # before deals were secret
    ("matches", "worker", str, None),
    ("tournaments", "schedule_version", int, 1),  # before partnerships varied
]


@functools.cache
def _expected_columns() -> dict[str, frozenset[str]]:
    """Every table of the schema and its columns, as a new database has them."""
    db = sqlite_utils.Database(memory=True)
    _create_tables(db)
    columns = {t: set(db.table(t).columns_dict) for t in db.table_names()}
    for table, column, _kind, _default in _ADDED_COLUMNS:
        columns[table].add(column)
    return {t: frozenset(c) for t, c in columns.items()}
