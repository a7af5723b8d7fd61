"""``arena bots``: register (a plain command), submit (a stored, versioned copy), list,
show, remove and check bots (entrants)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arena import checks
from arena.artifacts import Artifact, SubmissionError, read_submission
from arena.cli.common import (
    DEFAULT_DB,
    SANDBOX_HELP,
    USER_ERRORS,
    DbOption,
    JsonOption,
    console,
    fail,
    open_existing,
    open_store,
    print_json,
    resolve_sandbox,
    said_when_interrupted,
)
from arena.lifecycle import stops_held
from arena.rendering import terminal_text
from arena.settings import DEFAULTS, check_setting
from arena.store import Entrant, StoreError, database_files
from arena.submissions import SubmissionRefused, split_ref
from referee.game import game_names, get_game

app = typer.Typer(no_args_is_help=True, help="Register and list bots (entrants).")


def check_ref(ref: str) -> None:
    """Refuse a bot given on the command line (NAME or NAME@v) that no bot can be: one
    that is not text (bytes that are not UTF-8 reach Python as surrogates, which SQLite
    cannot take). A name outside 'bots add''s rule may still be a bot registered before
    the rule existed, so it is looked up."""
    name = split_ref(ref)[0]
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise SubmissionRefused(f"bot name {name!r}: not text (bytes that are not UTF-8)") from None


@app.command("add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bots_add(
    ctx: typer.Context,
    name: str,
    game: Annotated[
        list[str], typer.Option("--game", help="A game the bot plays (repeat); '*' for any.")
    ],
    cwd: Annotated[
        Path | None, typer.Option(help="Directory the bot runs in (default: here).")
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Register a bot: arena bots add NAME --game G -- COMMAND..."""
    command = list(ctx.args)
    for g in game:
        if g != "*" and g not in game_names():
            raise fail(f"unknown game {g!r}; games: {', '.join(game_names())}")
    folder = (cwd or Path.cwd()).resolve()
    if not folder.is_dir():
        raise fail(f"--cwd {cwd}: no such directory")
    if command and not _findable(command[0], folder):
        raise fail(
            f"cannot find the command {command[0]!r} (not on PATH, nor a file in {folder}); "
            "give its full path"
        )
    store = open_store(db)
    try:
        entrant = store.add_entrant(name, game, command, str(folder))
    except StoreError as exc:
        raise fail(str(exc)) from exc
    console.print(
        f"added bot [bold]{entrant.name}[/] for {', '.join(entrant.games)}: "
        f"{escape(_command_text(entrant.command))}"
    )


def _findable(program: str, cwd: Path) -> bool:
    """Whether the bot's program can be started from ``cwd``: a path (relative to it) to an
    executable file, or a name on PATH."""
    if "/" in program:
        path = cwd / program
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(program) is not None


def _entrant_row(e: Entrant) -> dict[str, Any]:
    return {
        "name": e.name,
        "kind": e.kind,
        "games": list(e.games),
        "command": list(e.command),
        "cwd": e.cwd or None,
        "sha256": e.sha256,
        "submitter": e.submitter or None,
        "created": e.created,
        "removed": e.removed,
    }


def _command_text(command: Sequence[str]) -> str:
    """A bot's command as printable words: a submitted one is its submitter's, shown as it
    is, never obeyed (escape it where markup is on, or put it in a Text)."""
    return terminal_text(" ".join(command))


@app.command("list")
def bots_list(db: DbOption = DEFAULT_DB, as_json: JsonOption = False) -> None:
    """List bots: plain commands, and every version of each submitted bot."""
    store = open_existing(db)
    plain = [e for e in store.entrants() if e.kind == "command"]
    versions = store.submissions.versions()
    if as_json:
        print_json(
            [_entrant_row(e) for e in plain]
            + [{**dataclasses.asdict(v), "ref": v.ref, "kind": "submitted"} for v in versions]
        )
        return
    table = Table("name", "kind", "games", "command", "size", "sha256", "by", "submitted", "status")
    for e in plain:
        status = "removed" if e.removed else ""
        table.add_row(
            e.name,
            "command",
            ", ".join(e.games),
            Text(_command_text(e.command)),
            "",
            "",
            "",
            e.created,
            status,
        )
    for v in versions:
        table.add_row(
            v.ref,
            "submitted",
            ", ".join(v.games),
            Text(_command_text(v.command)),
            f"{v.size / 1024:.1f} KB",
            v.sha256[:12],
            v.submitter,
            v.created,
            "removed" if v.removed else "",
        )
    console.print(table)


@app.command("submit", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bots_submit(
    ctx: typer.Context,
    name: str,
    path: Annotated[Path, typer.Argument(help="A directory, .zip or .tar.gz with bot.toml.")],
    game: Annotated[
        list[str] | None,
        typer.Option("--game", help="A game the bot plays (repeat); overrides the manifest."),
    ] = None,
    submitter: Annotated[
        str, typer.Option(help="Who submits (a bot name belongs to its first submitter).")
    ] = "operator",
    check: Annotated[
        bool, typer.Option("--check", help="Play a short match per game first; refuse on failure.")
    ] = False,
    move_seconds: Annotated[
        float, typer.Option(help="Time per decision for --check.")
    ] = DEFAULTS.move_seconds,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = DEFAULTS.sandbox,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Submit a bot: arena bots submit NAME PATH [--game G] [-- COMMAND...]. Its files are
    copied into the arena; each submission under NAME is a new version (NAME@v)."""
    store = open_store(db)
    try:
        check_setting("move_seconds", move_seconds)
        store.check_submittable(name, submitter)  # before reading, or a check's matches
        artifact = read_submission(path, command=list(ctx.args) or None, games=game)
        if check:
            _check_submission(name, artifact, move_seconds, sandbox)
        entrant = store.submit_bot(name, artifact, submitter)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    console.print(
        f"submitted [bold]{entrant.name}[/] ({len(artifact.files)} files, "
        f"{artifact.size / 1024:.1f} KB, sha256 {artifact.sha256[:12]}) for "
        f"{', '.join(entrant.games)}: {escape(_command_text(entrant.command))}",
        highlight=False,
    )


def _check_submission(name: str, artifact: Artifact, move_seconds: float, sandbox: str) -> None:
    """bots check on a submission before it is stored; a failure refuses it. A stop in
    the sandbox's probe or the unpacking is held until the check takes it."""
    stopped = f"the check of {escape(name)} stopped; nothing was stored"
    with said_when_interrupted(stopped), stops_held():
        reports = checks.check_artifact(name, artifact, move_seconds, resolve_sandbox(sandbox))
    _print_check_reports(name, reports)
    if not reports or not all(r.ok for r in reports):
        raise SubmissionError(f"{name} failed its check; nothing was stored")


@app.command("show")
def bots_show(
    name: Annotated[str, typer.Argument(help="NAME or NAME@v.")],
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Show a bot: every version of a submitted bot (or one, NAME@v), or a plain command."""
    store = open_existing(db)
    try:
        check_ref(name)
        base, version = split_ref(name)
        if version is not None or store.submissions.is_submitted(base):
            found = store.submissions.versions(base)
            shown = [store.submissions.version(base, version)] if version else found
            rows = [{**dataclasses.asdict(v), "ref": v.ref, "kind": "submitted"} for v in shown]
        else:
            rows = [_entrant_row(store.entrant(name))]
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    for row in rows:
        row["matches"] = len(store.matches(entrant=row.get("ref", row["name"])))
    if as_json:
        print_json(rows)
        return
    for row in rows:
        console.print(f"[bold]{row.get('ref', row['name'])}[/] ({row['kind']})", highlight=False)
        for key, value in row.items():  # a submitted bot's command is its submitter's words
            if key not in ("ref", "name", "kind"):
                shown_value = " ".join(value) if isinstance(value, list | tuple) else value
                console.print(
                    terminal_text(f"  {key}: {shown_value}"), markup=False, highlight=False
                )


@app.command("remove")
def bots_remove(
    name: Annotated[str, typer.Argument(help="NAME (every version) or NAME@v.")],
    db: DbOption = DEFAULT_DB,
) -> None:
    """Stop scheduling a bot or one version; its matches, results and ratings stay."""
    try:
        check_ref(name)
        removed = open_existing(db).remove_entrant(name)
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    if removed:
        console.print(f"removed {', '.join(removed)} (history kept)", highlight=False)
    else:
        console.print(f"{name} was removed already (history kept)", highlight=False, markup=False)


@app.command("check")
def bots_check(
    name: str,
    game: Annotated[
        list[str] | None, typer.Option("--game", help="Check only this game (repeat).")
    ] = None,
    move_seconds: Annotated[float, typer.Option(help="Time per decision.")] = DEFAULTS.move_seconds,
    sandbox: Annotated[str, typer.Option(help=SANDBOX_HELP)] = DEFAULTS.sandbox,
    db: DbOption = DEFAULT_DB,
    as_json: JsonOption = False,
) -> None:
    """Play one short match of each game the bot declares against random bots and report
    protocol errors, illegal actions, timeouts and crashes in plain words."""
    store = open_existing(db)
    try:
        check_ref(name)
        entrant = store.entrant(name)
        for g in game or []:
            get_game(g)
        check_setting("move_seconds", move_seconds)  # refuses nan, inf, 0, over a day
    except USER_ERRORS as exc:
        raise fail(str(exc)) from exc
    with said_when_interrupted(f"the check of {escape(name)} stopped"), stops_held():
        box = resolve_sandbox(sandbox)  # a stop in its probe is held until the check takes it
        reports = checks.run_checks(entrant, game, move_seconds, box, database_files(db))
    if as_json:
        print_json([dataclasses.asdict(r) for r in reports])
    else:
        _print_check_reports(name, reports)
    if not reports or not all(r.ok for r in reports):
        raise typer.Exit(1)


def _print_check_reports(name: str, reports: list[checks.CheckReport]) -> None:
    for r in reports:
        # The problems quote the bot (its actions, its stderr): shown, never obeyed.
        first, *rest = (terminal_text(line) for line in checks.report_lines(name, r))
        color = "green" if r.ok else "red"
        word, _, text = first.partition(" ")
        console.print(f"[{color}]{word}[/] {escape(text)}", highlight=False)
        for line in rest:
            console.print(line, markup=False, highlight=False)
        if r.stderr_excerpt and not r.ok:
            console.print(
                "  its stderr (first and last lines):\n"
                + "\n".join(f"    {x}" for x in terminal_text(r.stderr_excerpt).splitlines()),
                markup=False,
                highlight=False,
            )
