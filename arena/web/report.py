"""Tournament reports: the leaderboard with confidence intervals, the cross table of
head-to-head results, the rating history plot, faults per bot and the list of matches,
as an HTML page; :func:`write_report` also writes one replay page per match.

Ratings here are the tournament's own: TrueSkill over this tournament's matches in
schedule order (the arena's rating function), so the report stands alone even when
other tournaments used the same game and rules (``arena leaderboard`` rates them all).
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.disclosure import deals_in_play, withheld_matches
from arena.leaderboard import Row, rows_from_results
from arena.outputs import write_text_whole
from arena.rating import compute_ratings
from arena.stats import PairRow, fmt_elo_interval, head_to_head
from arena.store import Store, StoreError, TournamentRecord
from arena.web.pages import Cell, Raw, link, page, table
from arena.web.replay_page import replay_html
from arena.web.svg import Series, line_chart
from referee.game import get_game
from referee.replay import ReplayError, parse_replay


@dataclass
class Report:
    tournament: TournamentRecord
    matches: list[dict[str, Any]]
    seats: dict[str, list[dict[str, Any]]]  # match id -> per-seat result rows
    board: list[Row] = field(default_factory=list)
    pairs: list[PairRow] = field(default_factory=list)  # head to head, both ways
    history: list[Series] = field(default_factory=list)
    faults: dict[str, Counter[str]] = field(default_factory=dict)
    withheld: frozenset[str] = frozenset()  # matches whose deal is still in play (no replay)
    unreadable: dict[str, str] = field(default_factory=dict)  # match id -> why (no replay)
    seed_shown: bool = True  # no deal of its seed is left to play anywhere

    @property
    def entrants(self) -> list[str]:
        return [row.entrant for row in self.board]


def gather(store: Store, tournament_id: int) -> Report:
    """Everything the report shows, from the database."""
    record = store.tournament(tournament_id)
    matches = store.matches(tournament_id=tournament_id)
    ordered = store.results_in_order(record.game, record.rules_key, tournament_id)
    seats = {match_id: list(rows) for match_id, rows in ordered}
    in_play = deals_in_play(store, tournament_id)
    withheld = frozenset(withheld_matches(store, tournament_id, matches, in_play))
    report = Report(record, matches, seats, withheld=withheld, seed_shown=not in_play)
    lower = get_game(record.game).lower_scores_win
    rated = compute_ratings(ordered, lower_scores_win=lower)
    faults: dict[str, Counter[str]] = defaultdict(Counter)
    for entrant, kind, count in store.db.execute(
        """select f.entrant, f.kind, count(*) from faults f join matches m on m.id = f.match_id
           where m.tournament_id = ? group by f.entrant, f.kind""",
        [tournament_id],
    ).fetchall():
        faults[entrant][kind] += count
    report.board = rows_from_results(ordered, rated.current, lower)
    report.pairs = head_to_head(ordered)
    history: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    position = {m_id: i + 1 for i, (m_id, _) in enumerate(ordered)}
    for _, match_id, name, mu, sigma in rated.history:
        history[name].append((float(position[match_id]), mu, sigma))
    report.history = [
        Series(name, tuple([(0.0, 25.0, 25.0 / 3), *history[name]]))
        for name in report.entrants
        if name in history
    ]
    report.faults = dict(faults)
    return report


def leaderboard_table(
    board: list[Row], bot: Callable[[str], Cell] = str, mean_rank: bool = False
) -> str:
    """A leaderboard as a table, each bot's cell made by ``bot`` (a link, or its name);
    ``mean_rank`` adds that column (a tournament's report)."""
    headers = ["#", "bot", "mu", "sigma", "mu − 3σ", "games", "wins", "mean score ± 95% CI"]
    rows = [
        (
            r.rank,
            bot(r.entrant),
            r.mu,
            r.sigma,
            r.conservative,
            r.games,
            r.wins,
            r.score_text,
            *([f"{r.mean_rank:.2f}"] if mean_rank else []),
            r.faults_text,
        )
        for r in board
    ]
    numeric = (0, 2, 3, 4, 5, 6, 8) if mean_rank else (0, 2, 3, 4, 5, 6)
    columns = [*headers, *(["mean rank"] if mean_rank else []), "faults"]
    return table(columns, rows, numeric=numeric, cls="leaderboard")


def _board_html(report: Report) -> str:
    return leaderboard_table(report.board, mean_rank=True)


def _pairs_html(report: Report) -> str:
    """The head-to-head table: each pair once, score, Elo difference ± 95%, LOS."""
    rows = [
        (
            p.a,
            p.b,
            p.games,
            f"{p.wins}–{p.draws}–{p.losses}",
            f"{100 * p.score:.1f}%",
            fmt_elo_interval(p.elo, p.elo_low, p.elo_high),
            f"{100 * p.los:.1f}%",
        )
        for p in report.pairs
        if p.a < p.b
    ]
    if not rows:
        return '<p class="none">no pairs yet</p>'
    return table(
        ["bot", "vs", "games", "W–D–L", "score", "Elo ± 95%", "LOS"],
        rows,
        numeric=(2,),
        cls="pairs",
    ) + (
        '<p class="note">A beats B in a match when its best rank at the table is better. '
        "Elo: the logistic Elo difference the score implies, with the normal 95% interval; "
        "LOS: the likelihood that the first bot is the stronger, from wins and losses.</p>"
    )


def _cross_html(report: Report) -> str:
    names = report.entrants
    cross = {(p.a, p.b): (p.wins, p.losses, p.draws) for p in report.pairs}
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    body = []
    for a in names:
        cells = [f"<th>{html.escape(a)}</th>"]
        for b in names:
            if a == b:
                cells.append('<td class="self">—</td>')
                continue
            w, lo, d = cross.get((a, b), (0, 0, 0))
            cls = "good" if w > lo else "bad" if lo > w else ""
            cells.append(
                f'<td class="num {cls}" title="{html.escape(a)} vs {html.escape(b)}: '
                f'{w} better, {lo} worse, {d} equal">{w}–{lo}–{d}</td>'
            )
        body.append(f"<tr>{''.join(cells)}</tr>")
    if not names:
        return '<p class="none">no matches yet</p>'
    return (
        f'<table class="cross"><tr><th>row vs column</th>{head}</tr>{"".join(body)}</table>'
        '<p class="note">Each cell: matches in which the row bot ranked better – worse – '
        "equal than the column bot (in multi-seat games, by its best rank at the same table; "
        "partners, and two bots of a match a third one's forfeit stopped, did not play each "
        "other).</p>"
    )


def _faults_html(report: Report) -> str:
    kinds = sorted({k for c in report.faults.values() for k in c})
    rows: list[list[Cell]] = []
    for name in report.entrants:
        counts = report.faults.get(name, Counter())
        rows.append([name, sum(counts.values()), *(counts.get(k, 0) for k in kinds)])
    return table(
        ["bot", "faults", *kinds], rows, numeric=tuple(range(1, 2 + len(kinds))), cls="faults"
    )


def _matches_html(report: Report, match_href: Callable[[str], str]) -> str:
    rows = []
    for m in report.matches:
        seats = report.seats.get(m["id"], [])
        lineup = ", ".join(f"{s['entrant']} (rank {s['rank']}, {s['score']:g})" for s in seats)
        faults = sum(s["faults"] for s in seats)
        if m["id"] in report.withheld:
            shown: Cell = f"{m['id']} (replay when every table has played the deal)"
        elif m["id"] in report.unreadable:
            shown = f"{m['id']} (replay unreadable: {report.unreadable[m['id']]})"
        else:
            shown = link(match_href(m["id"]), m["id"])
        rows.append(
            (
                m["idx"],
                shown,
                lineup,
                m["reason"],
                m["decisions"],
                faults,
                f"{m['seconds']:.1f}s",
            )
        )
    return table(
        ["#", "match (replay)", "seats: bot (rank, score)", "end", "decisions", "faults", "time"],
        rows,
        numeric=(0, 4, 5, 6),
        cls="matches",
    )


def _deals_text(report: Report) -> str:
    """How the deals were made. A ``--seed`` only once no deal of it is left to play, here
    or in another tournament of that seed: anyone who knows it can rebuild every deal."""
    seed = report.tournament.seed
    if seed is None:
        return "secret deals"
    return f"seed {seed}" if report.seed_shown else "deals from a seed, shown once played"


def report_html(
    report: Report, match_href: Callable[[str], str], back: tuple[str, str] | None = None
) -> str:
    t = report.tournament
    rules = " ".join(f"{k}={v}" for k, v in t.rules.items()) or "default"
    meta = (
        f"{t.game} · rules {t.rules_key or rules} · {len(report.matches)}/{t.total_matches} "
        f"matches · {t.seats} seats · {t.rounds} round(s) · "
        f"{_deals_text(report)} · {t.status} · "
        f"created {t.created}"
    )
    body = [
        "<h2>Leaderboard</h2>",
        _board_html(report),
        '<p class="note">TrueSkill over this tournament\'s matches in schedule order; ranked by '
        "the conservative rating mu − 3σ. The interval is the normal 95% confidence interval "
        "of the mean score.</p>",
        "<h2>Cross table</h2>",
        _cross_html(report),
        "<h2>Head to head</h2>",
        _pairs_html(report),
        "<h2>Rating history</h2>",
        line_chart(report.history, "matches played (schedule order)", "TrueSkill mu (band: ±σ)"),
        "<h2>Faults</h2>",
        _faults_html(report),
        "<h2>Matches</h2>",
        _matches_html(report, match_href),
    ]
    return page(f"Tournament {t.id}: {t.game}", "\n".join(body), meta, back)


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def match_file(match_id: str) -> str:
    """The file name of a match's replay page in a report folder."""
    return f"matches/{_UNSAFE.sub('_', match_id)}.html"


def write_report(
    store: Store, tournament_id: int, out: Path, progress: Callable[[int, int], None] | None = None
) -> Report:
    """Write ``out/index.html`` and ``out/matches/<id>.html`` for every match (but those
    whose deal is still in play, see :mod:`arena.disclosure`, and those whose stored replay
    cannot be read, in ``unreadable`` with the reason); returns what it wrote."""
    report = gather(store, tournament_id)
    (out / "matches").mkdir(parents=True, exist_ok=True)
    for n, m in enumerate(report.matches, start=1):
        if m["id"] in report.withheld:
            continue
        try:
            replay = parse_replay(store.replay_text(m["id"]))
        except (ReplayError, StoreError) as exc:
            report.unreadable[m["id"]] = str(exc)
            continue
        page_html = replay_html(replay, back_link=("../index.html", f"tournament {tournament_id}"))
        write_text_whole(out / match_file(m["id"]), page_html)
        if progress is not None:
            progress(n, len(report.matches))
    write_text_whole(out / "index.html", report_html(report, match_file))
    return report


__all__ = ["Raw", "Report", "gather", "match_file", "report_html", "write_report"]
