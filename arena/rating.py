"""TrueSkill ratings, as a pure function of match results taken in schedule order.

Two seats are rated 1v1, more seats as a free-for-all by rank, and games played
in fixed teams (``Outcome.teams``) as team matches. A forfeit loses: a forfeiting
team ranks last, and in a free-for-all stopped by a forfeit the other seats are one
side that beat the forfeiters (their order when it stopped is not a result). When
one entrant fills several seats of a match (fewer entrants than seats), its seats
count as one player ranked by their mean rank. Because the result depends only on the ordered
results, a resumed tournament ends with exactly the ratings of an uninterrupted one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import trueskill

from referee.game import ranks_from_scores

ENV = trueskill.TrueSkill(draw_probability=0.10)


@dataclass(frozen=True)
class RatingState:
    current: dict[str, tuple[float, float, int]]  # entrant -> (mu, sigma, rated matches)
    history: list[tuple[int, str, str, float, float]]  # (seq, match_id, entrant, mu, sigma)


def _groups(seats: Sequence[Mapping[str, Any]]) -> tuple[list[tuple[str, ...]], list[float]] | None:
    """The rating groups of one match and their ranks, or None if it cannot be rated."""
    if any(s.get("team") is not None for s in seats):
        teams: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
        for s in seats:
            teams[int(s["team"])].append(s)
        groups = [
            tuple(dict.fromkeys(s["entrant"] for s in members))
            for _, members in sorted(teams.items())
        ]
        flat = [name for g in groups for name in g]
        if len(flat) != len(set(flat)) or len(groups) < 2:
            return None  # one entrant on both sides: nothing to learn
        ranks = [float(min(s["rank"] for s in members)) for _, members in sorted(teams.items())]
        # A team with a forfeiting member ranks last, whatever its partner's rank (results
        # stored before forfeit_outcome ranked the partners with it did not say so).
        last = max(ranks) + 1
        ranks = [
            last if any(s.get("forfeited") for s in members) else rank
            for (_, members), rank in zip(sorted(teams.items()), ranks, strict=True)
        ]
        return groups, ranks
    by_entrant: dict[str, list[int]] = defaultdict(list)
    for s in seats:
        by_entrant[s["entrant"]].append(int(s["rank"]))
    if len(by_entrant) < 2:
        return None
    names = list(by_entrant)
    forfeiters = {s["entrant"] for s in seats if s.get("forfeited")}
    if forfeiters and "solo_deal" not in seats[0]:
        # The match stopped at the forfeit, so the other seats' order is no result: rated
        # by it, a crash could hand a partner a draw it was losing or a lead it held.
        # They are one side that beat the forfeiters. (Merged one-seat matches each
        # played their deal to the end, and keep their order.)
        rest = tuple(n for n in names if n not in forfeiters)
        if not rest:
            return None
        return [rest, *((n,) for n in names if n in forfeiters)], [1.0] + [2.0] * len(forfeiters)
    return [(n,) for n in names], [sum(by_entrant[n]) / len(by_entrant[n]) for n in names]


def merge_solo_matches(
    matches: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], lower_scores_win: bool
) -> list[tuple[str, list[dict[str, Any]]]]:
    """One-seat matches (solitaire) cannot be rated alone: consecutive ones that played the
    same deal (their rows carry the same ``deal``) become one free-for-all, ranked by score.
    Other matches pass through."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for match_id, rows in matches:
        seats = [dict(s) for s in rows]
        solo = len(seats) == 1 and seats[0].get("deal") is not None
        last = out[-1][1] if out else None
        if solo and last and last[0].get("solo_deal") == seats[0]["deal"]:
            last.append({**seats[0], "solo_deal": seats[0]["deal"]})
            continue
        out.append((match_id, [{**s, "solo_deal": s["deal"]} for s in seats] if solo else seats))
    for _, group in out:
        if len(group) > 1 and "solo_deal" in group[0]:
            # By score, and a forfeit last: its score is what it had when it stopped (0
            # strokes for a bot that crashed at once, better than any hole played).
            finished = [s for s in group if not s.get("forfeited")]
            scores = [float(s["score"]) for s in finished]
            ranks = ranks_from_scores(scores, higher_is_better=not lower_scores_win)
            for s, rank in zip(finished, ranks, strict=True):
                s["rank"] = rank
            for s in group:
                if s.get("forfeited"):
                    s["rank"] = len(finished) + 1
    return out


def compute_ratings(
    matches: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], lower_scores_win: bool = False
) -> RatingState:
    """Ratings after every match, given (match id, per-seat rows with entrant, rank and
    team) in schedule order. ``lower_scores_win`` orders merged one-seat matches."""
    ratings: dict[str, trueskill.Rating] = {}
    games: dict[str, int] = defaultdict(int)
    history: list[tuple[int, str, str, float, float]] = []
    for seq, (match_id, seats) in enumerate(merge_solo_matches(matches, lower_scores_win)):
        grouped = _groups(seats)
        if grouped is None:
            continue
        groups, ranks = grouped
        rating_groups = [tuple(ratings.get(n, ENV.create_rating()) for n in g) for g in groups]
        rated = ENV.rate(rating_groups, ranks=ranks)
        for names, new in zip(groups, rated, strict=True):
            for name, rating in zip(names, new, strict=True):
                ratings[name] = rating
                games[name] += 1
                history.append((seq, match_id, name, rating.mu, rating.sigma))
    current = {n: (r.mu, r.sigma, games[n]) for n, r in ratings.items()}
    return RatingState(current, history)


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma
