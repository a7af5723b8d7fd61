"""The exact search with the stock unseen (referee/games/golf_solitaire/unseen.c, driven
by unseen.py) against a plain expectimax over single moves written here, on small random
positions; against a build of itself without its cuts, on larger ones; against the
solver with the stock known (no player can clear more often than that); and, on a whole
dealt hole, against the clears its own best runs make over sampled stock orders."""

from __future__ import annotations

import itertools
import math
import os
import random
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from referee.cards import STANDARD_DECK
from referee.games.golf_solitaire.deals import pysol_deal
from referee.games.golf_solitaire.rules import EMPTY, adjacency
from referee.games.golf_solitaire.solver import Adjacency, best_score, rank_code, solve
from referee.games.golf_solitaire.unseen import UnseenStockSearch, search_program

SOURCE = Path(__file__).parents[2] / "referee" / "games" / "golf_solitaire" / "unseen.c"

Columns = tuple[tuple[int, ...], ...]


def move_by_move_chance(
    columns: Columns, top: int, unseen: tuple[int, ...], adj: Adjacency, blocked: bool
) -> float:
    """The best chance to clear, one move at a time: play any card that fits, or turn the
    stock (every unseen rank drawn as often as it is unseen), taking the better."""

    @cache
    def value(columns: Columns, top: int, unseen: tuple[int, ...]) -> float:
        if not any(columns):
            return 1.0
        best = 0.0
        playable = False
        for c, col in enumerate(columns):
            if col and adj[top][col[-1]]:
                playable = True
                after = (*columns[:c], col[:-1], *columns[c + 1 :])
                best = max(best, value(after, col[-1], unseen))
        if unseen and top != EMPTY and not (blocked and playable):
            draws = [value(columns, r, unseen[:i] + unseen[i + 1 :]) for i, r in enumerate(unseen)]
            best = max(best, sum(draws) / len(draws))
        return best

    return value(columns, top, tuple(sorted(unseen)))


def _position(rng: random.Random, jokers: int) -> tuple[Columns, int, list[int]]:
    """A few cards against a few unseen ones, the unseen mostly next to a tableau card's
    rank: positions whose chance is neither 0 nor 1 are then common."""
    ranks = [c.rank for c in STANDARD_DECK] + [0] * jokers
    rng.shuffle(ranks)
    used = rng.randint(1, 4)
    columns = tuple(
        tuple(ranks.pop() for _ in range(rng.randint(1, 2) if c < used else 0)) for c in range(7)
    )
    near = [r + d for col in columns for r in col for d in (-1, 1) if r + d in ranks]
    unseen = []
    for _ in range(rng.randint(0, 6)):
        r = rng.choice(near) if near and rng.random() < 0.7 else ranks[-1]
        if r in ranks:  # not yet taken by an earlier pick
            ranks.remove(r)
            unseen.append(r)
    top = EMPTY if rng.random() < 0.1 else ranks.pop()
    return columns, top, unseen


@pytest.mark.parametrize("variant", range(8))
def test_the_chance_is_that_of_the_best_play_move_by_move(variant: int) -> None:
    qok, wrap, blocked = bool(variant & 1), bool(variant & 2), bool(variant & 4)
    adj = adjacency(qok, wrap)
    rng = random.Random(100 + variant)
    somewhere_between = 0  # positions neither sure to clear nor lost: the cases that matter
    for i in range(200):
        columns, top, unseen = _position(rng, jokers=i % 3)
        expected = move_by_move_chance(columns, top, tuple(unseen), adj, blocked)
        search = UnseenStockSearch(columns, adj, blocked)
        chance, run = search.best_run([len(c) for c in columns], top, unseen)
        assert chance == pytest.approx(expected), (columns, top, unseen)
        somewhere_between += 0 < expected < 1
        # The run is legal and stops where the same chance is kept.
        heights, t = [len(c) for c in columns], top
        for c in run:
            assert heights[c] and adj[t][columns[c][heights[c] - 1]]
            t = columns[c][heights[c] - 1]
            heights[c] -= 1
        if any(heights) and unseen:
            kept = search.chance(heights, unseen)
            assert kept == pytest.approx(chance)
        else:
            assert chance == (0.0 if any(heights) else 1.0)
    assert somewhere_between >= 10


def test_no_player_clears_more_often_than_with_the_stock_known() -> None:
    # Positions with 5 stock cards left on the solver's clearing line of PySolFC deals
    # 1-60 (so clearing is possible for some orders): the chance with the order unseen
    # is at most the share of the 120 orders the solver clears with it known.
    adj = adjacency(False, False)
    below = compared = 0
    for number in range(1, 61):
        dealt = pysol_deal(number)
        line = solve(dealt)
        if not line.clearable:
            continue
        columns = [[c.rank for c in col] for col in dealt.tableau]
        top, stock = rank_code(dealt.foundation), [c.rank for c in dealt.stock]
        for move in line.moves:
            if len(stock) == 5:
                break
            top = stock.pop(0) if move == "stock" else columns[int(move[5:])].pop()
        if not any(columns):
            continue
        orders = list(itertools.permutations(stock))
        hindsight = sum(best_score(columns, top, o, adj, False) <= 0 for o in orders) / len(orders)
        search = UnseenStockSearch(columns, adj, False)
        chance, _run = search.best_run([len(c) for c in columns], top, stock)
        assert chance <= hindsight + 1e-12, number
        compared += 1
        below += chance < hindsight - 1e-12
    assert compared >= 15
    assert below >= 1  # deal 27: 0.533 against 0.817: not knowing the order costs clears


def test_stopping_short_keeps_a_card_for_a_later_one() -> None:
    # Foundation 5; columns [5, 3] (the 3 on top) and [6]; unseen a 2 and a 7. Playing
    # the 6 now loses: the 3 then takes the 2, and the 5 under it waits for a 4 or a 6
    # that never comes. Keeping the 6 clears when the 2 comes first: it takes the 3, and
    # the 7 then takes the 6 and the 5. So: turn the stock at once, a clear half the time.
    adj = adjacency(False, False)
    columns: Columns = ((5, 3), (6,), (), (), (), (), ())
    search = UnseenStockSearch(columns, adj, False)
    assert search.best_run([2, 1, 0, 0, 0, 0, 0], 5, [2, 7]) == (0.5, [])
    played_the_6 = search.chance([2, 0, 0, 0, 0, 0, 0], [2, 7])
    assert played_the_6 == 0.0
    assert move_by_move_chance(columns, 5, (2, 7), adj, False) == 0.5


def test_the_stock_is_not_turned_onto_an_empty_foundation() -> None:
    adj = adjacency(False, False)
    columns: Columns = ((3,), (), (), (), (), (), ())
    chance, run = UnseenStockSearch(columns, adj, False).best_run([1, 0, 0, 0, 0, 0, 0], EMPTY, [9])
    assert (chance, run) == (1.0, [0])  # the 3 starts the foundation and clears
    blocked: Columns = ((3, 5), (), (), (), (), (), ())
    search = UnseenStockSearch(blocked, adj, False)
    # From an empty foundation the 5 must be played first; then a 4 or 2 would take the 3.
    assert search.best_run([2, 0, 0, 0, 0, 0, 0], EMPTY, [4, 9]) == (1.0, [0])
    assert search.best_run([2, 0, 0, 0, 0, 0, 0], EMPTY, [9, 9])[0] == 0.0


def _build(target: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    compiler = os.environ.get("CC") or "cc"
    return subprocess.run(
        [compiler, "-std=c11", "-O2", *flags, "-o", str(target), str(SOURCE)],
        capture_output=True,
        text=True,
    )


def test_the_search_builds_without_a_warning(tmp_path: Path) -> None:
    for flags in ([], ["-DNO_CUTS"]):
        done = _build(tmp_path / "search", "-Wall", "-Wextra", "-Werror", "-pedantic", *flags)
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def uncut(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The search built without its cuts (the runs count and the predecessors)."""
    program = tmp_path_factory.mktemp("uncut") / "search"
    done = _build(program, "-DNO_CUTS")
    assert done.returncode == 0, done.stderr
    return program


def _mid_hole(rng: random.Random) -> tuple[list[list[int]], list[int], int, list[int]]:
    """A position on the solver's clearing line of a clearable PySolFC deal, with 5 to 8
    stock cards left (so its chance with the order unseen is often between 0 and 1):
    the dealt columns, the heights, the foundation's top and the unseen ranks."""
    while True:
        dealt = pysol_deal(rng.randint(1, 100_000))
        line = solve(dealt)
        if line.clearable:
            break
    columns = [[c.rank for c in col] for col in dealt.tableau]
    heights = [len(col) for col in columns]
    top, stock = rank_code(dealt.foundation), [c.rank for c in dealt.stock]
    left = rng.randint(5, 8)
    for move in line.moves:
        if len(stock) == left:
            break
        if move == "stock":
            top = stock.pop(0)
        else:
            c = int(move[5:])
            top = columns[c][heights[c] - 1]
            heights[c] -= 1
    return columns, heights, top, stock


@pytest.mark.parametrize("variant", ["strict", "queen_on_king", "wrap", "blocked"])
def test_the_cuts_never_change_a_chance(variant: str, uncut: Path) -> None:
    adj = adjacency(variant == "queen_on_king", variant == "wrap")
    blocked = variant == "blocked"
    rng = random.Random(variant)
    between = cut_states = uncut_states = 0
    for _ in range(40):
        columns, heights, top, unseen = _mid_hole(rng)
        with (
            UnseenStockSearch(columns, adj, blocked) as fast,
            UnseenStockSearch(columns, adj, blocked, program=uncut) as plain,
        ):
            chance, run = fast.best_run(heights, top, unseen)
            assert plain.best_run(heights, top, unseen) == (chance, run), (columns, heights)
            after = list(heights)
            for c in run:
                after[c] -= 1
            if any(after):
                assert fast.chance(after, unseen) == plain.chance(after, unseen) == chance
            between += 0 < chance < 1
            cut_states += fast.states
            uncut_states += plain.states
    assert between >= 10
    assert cut_states < uncut_states / 2  # the cuts do cut


def test_a_whole_hole_clears_as_often_as_its_chance_says() -> None:
    # PySolFC deal 1044 from the deal (valued in about a second): following the search's
    # best runs over sampled stock orders clears about as often as the chance it gives,
    # and never more often than the solver does with those orders known.
    dealt = pysol_deal(1044)
    adj = adjacency(False, False)
    columns = [[c.rank for c in col] for col in dealt.tableau]
    stock = [c.rank for c in dealt.stock]
    rng = random.Random(8)
    with UnseenStockSearch(columns, adj, False) as search:
        chance, _run = search.best_run([5] * 7, rank_code(dealt.foundation), stock)
        assert 0.05 < chance < 0.95
        games, cleared, hindsight = 400, 0, 0
        for _ in range(games):
            order = rng.sample(stock, len(stock))
            hindsight += best_score(columns, rank_code(dealt.foundation), order, adj, False) <= 0
            heights, top, unseen = [5] * 7, rank_code(dealt.foundation), list(order)
            while True:
                now, run = search.best_run(heights, top, unseen)
                for c in run:
                    top = columns[c][heights[c] - 1]
                    heights[c] -= 1
                if not any(heights) or not unseen or now == 0.0:
                    break
                top = unseen.pop(0)  # the search sees only the multiset; the order is ours
            cleared += not any(heights)
    spread = math.sqrt(games * chance * (1 - chance))
    assert abs(cleared - games * chance) < 4 * spread, (cleared, games * chance)
    assert cleared <= hindsight


def test_a_position_that_does_not_fit_is_a_clear_error() -> None:
    adj = adjacency(False, False)
    columns = [[5, 3], [6], [], [], [], [], []]
    with UnseenStockSearch(columns, adj, False) as search:
        with pytest.raises(ValueError, match="do not fit"):
            search.best_run([3, 1, 0, 0, 0, 0, 0], 5, [2])
        # unseen cards that are not among the first query's: a fresh memo, same values
        assert search.best_run([2, 1, 0, 0, 0, 0, 0], 5, [2, 7]) == (0.5, [])
        later = search.best_run([2, 1, 0, 0, 0, 0, 0], 5, [4, 4, 7])
    with UnseenStockSearch(columns, adj, False) as fresh:
        assert later == fresh.best_run([2, 1, 0, 0, 0, 0, 0], 5, [4, 4, 7])
    # the program itself names what it cannot read, and stops
    done = subprocess.run(
        [str(search_program())], input="deal 5;3 - - - - - -\n", capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stdout == "error: columns are ranks joined by '.'\n"


# PySolFC deal 19 from the deal: the longest search of deals 1-261, 20 minutes of CPU.
LONG_DEAL = 19
_LONG_SEARCH = f"""
from referee.games.golf_solitaire.deals import pysol_deal
from referee.games.golf_solitaire.rules import adjacency
from referee.games.golf_solitaire.solver import rank_code
from referee.games.golf_solitaire.unseen import UnseenStockSearch
dealt = pysol_deal({LONG_DEAL})
search = UnseenStockSearch([[c.rank for c in col] for col in dealt.tableau], adjacency(False, False), False)
print(search._process.pid, flush=True)
search.best_run([5] * 7, rank_code(dealt.foundation), [c.rank for c in dealt.stock])
"""


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie no one reaps counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_search_whose_client_is_killed_stops() -> None:
    # Killed outright, the client closes nothing: the search notices its parent is gone
    # within a million states instead of running on alone for 20 minutes.
    client = subprocess.Popen(
        [sys.executable, "-c", _LONG_SEARCH], stdout=subprocess.PIPE, text=True
    )
    assert client.stdout is not None
    search_pid = int(client.stdout.readline())
    time.sleep(0.5)
    client.kill()
    client.wait()
    stopped = _wait_gone(search_pid, 40)
    if not stopped:
        os.kill(search_pid, signal.SIGKILL)
    assert stopped, "the search outlived its client"


def test_a_query_cut_short_ends_the_search() -> None:
    # Ctrl-C (here an alarm) while a whole hole is being valued: leaving the with block
    # kills the search's process rather than waiting the 20 minutes for its answer.
    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    dealt = pysol_deal(LONG_DEAL)
    columns = [[c.rank for c in col] for col in dealt.tableau]
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with UnseenStockSearch(columns, adjacency(False, False), False) as search:
            pid = search._process.pid
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            with pytest.raises(Interrupted):
                search.best_run([5] * 7, rank_code(dealt.foundation), [c.rank for c in dealt.stock])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert search._process.returncode == -signal.SIGKILL  # ended mid-search, not answered
    assert _gone(pid)
