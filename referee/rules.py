"""Rule options: parsing ``key=value`` text into a game's frozen ``Rules`` dataclass,
describing the options for people and the wire, and serialising them back.

A game's ``Rules`` is a frozen dataclass whose fields are its options. Field
types may be ``bool``, ``int``, ``float``, ``str``, ``Literal[...]``, an
optional of those (``X | None``, text ``none``), or ``tuple[int, ...]`` (text
``1,2,5`` or ``1-9``). A field's ``metadata["doc"]`` explains it. It subclasses
:class:`RuleOptions`, whose class attribute ``presets`` (none by default) maps a preset
name to option values applied first (option ``preset=NAME``). ``__post_init__`` raises :class:`RulesError` for
inconsistent combinations.
"""

from __future__ import annotations

import dataclasses
import operator
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, get_args, get_origin

from referee.numbers import whole_number


class RuleOptions:
    """The base of every game's ``Rules`` dataclass: what the option machinery reads
    besides the fields."""

    __slots__ = ()
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = types.MappingProxyType({})


RulesT = TypeVar("RulesT", bound=RuleOptions)


class RulesError(ValueError):
    """An unknown, malformed or inconsistent rule option."""


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One rule option, as listed to people and over the admin RPC."""

    name: str
    type: str
    default: str
    choices: tuple[str, ...]
    doc: str


def _hints(rules_cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(rules_cls)


def _is_optional(tp: Any) -> tuple[bool, Any]:
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(get_args(tp)) == 2:
            return True, args[0]
    return False, tp


def _type_name(tp: Any) -> str:
    optional, inner = _is_optional(tp)
    if get_origin(inner) is Literal:
        base = "choice"
    elif get_origin(inner) is tuple:
        base = "list of int"
    else:
        base = getattr(inner, "__name__", str(inner))
    return base + (" or none" if optional else "")


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


SHOWN_CHARACTERS = 60  # of a refused value, in its error


def _clipped(text: str) -> str:
    """Text as an error quotes it: whole if short, else its start and length (a value
    of thousands of characters would otherwise fill the message and the log)."""
    if len(text) <= SHOWN_CHARACTERS:
        return text
    return f"{text[: SHOWN_CHARACTERS - 20]}… ({len(text):,} characters)"


def _shown(value: Any) -> str:
    """A refused option value as an error quotes it."""
    return _clipped(_text(value))


MAX_LIST_NUMBERS = 10_000  # numbers in a list option (a range is counted as its numbers)


def _whole(name: str, raw: Any) -> int:
    """A whole-number option's value: an integer (not a bool), a float with nothing after
    the point, or text of ASCII digits with an optional sign. ``int()`` alone would cut
    2.5 down to 2 and read "1_0" as 10 and other scripts' digits as numbers."""
    if isinstance(raw, str):
        text = raw.strip()
        sign = -1 if text[:1] == "-" else 1
        value = whole_number(text[1:] if text[:1] in ("+", "-") else text, below=10**30)
        if value is not None:
            return sign * value
    elif isinstance(raw, float):
        if raw.is_integer():
            return int(raw)
    elif not isinstance(raw, bool):
        try:
            return operator.index(raw)  # int, and integer types such as NumPy's
        except TypeError:
            pass
    raise RulesError(f"rule {name}={_shown(raw)}: must be a whole number")


INT32_MAX = 2**31 - 1  # a whole-number option travels in int32 fields of the wire messages


def _int32(name: str, value: int) -> int:
    """A whole-number option within the wire's int32 fields (scores, targets, bonuses are
    sent in them: a larger value crashed the match at its first observation)."""
    if not -INT32_MAX - 1 <= value <= INT32_MAX:
        raise RulesError(
            f"rule {name}={_shown(value)}: must be from {-INT32_MAX - 1:,} to {INT32_MAX:,}"
        )
    return value


def _whole_numbers(name: str, raw: Any) -> tuple[int, ...]:
    """A list option's numbers, from a list or from text such as "1-5,7,9-11"; at most
    MAX_LIST_NUMBERS, a range counted before it is spelled out ("1-99999999999" is a few
    bytes of text)."""
    too_many = RulesError(f"rule {name}: more than {MAX_LIST_NUMBERS:,} numbers")
    if not isinstance(raw, str):
        if len(raw) > MAX_LIST_NUMBERS:
            raise too_many
        return tuple(_whole(name, v) for v in raw)
    out: list[int] = []
    for part in raw.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part[1:]:
            lo, hi = part.split("-", 1) if not part.startswith("-") else (part, part)
            try:
                first, last = _whole(name, lo), _whole(name, hi)
            except RulesError:  # quoted whole: "1e-320" was quoted as "1e"
                raise RulesError(
                    f"rule {name}: {_shown(part)} is neither a whole number nor a range FIRST-LAST"
                ) from None
            if last < first:  # was no numbers at all, silently
                raise RulesError(f"rule {name}: the range {part} runs backwards (FIRST-LAST)")
            if len(out) + last - first + 1 > MAX_LIST_NUMBERS:
                raise too_many
            out.extend(range(first, last + 1))
        elif len(out) == MAX_LIST_NUMBERS:
            raise too_many
        else:
            out.append(_whole(name, part))
    return tuple(out)


def _convert(name: str, tp: Any, raw: Any) -> Any:
    optional, inner = _is_optional(tp)
    if optional and (
        raw is None or (isinstance(raw, str) and raw.strip().lower() in ("none", "off", ""))
    ):
        return None
    text = raw.strip() if isinstance(raw, str) else None
    try:
        if get_origin(inner) is Literal:
            choices = get_args(inner)
            # A number given for a choice spelled as one (Golf's bonus_rank=2) counts as it.
            spelled = str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else text
            for choice in choices:
                if raw == choice or (spelled is not None and spelled == _text(choice)):
                    return choice
            raise RulesError(
                f"rule {name}={_shown(raw)}: must be one of {', '.join(_text(c) for c in choices)}"
            )
        if inner is bool:
            if isinstance(raw, bool):
                return raw
            if text is not None and text.lower() in ("true", "yes", "on", "1"):
                return True
            if text is not None and text.lower() in ("false", "no", "off", "0"):
                return False
            raise RulesError(f"rule {name}={_shown(raw)}: must be true or false")
        if inner is int:
            return _int32(name, _whole(name, raw))
        if inner is float:
            return float(raw)
        if inner is str:
            return str(raw)
        if get_origin(inner) is tuple:
            return _whole_numbers(name, raw if isinstance(raw, (list, tuple)) else text)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, RulesError):
            raise
        raise RulesError(f"rule {name}={_shown(raw)}: expected {_type_name(tp)}") from exc
    raise RulesError(f"rule {name}: unsupported option type {tp!r}")  # a programming error


def parse_rules(rules_cls: type[RulesT], options: Mapping[str, Any] | None = None) -> RulesT:
    """Build rules from option values (text or typed), rejecting unknown options clearly."""
    options = dict(options or {})
    fields = {f.name: f for f in dataclasses.fields(rules_cls)}  # type: ignore[arg-type]
    hints = _hints(rules_cls)
    values: dict[str, Any] = {}
    preset = options.pop("preset", None)
    if preset is not None:
        presets = rules_cls.presets
        if preset not in presets:
            known = ", ".join(presets) or "none"
            raise RulesError(f"unknown preset {_clipped(str(preset))!r}; presets: {known}")
        values.update(presets[preset])
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise RulesError(
            f"unknown rule option{'s' if len(unknown) > 1 else ''} {', '.join(map(_clipped, unknown))}; "
            f"options are: {', '.join(fields)}" + (", preset" if rules_cls.presets else "")
        )
    values.update(options)
    converted = {name: _convert(name, hints[name], raw) for name, raw in values.items()}
    try:
        return rules_cls(**converted)
    except RulesError:
        raise
    except (TypeError, ValueError) as exc:
        raise RulesError(str(exc)) from exc


def parse_option_strings(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``["knock_limit=8", "preset=pagat_classic"]`` -> a dict; rejects items without '='."""
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise RulesError(f"rule option {_clipped(pair)!r} must look like key=value")
        key, value = pair.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def rules_to_dict(rules: Any) -> dict[str, Any]:
    """Every option with its value, JSON-serialisable (tuples become lists)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


SECRET_TEXT = "hidden"


def rules_to_strings(rules: Any, for_players: bool = False) -> dict[str, str]:
    """Every option as the text ``parse_rules`` accepts. ``for_players``: a secret option
    that is set (see ``secret_options``) reads "hidden"."""
    hidden = secret_options(rules) if for_players else {}
    return {
        f.name: SECRET_TEXT if f.name in hidden else _text(getattr(rules, f.name))
        for f in dataclasses.fields(rules)
    }


def secret_options(rules: Any) -> dict[str, str]:
    """The secret options that are set, as text: those that would tell a player hidden
    cards (numbered deals), and which fix the cards whatever the match's seed."""
    return {
        f.name: _text(getattr(rules, f.name))
        for f in dataclasses.fields(rules)
        if f.metadata.get("secret") and getattr(rules, f.name) is not None
    }


def describe_rules(rules_cls: type[Any]) -> tuple[OptionInfo, ...]:
    """The options of a Rules class, for help texts and the admin RPC."""
    hints = _hints(rules_cls)
    out = []
    for f in dataclasses.fields(rules_cls):
        tp = hints[f.name]
        _, inner = _is_optional(tp)
        choices = tuple(_text(c) for c in get_args(inner)) if get_origin(inner) is Literal else ()
        default = f.default if f.default is not dataclasses.MISSING else None
        out.append(
            OptionInfo(f.name, _type_name(tp), _text(default), choices, f.metadata.get("doc", ""))
        )
    return tuple(out)


def option(default: Any, doc: str, secret: bool = False) -> Any:
    """A Rules field with its default and a one-line explanation. ``secret``: the referee
    does not tell players its value (it would reveal hidden cards)."""
    return dataclasses.field(default=default, metadata={"doc": doc, "secret": secret})
