"""Whole numbers from people and clients: ids, versions, seats and rule options parse one way."""

from __future__ import annotations

import pytest

from arena.submissions import SubmissionRefused, split_ref
from referee.numbers import whole_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("42", 42),
        ("007", 7),
        (str(2**63 - 1), 2**63 - 1),
        (str(2**63), None),  # past an SQLite INTEGER
        ("9" * 5000, None),  # past int()'s digit limit, refused before int()
        ("\u00b2", None),  # "²": str.isdigit() but int() refuses it
        ("\u0661", None),  # an Arabic-Indic 1: int() would read it
        ("+5", None),
        ("-5", None),
        ("1_0", None),
        (" 5", None),
        ("", None),
    ],
)
def test_whole_number_takes_plain_ascii_digits_that_fit_sqlite(
    text: str, value: int | None
) -> None:
    assert whole_number(text) == value


def test_a_bound_other_than_sqlite_s_is_checked_the_same_way() -> None:
    assert whole_number("9" * 29, below=10**30) == 10**29 - 1
    assert whole_number("1" + "0" * 30, below=10**30) is None
    assert whole_number("10", below=10) is None and whole_number("9", below=10) == 9


def test_a_version_is_a_plain_whole_number_from_1() -> None:
    assert split_ref("bot") == ("bot", None)
    assert split_ref("bot@12") == ("bot", 12)
    for ref in ("bot@0", "bot@\u00b2", "bot@\u0661", "bot@" + "9" * 30, "bot@+1"):
        with pytest.raises(SubmissionRefused, match="a version is a whole number from 1"):
            split_ref(ref)
