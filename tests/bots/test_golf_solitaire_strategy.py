"""The golf_solitaire strategy bot: it beats the random and greedy bots on the same deals,
keeps a bridge card when the only sure clear needs one, scores its best candidates card by
card exactly where that can be checked, plays the same moves from the same seed, and never
answers with an illegal code."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import itertools
import json
import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from referee.botkit import solitaire_adjacency
from referee.game import get_game, parse_rules
from referee.games.golf_solitaire.deals import pysol_deal
from referee.games.golf_solitaire.rules import adjacency
from referee.games.golf_solitaire.solver import rank_code
from referee.games.golf_solitaire.unseen import UnseenStockSearch
from referee.local import play_local
from referee.v1 import cards_pb2, golf_solitaire_pb2
from referee.views import observation_message
from sample_bots import golf_solitaire_greedy as greedy
from sample_bots import golf_solitaire_strategy as strategy
from sample_bots import random_bot

from .helpers import checked

GAME = "golf_solitaire"
ROOT = Path(__file__).resolve().parents[2]
STRICT = solitaire_adjacency(False, False)


@pytest.fixture(autouse=True)
def _fresh_streams() -> None:
    strategy.reseed("test")
    random_bot._rng.start_match("test")


def test_strategy_beats_random_in_duplicate_matches_seats_rotated() -> None:
    ranks = []
    for match in range(6):
        seat = match % 2  # the strategy's seat
        choosers = [strategy.choose, random_bot.choose]
        if seat:
            choosers.reverse()
        out = play_local(GAME, choosers, seed=match, rules={"holes": "2"})
        ranks.append(out.ranks[seat])
    assert sum(ranks) / len(ranks) <= 1.1, ranks


def test_strategy_scores_better_than_greedy_on_the_same_deals() -> None:
    totals = {}
    for name, bot in (("strategy", strategy.choose), ("greedy", greedy.choose)):
        out = play_local(GAME, [bot], seed=0, rules={"holes": "9", "deal_numbers": "1-9"})
        totals[name] = out.scores[0]
    assert totals["strategy"] < totals["greedy"] - 15, totals


# ---- A scripted position: the only sure clear keeps a bridge card ---------------------
# Foundation 2; columns (bottom to top) A 2 4 | 5 | 3; the stock holds a 2 and a 4 in an
# unknown order. Playing the 3 now (then 4, 5) strands the A 2 whatever comes; turning the
# stock first and keeping the 3 as the bridge between the 4 and the 2 clears either way.
BRIDGE_COLUMNS = ((1, 2, 4), (5,), (3,), (), (), (), ())
BRIDGE_TOP = 2
BRIDGE_STOCK = (2, 4)


def _sure_clear(
    columns: Sequence[Sequence[int]], heights: tuple[int, ...], top: int, stock: tuple[int, ...]
) -> bool:
    """Whether some play clears the tableau whatever order ``stock`` comes in (exhaustive)."""

    @cache
    def wins(h: tuple[int, ...], t: int, rest: tuple[int, ...]) -> bool:
        if not any(h):
            return True
        if any(wins(after, card, rest) for after, card in _plays(columns, h, t)):
            return True
        return bool(rest) and all(
            wins(h, r, tuple(sorted(rest[:i] + rest[i + 1 :]))) for i, r in enumerate(rest)
        )

    return wins(heights, top, tuple(sorted(stock)))


def _plays(
    columns: Sequence[Sequence[int]], h: tuple[int, ...], top: int
) -> Iterator[tuple[tuple[int, ...], int]]:
    for c, n in enumerate(h):
        if n and STRICT[top][columns[c][n - 1]]:
            yield (*h[:c], n - 1, *h[c + 1 :]), columns[c][n - 1]


def _observation(
    columns: Sequence[Sequence[int]], foundation: Sequence[int], stock: Sequence[int]
) -> golf_solitaire_pb2.GolfSolitaireObservation:
    def card(rank: int) -> cards_pb2.Card:
        return cards_pb2.Card(rank=rank, code=f"{'A23456789TJQK'[rank - 1]}S")

    return golf_solitaire_pb2.GolfSolitaireObservation(
        seat=0,
        seats=1,
        hole=1,
        holes=1,
        tableau=[cards_pb2.CardGroup(cards=[card(r) for r in col]) for col in columns],
        foundation=[card(r) for r in foundation],
        stock_count=len(stock),
        unseen=[card(r) for r in sorted(stock)],
    )


def _play_out(order: Sequence[int]) -> tuple[int, list[str]]:
    """The bot plays the bridge position with the stock in ``order``: (cards left, moves)."""
    columns = [list(col) for col in BRIDGE_COLUMNS]
    foundation, stock = [BRIDGE_TOP], list(order)
    moves: list[str] = []
    while True:
        top = foundation[-1]
        legal = [f"play {c}" for c, col in enumerate(columns) if col and STRICT[top][col[-1]]]
        if stock:
            legal.append("stock")
        if not legal or not any(columns):
            return sum(map(len, columns)), moves
        code = strategy.choose(_observation(columns, foundation, stock), legal)
        assert code in legal
        moves.append(code)
        foundation.append(stock.pop(0) if code == "stock" else columns[int(code[5:])].pop())


def test_the_scripted_position_is_a_trap_for_playing_at_once() -> None:
    heights = tuple(len(col) for col in BRIDGE_COLUMNS)
    assert _sure_clear(BRIDGE_COLUMNS, heights, BRIDGE_TOP, BRIDGE_STOCK)
    # The only play now (the 3) loses the sure clear: the stock must be turned first.
    plays = list(_plays(BRIDGE_COLUMNS, heights, BRIDGE_TOP))
    assert len(plays) == 1
    assert not any(_sure_clear(BRIDGE_COLUMNS, h, t, BRIDGE_STOCK) for h, t in plays)


@pytest.mark.parametrize("order", sorted(set(itertools.permutations(BRIDGE_STOCK))))
def test_strategy_keeps_the_bridge_and_clears_whatever_the_stock_order(
    order: tuple[int, ...],
) -> None:
    left, moves = _play_out(order)
    assert moves[0] == "stock", moves
    assert left == 0, moves


# ---- Card by card: exact when two cards are unseen ---------------------------------------
# The best candidates are scored again card by card: for each possible next stock card, the
# best place to stop the run after it. With two cards unseen the card after is the last
# one, its rollout is exact, so the score must equal the exhaustive expectation.


def _expected_score(
    columns: Sequence[Sequence[int]], heights: tuple[int, ...], stock: Sequence[int]
) -> float:
    """The best expected hole score (a clear counting CLEAR_BONUS better) of turning the
    stock at ``heights``, every order of ``stock`` equally likely (exhaustive)."""

    @cache
    def after_turn(h: tuple[int, ...], t: int, rest: tuple[int, ...]) -> float:
        if not any(h):
            return -len(rest) - strategy.CLEAR_BONUS
        options = [after_turn(a, card, rest) for a, card in _plays(columns, h, t)]
        if rest:
            options.append(turn(h, rest))
        return min(options, default=float(sum(h)))  # blocked, the stock out: cards left

    def turn(h: tuple[int, ...], rest: tuple[int, ...]) -> float:
        outcomes = [after_turn(h, r, rest[:i] + rest[i + 1 :]) for i, r in enumerate(rest)]
        return sum(outcomes) / len(outcomes)

    return turn(heights, tuple(sorted(stock)))


def test_card_by_card_value_is_exact_with_two_cards_unseen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(strategy, "NEXT_ENDS", 99)  # every run end after the next card
    rng = random.Random(5)
    clears = 0
    for _ in range(400):
        # Ranks from a window of five, so that runs connect and many positions can clear.
        low = rng.randint(1, 9)
        columns = [[rng.randint(low, low + 4) for _ in range(rng.randint(0, 3))] for _ in range(7)]
        heights = tuple(len(col) for col in columns)
        stock = [rng.randint(low, low + 4), rng.randint(low, low + 4)]
        hole = strategy._Hole(columns, STRICT)
        end = sum(n << (3 * c) for c, n in enumerate(heights))
        segment: dict[str, Any] = {"rest_orders": {}, "after_card": {}}
        value = strategy._next_card_value(hole, end, stock, segment)
        expected = _expected_score(columns, heights, stock)
        assert value == pytest.approx(expected), (columns, stock)
        clears += expected < 0
    assert clears > 40  # the clear branches were taken too


# ---- Reproducible and legal -------------------------------------------------------------


def _deal_moves(number: int, seed: str) -> list[str]:
    game = get_game(GAME)
    rules = parse_rules(game.Rules, {"holes": "1", "deal_numbers": str(number)})
    state = game.initial_state(rules, 1, 0)
    strategy.reseed(seed)
    moves = []
    while game.to_act(state):
        obs = observation_message(GAME, game.observation(state, 0)).golf_solitaire
        legal = [game.encode(a) for a in game.legal_actions(state, 0)]
        code = strategy.choose(obs, legal)
        assert code in legal, (number, code, legal)
        moves.append(code)
        state = game.apply(state, 0, game.decode(code))
    return moves


def test_same_seed_same_moves_whatever_was_played_before() -> None:
    first = _deal_moves(7, "s1")
    _deal_moves(8, "s2")  # other play in between must not leak into the next match
    assert _deal_moves(7, "s1") == first
    # A different seed samples different stock orders (not necessarily other moves).
    assert len(_deal_moves(7, "s2")) > 0


def test_strategy_never_answers_an_illegal_code_over_many_random_deals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Few samples keep this quick; legality does not depend on how many there are.
    monkeypatch.setattr(strategy, "SAMPLES", 2)
    monkeypatch.setattr(strategy, "NEXT_ORDERS", 1)
    rule_sets = [
        {},
        {"queen_on_king": "true"},
        {"wrap": "true"},
        {"jokers": "2"},
        {"foundation_starts_empty": "true", "stock_only_when_blocked": "true"},
    ]
    for i, rules in enumerate(rule_sets):  # 15 holes each; `checked` fails an illegal code
        out = play_local(
            GAME,
            [checked(strategy.choose, golf_solitaire_pb2.GolfSolitaireObservation)],
            seed=1000 + i,
            rules={**rules, "holes": "15"},
        )
        assert len(out.scores) == 1


def _solitaire_eval(tmp_path: Path, *args: str, timeout: float = 300) -> dict[str, Any]:
    """Run scripts/solitaire_eval with these arguments; its JSON results' bots."""
    out = tmp_path / "eval.json"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "solitaire_eval"), *args, "--json", str(out)],
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    bots: dict[str, Any] = json.loads(out.read_text())["bots"]
    return bots


def test_solitaire_eval_scores_no_bot_below_the_hindsight_solver(tmp_path: Path) -> None:
    """scripts/solitaire_eval runs end to end (it once broke when a module moved): on the
    same PySolFC deals no bot scores better than the solver that knows the stock, nor
    does a bot with the exact stock-unseen search playing its last 4 stock cards, nor
    the sampled-hindsight reference player, which sees only what a bot sees."""
    bots = _solitaire_eval(
        tmp_path,
        *("--deals", "1-4", "--bots", "hindsight,greedy,strategy,sampled-hindsight:2"),
        *("--exact-from", "4"),
    )
    best = {row["deal"]: row["score"] for row in bots["hindsight"]["per_deal"]}
    assert sorted(best) == [1, 2, 3, 4]
    assert list(bots) == [
        "hindsight",
        "greedy",
        "greedy+exact@4",
        "strategy",
        "strategy+exact@4",
        "sampled-hindsight:2",
        "sampled-hindsight:2+exact@4",
    ]
    for label in list(bots)[1:]:
        rows = bots[label]["per_deal"]
        assert [r["deal"] for r in rows] == [1, 2, 3, 4]
        assert all(r["score"] >= best[r["deal"]] for r in rows), label
        assert all(r["decisions"] > 0 for r in rows)
        # compared with the first bot listed, deal by deal
        paired = bots[label]["paired_with_first"]
        diffs = [r["score"] - best[r["deal"]] for r in rows]
        assert paired["score_difference"] == pytest.approx(sum(diffs) / len(diffs))
        assert paired["cleared_only_this"] == 0  # nothing clears where hindsight cannot
        lost = sum(1 for r in rows if best[r["deal"]] <= 0 < r["score"])
        assert paired["cleared_only_first"] == lost
    assert "paired_with_first" not in bots["hindsight"]


def test_solitaire_eval_log_resumes_a_run(tmp_path: Path) -> None:
    """--log appends each deal's result as it is played; run again, the results already
    there for the same bot and rules are taken, not played again."""
    log = tmp_path / "run.jsonl"

    def run(*rules: str) -> dict[str, Any]:
        more = ["--rules", *rules] if rules else []
        return _solitaire_eval(
            tmp_path, "--deals", "1-3", "--bots", "greedy", "--log", str(log), *more
        )

    first = run()["greedy"]["per_deal"]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(e["row"]["deal"] for e in lines) == [1, 2, 3]
    assert {e["bot"] for e in lines} == {"greedy"}
    # A logged result is taken as it is: changed in the log, changed in the table.
    for entry in lines:
        if entry["row"]["deal"] == 2:
            entry["row"]["score"] = 99
    log.write_text("".join(json.dumps(e) + "\n" for e in lines))
    again = run()["greedy"]["per_deal"]
    assert [r["score"] for r in again] == [first[0]["score"], 99, first[2]["score"]]
    assert len(log.read_text().splitlines()) == 3  # nothing played again
    # Other rules are another run: played, and logged beside the first.
    run("wrap=true")
    assert len(log.read_text().splitlines()) == 6


def test_solitaire_eval_exact_search_from_the_deal_expects_its_chance(tmp_path: Path) -> None:
    """With K at least the stock (16) the exact search values the dealt position before
    the first move: the clears it expects are its chance from the deal, and it never
    clears where the solver with the stock known cannot."""
    # deal 1: no chance; deal 1044: 0.07, valued in about a second
    bots = _solitaire_eval(
        tmp_path, "--deals", "1,1044", "--bots", "hindsight,greedy", "--exact-from", "16"
    )
    exact = bots["greedy+exact@16"]
    best = {row["deal"]: row["score"] for row in bots["hindsight"]["per_deal"]}
    adj = adjacency(False, False)
    for row in exact["per_deal"]:
        dealt = pysol_deal(row["deal"])
        columns = [[c.rank for c in col] for col in dealt.tableau]
        with UnseenStockSearch(columns, adj, False) as search:
            chance, _run = search.best_run(
                [5] * 7, rank_code(dealt.foundation), [c.rank for c in dealt.stock]
            )
        assert row["expected_clear"] == chance
        assert row["score"] >= best[row["deal"]]
    assert exact["summary"]["expected_clears"] == pytest.approx(
        sum(r["expected_clear"] for r in exact["per_deal"])
    )
    assert "expected_clears" not in bots["greedy"]["summary"]


def test_solitaire_eval_sign_test_is_exact() -> None:
    path = str(ROOT / "scripts" / "solitaire_eval")
    loader = importlib.machinery.SourceFileLoader("solitaire_eval", path)
    spec = importlib.util.spec_from_file_location("solitaire_eval", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    assert module.sign_test_p(0, 7) == pytest.approx(2 / 2**7)
    assert module.sign_test_p(9, 1) == pytest.approx(2 * (1 + 10) / 2**10)
    assert module.sign_test_p(3, 3) == 1.0 and module.sign_test_p(0, 0) == 1.0


@pytest.mark.parametrize("k", ["55", "-1", "x"])
def test_solitaire_eval_refuses_an_exact_search_start_that_is_no_card_count(k: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "solitaire_eval"), "--exact-from", k],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "K is a whole number from 0 to 54" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("n", ["0", "x", "", "10001"])
def test_solitaire_eval_refuses_a_sample_count_it_cannot_use(n: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "solitaire_eval"),
            "--bots",
            f"strategy,sampled-hindsight:{n}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "N, the sampled stock orders, is a whole number from 1 to 10000" in done.stderr
    assert "Traceback" not in done.stderr
