"""A bot that writes to stderr after each MatchOver (and when it exits), for the test that
stderr is stored with the match it follows."""

from __future__ import annotations

import atexit
import random
import sys
from typing import Any

from referee.client import run_bot
from referee.v1 import referee_pb2 as pb


def over(message: pb.MatchOver) -> None:
    print(f"after {message.match_id}", file=sys.stderr, flush=True)


def choose(observation: Any, legal: list[str]) -> str:
    return random.choice(legal)


atexit.register(lambda: print("goodbye", file=sys.stderr, flush=True))
run_bot(choose, name="late", on_match_over=over)
