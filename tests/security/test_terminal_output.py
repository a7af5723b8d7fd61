"""What a bot or a submitter writes reaches the operator's terminal as text, never as
commands: rich markup in a bot's stderr crashed `arena replay show` (a lone "[/]"), and
escape sequences went to the terminal as they were (retitle the window, clear the
screen, move the cursor); bidirectional controls can make a line read other than it is.
`arena replay show`, `arena bots check`, `bots list` and `bots show` print them as they
are written, with control characters escaped."""

from __future__ import annotations

import json
from pathlib import Path

from arena.rendering import terminal_text
from referee.replay import parse_replay
from tests.conftest import arena
from tests.security.conftest import add_random, tournament

HOSTILE = "[/] [red]fake[/red] \x1b]0;owned\x07\x1b[2J \u202eevil"
SHOWN = "[/] [red]fake[/red] \\x1b]0;owned\\x07\\x1b[2J \\u202eevil"
FORGER = f"""
import sys
from referee.client import run_bot
said = False
def choose(observation, legal):
    global said
    if not said:  # one illegal answer, then legal ones
        said = True
        print("HOSTILE " + {HOSTILE!r}, file=sys.stderr)
        return {HOSTILE!r}
    return legal[0]
run_bot(choose, name="forger")
"""
RAW = ("\x1b", "\x07", "\u202e")


def test_control_characters_are_escaped_and_the_rest_is_kept() -> None:
    assert terminal_text(HOSTILE) == SHOWN
    assert terminal_text("a\tb\nc ♠♥ é 10♦") == "a\tb\nc ♠♥ é 10♦"
    assert terminal_text("\x00\x7f\x9b\u2066") == "\\x00\\x7f\\x9b\\u2066"


def add_forger(tmp_path: Path, db: Path) -> None:
    (tmp_path / "forger.py").write_text(FORGER)
    arena(
        db,
        "bots",
        "add",
        "forger",
        "--game",
        "gin_rummy",
        "--cwd",
        str(tmp_path),
        "--",
        "python",
        "forger.py",
    )


def test_replay_show_prints_a_bots_markup_and_escapes_as_text(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_forger(tmp_path, db)
    add_random(db)
    assert tournament(db, "forger,random", "--fault-policy", "default")["played"] == 2
    matches = json.loads(arena(db, "matches", "list", "--json").stdout)
    assert len(matches) == 2
    for match in matches:
        replay = parse_replay(arena(db, "replay", "export", match["id"]).stdout)
        assert any(HOSTILE in line.get("text", "") for line in replay.lines)  # stored as sent
        shown = arena(db, "replay", "show", match["id"], "--no-step")
        assert shown.returncode == 0 and "Traceback" not in shown.stderr
        assert "HOSTILE " + SHOWN in shown.stdout
        assert not any(ch in shown.stdout for ch in RAW)


def test_bots_check_prints_what_the_bot_said_as_text(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    add_forger(tmp_path, db)
    check = arena(db, "bots", "check", "forger", "--move-seconds", "5", check=False)
    assert check.returncode == 1 and "Traceback" not in check.stderr, check.stderr
    assert "HOSTILE " + SHOWN in check.stdout
    assert not any(ch in check.stdout for ch in RAW)


def test_a_bots_command_is_listed_as_text(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena(db, "bots", "add", "odd", "--game", "gin_rummy", "--", "python", HOSTILE)
    for command in (("bots", "list"), ("bots", "show", "odd")):
        out = arena(db, *command, check=False)
        assert out.returncode == 0, out.stderr
        assert not any(ch in out.stdout for ch in RAW)
    assert SHOWN in arena(db, "bots", "show", "odd").stdout
