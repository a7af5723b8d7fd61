"""Reading and writing golf solitaire deals as text, and solving a deal given as text.

Two formats are read (:func:`parse_deal_text` tells them apart by the first character):

JSON::

    {"tableau": [["QD", "5C", "2D", "4S", "6S"], ... 7 columns, bottom to top ...],
     "foundation": "2S",            (or null: an empty foundation)
     "stock": ["3S", "TS", ...]}    (in the order the cards are turned)

Board text, as black-hole-solver's ``--game golf`` reads it (and as its
``--display-boards`` output writes positions)::

    Talon: 3S TS 9H 2H 3H AD 7H 3D 5H 8D KH 7D AS 5S TH JH
    Foundations: 2S
    QD 5C 2D 4S 6S
    QC 4D 9C 5D 4H
    ... (7 column lines, bottom to top: the last card is available)

The ``Talon:`` line lists the stock, first card turned first; the ``Foundations:`` line
the foundation's top card (``-`` or nothing: empty, an extension of ours). Column lines
may start with ``:``. Lines may come in any order; blank lines and lines starting with
``#`` are ignored. Card codes: rank A 2-9 T (or 10) J Q K then suit C D H S; ``JK`` is a
joker (an extension). Columns may hold 0 to 7 cards, so a position in play can be given.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from referee.cards import Card, CardCodeError, card, codes

from .deals import COLUMNS, Deal
from .rules import GolfSolitaireRules
from .solver import MAX_HEIGHT, SolveResult, solve


class BoardError(ValueError):
    """A deal text that cannot be read, with what is wrong and where."""


def _card(code: str, where: str) -> Card:
    try:
        return card(code)
    except CardCodeError as exc:
        raise BoardError(f"{where}: {exc}") from None


def _check(deal: Deal) -> Deal:
    if len(deal.tableau) != COLUMNS:
        raise BoardError(f"a golf tableau has {COLUMNS} columns, this one has {len(deal.tableau)}")
    for c, col in enumerate(deal.tableau):
        if len(col) > MAX_HEIGHT:
            raise BoardError(f"column {c} has {len(col)} cards; at most {MAX_HEIGHT} are allowed")
    counts = Counter(deal.cards())
    repeated = sorted(c.code for c, k in counts.items() if k > 1 and not c.is_joker)
    if repeated:
        raise BoardError(f"cards given more than once: {', '.join(repeated)}")
    jokers = sum(k for c, k in counts.items() if c.is_joker)
    if jokers > 2:
        raise BoardError(f"{jokers} jokers: at most 2")
    if len(deal.stock) > 31:
        raise BoardError(f"a stock of {len(deal.stock)} cards is too long (at most 31)")
    return deal


def parse_deal_json(text: str) -> Deal:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BoardError("the JSON deal must be an object with tableau, foundation and stock")
    unknown = sorted(set(data) - {"tableau", "foundation", "stock", "number"})
    if unknown:
        raise BoardError(f"unknown keys {', '.join(unknown)}; keys are tableau, foundation, stock")
    tableau = data.get("tableau")
    stock = data.get("stock", [])
    if not isinstance(tableau, list) or not all(isinstance(col, list) for col in tableau):
        raise BoardError("'tableau' must be a list of 7 lists of card codes, bottom to top")
    if not isinstance(stock, list):
        raise BoardError("'stock' must be a list of card codes in the order they are turned")
    found = data.get("foundation")
    if found is not None and not isinstance(found, str):
        raise BoardError("'foundation' must be a card code or null")
    number = data.get("number")
    return _check(
        Deal(
            tuple(
                tuple(_card(str(x), f"tableau column {c}") for x in col)
                for c, col in enumerate(tableau)
            ),
            None if found is None else _card(found, "foundation"),
            tuple(_card(str(x), "stock") for x in stock),
            number if isinstance(number, int) else None,
        )
    )


def parse_board_text(text: str) -> Deal:
    stock: tuple[Card, ...] | None = None
    foundation: Card | None = None
    seen_foundation = False
    columns: list[tuple[Card, ...]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(":")
        key = head.strip().lower()
        if key == "talon":
            if stock is not None:
                raise BoardError(f"line {lineno}: a second Talon line")
            stock = tuple(_card(x, f"line {lineno}") for x in rest.split())
        elif key in ("foundations", "foundation"):
            if seen_foundation:
                raise BoardError(f"line {lineno}: a second Foundations line")
            seen_foundation = True
            found = rest.split()
            if len(found) > 1:
                raise BoardError(f"line {lineno}: golf has one foundation card, got {rest.strip()}")
            if found and found[0] != "-":
                foundation = _card(found[0], f"line {lineno}")
        else:
            body = line[1:] if line.startswith(":") else line
            columns.append(tuple(_card(x, f"line {lineno}") for x in body.split()))
    if stock is None:
        raise BoardError("no 'Talon:' line (the stock, first card turned first)")
    if len(columns) != COLUMNS:
        raise BoardError(f"expected {COLUMNS} column lines, found {len(columns)}")
    return _check(Deal(tuple(columns), foundation, stock))


def parse_deal_text(text: str) -> Deal:
    """A deal from JSON (text starting with ``{``) or from board text."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return parse_deal_json(stripped)
    return parse_board_text(text)


def format_board_text(deal: Deal) -> str:
    """The deal as board text that black-hole-solver (``--game golf``) reads."""
    found = deal.foundation.code if deal.foundation is not None else "-"
    lines = [f"Talon: {codes(deal.stock)}".rstrip(), f"Foundations: {found}"]
    lines.extend(codes(col) for col in deal.tableau)
    return "\n".join(lines) + "\n"


def format_deal_json(deal: Deal) -> str:
    data: dict[str, Any] = {
        "tableau": [[c.code for c in col] for col in deal.tableau],
        "foundation": deal.foundation.code if deal.foundation is not None else None,
        "stock": [c.code for c in deal.stock],
    }
    return json.dumps(data)


def solve_file_text(
    text: str, rules: GolfSolitaireRules | Mapping[str, Any] | None = None
) -> SolveResult:
    """Solve a deal given as JSON or board text under these rules (for ``arena solitaire
    solve FILE``). ``winnable_only``, ``holes``, ``scoring`` and ``deal_numbers`` choose
    deals for matches and do not change the solving of one given deal."""
    return solve(parse_deal_text(text), rules)
