"""Tournament settings: one typed, frozen object for everything a tournament is run with
(game, bots, format, rounds, rules, time control, fault policy, bot limits, sandbox,
seed, SPRT bounds), built from command-line flags or a tournament file (TOML), stored
with the tournament and read back by the runner, ``bots check`` and the referee's
:class:`~referee.match.MatchConfig`.

Defaults are defined once: the time control and fault policy take theirs from
``MatchConfig`` (the referee's own), the bot limits from ``BotLimits``; everything else
is defined here. The CLI's flags default to ``None`` and mean "not given", so a flag
overrides the file only when it is on the command line.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from arena.limits import BotLimits
from referee.match import MatchConfig, MatchConfigError

FORMATS = ("round_robin", "gauntlet", "sprt")
SANDBOXES = ("auto", "bwrap", "none")

_MATCH = MatchConfig()  # the referee's defaults
_LIMITS = BotLimits()


class SettingsError(ValueError):
    """Settings that cannot describe a tournament (a bad value, an unknown key)."""


@dataclass(frozen=True)
class SprtSettings:
    """The hypotheses and error rates of a sequential probability ratio test: H0 says NEW
    is ``elo0`` Elo stronger than BASE, H1 ``elo1``; ``max_matches`` caps the test."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_matches: int = 2000

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise SettingsError("SPRT needs elo1 greater than elo0")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise SettingsError(f"SPRT {name} must be between 0 and 0.5")
        if self.max_matches < 2:
            raise SettingsError("SPRT max_matches must be at least 2")


@dataclass(frozen=True)
class TournamentSettings:
    game: str
    bots: tuple[str, ...]
    rules: Mapping[str, str] = field(default_factory=dict)  # options as given (key=value)
    format: str = "round_robin"
    challengers: tuple[str, ...] = ()  # gauntlet: who plays the field (``bots``)
    field: tuple[str, ...] = ()  # SPRT with more than two seats: the other seats' bots
    rounds: int = 1
    seed: int | None = None  # None: secret deals; a seed makes them public (docs/security.md)
    seats: int | None = None  # None: the game's minimum
    concurrency: int = 2
    move_seconds: float = _MATCH.move_seconds
    time_bank_seconds: float = _MATCH.time_bank_seconds
    fault_policy: str = _MATCH.fault_policy
    max_strikes: int = _MATCH.max_strikes
    bot_cpu_seconds: float | None = _LIMITS.cpu_seconds
    bot_memory_mb: float | None = _LIMITS.memory_mb
    bot_output_kb: int = _LIMITS.output_bytes // 1024
    bot_max_processes: int | None = _LIMITS.max_processes
    sandbox: str = "auto"
    sprt: SprtSettings | None = None
    # Bot -> team: bots of one team never share a table. separate_submitters: every
    # submitted bot in its submitter's team (resolved into ``teams`` when it is created).
    teams: Mapping[str, str] = dataclasses.field(default_factory=dict)
    separate_submitters: bool = False

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise SettingsError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.sandbox not in SANDBOXES:
            raise SettingsError(
                f"sandbox must be one of {', '.join(SANDBOXES)}, not {self.sandbox!r}"
            )
        if self.rounds < 1:
            raise SettingsError("rounds must be at least 1")
        if self.concurrency < 1:
            raise SettingsError("concurrency must be at least 1")
        if self.bot_output_kb < 0:
            raise SettingsError("bot_output_kb must not be negative")
        if self.bot_max_processes is not None and self.bot_max_processes < 1:
            raise SettingsError("bot_max_processes must be at least 1")
        if self.format == "gauntlet" and not self.challengers:
            raise SettingsError("a gauntlet needs --challengers (who plays the field)")
        if self.format != "gauntlet" and self.challengers:
            raise SettingsError("--challengers is for --format gauntlet")
        if self.format == "sprt" and (self.sprt is None or len(self.bots) != 2):
            raise SettingsError("an SPRT needs two bots, NEW,BASE, and its elo0/elo1 bounds")
        if self.format != "sprt" and self.field:
            raise SettingsError("a field (--field) is for an SPRT of more than two seats")
        if self.format == "sprt" and (self.teams or self.separate_submitters):
            raise SettingsError(
                "teams are for round robins and gauntlets (an SPRT compares NEW and BASE)"
            )
        try:
            self.match_config()
        except MatchConfigError as exc:
            raise SettingsError(str(exc)) from exc

    def entrants(self) -> tuple[str, ...]:
        """Every bot the tournament plays, once each: bots, challengers, then the field."""
        return tuple(dict.fromkeys((*self.bots, *self.challengers, *self.field)))

    def match_config(self) -> MatchConfig:
        return MatchConfig(
            move_seconds=self.move_seconds,
            time_bank_seconds=self.time_bank_seconds,
            fault_policy=self.fault_policy,  # type: ignore[arg-type]  # checked by MatchConfig
            max_strikes=self.max_strikes,
        )

    def bot_limits(self) -> BotLimits:
        return BotLimits(
            cpu_seconds=self.bot_cpu_seconds,
            memory_mb=self.bot_memory_mb,
            output_bytes=self.bot_output_kb * 1024,
            max_processes=self.bot_max_processes,
        )

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["bots"] = list(self.bots)
        data["challengers"] = list(self.challengers)
        data["field"] = list(self.field)
        data["rules"] = dict(self.rules)
        data["teams"] = dict(self.teams)
        return data

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], strict: bool = True) -> TournamentSettings:
        """Settings from a tournament file or a stored row. ``strict``: an unknown key is an
        error (a file); otherwise it is ignored (a row written by another version)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown and strict:
            raise SettingsError(
                f"unknown setting(s) {', '.join(unknown)}; settings: {', '.join(sorted(known))}"
            )
        values = {k: v for k, v in data.items() if k in known}
        for name in ("bots", "challengers", "field"):
            if isinstance(values.get(name), str):
                values[name] = [b for b in values[name].split(",")]
            if name in values:
                values[name] = tuple(str(b).strip() for b in values[name] if str(b).strip())
        if "rules" in values:
            if not isinstance(values["rules"], Mapping):
                raise SettingsError("rules must be a table of option = value")
            values["rules"] = {str(k): _rule_text(v) for k, v in values["rules"].items()}
        if "teams" in values:
            if not isinstance(values["teams"], Mapping):
                raise SettingsError('teams must be a table of bot = "team"')
            values["teams"] = {str(k): str(v) for k, v in values["teams"].items()}
        if isinstance(values.get("sprt"), Mapping):
            sprt = values["sprt"]
            bad = sorted(set(sprt) - {f.name for f in fields(SprtSettings)})
            if bad:
                raise SettingsError(f"unknown SPRT setting(s) {', '.join(bad)}")
            values["sprt"] = SprtSettings(**sprt)
        if "game" not in values or "bots" not in values:
            raise SettingsError("a tournament needs a game and bots")
        try:
            return cls(**values)
        except TypeError as exc:
            raise SettingsError(str(exc)) from exc

    def merged(self, overrides: Mapping[str, Any]) -> TournamentSettings:
        """These settings with the given values replaced (flags over a file)."""
        return TournamentSettings.from_mapping({**self.to_json(), **overrides})


DEFAULTS = TournamentSettings("", ())  # every default, for help texts and `bots check`


def _rule_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_file(path: Path) -> dict[str, Any]:
    """The settings a tournament file (TOML) gives, unchecked (the caller merges flags)."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML: {exc}") from exc
