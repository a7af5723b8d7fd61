"""Matches an SPRT needs to reach a verdict with duplicate pairs against unpaired matches,
on the same bots and the same real matches.

Plays one two-bot round robin (each round: one deal, played twice with the seats swapped),
then replays the SPRT over those results many times in shuffled round orders:
- paired: each round is one duplicate pair (pentanomial samples);
- unpaired: one match per round (seats alternating), so no two matches share a deal
  (trinomial samples), as a tester without duplicate deals would play.
Prints the median matches to a verdict of each, and how often each was inconclusive.

    .venv/bin/python scripts/sprt_pairing.py --game golf --seats 2 \
        --bots golf_strategy,random_bot --rules holes=1 --rounds 150

``--bots`` takes NAME or NAME=MODULE (a module of sample_bots), so one program can be
entered twice: ``--bots one=random_bot,two=random_bot`` measures the matches an SPRT
needs to accept H0 between equal bots.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena import runner  # noqa: E402
from arena.settings import TournamentSettings  # noqa: E402
from arena.stats import PENTANOMIAL, TRINOMIAL, sprt  # noqa: E402
from arena.store import Store  # noqa: E402
from referee.rules import parse_option_strings  # noqa: E402


def verdict_after(
    samples: list[float], per_sample: int, outcomes: tuple[float, ...], a: argparse.Namespace
) -> tuple[int, str] | None:
    """(matches played, H0 or H1) when the SPRT over these samples stops, else None."""
    for n in range(1, len(samples) + 1):
        verdict = sprt(samples[:n], a.elo0, a.elo1, a.alpha, a.alpha, outcomes).verdict
        if verdict is not None:
            return n * per_sample, verdict
    return None


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--game", default="golf")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--bots", default="golf_strategy,random_bot")
    p.add_argument("--rules", nargs="*", default=["holes=1"])
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--elo0", type=float, default=0.0)
    p.add_argument("--elo1", type=float, default=30.0)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--orders", type=int, default=200)
    p.add_argument("--concurrency", type=int, default=2)
    a = p.parse_args()
    # NAME or NAME=MODULE (a sample bot module): two entrants may run the same program.
    bots = dict(b.split("=", 1) if "=" in b else (b, b) for b in a.bots.split(","))
    new, base = bots
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "a.db")
        for name, module in bots.items():
            command = [sys.executable, "-m", f"sample_bots.{module}"]
            store.add_entrant(name, ["*"], command, str(ROOT))
        settings = TournamentSettings(
            a.game,
            (new, base),
            parse_option_strings(a.rules),
            rounds=a.rounds,
            seats=a.seats,
            concurrency=a.concurrency,
            seed=11,
        )
        record = runner.create_tournament(store, settings)
        asyncio.run(runner.run_tournament(store, record.id))
        by_round: dict[int, list[float]] = {}
        for m in store.matches(tournament_id=record.id):
            ranks = dict(zip(m["entrants"], m["outcome"]["ranks"], strict=True))
            score = 1.0 if ranks[new] < ranks[base] else 0.0 if ranks[new] > ranks[base] else 0.5
            by_round.setdefault(m["idx"] // 2, []).append(score)
    rounds = [r for r in by_round.values() if len(r) == 2]
    rng = random.Random(7)
    paired, unpaired = [], []
    for _ in range(a.orders):
        order = rounds[:]
        rng.shuffle(order)
        paired.append(verdict_after([sum(r) / 2 for r in order], 2, PENTANOMIAL, a))
        unpaired.append(verdict_after([r[i % 2] for i, r in enumerate(order)], 1, TRINOMIAL, a))
    budget = len(rounds)  # the matches the unpaired test can play: one per deal
    for name, runs in (("duplicate pairs", paired), ("unpaired matches", unpaired)):
        done = [r for r in runs if r is not None]
        median = statistics.median(n for n, _ in done) if done else float("nan")
        within = Counter(verdict for n, verdict in done if n <= budget)
        print(
            f"{name:17s} verdict within {budget} matches: {sum(within.values())}/{len(runs)} "
            f"orders ({', '.join(f'{v} {c}' for v, c in sorted(within.items())) or 'none'}) · "
            f"median matches to a verdict when reached: {median:.0f}"
        )
    wins = sum(s for r in rounds for s in r) / (2 * len(rounds))
    print(f"{len(rounds)} deals, {new} scored {100 * wins:.1f}% against {base}")


if __name__ == "__main__":
    main()
