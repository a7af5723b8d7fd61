"""Write transactions that several processes can run on one arena database at once.

``arena serve``, ``arena web``, tournaments and Dask runs may all write to the same file.
sqlite-utils' ``db.atomic()`` opens a deferred transaction: it takes SQLite's write lock
only at its first write, and a transaction that read before that write fails at once with
"database is locked" when another process wrote in between (SQLite cannot wait there:
the transaction's reads would be out of date). ``write_transaction`` takes the write lock
at BEGIN (``BEGIN IMMEDIATE``), where SQLite waits its busy timeout for the other writer,
so a transaction's reads and writes see one state of the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlite_utils


@contextmanager
def write_transaction(db: sqlite_utils.Database) -> Iterator[None]:
    """Run the block as one transaction holding the write lock from its start; inside
    another transaction, as a savepoint of it."""
    conn = db.conn
    if conn.in_transaction:
        with db.atomic():
            yield
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # an error may already have rolled it back
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
