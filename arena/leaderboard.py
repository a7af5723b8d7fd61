"""Leaderboards: TrueSkill ratings next to games, wins, mean score with a 95% confidence
interval, mean rank and faults. One computation serves the CLI's leaderboard (every
match of a game and rule set) and the tournament report (one tournament's matches)."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from arena.rating import ENV, compute_ratings, conservative, merge_solo_matches, settled
from arena.store import Store
from referee.game import Outcome, get_game, parse_rules

SeatRows = Sequence[tuple[str, Sequence[Mapping[str, Any]]]]  # (match id, per-seat result rows)


@dataclass(frozen=True)
class Row:
    rank: int
    entrant: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    # Over the matches played to their end (None if none was): a match a forfeit stopped
    # scores where it stopped, 0 strokes for every golf bot when one crashed at once.
    mean_score: float | None
    score_ci95: float | None
    mean_rank: float
    faults: int
    forfeits: int
    # Games that can say the best score achievable in hindsight (golf solitaire: the solver
    # with the stock known) get its mean over the same matches, to set the score against.
    hindsight_best: float | None = None
    # With one row per bot name (latest_versions): the earlier versions' conservative
    # ratings, oldest first, as "@v rating".
    history: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def score_text(self) -> str:
        if self.mean_score is None or self.score_ci95 is None:
            return "—"
        return f"{self.mean_score:.1f} ± {self.score_ci95:.1f}"

    @property
    def faults_text(self) -> str:
        return f"{self.faults}" + (f" ({self.forfeits} forfeits)" if self.forfeits else "")


def ci95(values: Sequence[float]) -> float:
    """Half-width of the normal 95% confidence interval of the mean."""
    if len(values) < 2:
        return math.inf if values else 0.0
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def rows_from_results(
    matches: SeatRows,
    ratings: Mapping[str, tuple[float, float, int]],
    lower_scores_win: bool,
    hindsight: Mapping[str, float] | None = None,
) -> list[Row]:
    """Leaderboard rows, best conservative rating first. ``hindsight`` maps a match id to
    the best score achievable in it, when the game can tell. Wins and ranks of one-seat
    matches (solitaire) are by score among the matches on the same deal, as rated."""
    played: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for _, group in merge_solo_matches(matches, lower_scores_win):
        for seat in group:
            played[seat["entrant"]].append(seat)
    rows = []
    for name, seats in played.items():
        mu, sigma, _ = ratings.get(name, (ENV.mu, ENV.sigma, 0))
        scores = [float(s["score"]) for s in seats if not s["forfeited"] and not s.get("stopped")]
        rows.append(
            Row(
                rank=0,
                entrant=name,
                mu=mu,
                sigma=sigma,
                conservative=conservative(mu, sigma),
                games=len(seats),
                wins=len({s["match_id"] for s in seats if _ranked_first(s)}),  # a match once
                mean_score=statistics.fmean(scores) if scores else None,
                score_ci95=ci95(scores) if scores else None,
                mean_rank=statistics.fmean(float(s["rank"]) for s in seats),
                faults=sum(int(s["faults"]) for s in seats),
                forfeits=sum(int(s["forfeited"]) for s in seats),
                hindsight_best=(
                    statistics.fmean(hindsight[s["match_id"]] for s in seats) if hindsight else None
                ),
            )
        )
    rows.sort(key=lambda r: (-r.conservative, r.entrant))
    return [replace(r, rank=i + 1) for i, r in enumerate(rows)]


def _ranked_first(seat: Mapping[str, Any]) -> bool:
    """A win: a seat ranked first (a first place shared by a tie included) that did not
    forfeit. A bot in several seats of a match wins it once, however many of them won."""
    return bool(seat["rank"] == 1 and not seat["forfeited"])


def hindsight_scores(store: Store, game: str, match_ids: Sequence[str]) -> dict[str, float] | None:
    """The best score achievable in each match, for games whose engine offers
    ``hindsight_best_total(rules, seed)``; None for the others (or when it declines)."""
    engine = get_game(game)
    out = {}
    for match in store.matches_by_ids(match_ids):
        total = engine.hindsight_best_total(
            parse_rules(engine.Rules, store.match_rules(match["id"])), match["seed"]
        )
        if total is None:
            return None
        out[match["id"]] = float(total)
    return out


def leaderboard(store: Store, game: str, rules_key: str) -> list[Row]:
    """Entrants of one game and rule set over every stored match, with the stored ratings
    when they cover every match, else rated here (the store is not written: a reader may
    hold it read-only, and the next run stores the same ratings)."""
    results = store.results_in_order(game, rules_key)
    hindsight = hindsight_scores(store, game, [match_id for match_id, _ in results])
    lower = get_game(game).lower_scores_win
    ratings = store.ratings(game, rules_key, len(results))
    if ratings is None:
        ratings = compute_ratings(results, lower_scores_win=lower).current
    return rows_from_results(results, ratings, lower, hindsight)


def tournament_leaderboard(store: Store, tournament_id: int) -> list[Row]:
    """One tournament's entrants, rated over its own matches only (in schedule order)."""
    record = store.tournament(tournament_id)
    results = store.results_in_order(record.game, record.rules_key, tournament_id)
    lower = get_game(record.game).lower_scores_win
    rated = compute_ratings(results, lower_scores_win=lower)
    hindsight = hindsight_scores(store, record.game, [match_id for match_id, _ in results])
    return rows_from_results(results, rated.current, lower, hindsight)


def latest_versions(rows: Sequence[Row]) -> list[Row]:
    """One row per bot name: the latest rated version of each submitted bot, with its
    earlier versions' ratings as history; plain-command bots as they are."""
    by_name: dict[str, list[tuple[int, Row]]] = defaultdict(list)
    for row in rows:
        name, _, version = row.entrant.partition("@")
        by_name[name].append((int(version) if version.isdigit() else 0, row))
    out = []
    for versions in by_name.values():
        versions.sort(key=lambda vr: vr[0])
        *earlier, (_, latest) = versions
        history = tuple(f"@{v} {r.conservative:.1f}" for v, r in earlier)
        out.append(replace(latest, history=history))
    out.sort(key=lambda r: (-r.conservative, r.entrant))
    return [replace(r, rank=i + 1) for i, r in enumerate(out)]


class RunningWins:
    """Wins so far, for a progress line: a seat ranked first that did not forfeit. In a
    one-seat game (solitaire) every bot plays a deal alone, ranked first in its own match,
    so a deal is won by the best score among the bots that have played it so far (ranked
    as for the ratings: :func:`arena.rating.merge_solo_matches`)."""

    def __init__(self, game: str) -> None:
        self.lower_scores_win = get_game(game).lower_scores_win
        self.wins: Counter[str] = Counter()
        self._solo: dict[str, list[tuple[str, list[dict[str, Any]]]]] = defaultdict(list)
        self._deal_winners: dict[str, list[str]] = {}

    def add(
        self, lineup: Sequence[str], deal: str, outcome: Outcome, forfeited: Sequence[int]
    ) -> None:
        """A match just played; ``deal`` names its deal as stored results do
        (``arena.store.deal_name``)."""
        self._add(
            [
                {
                    "entrant": name,
                    "deal": deal,
                    "score": score,
                    "rank": rank,
                    "team": None if outcome.teams is None else outcome.teams[seat],
                    "forfeited": seat in forfeited,
                }
                for seat, (name, score, rank) in enumerate(
                    zip(lineup, outcome.scores, outcome.ranks, strict=True)
                )
            ]
        )

    def add_stored(self, results: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> None:
        """Matches stored before this run (a resumed tournament's), as
        ``Store.results_in_order`` gives them."""
        for _, seats in results:
            self._add(seats)

    def _add(self, seats: Sequence[Mapping[str, Any]]) -> None:
        if len(seats) > 1:
            self.wins.update({s["entrant"] for s in settled(seats) if _ranked_first(s)})
            return
        deal = seats[0]["deal"]
        played = self._solo[deal]
        played.append((str(len(played)), [{**seats[0], "rank": 1}]))
        [(_, merged)] = merge_solo_matches(played, self.lower_scores_win)
        winners = [s["entrant"] for s in merged if _ranked_first(s)]
        self.wins.subtract(self._deal_winners.get(deal, []))
        self.wins.update(winners)
        self._deal_winners[deal] = winners
