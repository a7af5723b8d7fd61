from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import pytest

from referee.game import get_game, seats_refused
from referee.rules import (
    MAX_LIST_NUMBERS,
    RuleOptions,
    RulesError,
    describe_rules,
    option,
    parse_option_strings,
    parse_rules,
    rules_to_strings,
)


@dataclass(frozen=True)
class ToyRules(RuleOptions):
    presets: ClassVar[dict[str, dict[str, object]]] = {"short": {"limit": 5, "flag": True}}
    limit: int = option(10, "a limit")
    variant: Literal["six", "nine"] = option("six", "the variant")
    target: int | None = option(None, "a target")
    deals: tuple[int, ...] | None = option(None, "deal numbers")
    flag: bool = option(False, "a flag")

    def __post_init__(self) -> None:
        if self.limit < 0:
            raise RulesError("limit must not be negative")


def test_text_values_are_converted_by_type() -> None:
    rules = parse_rules(
        ToyRules,
        {"limit": "3", "variant": "nine", "target": "none", "deals": "1-3,7", "flag": "yes"},
    )
    assert rules == ToyRules(3, "nine", None, (1, 2, 3, 7), True)


def test_a_number_given_for_a_choice_spelled_as_a_number_is_that_choice() -> None:
    """Golf's bonus_rank is none | 2 | one_eyed_jacks: from Python (or PettingZoo's
    keyword arguments) 2 is as good as "2"; True is not "1"."""
    from referee.games.golf import GolfRules

    assert parse_rules(GolfRules, {"bonus_rank": 2}).bonus_rank == "2"
    assert parse_rules(GolfRules, {"bonus_rank": "2"}).bonus_rank == "2"
    with pytest.raises(RulesError, match="must be one of none, 2, one_eyed_jacks"):
        parse_rules(GolfRules, {"bonus_rank": 3})


def test_defaults_and_presets_with_overrides() -> None:
    assert parse_rules(ToyRules, {}) == ToyRules()
    assert parse_rules(ToyRules, {"preset": "short", "limit": "7"}) == ToyRules(limit=7, flag=True)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"nope": "1"}, "unknown rule option nope; options are: limit, variant"),
        ({"variant": "ten"}, "must be one of six, nine"),
        ({"limit": "many"}, "limit=many: must be a whole number"),
        ({"flag": "maybe"}, "must be true or false"),
        ({"preset": "long"}, "unknown preset 'long'"),
        ({"limit": "-1"}, "limit must not be negative"),
    ],
)
def test_bad_options_are_rejected_clearly(options: dict[str, str], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        parse_rules(ToyRules, options)


@pytest.mark.parametrize(
    "options",
    [
        {"limit": "7" * 5000 + "x"},
        {"variant": "n" * 5000},
        {"flag": "y" * 5000},
        {"deals": "1-" + "9" * 5000},
        {"x" * 5000: "1"},
        {"preset": "p" * 5000},
    ],
)
def test_a_long_refused_value_is_quoted_by_its_start_and_length(
    options: dict[str, str],
) -> None:
    with pytest.raises(RulesError) as refused:
        parse_rules(ToyRules, options)
    message = str(refused.value)
    assert len(message) < 200, message
    assert "characters)" in message


@pytest.mark.parametrize(
    "value",
    [2.5, 0.5, "2.5", "1_0", "\u0663", "\u00b2", True, None, [3], "9" * 5000],
    ids=lambda value: repr(value)[:12],
)
def test_a_whole_number_option_takes_nothing_else(value: object) -> None:
    """Typed values came through int(): 2.5 became 2 (a match of 2 deals where 2.5 was
    asked), "1_0" became 10 and other scripts' digits counted; they are refused now,
    in lists of numbers too."""
    with pytest.raises(RulesError, match="must be a whole number"):
        parse_rules(ToyRules, {"limit": value})
    with pytest.raises(RulesError, match="must be a whole number"):
        parse_rules(ToyRules, {"deals": [1, value] if not isinstance(value, str) else f"1,{value}"})


def test_a_whole_number_option_takes_integers_of_any_type() -> None:
    numpy = pytest.importorskip("numpy")  # what a reinforcement-learning caller may pass
    for value in (3, 3.0, "3", " +3 ", numpy.int64(3)):
        assert parse_rules(ToyRules, {"limit": value, "deals": [value]}) == ToyRules(
            limit=3, deals=(3,)
        )


def test_a_list_option_is_refused_past_its_size_before_it_is_spelled_out() -> None:
    """The text "1-99999999999" (in a replay header, an RPC, a command line) is 13 bytes
    that spelled out took all the memory there was; ranges are counted first."""
    assert parse_rules(ToyRules, {"deals": "1-3,7,9-10"}).deals == (1, 2, 3, 7, 9, 10)
    assert parse_rules(ToyRules, {"deals": f"1-{MAX_LIST_NUMBERS}"}).deals == tuple(
        range(1, MAX_LIST_NUMBERS + 1)
    )
    for too_many in (
        "1-99999999999",
        f"1-{MAX_LIST_NUMBERS},5",
        f"5,1-{MAX_LIST_NUMBERS}",
        ",".join(["1"] * (MAX_LIST_NUMBERS + 1)),
        [1] * (MAX_LIST_NUMBERS + 1),
    ):
        with pytest.raises(RulesError, match="rule deals: more than 10,000 numbers"):
            parse_rules(ToyRules, {"deals": too_many})


def test_a_range_that_runs_backwards_or_is_no_range_is_refused_as_written() -> None:
    """ "3-1" was no numbers at all, silently; "1e-320" was refused quoting "1e"."""
    assert parse_rules(ToyRules, {"deals": "5-5"}).deals == (5,)
    with pytest.raises(RulesError, match="rule deals: the range 3-1 runs backwards"):
        parse_rules(ToyRules, {"deals": "3-1"})
    for written in ("1e-320", "1-x", "-5-3"):
        with pytest.raises(RulesError, match=f"rule deals: '?{written}'? is neither"):
            parse_rules(ToyRules, {"deals": written})


def test_options_text_round_trips_and_is_described() -> None:
    rules = ToyRules(4, "nine", 50, (2, 3), True)
    assert parse_rules(ToyRules, rules_to_strings(rules)) == rules
    described = {o.name: o for o in describe_rules(ToyRules)}
    assert described["variant"].choices == ("six", "nine")
    assert described["target"].default == "none" and described["limit"].doc == "a limit"


def test_key_value_strings() -> None:
    assert parse_option_strings(["a=1", "b = x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(RulesError, match="key=value"):
        parse_option_strings(["oops"])


@pytest.mark.parametrize("value", [str(2**31), str(-(2**31) - 1), 2**40])
def test_a_whole_number_option_fits_the_wire_int32_fields(value: object) -> None:
    """Scores, targets and bonuses travel in int32 fields: a larger option crashed a match
    at its first observation ("Value out of range")."""
    with pytest.raises(RulesError, match="must be from -2,147,483,648 to 2,147,483,647"):
        parse_rules(ToyRules, {"limit": value})
    assert parse_rules(ToyRules, {"limit": str(2**31 - 1)}).limit == 2**31 - 1


def test_a_seat_count_the_rules_refuse_names_the_format_that_seats_it() -> None:
    """Gin seats 3 or 4 only with players=3 or 4; the refusal says so (it named only the
    2 seats of the default format)."""

    def refused(game: str, seats: int, **options: str) -> str | None:
        return seats_refused(game, parse_rules(get_game(game).Rules, options), seats)

    assert refused("gin_rummy", 2) is None and refused("gin_rummy", 3, players="3") is None
    hint = "gin_rummy with these rules seats 2 to 2, not 3 (the rule option players=3 makes it"
    assert (refused("gin_rummy", 3) or "").startswith(hint)
    assert refused("gin_rummy", 5) == "gin_rummy with these rules seats 2 to 2, not 5"
    assert refused("dingo", 3) == "dingo with these rules seats 4 to 4, not 3"
