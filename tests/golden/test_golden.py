"""Golden playthroughs: every committed match re-simulates and records again identically.

A failure here means an engine now plays a committed seed differently. If that is
intended, bump the engine's ``version`` and run ``scripts/regen_golden`` in the same
commit; if the engine's version was bumped, the files must be regenerated with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.game import game_names, get_game
from referee.replay import parse_replay, verify_replay
from tests.golden.cases import (
    CASES,
    GOLDEN_DIR,
    GoldenCase,
    engine_class,
    first_difference,
    record,
)

ROOT = Path(__file__).resolve().parents[2]


def golden_failure(case: GoldenCase, text: str) -> str | None:
    """Why the golden file ``text`` of ``case`` no longer holds, or None if it does."""
    engine = get_game(case.game)
    name, cls = case.path.name, engine_class(case.game)
    replay = parse_replay(text)
    recorded = replay.header["game_version"]
    if recorded != engine.version:
        return (
            f"{name} was recorded with {cls} version {recorded} but the engine is version "
            f"{engine.version}: regenerate it with scripts/regen_golden and commit it together "
            "with the version bump"
        )
    problems = list(verify_replay(replay).mismatches)
    difference = first_difference(text, record(case))
    if difference is not None:
        problems.append(f"recorded again from its seed: {difference}")
    if not problems:
        return None
    return (
        f"{name}: outcomes changed for the same seed: bump {cls}.version and run "
        "scripts/regen_golden in the same commit\n  " + "\n  ".join(problems)
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.stem)
def test_golden_playthrough_holds(case: GoldenCase) -> None:
    failure = golden_failure(case, case.path.read_text(encoding="utf-8"))
    assert failure is None, failure


def test_every_game_has_a_golden_file_and_no_file_is_stale() -> None:
    assert {c.game for c in CASES} == set(game_names())
    committed = {p.name for p in GOLDEN_DIR.glob("*.jsonl")}
    assert committed == {c.path.name for c in CASES}


def test_golden_files_played_to_the_end() -> None:
    # A golden match that ended by forfeit would not exercise the engine's own ending.
    for case in CASES:
        replay = parse_replay(case.path.read_text(encoding="utf-8"))
        assert replay.end["reason"] == "finished", case.path.name
        assert replay.decisions, case.path.name


# ---- the guard itself ------------------------------------------------------------------


def _case(stem: str) -> GoldenCase:
    return next(c for c in CASES if c.path.stem == stem)


def test_a_bumped_version_without_new_files_asks_for_regeneration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = _case("golf__six")
    engine = get_game("golf")
    monkeypatch.setattr(type(engine), "version", engine.version + 1)
    failure = golden_failure(case, case.path.read_text(encoding="utf-8"))
    assert failure is not None
    assert f"recorded with Golf version {engine.version - 1}" in failure
    assert "regenerate it with scripts/regen_golden" in failure


def test_a_changed_outcome_under_the_same_version_asks_for_a_bump() -> None:
    case = _case("gin_rummy__pagat_classic")
    lines = case.path.read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    end["outcome"]["scores"] = list(reversed(end["outcome"]["scores"]))
    lines[-1] = json.dumps(end, separators=(",", ":"))
    failure = golden_failure(case, "\n".join(lines) + "\n")
    assert failure is not None
    assert (
        "outcomes changed for the same seed: bump GinRummy.version and run "
        "scripts/regen_golden in the same commit"
    ) in failure
    assert "recorded outcome" in failure  # from the re-simulation
    assert "recorded again from its seed: line" in failure  # from recording it again


def test_a_new_order_of_legal_actions_is_caught_by_recording_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every recorded action stays legal, so the file still re-simulates; but a bot choosing
    # by position among the listed codes now plays differently from the same seed.
    case = _case("golf__six")
    engine = get_game("golf")
    listed = type(engine).legal_actions
    monkeypatch.setattr(
        type(engine),
        "legal_actions",
        lambda self, s, seat: tuple(reversed(listed(self, s, seat))),
    )
    text = case.path.read_text(encoding="utf-8")
    assert verify_replay(parse_replay(text)).ok
    failure = golden_failure(case, text)
    assert failure is not None
    assert "outcomes changed for the same seed: bump Golf.version" in failure
    assert "recorded again from its seed: line" in failure


def test_wall_clock_fields_are_ignored() -> None:
    case = _case("dingo__one_deal")
    text = case.path.read_text(encoding="utf-8")
    timed = (
        text.replace(
            '"started":"2000-01-01T00:00:00+00:00"', '"started":"2031-05-06T07:08:09+00:00"'
        )
        .replace('"ms":0,', '"ms":12.5,')
        .replace('"finished":"2000-01-01T00:00:00+00:00"', '"finished":"2031-05-06T07:09:00+00:00"')
    )
    assert timed != text
    assert first_difference(timed, text) is None
    assert golden_failure(case, timed) is None


def _regen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "regen_golden"), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_regen_golden_refuses_a_same_version_change_unless_allowed(tmp_path: Path) -> None:
    case = _case("golf_solitaire__strict")
    original = case.path.read_text(encoding="utf-8")
    altered = original.replace('"seed":1,', '"seed":1,"extra":true,', 1)
    assert altered != original
    copy = tmp_path / case.filename
    copy.write_text(altered, encoding="utf-8")

    checked = _regen("--dir", str(tmp_path), "--check", case.game)
    assert checked.returncode == 1 and "would change" in checked.stdout
    refused = _regen("--dir", str(tmp_path), case.game)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "refused" in refused.stderr and "GolfSolitaire.version is still" in refused.stderr
    assert copy.read_text(encoding="utf-8") == altered  # left as it was
    # The other golf_solitaire cases had no file in the folder: written as new.
    assert {p.name for p in tmp_path.iterdir()} == {
        c.filename for c in CASES if c.game == case.game
    }

    allowed = _regen("--dir", str(tmp_path), "--allow-same-version", case.filename)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert copy.read_text(encoding="utf-8") == original
    assert "--allow-same-version" in _regen("--help").stdout


def test_regen_golden_rewrites_a_file_recorded_under_another_version(tmp_path: Path) -> None:
    case = _case("golf_solitaire__strict")
    original = case.path.read_text(encoding="utf-8")
    version = get_game(case.game).version
    older = original.replace(f'"game_version":{version},', '"game_version":0,', 1)
    assert older != original
    (tmp_path / case.filename).write_text(older, encoding="utf-8")
    result = _regen("--dir", str(tmp_path), case.filename)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rewritten" in result.stdout
    assert (tmp_path / case.filename).read_text(encoding="utf-8") == original


def test_regen_golden_rejects_an_unknown_name() -> None:
    result = _regen("no_such_game")
    assert result.returncode == 2 and "no golden case named no_such_game" in result.stderr
