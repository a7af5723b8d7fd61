"""Bot processes: launching submitted bots in their sandbox with the limits a tournament
sets, reusing them across matches, capturing their stderr per match, and stopping those
that go over their limits or die.

Each process runs in the sandbox the tournament chose (arena/sandbox.py) with exactly
the environment the arena gives it (ARENA_TARGET, ARENA_TOKEN, ARENA_BOT_SEED), connects
to the referee with its own player token and plays one match at a time. Its limits hold
over everything it starts: in a per-bot cgroup where the machine allows one (the kernel
enforces memory and process counts; CPU comes from the cgroup's accounting), otherwise
over its process tree read from /proc (under bwrap every process of its pid namespace
descends from the sandbox, setsid() or not). A bot over a limit is killed, all of it, and
its seat faults with kind "limit"; a bot whose main process exits faults with "crash" at
once, whoever still holds its pipes, and whatever it left behind is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import re
import shutil
import signal
import stat
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from arena import cgroups
from arena.limits import BotLimits as BotLimits  # its home; imported from here too
from arena.referee_relay import BotRelay
from arena.sandbox import Sandbox, SandboxError, proto_dir, sandbox_env
from arena.store import Entrant
from referee.aio import awaited_to_the_end
from referee.owned_dirs import tagged_temp_dir
from referee.service import RefereeCore
from referee.service.server import raise_open_files_limit

STOP_GRACE_SECONDS = 3.0
MONITOR_SECONDS = 0.25
# CPU a bot may use while it is in no match (between its matches, while others play).
# Honest bots wait on their stream; one that computes on regardless takes CPU from the
# matches in play, where no per-match limit counts it.
IDLE_CPU_SECONDS = 1.0
EXIT_POLL_SECONDS = 0.05
# Open files per bot process (set before the bot's first instruction, hard and soft, so it
# cannot raise it) and in all of a bot's processes together (checked every poll). Each
# connection a bot opens to the referee costs the arena a file descriptor too: without
# these, one bot holding thousands of connections left the arena none to start bots with.
OPEN_FILES_PER_PROCESS = 512
OPEN_FILES = 1024
# Sockets in all of a bot's processes together (checked every poll), and connections to
# the referee it holds (its relay counts them as they open, arena/referee_relay.py). A
# bot needs one connection to the referee; each connection may carry
# STREAMS_PER_CONNECTION calls, each with an unfinished message of up to the transport's
# limit, which the arena holds, not the bot: 100 connections of them took a referee from
# 40 MB to 1.5 GB.
SOCKETS = 16
RELAY_SOCKET = "referee.sock"  # in the bot's own folder, the only one it is shown
_TAIL_BYTES = 2048
_READ_BYTES = 64 * 1024
_DRAIN_PAUSE_SECONDS = 0.1  # after a read past the stderr limit: at most 640 KiB/s
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
_cgroup_names = itertools.count(1)
_relay_names = itertools.count(1)


class BotLaunchError(ValueError):
    """A bot program that cannot be started."""


@dataclass(frozen=True)
class BotLog:
    """What a bot wrote to stderr during one match."""

    text: str
    dropped_bytes: int


@dataclass
class Capture:
    """Stderr kept up to a byte limit; the rest is counted, not kept."""

    kept: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes, limit: int) -> bool:
        """Keep what fits; True when some of ``chunk`` was dropped."""
        room = limit - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        dropped = max(0, len(chunk) - max(room, 0))
        self.dropped += dropped
        return dropped > 0

    def take(self) -> BotLog:
        log = BotLog(self.kept.decode(errors="replace"), self.dropped)
        self.kept, self.dropped = bytearray(), 0
        return log


@dataclass(frozen=True)
class TreeUsage:
    cpu_seconds: float
    memory_mb: float
    tasks: int  # processes and threads
    processes: frozenset[tuple[int, int]] = frozenset()  # (pid, start time) counted
    open_files: int = 0  # file descriptors, over every process
    sockets: int = 0  # of which sockets


# (match id, seat) a bot last played: where what it writes after MatchOver belongs.
MatchSeat = tuple[str, int]
LateOutput = Callable[[MatchSeat, BotLog], None]


@dataclass(eq=False)
class BotProcess:
    entrant: Entrant
    token: str
    process: asyncio.subprocess.Process
    limits: BotLimits
    cgroup: cgroups.BotCgroup | None = None
    relay: BotRelay | None = None  # its only way to the referee
    alive: bool = True
    busy: bool = False
    capture: Capture = field(default_factory=Capture)  # the current match's
    late: Capture = field(default_factory=Capture)  # written after ``last_match`` ended
    # Whether the bot has answered in its current match yet: until then, what it writes
    # is still about ``last_match`` (a bot handles its messages in order: its MatchOver
    # before its next match's first Turn). Set by the pool's user with ``playing``.
    answered: Callable[[], bool] = field(default=lambda: True)
    late_room: int = 0  # what the stderr limit leaves for ``late``
    tail: bytes = b""
    releases: int = 0  # matches handed back: also the number (from 0) of the one in play
    # The number of the match the last stderr line still unfinished went to, and its length.
    open_line_match: int | None = None
    open_line_bytes: int = 0
    cpu_baseline: float = 0.0
    idle_baseline: float | None = None  # CPU when last seen idle (None: busy, or not yet)
    last_match: MatchSeat | None = None
    reader: asyncio.Task[None] | None = None
    faulted: bool = False  # a limit fault was reported: its exit is not a crash
    retiring: bool = False  # replaced (it has played the deal it was wanted for): stopping
    deals: set[int] = field(default_factory=set)  # the deals it has played (MatchJob.deal)
    # The deals other processes of its bot played, or knew, while it was alive: two
    # processes alive at once can pass what they saw (a futex on a shared file).
    alongside: set[int] = field(default_factory=set)
    # Without a cgroup: every process ever counted as the bot's, (pid -> start time), so a
    # setsid() helper orphaned when the bot exits is still killed with it.
    seen: dict[int, int] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    def take_log(self) -> BotLog:
        return self.capture.take()

    def last_line(self) -> str:
        lines = self.tail.decode(errors="replace").strip().splitlines()
        return lines[-1][-300:] if lines else ""

    def exit_text(self) -> str:
        """How its process ended, with the last line it wrote: the reason of its crash."""
        last = self.last_line()
        return f"bot process exited with code {self.process.returncode}" + (
            f": {last}" if last else ""
        )

    def kill(self) -> None:
        """SIGKILL the bot and everything it started."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        for pid, started in self.seen.items():
            if _start_time(pid) == started:  # still that process, not a reused pid
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill()


# Where arenas keep their sockets: this one's temporary folder, and those other arenas on
# the machine may have been given ($TMPDIR is the process's own choice).
TEMPORARY_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")


def holds_arena_sockets(folder: str) -> str | None:
    """The temporary folder that ``folder`` is or holds, where the arenas on this machine
    keep their sockets (their referees', their bots' relays': arena/lifecycle.py), or
    None. A folder mounted inside ``folder`` counts as what it shows: a bind mount of the
    temporary folder, or of a folder holding it, shows the arenas' sockets as well."""
    real = os.path.realpath(folder).rstrip("/") + "/"
    temporaries = list(dict.fromkeys((os.path.realpath(tempfile.gettempdir()), *TEMPORARY_FOLDERS)))
    for temporary in temporaries:
        if (temporary.rstrip("/") + "/").startswith(real):
            return temporary
    shown: dict[tuple[int, int], str] = {}  # a temporary folder and each folder above it
    for temporary in temporaries:
        path = temporary
        while True:
            with contextlib.suppress(OSError):
                found = os.stat(path)
                shown.setdefault((found.st_dev, found.st_ino), temporary)
            if path == "/":
                break
            path = os.path.dirname(path)
    for mount_point in _mount_points():
        if mount_point.startswith(real):
            with contextlib.suppress(OSError):
                found = os.stat(mount_point)
                if (found.st_dev, found.st_ino) in shown:
                    return shown[found.st_dev, found.st_ino]
    return None


def _mount_points() -> list[str]:
    """Every mount point this process sees, each ending in "/" (/proc/self/mountinfo's
    fifth field, octal escapes undone)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as info:
            lines = info.read().splitlines()
    except OSError:
        return []
    points = []
    for line in lines:
        fields = line.split(" ")
        if len(fields) > 4:
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            points.append(point.rstrip("/") + "/")
    return points


def descends_from(pid: int, ancestor: int) -> bool:
    """Whether process ``pid`` is ``ancestor`` or descends from it (from /proc)."""
    for _ in range(64):  # deeper than any bot's tree
        if pid == ancestor:
            return True
        fields = _stat_fields(pid) if pid > 1 else None
        if fields is None:
            return False
        pid = int(fields[1])
    return False


def _note_processes(bot: BotProcess, used: TreeUsage) -> None:
    """Add the processes a look at the bot's tree found to those it is known to have
    started (keeping the ones still alive), so each is killed with it."""
    if used.processes:
        kept = {pid: t for pid, t in bot.seen.items() if _start_time(pid) == t}
        bot.seen = kept | dict(used.processes)


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command's name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return raw[raw.rindex(b")") + 2 :].split()


def _start_time(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return None if fields is None else int(fields[19])


def _proc_table() -> dict[int, tuple[int, int, float, float, int, int]]:
    """pid -> (parent, process group, CPU seconds incl. reaped children, resident MB,
    threads, start time), from one pass over /proc."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat_fields(int(name))
        if fields is None:
            continue  # gone meanwhile
        cpu = sum(int(x) for x in fields[11:15]) / _CLOCK_TICKS  # utime stime cutime cstime
        table[int(name)] = (
            int(fields[1]),
            int(fields[2]),
            cpu,
            int(fields[21]) * _PAGE_BYTES / 1e6,
            int(fields[17]),
            int(fields[19]),
        )
    return table


def tree_usage(roots: Sequence[int]) -> dict[int, TreeUsage]:
    """Usage per root pid over its descendants and its process group (setsid() children
    stay descendants until their parent dies; under bwrap, orphans are re-parented to the
    sandbox's init, so the whole pid namespace is counted)."""
    table = _proc_table()
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (parent, *_rest) in table.items():
        children[parent].append(pid)
    usage = {}
    for root in roots:
        members = {pid for pid, row in table.items() if row[1] == root}
        stack, seen = [root], {root}
        while stack:
            pid = stack.pop()
            members.add(pid)
            fresh = [c for c in children.get(pid, ()) if c not in seen]
            seen.update(fresh)
            stack.extend(fresh)
        rows = {p: table[p] for p in members if p in table}
        usage[root] = TreeUsage(
            sum(r[2] for r in rows.values()),
            sum(r[3] for r in rows.values()),
            sum(r[4] for r in rows.values()),
            frozenset((p, r[5]) for p, r in rows.items()),
            *descriptors(rows),
        )
    return usage


def descriptors(pids: Iterable[int]) -> tuple[int, int]:
    """File descriptors open in ``pids`` (processes: their threads share them), and how
    many of them are sockets. A process that made itself unreadable (prctl
    PR_SET_DUMPABLE 0: then only root may list its descriptors) counts as many of both as
    its limit lets it hold."""
    files = sockets = 0
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        try:
            names = os.listdir(fd_dir)
        except PermissionError:
            files += OPEN_FILES_PER_PROCESS
            sockets += OPEN_FILES_PER_PROCESS
            continue
        except OSError:  # gone meanwhile
            continue
        files += len(names)
        for name in names:
            with contextlib.suppress(OSError):  # closed meanwhile
                sockets += os.readlink(f"{fd_dir}/{name}").startswith("socket:")
    return files, sockets


def with_open_files_limit(command: list[str]) -> list[str]:
    """``command`` behind a shell that sets its open-files limit (soft and hard) first."""
    # A hard limit already at or under the limit cannot be raised, and need not be.
    script = (
        f"ulimit -n {OPEN_FILES_PER_PROCESS} 2>/dev/null "
        f'|| [ "$(ulimit -Hn)" -le {OPEN_FILES_PER_PROCESS} ] '
        '|| exit 125; exec "$@"'
    )
    return ["/bin/sh", "-c", script, "arena-bot", *command]


def _yield_cpu(group: cgroups.BotCgroup, yielding: bool) -> None:
    # The group is gone once its bot is: nothing left to hold back.
    with contextlib.suppress(OSError):
        group.yield_cpu(yielding)


@dataclass
class BotPool:
    """Long-lived bot processes per entrant, handed out one match at a time."""

    core: RefereeCore
    address: str
    bot_seed: Callable[[str], str]  # ARENA_BOT_SEED per entrant name
    limits: BotLimits = field(default_factory=BotLimits)
    sandbox: Sandbox = field(default_factory=lambda: Sandbox("none"))
    hidden: tuple[str, ...] = ()  # never shown: the database and its journals
    on_late_output: LateOutput | None = None
    use_cgroups: bool = True
    processes: dict[str, list[BotProcess]] = field(default_factory=lambda: defaultdict(list))
    closing: bool = False
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _stopping: list[asyncio.Task[None]] = field(default_factory=list)  # retired processes
    _monitor: asyncio.Task[None] | None = None
    _relays: tempfile.TemporaryDirectory[str] | None = None  # the bots' sockets' folders

    def __post_init__(self) -> None:
        raise_open_files_limit()  # before any bot's pipes are made

    async def acquire(self, entrant: Entrant, deal: int | None = None) -> BotProcess:
        """A free live process of this entrant (launching one if needed), marked busy,
        with its per-match stderr capture and CPU baseline reset. With ``deal`` (the
        match's seed, or its rules' fixed deal), never a process that has played that deal: every table of a round
        plays one deal, from every seat in turn, and a process remembers what it saw (the
        hand it held is now an opponent's, the stock's order is the same). Nor one that
        was alive while another process of the bot played it (they can pass it on). Idle
        ones that have are stopped, and gone, before a new one starts."""
        if self.closing:  # close() stops the processes it sees: none may start after it
            raise BotLaunchError(f"cannot start bot {entrant.name!r}: the arena is stopping")
        if self._monitor is None:
            self._monitor = asyncio.get_running_loop().create_task(self._watch_limits())
        free = [
            b
            for b in self.processes[entrant.name]
            if b.alive and not b.busy and not b.faulted and not b.retiring
        ]
        bot = next((b for b in free if deal not in b.deals | b.alongside), None)
        if bot is None:
            # Each idle one has played this deal or lived beside a process that did: all
            # are stopped, and gone, before the new one starts (one told to go lived on
            # for its grace beside its replacement and passed it the opponent's hand).
            await asyncio.gather(*(self._retire(b) for b in free))
            bot = await self._launch(entrant)
        if deal is not None:
            bot.deals.add(deal)
        # Processes alive at once share what they know, and pass on what they learnt
        # from others: each takes the other's deals, played and known.
        for other in self.processes[entrant.name]:
            if other is not bot and other.alive:
                if deal is not None:
                    other.alongside.add(deal)
                bot.alongside |= other.deals | other.alongside
        bot.capture.take()  # nothing is written in no match: late output has its own
        bot.busy = True
        bot.idle_baseline = None
        bot.cpu_baseline = (await asyncio.to_thread(self._usage, [bot]))[bot.pid].cpu_seconds
        return bot

    def release(self, bot: BotProcess, match: MatchSeat | None = None) -> BotLog:
        """Hand a process back after a match; returns what it wrote to stderr meanwhile.
        What it writes later belongs to ``match`` too and goes to ``on_late_output``:
        everything until it answers in its next match (see ``playing``), within the
        same stderr limit."""
        self._hand_over_late_output(bot)
        bot.busy = False
        bot.last_match = match
        bot.releases += 1
        bot.answered = lambda: False
        self._hold_back_between_turns(bot, in_match=False)
        log = bot.take_log()
        bot.late_room = max(0, bot.limits.output_bytes - len(log.text.encode()))
        return log

    def playing(self, bot: BotProcess, answered: Callable[[], bool]) -> None:
        """``answered()`` tells when the bot has answered in its new match: from then on,
        what it writes belongs to that match. Until the match ends the bot yields the
        CPU to others while it owes no decision."""
        bot.answered = answered
        self._hold_back_between_turns(bot, in_match=True)

    def _hold_back_between_turns(self, bot: BotProcess, in_match: bool) -> None:
        """In a match, the bot's CPU group yields to others while its seat's session owes
        no decision (move clocks are wall time: a bot computing on its opponent's turn
        slowed the opponent's thinking). Out of a match it yields too: it is on turn
        nowhere. A process not yet connected is still starting (the match waits for it):
        it keeps its weight until it is. Without a CPU group, nothing."""
        group = bot.cgroup
        if group is None:
            return
        session = self.core.session(bot.token)
        if in_match and session is not None:
            watched = session

            def on_turn(owes: bool) -> None:
                _yield_cpu(group, not owes and watched.connection is not None)

            session.watch_turns(on_turn)
            return
        if session is not None:
            session.watch_turns(None)
        _yield_cpu(group, True)

    def _hand_over_late_output(self, bot: BotProcess) -> None:
        log = bot.late.take()
        wrote = log.text or log.dropped_bytes
        if wrote and bot.last_match is not None and self.on_late_output is not None:
            self.on_late_output(bot.last_match, log)

    async def _launch(self, entrant: Entrant) -> BotProcess:
        token = self.core.issue_player_token(entrant.name)
        relay = self._new_relay()
        try:
            return await self._launch_with(entrant, token, relay)
        except BaseException:
            self._close_relay(relay)
            raise

    def _new_relay(self) -> BotRelay:
        """A relay for a new bot process, in a folder of its own (not started yet)."""
        if not self.address.startswith("unix:"):
            raise ValueError(f"bots reach their referee by a Unix socket, not {self.address}")
        if self._relays is None:
            self._relays = tagged_temp_dir("arena-bots", f"b{'0' * 9}/{RELAY_SOCKET}")
        folder = os.path.join(self._relays.name, f"b{next(_relay_names)}")
        os.mkdir(folder, 0o700)
        target = self.address.removeprefix("unix:")
        return BotRelay(os.path.join(folder, RELAY_SOCKET), target, SOCKETS)

    @staticmethod
    def _close_relay(relay: BotRelay | None) -> None:
        if relay is None:
            return
        relay.close()
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(relay.socket_path))

    async def _launch_with(self, entrant: Entrant, token: str, relay: BotRelay) -> BotProcess:
        cwd = entrant.cwd or os.getcwd()
        env = sandbox_env(
            self.sandbox,
            {
                "ARENA_TARGET": f"unix:{relay.socket_path}",
                "ARENA_TOKEN": token,
                "ARENA_BOT_SEED": self.bot_seed(entrant.name),
                **({"ARENA_PROTO_DIR": proto} if (proto := proto_dir()) else {}),
                "PYTHONUNBUFFERED": "1",
            },
        )
        program = entrant.command[0] if entrant.command else ""
        found = (
            os.path.join(cwd, program)
            if "/" in program
            else shutil.which(program, path=env["PATH"])
        )
        if not found or not os.access(found, os.X_OK):
            self.core.retire_player(token)
            shown = " ".join(entrant.command)
            raise BotLaunchError(
                f"cannot start bot {entrant.name!r} ({shown}): no program {program!r}"
                + ("" if "/" in program else f" on its PATH ({env['PATH']})")
            )
        held = holds_arena_sockets(cwd) if self.sandbox.mode == "bwrap" else None
        if held is not None:
            # The sandbox shows a bot its whole folder: it would see other bots' relays,
            # and arenas started later, whatever was hidden when it started.
            self.core.retire_player(token)
            raise BotLaunchError(
                f"cannot start bot {entrant.name!r}: its folder {cwd} holds {held}, where "
                "every arena on this machine keeps its sockets; move the bot to a folder "
                "of its own"
            )
        if self.sandbox.bots_own_users and not os.stat(found).st_mode & stat.S_IXOTH:
            self.core.retire_player(token)
            raise BotLaunchError(
                f"cannot start bot {entrant.name!r}: {os.path.normpath(found)} may be run "
                "by its owner and group only; a root arena runs each bot as a user of its "
                "own, so make it executable by all (chmod o+x)"
            )
        root = cgroups.available() if self.use_cgroups else None
        group = None
        await relay.start()
        try:
            with self.sandbox.launch(
                entrant.command,
                cwd,
                (os.path.dirname(relay.socket_path),),
                self.hidden,
                scratch_mb=self.limits.memory_mb,
            ) as launch:
                command = with_open_files_limit(launch.argv)
                if root is not None:
                    group = root.create(
                        f"bot-{next(_cgroup_names)}",
                        self.limits.memory_mb,
                        self.limits.max_processes,
                    )
                    command = group.join_command(command)
                # Started to the end even when the arena is stopping: asyncio's own clean-up of a
                # cancelled start kills only the process it started (bwrap) and then waits
                # for its pipes; bwrap's init, killed before it had asked to die with its
                # parent, lived on with the bot, holding stderr open, and the arena hung on
                # Ctrl-C. A started bot joins the pool, whose close() stops it.
                process, cancelled = await awaited_to_the_end(
                    asyncio.create_subprocess_exec(
                        *command,
                        cwd=cwd,
                        env=env,
                        pass_fds=launch.pass_fds,
                        stdin=asyncio.subprocess.DEVNULL,
                        stdout=asyncio.subprocess.DEVNULL,
                        stderr=asyncio.subprocess.PIPE,
                        start_new_session=True,
                    )
                )
        except (OSError, SandboxError) as exc:
            self.core.retire_player(token)
            if group is not None:
                group.remove()
            shown = " ".join(entrant.command)
            raise BotLaunchError(f"cannot start bot {entrant.name!r} ({shown}): {exc}") from exc
        bot = BotProcess(entrant, token, process, self.limits, group, relay)
        relay.serve(
            functools.partial(self._is_bots_process, bot),
            functools.partial(self._relay_over_limit, bot),
        )
        self.processes[entrant.name].append(bot)
        loop = asyncio.get_running_loop()
        # Read even when cancelled: close() waits for the reader to reach the end of the
        # pipe, and asyncio's transport is done with the process only then.
        bot.reader = loop.create_task(self._read_stderr(bot))
        self._tasks.append(bot.reader)
        self._tasks.append(loop.create_task(self._wait_exit(bot)))
        if cancelled:  # the arena is stopping: close() stops it with the others
            raise asyncio.CancelledError
        return bot

    async def _read_stderr(self, bot: BotProcess) -> None:
        stream = bot.process.stderr
        assert stream is not None
        while chunk := await stream.read(_READ_BYTES):
            bot.tail = (bot.tail + chunk)[-_TAIL_BYTES:]
            late = (not bot.busy or not bot.answered()) and bot.last_match is not None
            dropped = False
            if not late and bot.open_line_match == bot.releases - 1:
                # The rest of a line begun in the match just played goes with its start:
                # a bot's writes and its answers reach the arena on separate channels (and
                # past the limit stderr is read slowly), and an unbuffered print writes a
                # line and its newline apart.
                end = chunk.find(b"\n") + 1 or len(chunk)
                dropped = self._keep(bot, chunk[:end], late=True)
                chunk = chunk[end:]
            if chunk:
                dropped = self._keep(bot, chunk, late) or dropped
            if dropped:
                # Past its limit, a bot's stderr is drained slowly: read as fast as it
                # writes, a flood would keep the arena's event loop (every match's
                # referee) busy; a bot that goes on writing blocks on its full pipe.
                await asyncio.sleep(_DRAIN_PAUSE_SECONDS)

    @staticmethod
    def _keep(bot: BotProcess, data: bytes, late: bool) -> bool:
        """Keep stderr bytes for the current match or, ``late``, for the last one; True when
        some were dropped. Tracks the line left open, up to ``_TAIL_BYTES`` of it."""
        start = data.rfind(b"\n") + 1
        open_bytes = len(data) - start + (bot.open_line_bytes if start == 0 else 0)
        if 0 < open_bytes <= _TAIL_BYTES:
            bot.open_line_match = bot.releases - 1 if late else bot.releases
            bot.open_line_bytes = open_bytes
        else:
            bot.open_line_match, bot.open_line_bytes = None, 0
        if late:
            return bot.late.add(data, bot.late_room)
        return bot.capture.add(data, bot.limits.output_bytes)

    async def _wait_exit(self, bot: BotProcess) -> None:
        # Not process.wait(): asyncio waits there for the pipes to close too, and a child
        # that keeps the bot's stderr open would hide its death.
        while bot.process.returncode is None:
            await asyncio.sleep(EXIT_POLL_SECONDS)
        bot.alive = False
        await asyncio.to_thread(bot.kill)  # whatever it started dies with it
        self._close_relay(bot.relay)
        if self.closing or bot.faulted or bot.retiring:
            return
        await asyncio.sleep(0.05)  # let the stderr reader catch the last words
        usage = bot.cgroup.usage() if bot.cgroup is not None else None
        if usage is not None and usage.oom_kills:
            limit = self.limits.memory_mb
            reason = f"asked for more than {limit:g} MB of memory, over its {limit:g} MB limit (the kernel killed it)"
            self.core.player_gone(bot.token, reason, kind="limit")
            return
        self.core.player_gone(bot.token, bot.exit_text())

    def _usage(self, bots: Sequence[BotProcess]) -> dict[int, TreeUsage]:
        in_groups = {b.pid: b.cgroup for b in bots if b.cgroup is not None}
        usage = (
            tree_usage([b.pid for b in bots if b.cgroup is None])
            if len(in_groups) < len(bots)
            else {}
        )
        for pid, group in in_groups.items():
            u = group.usage()
            files, sockets = descriptors(frozenset(group.pids()))
            usage[pid] = TreeUsage(u.cpu_seconds, u.memory_mb, 0, open_files=files, sockets=sockets)
        return usage

    def _over_limit(self, bot: BotProcess, usage: TreeUsage) -> str | None:
        limits = self.limits
        if bot.cgroup is not None:
            counted = bot.cgroup.usage()
            if counted.oom_kills:
                limit = limits.memory_mb
                return f"asked for more than {limit:g} MB of memory, over its {limit:g} MB limit (the kernel killed it)"
            if counted.forks_refused:
                return f"tried to run more than {limits.max_processes} processes and threads"
        if limits.memory_mb is not None and usage.memory_mb > limits.memory_mb:
            return (
                f"used {usage.memory_mb:.0f} MB of memory, over its {limits.memory_mb:g} MB limit"
            )
        if limits.max_processes is not None and usage.tasks > limits.max_processes:
            return (
                f"ran {usage.tasks} processes and threads, over its limit of {limits.max_processes}"
            )
        if usage.open_files > OPEN_FILES:
            return (
                f"held {usage.open_files} open files and connections, over the "
                f"{OPEN_FILES} a bot may hold in all its processes"
            )
        if usage.sockets > SOCKETS:
            return (
                f"held {usage.sockets} sockets (connections), over the {SOCKETS} a bot may "
                "hold in all its processes"
            )
        spent = usage.cpu_seconds - bot.cpu_baseline
        if bot.busy and limits.cpu_seconds is not None and spent > limits.cpu_seconds:
            return (
                f"used {spent:.1f} s of CPU in this match, over its {limits.cpu_seconds:g} s limit"
            )
        if not bot.busy and bot.idle_baseline is not None:
            idle = usage.cpu_seconds - bot.idle_baseline
            if idle > IDLE_CPU_SECONDS:
                return (
                    f"used {idle:.2f} s of CPU while in no match, over the "
                    f"{IDLE_CPU_SECONDS:g} s a bot may use between its matches"
                )
        return None

    async def _watch_limits(self) -> None:
        while not self.closing:
            await asyncio.sleep(MONITOR_SECONDS)
            for bot in [b for group in self.processes.values() for b in group]:
                if bot.busy and bot.answered():
                    self._hand_over_late_output(bot)
            alive = [b for group in self.processes.values() for b in group if b.alive]
            if not alive:
                continue
            usage = await asyncio.to_thread(self._usage, alive)
            for bot in alive:
                if bot.relay is not None:
                    bot.relay.cut_orphans()
                used = usage.get(bot.pid, TreeUsage(0.0, 0.0, 0))
                _note_processes(bot, used)
                if not bot.busy and bot.idle_baseline is None:
                    bot.idle_baseline = used.cpu_seconds  # idle from here on
                reason = self._over_limit(bot, used)
                if reason is not None and self._limit_fault(bot, reason):
                    await asyncio.to_thread(bot.kill)

    def _limit_fault(self, bot: BotProcess, reason: str) -> bool:
        """Fault a live bot over a limit (once); True when it is to be killed now."""
        if not bot.alive or bot.faulted:
            return False
        bot.faulted = True
        self.core.player_gone(bot.token, reason, kind="limit")
        if not bot.busy:  # no match to fault: said with its last match's output
            bot.late.add(f"\n[arena] stopped: {reason}\n".encode(), 1 << 16)
            self._hand_over_late_output(bot)
        return True

    @staticmethod
    def _is_bots_process(bot: BotProcess, pid: int) -> bool:
        """Whether ``pid`` is one of the bot's processes: in its cgroup, else descended
        from it (under bwrap every process of the sandbox is)."""
        if bot.cgroup is not None:
            with contextlib.suppress(OSError):
                return pid in bot.cgroup.pids()
            return False
        return descends_from(pid, bot.pid)

    def _relay_over_limit(self, bot: BotProcess, reason: str) -> None:
        """Its relay saw it go over a limit (too many connections, too many bytes): it is
        faulted and stopped at once, not at the monitor's next look."""
        if self._limit_fault(bot, reason):
            task = asyncio.get_running_loop().create_task(asyncio.to_thread(bot.kill))
            self._tasks.append(task)

    def _retire(self, bot: BotProcess) -> asyncio.Task[None]:
        """Stop an idle process for good: told so, it exits; after STOP_GRACE_SECONDS it is
        killed. The task ends once it is gone."""
        bot.retiring = True
        self._stopping = [task for task in self._stopping if not task.done()]
        task = asyncio.get_running_loop().create_task(self._stop_retired(bot))
        self._stopping.append(task)
        return task

    async def _stop_retired(self, bot: BotProcess) -> None:
        await asyncio.to_thread(self._note_trees, [bot])  # before it can exit: see _note_trees
        self._tell_to_go(bot)
        await self._stop(bot, time.monotonic() + STOP_GRACE_SECONDS)
        self.processes[bot.entrant.name].remove(bot)

    def _tell_to_go(self, bot: BotProcess) -> None:
        """Close the bot's stream, its sign to exit, and give its CPU group its weight back:
        out of a match it yields, and against bots thinking at full weight a yielding one
        gets a 100th to a 512th of a core, too little to exit within its grace on a busy
        machine (most likely why a JavaScript bot was killed in a loaded test run)."""
        if bot.cgroup is not None:
            _yield_cpu(bot.cgroup, False)
        self.core.retire_player(bot.token)

    def _note_trees(self, bots: Sequence[BotProcess]) -> None:
        """Note every process the bots have now. Without a cgroup a setsid() helper is
        found only as a bot's descendant, which it stops being once the bot exits: so
        this comes before a bot is told to go, or the monitor's last look (every
        MONITOR_SECONDS) may have missed a helper started just before."""
        usage = self._usage([b for b in bots if b.alive])
        for bot in bots:
            _note_processes(bot, usage.get(bot.pid, TreeUsage(0.0, 0.0, 0)))

    async def _stop(self, bot: BotProcess, deadline: float) -> None:
        """Wait until ``deadline`` for a bot whose token is retired to exit, then stop it
        and everything it started; what it wrote last goes with its last match."""
        while bot.process.returncode is None and time.monotonic() < deadline:
            if bot.cgroup is None:  # a helper it starts meanwhile (a new process's first turn)
                await asyncio.to_thread(self._note_trees, [bot])
            await asyncio.sleep(EXIT_POLL_SECONDS)
        await asyncio.to_thread(bot.kill)  # the leader may be gone, helpers not
        self._close_relay(bot.relay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(bot.process.wait(), STOP_GRACE_SECONDS)
        if bot.reader is not None:  # its last words, up to the end of the pipe
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(bot.reader), STOP_GRACE_SECONDS)
        self._hand_over_late_output(bot)
        if bot.cgroup is not None:
            await asyncio.to_thread(bot.cgroup.remove)

    async def close(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """Close every stream (bots exit by themselves within ``grace`` seconds), then stop
        stragglers and everything any bot started."""
        self.closing = True
        await asyncio.gather(*self._stopping, return_exceptions=True)  # the retired first
        # Every bot still here, one whose retirement was cut short included.
        bots = [b for group in self.processes.values() for b in group]
        await asyncio.to_thread(self._note_trees, bots)
        for bot in bots:
            self._tell_to_go(bot)
        deadline = time.monotonic() + grace
        for bot in bots:
            await self._stop(bot, deadline)
        for task in [*self._tasks, *([self._monitor] if self._monitor else [])]:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._relays is not None:
            self._relays.cleanup()
