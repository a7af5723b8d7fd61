"""A random bot that writes every message it receives to a file (argv[1]), one
text-format message per record, for the no-leak tests."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Sequence
from typing import Any

from google.protobuf import text_format

from referee.client import BotRunner
from referee.v1 import referee_pb2 as pb

rng = random.Random(os.environ.get("ARENA_BOT_SEED"))
out = open(sys.argv[1], "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the bot


def choose(observation: Any, legal: Sequence[str]) -> str:
    return rng.choice(list(legal))


def record(message: pb.RefereeMessage) -> None:
    out.write(text_format.MessageToString(message, as_utf8=True) + "\n=====\n")
    out.flush()


if __name__ == "__main__":
    BotRunner(choose, name="recorder", on_message=record).run()
