"""What spectators may see of a tournament still in play.

Every table of a round plays the same deal (duplicate), so a finished match's replay
(every hand, the stock order, the seed) shows cards that other tables of the round may
still be playing. Anyone who can read replays while a tournament runs (``arena web``, a
report written mid-tournament) could pass them to a bot still playing that deal. So a
match's replay is withheld while any scheduled match on its deal is unplayed, and opens
once every table has played the deal (or the tournament has finished). Tournaments
started with one ``--seed`` share their deals, so a deal in play in one withholds its
replays in every other, and pages show a ``--seed`` only once no deal of it is left to
play (anyone who knows it can rebuild every deal). Rules that fix the deals whatever
the seed (golf solitaire's numbered deals) make every match of the tournament, and of any
tournament of the game with those rules, one deal. Results and scores stay visible:
they show no card. The operator's own commands (``arena replay``, ``arena matches
export``) are not restricted.
"""

from __future__ import annotations

import threading
from typing import Any

from arena.runner import schedule
from arena.schedule import fixed_deal, match_deal
from arena.store import Store, TournamentRecord

# Each page of an unfinished tournament asks which deals are in play, and a big round robin
# takes seconds to schedule: the deal of every match, per tournament, is kept.
_DEALS_KEPT = 32
_deals: dict[tuple[Any, ...], tuple[int, ...]] = {}
_deals_lock = threading.Lock()


def _deal_per_match(record: TournamentRecord) -> tuple[int, ...]:
    """The deal of every scheduled match of ``record``, by index (``match_deal``)."""
    key = (record.secret, record.schedule_version, record.seats, repr(record.settings))
    with _deals_lock:
        kept = _deals.get(key)
    if kept is None:
        assert record.secret is not None  # deals_in_play checks it
        plans = schedule(record.settings, record.seats, record.secret, record.schedule_version)
        fixed = fixed_deal(record.game, record.rules)
        kept = tuple(match_deal(plan.seed, fixed) for plan in plans)
        with _deals_lock:
            if len(_deals) >= _DEALS_KEPT:
                del _deals[next(iter(_deals))]
            _deals[key] = kept
    return kept


def deals_in_play(store: Store, tournament_id: int) -> dict[int, int]:
    """The deals (``match_deal``) of the tournament that some scheduled match has not
    played yet, here or in another tournament that plays them: one of the same secret
    (the same ``--seed``) or, when the rules fix the deals whatever the seed (numbered
    deals), one of the same game; each with such a tournament (none once all have
    finished: an SPRT that stopped plays no more)."""
    this = store.tournament(tournament_id)
    if this.secret is None:
        return {}
    fixed = fixed_deal(this.game, this.rules) is not None
    in_play: dict[int, int] = {}
    for record in store.tournaments():
        if record.status == "finished" or record.secret is None:
            continue
        if record.secret != this.secret and not (fixed and record.game == this.game):
            continue
        finished = store.finished_indexes(record.id)
        for idx, deal in enumerate(_deal_per_match(record)):
            if idx not in finished:
                in_play.setdefault(deal, record.id)
    return in_play


def withheld_matches(
    store: Store, tournament_id: int, matches: list[dict[str, Any]], in_play: dict[int, int]
) -> set[str]:
    """Which of the tournament's ``matches`` may not show their replays yet, given its
    ``deals_in_play``."""
    fixed = fixed_deal(*_game_and_rules(store, tournament_id))
    return {m["id"] for m in matches if match_deal(m["seed"], fixed) in in_play}


def withheld_reason(store: Store, match: dict[str, Any]) -> str | None:
    """Why ``match``'s replay may not be shown yet (None: it may)."""
    tournament = match.get("tournament_id")
    if not tournament:
        return None
    fixed = fixed_deal(*_game_and_rules(store, tournament))
    playing = deals_in_play(store, tournament).get(match_deal(match["seed"], fixed))
    if playing is None:
        return None
    return (
        f"the deal of match {match['id']} is still being played at other tables of "
        f"tournament {playing}; its replay opens when every table has played it"
    )


def _game_and_rules(store: Store, tournament_id: int) -> tuple[str, dict[str, Any]]:
    record = store.tournament(tournament_id)
    return record.game, record.rules
