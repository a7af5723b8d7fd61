"""A bot that writes to stderr after each MatchOver (and when it exits), for the test that
stderr is stored with the match it follows.

The line it writes after a MatchOver is finished only on its second turn of the next match
(or at exit): the referee has its first answer by then, so the line's start and its end
reach the arena on either side of that answer.
"""

from __future__ import annotations

import atexit
import random
import sys
from collections.abc import Sequence
from typing import Any

from referee.client import run_bot
from referee.v1 import referee_pb2 as pb

turns_since_over: int | None = None  # None: no line left open


def end_line() -> None:
    global turns_since_over
    if turns_since_over is not None:
        turns_since_over = None
        sys.stderr.write("\n")
        sys.stderr.flush()


def over(message: pb.MatchOver) -> None:
    global turns_since_over
    end_line()
    sys.stderr.write(f"after {message.match_id}")
    sys.stderr.flush()
    turns_since_over = 0


def choose(observation: Any, legal: Sequence[str]) -> str:
    global turns_since_over
    if turns_since_over is not None:
        turns_since_over += 1
        if turns_since_over == 2:
            end_line()
    return random.choice(legal)


def goodbye() -> None:
    end_line()
    print("goodbye", file=sys.stderr, flush=True)


atexit.register(goodbye)
run_bot(choose, name="late", on_match_over=over)
