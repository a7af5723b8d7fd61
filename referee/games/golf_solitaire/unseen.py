"""Golf solitaire with the stock unseen: the best chance any player can have of clearing
the tableau, and a run that keeps it.

A player knows which cards are still in the stock (every card not in the tableau or on
the foundation) but not their order, so every order is equally likely. Between two turns
of the stock the only choice is where the run of tableau plays stops; the next card is
then drawn at random from the unseen ones. The search is the exact expectimax over that:
``chance(h, D)`` for column heights ``h`` about to turn the stock, with the multiset
``D`` of unseen ranks, is the mean over the next card's rank ``r`` (weighted by its count
in ``D``) of the best ``chance(e, D - r)`` over every place ``e`` the run from ``(h, r)``
may stop, 1 at an empty tableau and 0 when the stock is out.

The search itself is C, ``unseen.c`` beside this file (a whole hole values tens of
millions of states: deals 1-200 of PySolFC take from a fraction of a second to a few
minutes each), compiled on first use with the system's C compiler (``$CC``, else ``cc``)
into the user's cache folder and driven through its line protocol. It is a measuring
tool, not a player: ``scripts/solitaire_eval --exact-from K`` plays it against the bots.
``tests/games/test_golf_solitaire_unseen.py`` checks it against a plain move-by-move
expectimax and against the solver with the order known, which no player can beat.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .rules import EMPTY
from .solver import Adjacency, check_columns

_SOURCE = Path(__file__).with_name("unseen.c")
_CFLAGS = ("-O3", "-std=c11")


class SearchUnavailable(RuntimeError):
    """The C search could not be built or run."""


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "card-arena"


@functools.cache
def search_program() -> Path:
    """The compiled search, built once per version of its source (and compiler flags)."""
    source = _SOURCE.read_bytes()
    digest = hashlib.sha256(source + " ".join(_CFLAGS).encode()).hexdigest()[:16]
    folder = _cache_folder()
    program = folder / f"golf-solitaire-unseen-{digest}"
    if program.exists():
        return program
    compiler = os.environ.get("CC") or "cc"
    if shutil.which(compiler) is None:
        raise SearchUnavailable(
            f"the exact stock-unseen search is C ({_SOURCE.name}) and needs a C compiler:"
            f" {compiler!r} is not installed (Debian: apt-get install gcc; or set CC)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        built = Path(scratch) / program.name
        done = subprocess.run(
            [compiler, *_CFLAGS, "-o", str(built), str(_SOURCE)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SearchUnavailable(f"{compiler} could not build {_SOURCE}:\n{done.stderr}")
        os.replace(built, program)  # atomic: another process may be building it too
    return program


def _ranks_text(ranks: Sequence[int]) -> str:
    return " ".join(map(str, ranks))


class UnseenStockSearch:
    """The expectimax of one dealt tableau, in a process of its own. Positions later in
    the hole are prefixes of its columns, so one search (and its memo) serves a whole
    hole. Close it (or use it as a context manager) to end the process.

    ``columns``: ranks bottom to top (0 joker, 1..13); ``adj[top][rank]``: may ``rank``
    go on ``top``; ``blocked_only``: the stock may be turned only when no card fits;
    ``program``: another build of the search (the tests build one without its cuts).
    """

    def __init__(
        self,
        columns: Sequence[Sequence[int]],
        adj: Adjacency,
        blocked_only: bool,
        program: Path | None = None,
    ) -> None:
        check_columns(columns)
        self.columns = [list(col) for col in columns]
        self.adj = adj
        self.blocked_only = blocked_only
        self.states = 0  # (heights, unseen) states valued so far
        self.cpu_seconds = 0.0  # the search process's CPU time so far
        self._first: Counter[int] | None = None  # the unseen ranks of the memo's first query
        self._process = subprocess.Popen(
            [str(program or search_program())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        bits = "".join("1" if self.adj[t][r] else "0" for t in range(15) for r in range(15))
        self._send(f"adj {bits}")
        self._send(f"blocked {int(blocked_only)}")
        self._deal()

    def _send(self, line: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(line + "\n")

    def _ask(self, line: str) -> list[str]:
        self._send(line)
        assert self._process.stdout is not None
        answer = self._process.stdout.readline().split()
        if not answer:
            code = self._process.wait()
            raise SearchUnavailable(f"the exact search stopped (exit status {code})")
        if answer[0] == "error:":
            raise ValueError(" ".join(answer[1:]))
        self.states = int(answer[-2])
        self.cpu_seconds += float(answer[-1])
        return answer

    def _deal(self) -> None:
        cols = " ".join(".".join(map(str, col)) or "-" for col in self.columns)
        self._send(f"deal {cols}")
        self._first = None

    def _position(self, heights: Sequence[int], unseen: Sequence[int]) -> str:
        """The query's heights digits; a fresh memo when the unseen cards are not among
        the first query's (the C search keys them relative to those)."""
        if len(heights) != len(self.columns) or any(
            not 0 <= h <= len(col) for h, col in zip(heights, self.columns, strict=True)
        ):
            raise ValueError(f"heights {list(heights)} do not fit this tableau")
        wanted = Counter(unseen)
        if self._first is not None and wanted - self._first:
            self._deal()
        if self._first is None:
            self._first = wanted
        return "".join(map(str, heights))

    def chance(self, heights: Sequence[int], unseen: Sequence[int]) -> float:
        """The best chance to clear from ``heights`` about to turn the stock, with the
        ranks ``unseen`` in it."""
        answer = self._ask(f"chance {self._position(heights, unseen)} {_ranks_text(unseen)}")
        return float(answer[0])

    def best_run(
        self, heights: Sequence[int], top: int, unseen: Sequence[int]
    ) -> tuple[float, list[int]]:
        """From a position mid-hole (``heights`` of this tableau's columns, ``top`` the
        foundation's top rank, 14 when empty, ``unseen`` the ranks still in the stock):
        the best chance to clear and the columns to play, in order, before turning the
        stock (or to the end of the hole). On equal chances the run leaving fewest cards
        is taken."""
        where = self._position(heights, unseen)
        answer = self._ask(f"best {where} {top} {_ranks_text(unseen)}")
        stop = [int(x) for x in answer[1]]
        return float(answer[0]), self._run_to(list(heights), top, stop, not unseen)

    def _run_to(self, heights: list[int], top: int, stop: list[int], stock_out: bool) -> list[int]:
        """Columns to play from (heights, top) to ``stop``, ending where the run may stop."""
        start = (tuple(heights), top)
        came: dict[tuple[tuple[int, ...], int], tuple[tuple[tuple[int, ...], int], int] | None]
        came = {start: None}
        frontier = [start]
        while frontier:
            here = frontier.pop()
            h, t = here
            plays = [c for c, col in enumerate(self.columns) if h[c] and self.adj[t][col[h[c] - 1]]]
            may_stop = not any(h) or stock_out or (t != EMPTY and not (self.blocked_only and plays))
            if list(h) == stop and may_stop:
                run: list[int] = []
                link = came[here]
                while link is not None:
                    here, c = link
                    run.append(c)
                    link = came[here]
                return run[::-1]
            for c in plays:
                after = ((*h[:c], h[c] - 1, *h[c + 1 :]), self.columns[c][h[c] - 1])
                if after not in came:
                    came[after] = (here, c)
                    frontier.append(after)
        raise AssertionError(f"the search's stop {stop} is not reachable from {heights}")

    def close(self) -> None:
        """End the search's process: at once when idle (it reads the end of its input);
        killed when a query was cut short (an exception, Ctrl-C) and it is still searching."""
        if self._process.poll() is None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            try:
                self._process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> UnseenStockSearch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit the pipe may be gone
            self.close()
