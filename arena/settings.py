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
from referee.matchspec import MAX_MATCH_SECONDS
from referee.numbers import SQLITE_INTEGER_BOUND

FORMATS = ("round_robin", "gauntlet", "sprt")
SANDBOXES = ("auto", "bwrap", "none")

# The largest values the numeric settings take (docs/tournaments.md): far above any real
# tournament's, and small enough that every tournament they describe can be scheduled,
# timed, limited and stored, on any machine.
DAY_SECONDS = MAX_MATCH_SECONDS  # move_seconds, time_bank_seconds and bot_cpu_seconds: one day
MAX_MEMORY_MB = 1024 * 1024  # bot_memory_mb: 1 TiB
MAX_OUTPUT_KB = 64 * 1024  # bot_output_kb: 64 MiB of stderr kept per bot and match
MAX_PROCESSES = 4_194_304  # bot_max_processes: Linux's largest pid_max
# A round is at most 60 tables times their seatings (720 matches in the worst case, 4-seat
# partnerships): the schedule, built whole in memory, stays under a million matches.
MAX_ROUNDS = 1000
MAX_SPRT_MATCHES = 100_000  # an SPRT's schedule is its cap, built whole too
MAX_CONCURRENCY = 256  # matches at once, each with a bot process per seat
# Local Dask worker processes (--workers): each is a Python process of its own; Dask
# builds its table of them whole, so 2**62 asked for gigabytes before failing.
MAX_LOCAL_WORKERS = 256
MAX_SEATS = 100
MAX_STRIKES = 1000
MAX_ELO = 1000  # SPRT elo0 and elo1, either way

_MATCH = MatchConfig()  # the referee's defaults
_LIMITS = BotLimits()


class SettingsError(ValueError):
    """Settings that cannot describe a tournament (a bad value, an unknown key)."""


@dataclass(frozen=True)
class Bound:
    """The values a numeric setting takes: a whole number (``whole``) or any number from
    ``low`` to ``high``, without ``low`` itself when ``above``, without ``high`` when
    ``below``; None too when ``off`` (no limit, or not given). Never a bool, nan or inf."""

    low: float
    high: float
    whole: bool = False
    above: bool = False
    below: bool = False
    off: bool = False

    def holds(self, value: object) -> bool:
        if value is None:
            return self.off
        kinds = int if self.whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            return False
        low_ok = value > self.low if self.above else value >= self.low
        high_ok = value < self.high if self.below else value <= self.high
        return low_ok and high_ok

    def check(self, name: str, value: object) -> None:
        if not self.holds(value):
            raise SettingsError(f"{name} must be {self}, not {value!r}")

    def __str__(self) -> str:
        kind = "a whole number" if self.whole else "a finite number"
        low, high = _shown(self.low), _shown(self.high)
        if not (self.above or self.below):
            return f"{kind} from {low} to {high}"
        low_words = f"above {low}" if self.above else f"from {low}"
        return f"{kind} {low_words} and {f'below {high}' if self.below else f'at most {high}'}"


def _shown(number: float) -> str:
    """A bound as people write it: 1048576, 0.5 (never 1.04858e+06)."""
    return str(int(number)) if float(number).is_integer() else str(number)


_SPRT_NUMBERS = {
    "elo0": Bound(-MAX_ELO, MAX_ELO),
    "elo1": Bound(-MAX_ELO, MAX_ELO),
    "alpha": Bound(0, 0.5, above=True, below=True),
    "beta": Bound(0, 0.5, above=True, below=True),
    "max_matches": Bound(2, MAX_SPRT_MATCHES, whole=True),
}
_NUMBERS = {
    "rounds": Bound(1, MAX_ROUNDS, whole=True),
    # An SQLite INTEGER, as it is stored.
    "seed": Bound(-SQLITE_INTEGER_BOUND, SQLITE_INTEGER_BOUND - 1, whole=True, off=True),
    "seats": Bound(1, MAX_SEATS, whole=True, off=True),
    "concurrency": Bound(1, MAX_CONCURRENCY, whole=True),
    "move_seconds": Bound(0, DAY_SECONDS, above=True),
    "time_bank_seconds": Bound(0, DAY_SECONDS),
    "max_strikes": Bound(1, MAX_STRIKES, whole=True),
    "bot_cpu_seconds": Bound(0, DAY_SECONDS, above=True, off=True),
    "bot_memory_mb": Bound(1, MAX_MEMORY_MB, off=True),
    "bot_output_kb": Bound(0, MAX_OUTPUT_KB, whole=True),
    "bot_max_processes": Bound(1, MAX_PROCESSES, whole=True, off=True),
}


CLUSTER_NUMBERS = {
    "--workers": Bound(1, MAX_LOCAL_WORKERS, whole=True, off=True),
    "--matches-per-worker": Bound(1, MAX_CONCURRENCY, whole=True, off=True),
}


def check_setting(name: str, value: object) -> None:
    """Refuse a value a numeric setting (one of TournamentSettings') cannot take; for
    commands that take one setting on its own (``bots check --move-seconds``)."""
    _NUMBERS[name].check(name, value)


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
        for name, bound in _SPRT_NUMBERS.items():
            bound.check(f"SPRT {name}", getattr(self, name))
        if not self.elo1 > self.elo0:
            raise SettingsError("SPRT needs elo1 greater than elo0")


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
        if not isinstance(self.game, str):
            raise SettingsError(f"game must be a game's name, not {self.game!r}")
        if self.format not in FORMATS:
            raise SettingsError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.sandbox not in SANDBOXES:
            raise SettingsError(
                f"sandbox must be one of {', '.join(SANDBOXES)}, not {self.sandbox!r}"
            )
        for name, bound in _NUMBERS.items():
            bound.check(name, getattr(self, name))
        if not isinstance(self.separate_submitters, bool):
            raise SettingsError(
                f"separate_submitters must be true or false, not {self.separate_submitters!r}"
            )
        if self.sprt is not None and not isinstance(self.sprt, SprtSettings):
            raise SettingsError(f"sprt must be a table of {_TABLES['sprt']}")
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
            if name in values:
                values[name] = _bot_names(name, values[name])
        if "rules" in values:
            rules = _table("rules", values["rules"])
            values["rules"] = {str(k): _rule_text(v) for k, v in rules.items()}
        if "teams" in values:
            values["teams"] = _table("teams", values["teams"], of=str)
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


def _bot_names(key: str, value: object) -> tuple[str, ...]:
    """Bot names from a list of them or one comma-separated string; blanks left out."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(b, str) for b in items):
        raise SettingsError(f'{key} must be a list of bot names, as in {key} = ["a", "b"]')
    return tuple(b.strip() for b in items if b.strip())


_TABLES = {
    "rules": "option = value",
    "teams": 'bot = "team"',
    "sprt": "elo0, elo1, alpha, beta and max_matches",
}


def _table(key: str, value: object, of: type | None = None) -> dict[str, Any]:
    """``value`` as the table (a dict) setting ``key`` is, its values all ``of`` if given."""
    if not isinstance(value, Mapping) or (
        of is not None and not all(isinstance(v, of) for v in value.values())
    ):
        raise SettingsError(f"{key} must be a table of {_TABLES[key]}")
    return dict(value)


def layered(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A tournament file's settings with the flags' over them: the flags' rule options and
    SPRT settings join the file's tables; any other flag replaces what the file says."""
    out = {**base, **overrides}
    for key in ("rules", "sprt"):
        if key in base and key in overrides:
            out[key] = {**_table(key, base[key]), **_table(key, overrides[key])}
    return out


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
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML: it is not UTF-8 text ({exc})") from exc
