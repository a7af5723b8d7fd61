"""Bots that break the protocol on purpose, for the service tests.

``python -m tests.service.bots.misbehaving MODE [N]``: plays random legal moves, except:
- ``slow N [S]``: on its N-th turn, stalls S seconds (default 3) before reading on, then
  answers late;
- ``crash N``: exits with code 3 on its N-th turn;
- ``illegal N``: from its N-th turn on, answers with a code that was legal earlier but is not now
  (or a made-up one);
- ``malformed N``: on its N-th turn answers with a code that is no action of the game;
- ``wrong_request N``: from its N-th turn on, answers with request ids that are not its own;
- ``hog_memory N``: on its N-th turn, takes 400 MB of memory and holds it;
- ``hog_cpu N``: on its N-th turn, spins until it has used 30 s of CPU;
- ``chatty N``: writes a line to stderr on every turn (N is ignored);
- ``oversize N BYTES``: on its N-th turn answers with an action code of BYTES bytes;
- ``slow_choose N [S]``: its choose() takes S seconds (default 3) on its N-th turn: the SDK's
  deadline guard must answer for it in time.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from referee.client import BotRunner, Send
from referee.v1 import referee_pb2 as pb

mode = sys.argv[1]
trigger = int(sys.argv[2]) if len(sys.argv) > 2 else 1
stall = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
rng = random.Random(os.environ.get("ARENA_BOT_SEED"))
turns = 0
seen: set[str] = set()
hoard: list[bytes] = []


def choose(observation: Any, legal: Sequence[str]) -> str:
    seen.update(legal)
    if mode == "illegal" and turns >= trigger:
        stale = sorted(seen - set(legal))
        return stale[0] if stale else "discard QQ"
    if mode == "malformed" and turns == trigger:
        return "\x00\x01 not a move"
    if mode == "slow_choose" and turns == trigger:
        time.sleep(stall)
    return rng.choice(list(legal))


class Runner(BotRunner):
    async def _handle(self, message: pb.RefereeMessage, send: Send) -> None:
        global turns
        if message.WhichOneof("kind") == "turn":
            turns += 1
            if mode == "slow" and turns == trigger:
                time.sleep(stall)  # blocks the loop: the bot stalls
            if mode == "crash" and turns == trigger:
                os._exit(3)
            if mode == "hog_memory" and turns == trigger:
                hoard.append(b"x" * 400_000_000)
                time.sleep(30)
            if mode == "hog_cpu" and turns == trigger:
                # CPU time, not wall time: on a loaded machine it still spins long enough.
                end = time.process_time() + 30
                while time.process_time() < end:
                    pass
            if mode == "chatty":
                print(f"thinking about turn {turns}", file=sys.stderr, flush=True)
            if mode == "oversize" and turns == trigger:
                code = "x" * int(stall)
                await send(
                    pb.BotMessage(action=pb.Action(request_id=message.turn.request_id, code=code))
                )
                return
            if mode == "wrong_request" and turns >= trigger:
                turn = message.turn
                code = rng.choice(list(turn.legal_actions))
                for guess in (turn.request_id + 1, turn.request_id - 1, turn.request_id + 1000):
                    await send(pb.BotMessage(action=pb.Action(request_id=guess, code=code)))
                return
        await super()._handle(message, send)


if __name__ == "__main__":
    Runner(choose, name=f"misbehaving-{mode}").run()
