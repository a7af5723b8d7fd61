"""A bot that could remember deals: it names its process (a random id drawn at start) on
stderr at every turn, so the test can tell which matches one process played. A process
that played one deal twice could have remembered it (the hand it held is an opponent's
now, the stock in the same order); this is the evidence of that. (Every turn, not the
first only: what a bot writes before its first answer in a match is stored with its
previous match.)
"""

from __future__ import annotations

import random
import secrets
import sys
from collections.abc import Sequence
from typing import Any

from referee.client import run_bot

PROCESS = secrets.token_hex(8)


def choose(observation: Any, legal: Sequence[str]) -> str:
    print(f"process {PROCESS}", file=sys.stderr, flush=True)
    return random.choice(legal)


run_bot(choose, name="rememberer")
