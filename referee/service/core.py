"""RefereeCore: tokens, sessions and matches; the referee without its transport."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Sequence
from typing import Any

from referee.game import get_game, parse_rules, seats_refused
from referee.match import (
    FaultKind,
    MatchConfig,
    MatchSpec,
)
from referee.matchspec import check_seconds
from referee.service.batching import EventBatcher
from referee.service.errors import RefereeError
from referee.service.matches import MatchRuntime
from referee.service.peers import PerAddress
from referee.service.sessions import PlayerSession

KEEP_FINISHED = 200  # finished matches a long-running referee keeps in memory
# Watch streams open at once: per match, and per client address (all local Unix-socket
# clients share one). Each costs a task and a share of the event loop per step.
WATCHERS_PER_MATCH = 100
WATCHERS_PER_PEER = 20


class WatchLimitError(RefereeError):
    """Too many Watch streams open at once (per match or per client address)."""


class RefereeCore:
    """Tokens, sessions and matches: the referee without its transport."""

    def __init__(
        self,
        keep_finished: int = KEEP_FINISHED,
        watchers_per_match: int = WATCHERS_PER_MATCH,
        watchers_per_peer: int = WATCHERS_PER_PEER,
    ) -> None:
        self.watchers_per_match = watchers_per_match
        self.watchers_by_peer = PerAddress(watchers_per_peer)
        self.sessions: dict[str, PlayerSession] = {}
        self.matches: dict[str, MatchRuntime] = {}
        self.batcher = EventBatcher()
        self.keep_finished = keep_finished
        self._match_numbers = itertools.count(1)

    def issue_player_token(self, name: str, single_use: bool = False) -> str:
        """A token for a player that may be seated in many matches (or, single_use, in the
        one match it is issued for)."""
        token = secrets.token_urlsafe(24)
        self.sessions[token] = PlayerSession(token, name, self.batcher, single_use)
        return token

    def session(self, token: str) -> PlayerSession | None:
        """The session of ``token``: one dict look-up, whose time tells nothing of the
        tokens known (str hashes are keyed at random per process) and does not grow with
        their number. Comparing with every known token did: a client's Hello with a
        64 KiB token cost 100 ms of the event loop with 1,600 players known, enough to
        make the bots of other matches miss their move clocks."""
        return self.sessions.get(token)

    def player_gone(self, token: str, reason: str, kind: FaultKind = "crash") -> None:
        """The arena saw the bot process behind ``token`` die (or stopped it): fail its
        decisions at once."""
        session = self.sessions.get(token)
        if session is not None:
            session.mark_gone(reason, kind)

    def retire_player(self, token: str, reason: str = "the arena retired this player") -> None:
        """Nothing more for ``token``: its bot is told so (Goodbye) and its stream ends."""
        session = self.sessions.pop(token, None)
        if session is not None:
            session.retire(reason)

    async def expire_idle_players(self, idle_seconds: float) -> None:
        """Run for ever: retire every player token that has held no match for
        ``idle_seconds`` (a long-running referee: `arena serve`), so a remote bot learns
        there is nothing more for it instead of waiting on an open stream for ever."""
        while True:
            await asyncio.sleep(min(idle_seconds / 4, 5.0))
            now = time.monotonic()
            for token, session in list(self.sessions.items()):
                if not session.matches and now - session.idle_since >= idle_seconds:
                    self.retire_player(token, f"no match for this player in {idle_seconds:g} s")

    def create_match(
        self,
        game: str,
        rules: dict[str, Any] | Any,
        seats: int,
        seed: int,
        players: Sequence[str | None] | None,
        names: Sequence[str] | None = None,
        config: MatchConfig | None = None,
        match_id: str | None = None,
        spectator_delay: float = 0.0,
        start_timeout: float = 60.0,
    ) -> tuple[MatchRuntime, list[str]]:
        """Create and start a match. ``players`` has a player token per seat, or None to
        issue a fresh token for that seat (``players`` None: for every seat); returns the
        runtime and the seat tokens. ``start_timeout``: how long the seats may take to
        join; ``spectator_delay``: how far Watch lags behind play."""
        engine = get_game(game)
        parsed = rules if isinstance(rules, engine.Rules) else parse_rules(engine.Rules, rules)
        refused = seats_refused(game, parsed, seats)
        if refused is not None:
            raise RefereeError(refused)
        # A nan timeout sat in the event loop's timer heap, where it compares with nothing,
        # and held back other matches' deadlines behind it for seconds.
        check_seconds("start timeout seconds", start_timeout, zero=False)
        check_seconds("spectator delay seconds", spectator_delay)
        if players is None:  # counted after the seats are known to be a game's
            players = [None] * seats
        if len(players) != seats:
            raise RefereeError(f"{seats} seats need {seats} player entries, got {len(players)}")
        if names and len(names) != seats:
            raise RefereeError(f"{seats} seats need {seats} names, got {len(names)}")
        self._forget_old_matches()
        match_id = match_id or f"m{next(self._match_numbers)}-{secrets.token_hex(4)}"
        if match_id in self.matches:
            raise RefereeError(f"match id {match_id!r} is already in use")
        tokens: list[str] = []
        for seat, token in enumerate(players):
            if not token:
                token = self.issue_player_token(
                    names[seat] if names else f"seat {seat}", single_use=True
                )
            elif token not in self.sessions:
                raise RefereeError(f"seat {seat}: unknown player token")
            elif self.sessions[token].single_use:  # its match was forfeited at once
                raise RefereeError(
                    f"seat {seat}: a seat token of another match; seat a player with a "
                    "player token (IssuePlayerToken)"
                )
            elif token in tokens:  # one stream holds one turn: a reconnect lost the other
                raise RefereeError(
                    f"seat {seat}: the player token of seat {tokens.index(token)} too; "
                    "a player takes one seat of a match"
                )
            tokens.append(token)
        display = tuple(names) if names else tuple(self.sessions[t].name for t in tokens)
        spec = MatchSpec(match_id, game, parsed, seats, seed, display, config or MatchConfig())
        runtime = MatchRuntime(
            spec, [self.sessions[t] for t in tokens], spectator_delay, start_timeout
        )
        self.matches[match_id] = runtime
        runtime.task = asyncio.get_running_loop().create_task(runtime.run())
        return runtime, tokens

    def _forget_old_matches(self) -> None:
        """A long-running referee keeps the last ``keep_finished`` finished matches (their
        status, result and spectator feed) and forgets older ones with their seat tokens;
        the arena keeps their replays."""
        finished = [m for m, r in self.matches.items() if r.done.is_set() and not r.watchers]
        for match_id in finished[: max(0, len(finished) - self.keep_finished)]:
            runtime = self.matches.pop(match_id)
            for session in runtime.sessions:
                if session.single_use:
                    self.sessions.pop(session.token, None)

    def admit_watcher(self, runtime: MatchRuntime, peer: str) -> None:
        """Count one more Watch stream of ``runtime`` from ``peer`` (a client address
        without its port), or raise WatchLimitError past the caps."""
        if runtime.watchers >= self.watchers_per_match:
            raise WatchLimitError(
                f"match {runtime.spec.match_id} already has {runtime.watchers} watchers, "
                "the most this referee allows"
            )
        if not self.watchers_by_peer.take(peer):
            raise WatchLimitError(
                f"{self.watchers_by_peer.limit} Watch streams are open from {peer}, "
                "the most this referee allows per address"
            )
        runtime.watchers += 1

    def release_watcher(self, runtime: MatchRuntime, peer: str) -> None:
        runtime.watchers -= 1
        self.watchers_by_peer.give_back(peer)

    def forget_match(self, match_id: str) -> None:
        self.matches.pop(match_id, None)
