"""A bot that could remember deals: it names its process (a random id drawn at start) on
stderr at every turn, so the test can tell which matches one process played. A process
that played one deal twice could have remembered it (the hand it held is an opponent's
now, the stock in the same order); this is the evidence of that. (Every turn, not the
first only: what a bot writes before its first answer in a match is stored with its
previous match.) With the match and the time of each turn, so the test can also tell
which matches were in play at once.
"""

from __future__ import annotations

import random
import secrets
import sys
import time
from collections.abc import Sequence
from typing import Any

from referee.client import run_bot

PROCESS = secrets.token_hex(8)
match_id = ""


def on_start(message: Any) -> None:
    global match_id
    match_id = message.match_id


def choose(observation: Any, legal: Sequence[str]) -> str:
    print(f"process {PROCESS} in {match_id} at {time.time():.6f}", file=sys.stderr, flush=True)
    return random.choice(legal)


run_bot(choose, name="rememberer", on_match_start=on_start)
