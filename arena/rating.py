"""TrueSkill ratings, as a pure function of match results taken in schedule order.

Two seats are rated 1v1, more seats as a free-for-all by rank, and games played
in fixed teams (``Outcome.teams``) as team matches. A forfeit loses: a forfeiting
team ranks last, and in a free-for-all stopped by a forfeit each other seat beat each
forfeiter one on one (their order when it stopped is not a result). When
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


Bout = tuple[list[tuple[str, ...]], list[float]]  # rating groups and their ranks


def _bouts(seats: Sequence[Mapping[str, Any]]) -> list[Bout]:
    """What one match is rated as: one bout of its rating groups by rank, or one-on-one
    bouts (a free-for-all stopped by a forfeit); none when it cannot be rated."""
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
            return []  # one entrant on both sides: nothing to learn
        ranks = [float(min(s["rank"] for s in members)) for _, members in sorted(teams.items())]
        # A team with a forfeiting member ranks last, whatever its partner's rank (results
        # stored before forfeit_outcome ranked the partners with it did not say so).
        last = max(ranks) + 1
        ranks = [
            last if any(s.get("forfeited") for s in members) else rank
            for (_, members), rank in zip(sorted(teams.items()), ranks, strict=True)
        ]
        return [(groups, ranks)]
    by_entrant: dict[str, list[int]] = defaultdict(list)
    for s in seats:
        by_entrant[s["entrant"]].append(int(s["rank"]))
    if len(by_entrant) < 2:
        return []
    names = list(by_entrant)
    if seats[0].get("stopped"):  # a free-for-all a forfeit stopped (settled)
        # The match stopped at the forfeit, so the other seats' order is no result: rated
        # by it, a crash could hand a partner a draw it was losing or a lead it held.
        # Each of them beat each forfeiter one on one. (Rated as one side that beat it,
        # the others' summed strength made its loss all but certain and taught little: a
        # bot that forfeited every match stayed above bots that played. Merged one-seat
        # matches each played their deal to the end, and keep their order.)
        lost = {s["entrant"] for s in seats if s.get("forfeited")}
        rest = [n for n in names if n not in lost]
        return [([(n,), (f,)], [1.0, 2.0]) for n in rest for f in names if f in lost]
    return [([(n,) for n in names], [sum(by_entrant[n]) / len(by_entrant[n]) for n in names])]


def settled(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A several-seat match's rows as results count them. One a forfeit stopped has its
    rows marked ``stopped`` (no seat's score is a full match's), and in a free-for-all its
    other seats share first place with the forfeiters last: their order when it stopped
    is no result (a crash at the first move tied them all on 0 strokes). Teams are ranked
    already (``referee.game.forfeit_outcome``: the forfeiting team last)."""
    rows = [dict(s) for s in seats]
    if not any(s.get("forfeited") for s in rows):
        return rows
    free_for_all = all(s.get("team") is None for s in rows)
    played_on = sum(not s.get("forfeited") for s in rows)
    for s in rows:
        s["stopped"] = True
        if free_for_all:
            s["rank"] = played_on + 1 if s.get("forfeited") else 1
    return rows


def merge_solo_matches(
    matches: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], lower_scores_win: bool
) -> list[tuple[str, list[dict[str, Any]]]]:
    """One-seat matches (solitaire) cannot be rated alone: consecutive ones that played the
    same deal (their rows carry the same ``deal``) become one free-for-all, ranked by score.
    Other matches pass through, ``settled``."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for match_id, rows in matches:
        seats = [dict(s) for s in rows]
        solo = len(seats) == 1 and seats[0].get("deal") is not None
        last = out[-1][1] if out else None
        if solo and last and last[0].get("solo_deal") == seats[0]["deal"]:
            last.append({**seats[0], "solo_deal": seats[0]["deal"]})
            continue
        out.append(
            (match_id, [{**s, "solo_deal": s["deal"]} for s in seats] if solo else settled(seats))
        )
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
        bouts = _bouts(seats)
        before = dict(ratings)
        for groups, ranks in bouts:
            # Each side is rated against the others' ratings from before the match, so
            # that one-on-one bouts leave the players who beat a forfeiter level with
            # each other, whatever their order (one bout: the same as rating it whole).
            sides = range(len(groups)) if len(bouts) > 1 else [None]
            for side in sides:
                rating_groups = [
                    tuple((ratings if i == side else before).get(n, ENV.create_rating()) for n in g)
                    for i, g in enumerate(groups)
                ]
                rated = ENV.rate(rating_groups, ranks=ranks)
                for i, (names, new) in enumerate(zip(groups, rated, strict=True)):
                    if side is None or i == side:
                        ratings.update(zip(names, new, strict=True))
        for name in dict.fromkeys(n for groups, _ in bouts for g in groups for n in g):
            games[name] += 1
            history.append((seq, match_id, name, ratings[name].mu, ratings[name].sigma))
    current = {n: (r.mu, r.sigma, games[n]) for n, r in ratings.items()}
    return RatingState(current, history)


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma
