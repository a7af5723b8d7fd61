"""``arena matches export``: one row per match and seat (tournament, match, game and its
version, rules, deal seed, seat, bot, score, rank, team, faults, forfeit, how the match
ended), as CSV or JSON Lines, for people who analyse results elsewhere."""

from __future__ import annotations

import csv
import json
import zlib
from collections.abc import Iterator
from typing import Any, TextIO

from arena.store import Store
from referee.replay import ReplayError

COLUMNS = (
    "tournament",
    "match",
    "idx",
    "game",
    "game_version",
    "rules",
    "seed",
    "seats",
    "seat",
    "bot",
    "score",
    "rank",
    "team",
    "faults",
    "forfeited",
    "reason",
    "decisions",
    "started",
    "finished",
    "seconds",
)


# A replay's header line is a few KiB; only that much of the replay is decompressed.
HEADER_BYTES = 1 << 20


class UnreadableHeader(ValueError):
    """A stored replay whose header line cannot be read."""


def _game_version(store: Store, match_id: str) -> int | None:
    """From the replay's header (the first line), which records the engine's version;
    None without a replay. Raises UnreadableHeader for a corrupt one, or one on a damaged
    page of the file."""
    try:
        blob = store.replay_blob(match_id)
    except ReplayError as exc:
        raise UnreadableHeader(match_id) from exc
    if blob is None:
        return None
    try:
        start = zlib.decompressobj().decompress(blob, HEADER_BYTES)
        header = json.loads(start.split(b"\n", 1)[0])
        version = header.get("game_version")
        return int(version) if version is not None else None
    except (zlib.error, TypeError, ValueError, AttributeError) as exc:  # JSON's errors too
        raise UnreadableHeader(match_id) from exc


def export_rows(
    store: Store,
    game: str | None = None,
    tournament_id: int | None = None,
    entrant: str | None = None,
    unreadable: list[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """The rows, in schedule order (tournament, match index, seat). A match whose stored
    replay is corrupt has no game version; its id is added to ``unreadable``."""
    for m in store.matches(game, tournament_id, entrant):
        try:
            version = _game_version(store, m["id"])
        except UnreadableHeader:
            version = None
            if unreadable is not None:
                unreadable.append(m["id"])
        seats = store.db.execute(
            "select seat, entrant, score, rank, team, faults, forfeited from results "
            "where match_id = ? order by seat",
            [m["id"]],
        ).fetchall()
        for seat, bot, score, rank, team, faults, forfeited in seats:
            yield {
                "tournament": m["tournament_id"],
                "match": m["id"],
                "idx": m["idx"],
                "game": m["game"],
                "game_version": version,
                "rules": m["rules_key"],
                "seed": m["seed"],
                "seats": m["seats"],
                "seat": seat,
                "bot": bot,
                "score": score,
                "rank": rank,
                "team": team,
                "faults": faults,
                "forfeited": bool(forfeited),
                "reason": m["reason"],
                "decisions": m["decisions"],
                "started": m["started"],
                "finished": m["finished"],
                "seconds": m["seconds"],
            }


def write_export(rows: Iterator[dict[str, Any]], out: TextIO, fmt: str) -> int:
    """Write ``rows`` as ``csv`` or ``jsonl``; returns how many."""
    count = 0
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
            count += 1
    else:
        for row in rows:
            out.write(json.dumps(row, sort_keys=False) + "\n")
            count += 1
    return count
