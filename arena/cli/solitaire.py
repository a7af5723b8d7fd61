"""``arena solitaire``: Golf solitaire tools (the solver)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    EXTRA_ARGS,
    USER_ERRORS,
    JsonOption,
    RulesOption,
    console,
    fail,
    print_json,
    rule_options,
)
from referee.game import parse_rules

app = typer.Typer(no_args_is_help=True, help="Golf solitaire tools.")


@app.command("solve", context_settings=EXTRA_ARGS)
def solitaire_solve(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help="A deal: JSON, or the board text Golf solvers read.")
    ],
    rules: RulesOption = None,
    as_json: JsonOption = False,
) -> None:
    """The best achievable score of one Golf solitaire deal with every card known, whether
    the tableau can be cleared, and a line of play that gets there."""
    from referee.games.golf_solitaire import BoardError, GolfSolitaireRules, solve_file_text

    try:
        text = file.read_text()
        result = solve_file_text(text, parse_rules(GolfSolitaireRules, rule_options(rules, ctx)))
    except OSError as exc:
        raise fail(f"cannot read {file}: {exc}") from exc
    except (BoardError, *USER_ERRORS) as exc:
        raise fail(str(exc)) from exc
    if as_json:
        print_json(result.to_json())
        return
    verdict = "the tableau can be cleared" if result.clearable else "the tableau cannot be cleared"
    console.print(f"best score {result.best_score}: {verdict}")
    for number, step in enumerate(result.steps, start=1):
        console.print(f"{number:3d}. {step}", highlight=False)
