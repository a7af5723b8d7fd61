"""The sample bots against every message the referee documents, and what they may import.

A scripted referee (a real gRPC server on a Unix socket) plays back to a real bot process
the golden transcripts of tests/transcripts/ (real Turns with real observations), then
every other documented value: each ActionResult status, a MatchOver of each reason
("forfeit", and "aborted" with no scores), an Events message on its own, a second
match on the same stream, and finally a normal close. The bot must answer every Turn
with one of its legal codes and the Turn's request_id, and exit 0. An Error makes it
exit 2. The import test keeps the sample bots copyable: they import only the standard
library and the documented bot surface (referee.client, referee.botkit, referee.v1,
and referee.pettingzoo for a policy trained there).
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from google.protobuf import text_format

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.transcripts.record import transcript_path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
NODE = shutil.which("node")
JS_READY = NODE is not None and (ROOT / "sample_bots/js/node_modules/@grpc/grpc-js").is_dir()

BOT_SURFACE = ("referee.client", "referee.botkit", "referee.pettingzoo", "referee.v1")
FAULT_STATUSES = ("illegal", "malformed", "timeout", "disconnect", "crash", "limit")
NOTICE_STATUSES = ("late", "unknown_request")


def transcript_messages(game: str) -> list[pb.RefereeMessage]:
    """The golden transcript of ``game``, as messages (Welcome included)."""
    blocks = re.split(r"\n\n# \d+: \w+\n", transcript_path(game).read_text())[1:]
    return [text_format.Parse(block, pb.RefereeMessage()) for block in blocks]


def every_documented_message(games: list[str]) -> list[pb.RefereeMessage]:
    """One stream's worth: the transcripts of ``games`` one after another, then a match
    carrying every ActionResult status that ends in a forfeit, then an aborted match."""
    script: list[pb.RefereeMessage] = []
    for i, game in enumerate(games):
        messages = transcript_messages(game)
        script.extend(messages if i == 0 else messages[1:])  # one Welcome per stream
    first = transcript_messages(games[0])
    start = next(m for m in first if m.HasField("match_start"))
    turn = next(m for m in first if m.HasField("turn"))
    for match_id in ("FORFEIT", "ABORTED"):
        again = pb.RefereeMessage()
        again.CopyFrom(start)
        again.match_start.match_id = match_id
        script.append(again)
        asked = pb.RefereeMessage()
        asked.CopyFrom(turn)
        asked.turn.match_id = match_id
        asked.turn.request_id = 1000 + len(script)
        script.append(asked)
        script.append(
            pb.RefereeMessage(
                events=pb.Events(
                    events=[
                        pb.EventNotice(
                            match_id=match_id,
                            kind="discard",
                            text="seat 1 discards 2C",
                            seat=1,
                            hand=1,
                        )
                    ]
                )
            )
        )
        if match_id == "FORFEIT":
            for strikes, status in enumerate(FAULT_STATUSES, 1):
                script.append(
                    pb.RefereeMessage(
                        action_result=pb.ActionResult(
                            match_id=match_id,
                            status=status,
                            message=f"a {status} fault",
                            strikes=strikes,
                        )
                    )
                )
            for status in NOTICE_STATUSES:
                script.append(
                    pb.RefereeMessage(
                        action_result=pb.ActionResult(
                            request_id=99, match_id=match_id, status=status, message="ignored"
                        )
                    )
                )
            over = pb.MatchOver(
                match_id=match_id,
                seat=start.match_start.seat,
                reason="forfeit",
                details_json="{}",
                faults=[
                    pb.Fault(seat=start.match_start.seat, kind=k, reason="r")
                    for k in FAULT_STATUSES
                ],
            )
            over.scores.extend([0.0] * start.match_start.seats)
            over.ranks.extend([start.match_start.seats] + [1] * (start.match_start.seats - 1))
        else:
            over = pb.MatchOver(match_id=match_id, seat=start.match_start.seat, reason="aborted")
        script.append(pb.RefereeMessage(match_over=over))
    return script


class ScriptedReferee(referee_pb2_grpc.RefereeServicer):
    """Plays a script to one bot connection and records the bot's answers."""

    def __init__(self, script: list[pb.RefereeMessage]) -> None:
        self.script = script
        self.answers: list[tuple[pb.Turn, pb.Action]] = []
        self.hellos: list[pb.Hello] = []

    def Play(
        self, request_iterator: Iterator[pb.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.RefereeMessage]:
        hello = next(request_iterator)
        self.hellos.append(hello.hello)
        for message in self.script:
            yield message
            if message.HasField("error"):
                return
            if message.HasField("turn"):
                answer = next(request_iterator)
                self.answers.append((message.turn, answer.action))


def run_against(
    tmp_path: Path, script: list[pb.RefereeMessage], command: list[str]
) -> tuple[ScriptedReferee, subprocess.CompletedProcess[str]]:
    referee = ScriptedReferee(script)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    referee_pb2_grpc.add_RefereeServicer_to_server(referee, server)  # type: ignore[no-untyped-call]
    target = f"unix:{tmp_path}/scripted.sock"
    server.add_insecure_port(target)
    server.start()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "ARENA_TARGET": target,
        "ARENA_TOKEN": "scripted-token",
        "ARENA_BOT_SEED": "1",
        "PYTHONPATH": str(ROOT),
    }
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
        )
    finally:
        threading.Thread(target=server.stop, args=(None,)).start()
    return referee, done


PYTHON_BOTS = {
    "random_bot": ["gin_rummy", "golf", "golf_solitaire", "dingo", "goninkan"],
    "gin_strategy": ["gin_rummy"],
    "golf_strategy": ["golf"],
    "golf_solitaire_greedy": ["golf_solitaire"],
    "golf_solitaire_strategy": ["golf_solitaire"],
    "dingo_strategy": ["dingo"],
    "goninkan_strategy": ["goninkan"],
}
BOT_COMMANDS = {name: [PY, "-m", f"sample_bots.{name}"] for name in PYTHON_BOTS}
if JS_READY:
    assert NODE is not None
    PYTHON_BOTS["js_random"] = PYTHON_BOTS["random_bot"]
    PYTHON_BOTS["js_gin"] = ["gin_rummy"]
    BOT_COMMANDS["js_random"] = [NODE, "sample_bots/js/bot.js", "--strategy", "random"]
    BOT_COMMANDS["js_gin"] = [NODE, "sample_bots/js/bot.js", "--strategy", "gin"]


@pytest.mark.parametrize("bot", list(PYTHON_BOTS))
def test_bot_answers_every_documented_message(tmp_path: Path, bot: str) -> None:
    script = every_documented_message(PYTHON_BOTS[bot])
    referee, done = run_against(tmp_path, script, BOT_COMMANDS[bot])
    assert done.returncode == 0, done.stderr[-2000:]
    turns = [m.turn for m in script if m.HasField("turn")]
    assert len(referee.answers) == len(turns)
    for turn, action in referee.answers:
        assert action.request_id == turn.request_id
        assert action.code in turn.legal_actions, (action.code, list(turn.legal_actions))
    assert referee.hellos[0].token == "scripted-token"
    # No fallback: the strategy itself chose every move, and nothing crashed.
    assert "playing" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "undefined" not in done.stderr, done.stderr[-2000:]  # e.g. the ranks of a void match


@pytest.mark.parametrize("bot", ["random_bot", *(["js_random"] if JS_READY else [])])
@pytest.mark.parametrize("code", ["unauthenticated", "protocol"])
def test_an_error_is_fatal(tmp_path: Path, bot: str, code: str) -> None:
    script = [pb.RefereeMessage(error=pb.Error(code=code, message="refused"))]
    referee, done = run_against(tmp_path, script, BOT_COMMANDS[bot])
    assert done.returncode == 2
    assert code in done.stderr and not referee.answers


def test_sample_bots_import_only_the_bot_surface() -> None:
    stdlib = sys.stdlib_module_names
    for path in sorted((ROOT / "sample_bots").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["." + (node.module or "")]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                allowed = top in stdlib or any(
                    name == s or name.startswith(s + ".") for s in BOT_SURFACE
                )
                assert allowed, f"{path.name} imports {name}: not part of the bot surface"
