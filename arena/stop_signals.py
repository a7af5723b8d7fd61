"""The signals that stop an arena process, in a module of their own that imports nothing
else: the command's entry point (arena/entry.py) takes them before anything loads."""

import signal

# Ctrl-C, `kill` (and what service managers send), and the hangup of the terminal the
# arena runs in: each stops it cleanly.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_signals_taken() -> list[int]:
    """SIGINT, SIGTERM and SIGHUP, but one the launcher set to be ignored stays ignored
    (a shell ignores SIGINT in a job it starts in the background, nohup SIGHUP)."""
    return [s for s in STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN]
