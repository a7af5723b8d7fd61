"""Hostile bots that try to escape their limits, for the security tests.

``python escaper.py hog MARKER``: on its first turn starts a helper that calls setsid()
(leaving the bot's process group and session), takes 400 MB of memory and spins the CPU,
then waits (the match stays on its turn) and plays on as if nothing happened.
``python escaper.py fork_exit MARKER``: on its first turn starts a setsid() helper that
holds the bot's stderr open and sleeps, then exits: the referee must see a crash at once.
``python escaper.py spin MARKER``: on its first turn starts a thread that spins the CPU
for ever, in its matches and between them, and plays on.
``python escaper.py shout MARKER``: on its first turn starts a thread that writes to
stderr as fast as it can, for ever, and plays on.
``python escaper.py linger MARKER``: on its first turn starts a setsid() helper that sleeps,
then plays on, slowly: for stopping the arena under it.
``python escaper.py sockets MARKER``: on its first turn starts three helpers, opens
connections to the referee's socket until refused and holds them, reports how many on
stderr, lets the helpers do the same (bots/connect.py), waits (the match stays on its
turn) and plays on.
``python escaper.py fill MARKER``: on its first turn writes its scratch directory ($TMPDIR,
a RAM-backed tmpfs under bwrap) full, up to 1 GiB, reports on stderr how much it wrote
and why it stopped, then plays on.
``python escaper.py ponder MARKER``: on its first turn starts a setsid() helper that spins
the CPU for ever, then plays on at once: it thinks while its opponent is on turn. On each
turn it writes ``PONDER cpu wall`` to stderr: the helper's CPU seconds (from /proc) and
the wall seconds since it started (the bot reports, not the helper: the helper may get
no CPU to do it).
``python escaper.py think MARKER``: an honest bot that computes for 0.1 s of CPU every turn.

The helpers carry MARKER on their command line, so the test can look for survivors.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.client import run_bot

mode, marker = sys.argv[1], sys.argv[2]
HOG = (
    "import os, time; os.setsid(); hoard = [bytearray(400 << 20)]; "
    "[hoard.append(bytearray(1 << 20)) for _ in range(200)]; "
    "end = time.time() + 300\nwhile time.time() < end: pass"
)
SLEEPER = "import os, time; os.setsid(); time.sleep(300)"
PONDERER = "import os; os.setsid()\nwhile True: pass"
pondering: list[tuple[int, float]] = []  # (the helper's pid, when it started)


def report_pondering() -> None:
    import os
    import time

    pid, started = pondering[0]
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime and stime
    cpu = ticks / os.sysconf("SC_CLK_TCK")
    print("PONDER", cpu, time.monotonic() - started, file=sys.stderr, flush=True)


started = False


def spin() -> None:
    while True:
        pass


def shout() -> None:
    line = b"shouting " * 7000 + b"\n"
    while True:
        sys.stderr.buffer.write(line)
        sys.stderr.buffer.flush()


def choose(observation: Any, legal: Sequence[str]) -> str:
    global started
    if pondering:
        report_pondering()
    if mode == "think":
        import time

        end = time.process_time() + 0.1
        while time.process_time() < end:
            pass
        return random.choice(legal)
    if not started:
        started = True
        if mode == "spin":
            import threading

            threading.Thread(target=spin, daemon=True).start()
            return random.choice(legal)
        if mode == "shout":
            import threading

            threading.Thread(target=shout, daemon=True).start()
            return random.choice(legal)
        if mode == "sockets":
            if TYPE_CHECKING:  # mypy checks this file in the tests package; a bot runs here
                from tests.security.bots.connect import go_file, hold_connections
            else:
                from connect import go_file, hold_connections  # beside this file

            for _ in range(3):  # started first: with its files all open, no Popen works
                subprocess.Popen([sys.executable, "connect.py", marker])
            sys.stderr.write(hold_connections() + "\n")
            sys.stderr.flush()
            with open(go_file(marker), "w"):  # the arena may stop it from here on
                pass
            import time

            time.sleep(20)  # the match waits: the arena must stop the bot meanwhile
            return random.choice(legal)
        if mode == "fill":
            if TYPE_CHECKING:
                from tests.security.bots.fill import fill_scratch
            else:
                from fill import fill_scratch  # beside this file

            sys.stderr.write(fill_scratch(1024, marker) + "\n")
            sys.stderr.flush()
            return random.choice(legal)
        if mode == "ponder":
            import time

            helper = subprocess.Popen([sys.executable, "-c", PONDERER, marker])
            pondering.append((helper.pid, time.monotonic()))
            return random.choice(legal)
        code = HOG if mode == "hog" else SLEEPER
        subprocess.Popen([sys.executable, "-c", code, marker], stderr=sys.stderr)
        if mode == "hog":
            import time

            # The match waits: the arena must stop the helper meanwhile. Long, since on a
            # loaded machine the helper may take many seconds to start and fill its memory
            # (a CI run once saw the hog play on unfaulted after sleeping 20 s, most likely
            # for that); a bot that is stopped does not sleep it out.
            time.sleep(55)
        if mode == "fork_exit":
            sys.stderr.write("leaving my helper behind\n")
            sys.stderr.flush()
            import os

            os._exit(4)
    if mode == "linger":
        import time

        time.sleep(0.02)  # slow enough that the test stops the arena mid-match
    return random.choice(legal)


run_bot(choose, name=mode)
