"""Conformance of every registered game to the Game contract (see harness.py)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

from referee.game import GAME_MODULES, get_game, parse_rules
from tests.conformance import harness


def _case_modules() -> list[ModuleType]:
    import tests.conformance as pkg

    names = sorted(
        m.name for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("cases_")
    )
    return [importlib.import_module(f"tests.conformance.{n}") for n in names]


MODULES = _case_modules()
PARAMS = [
    pytest.param(mod, case, id=f"{mod.GAME}-{case.id}-{case.seats}p")
    for mod in MODULES
    for case in mod.CASES
]


def test_every_registered_game_has_conformance_cases() -> None:
    assert sorted(m.GAME for m in MODULES) == sorted(GAME_MODULES)


@pytest.mark.parametrize(("mod", "case"), PARAMS)
def test_random_playouts(mod: ModuleType, case: harness.Case) -> None:
    """Random legal playouts end within the bound, conserve cards, round-trip codes,
    fit the wire types, and (for leak_checks of them) leak nothing under resampling."""
    for i in range(case.playouts):
        harness.playout(
            case,
            mod.GAME,
            seed=1000 + i,
            all_cards=mod.all_cards,
            resample_hidden=mod.resample_hidden,
            leak_test=i < case.leak_checks,
        )


@pytest.mark.parametrize(
    ("mod", "case"),
    [p for p in PARAMS if isinstance(c := p.values[1], harness.Case) and c.fast_playouts],
)
def test_many_fast_random_playouts(mod: ModuleType, case: harness.Case) -> None:
    """Thousands of random playouts per game with the cheap checks (see fast_playout)."""
    for i in range(case.fast_playouts):
        harness.fast_playout(case, mod.GAME, seed=50_000 + i, all_cards=mod.all_cards)


@pytest.mark.parametrize(("mod", "case"), PARAMS)
def test_apply_refuses_every_action_but_the_legal_ones(mod: ModuleType, case: harness.Case) -> None:
    assert harness.check_every_code_is_judged(case, mod.GAME, seed=70_000) > 0


@pytest.mark.parametrize(("mod", "case"), PARAMS)
def test_same_seed_same_match(mod: ModuleType, case: harness.Case) -> None:
    for seed in (7, 8):
        first = harness.playout(case, mod.GAME, seed, mod.all_cards, None, False)
        second = harness.playout(case, mod.GAME, seed, mod.all_cards, None, False)
        assert first == second


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.GAME)
def test_garbage_codes_are_invalid(mod: ModuleType) -> None:
    harness.check_garbage_codes(mod.GAME)


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.GAME)
def test_unknown_rule_option_is_rejected(mod: ModuleType) -> None:
    game = get_game(mod.GAME)
    with pytest.raises(ValueError, match="unknown rule option"):
        parse_rules(game.Rules, {"no_such_option": "1"})
