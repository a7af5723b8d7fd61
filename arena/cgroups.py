"""Per-bot control groups: memory, process-count and CPU accounting over everything a bot
starts, where the machine lets the arena create cgroups (cgroup v2 with the memory and
pids controllers delegated, or the v1 memory, pids and cpuacct hierarchies).

Where the CPU controller can be used too (v2's ``cpu``, the v1 ``cpu`` hierarchy), each bot
is also one CPU group of equal weight: under contention the kernel shares the CPU between
groups first, so a bot gets one bot's share however many processes or sessions it starts.
Outside a CPU group every session is a group of its own (the kernel's autogroup): a bot
whose 20 helpers called setsid() and spun made its opponent's thinking take about 15 times
its CPU time, 2 times in CPU groups (docs/security.md).

A bot's launcher joins its cgroup before it execs the bot (see ``BotCgroup.join_command``),
so every process the bot ever starts is inside from the first instruction: setsid(),
double forks and new pid namespaces do not leave it. The kernel enforces the memory and
process limits; the arena reads CPU, memory, OOM kills and refused forks to report a
``limit`` fault, and kills every process of the group when the bot is done.

Where no cgroup can be created, ``available()`` is None and the arena falls back to
accounting over the bot's process tree from /proc (arena/bots.py).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shlex
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from referee.owned_dirs import owner_is_dead, owner_tag

_ROOT = Path("/sys/fs/cgroup")
_V1_CONTROLLERS = ("memory", "pids", "cpuacct")
_V1_CPU = "cpu"  # used where it can be: equal CPU shares between bots
_PREFIX = "card-arena-"  # and the owner_tag of the arena process that made it


@dataclass(frozen=True)
class CgroupUsage:
    cpu_seconds: float
    memory_mb: float  # anonymous (resident) memory: page cache is reclaimable, not counted
    oom_kills: int  # processes the kernel killed for going over the memory limit
    forks_refused: int  # forks and threads refused for going over the process limit


def _own_path(controller: str | None) -> str:
    """This process's cgroup path in a v1 controller's hierarchy (None: the v2 one)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if (controller is None and names == "") or (
            controller is not None and controller in names.split(",")
        ):
            return path
    raise OSError(f"no {controller or 'v2'} cgroup for this process")


def _remove_dead_arenas(base: Path, controller: str) -> None:
    """Remove the cgroups an arena that died without cleaning up left under ``base``,
    killing any process still in them (under ``--sandbox none`` a bot's processes can
    outlive an arena killed outright; this is where the next arena ends them)."""
    for parent in base.glob(f"{_PREFIX}*"):
        if owner_is_dead(parent.name.removeprefix(_PREFIX)):
            _remove_tree(parent, controller)


def _remove_tree(parent: Path, controller: str) -> None:
    """Kill every process in ``parent``'s bot cgroups and delete them and it."""
    with contextlib.suppress(OSError):
        for child in [p for p in parent.iterdir() if p.is_dir()]:
            BotCgroup(2 if controller == "unified" else 1, {controller: child}).remove()
    with contextlib.suppress(OSError):
        parent.rmdir()


def _try_parent(base: Path, controller: str) -> Path | None:
    """A fresh directory for this arena process under ``base`` (the hierarchy of
    ``controller``, "unified" for v2), or None if not allowed."""
    with contextlib.suppress(OSError):
        _remove_dead_arenas(base, controller)
    parent = base / f"{_PREFIX}{owner_tag()}"
    try:
        parent.mkdir(exist_ok=True)
        probe = parent / "probe"
        probe.mkdir(exist_ok=True)
        probe.rmdir()
    except OSError:
        with contextlib.suppress(OSError):
            parent.rmdir()
        return None
    return parent


@dataclass(frozen=True)
class CgroupRoot:
    """Where this arena process creates its bots' cgroups."""

    version: int
    parents: dict[str, Path]  # controller (or "unified") -> this arena's directory

    @property
    def shares_cpu(self) -> bool:
        """Whether each bot is a CPU group of its own (equal weight under contention)."""
        if self.version == 1:  # its own hierarchy, or mounted with cpuacct
            return any((p / "cpu.shares").exists() for p in self.parents.values())
        with contextlib.suppress(OSError):
            return "cpu" in (self.parents["unified"] / "cgroup.subtree_control").read_text().split()
        return False

    def create(self, name: str, memory_mb: float | None, max_processes: int | None) -> BotCgroup:
        dirs = {}
        for controller, parent in self.parents.items():
            path = parent / name
            path.mkdir(exist_ok=True)
            dirs[controller] = path
        group = BotCgroup(self.version, dirs)
        group.set_limits(memory_mb, max_processes)
        return group

    def remove(self) -> None:
        """Delete this arena's cgroups, and any bot's left in them (a clean-up that a
        cancellation cut short leaves none behind at exit)."""
        for controller, parent in self.parents.items():
            _remove_tree(parent, controller)


_FINDING = threading.Lock()


def available() -> CgroupRoot | None:
    """The place to create bot cgroups on this machine, or None (also when the operator
    set ARENA_CGROUPS=off: then the limits are read from /proc, as where none can be
    made). Found once per process; threads asking at once (checks of uploads served at
    once) wait for one answer, since two finding it at once would each make and remove
    this process's directory under the other."""
    with _FINDING:
        return _find_root()


@functools.cache
def _find_root() -> CgroupRoot | None:
    if os.environ.get("ARENA_CGROUPS", "").lower() == "off":
        return None
    unified = _ROOT / "unified" if (_ROOT / "unified").is_dir() else _ROOT
    with contextlib.suppress(OSError, ValueError):
        controllers = (unified / "cgroup.controllers").read_text().split()
        if {"memory", "pids"} <= set(controllers):
            base = unified / _own_path(None).lstrip("/")
            enabled = (base / "cgroup.subtree_control").read_text().split()
            if {"memory", "pids"} <= set(enabled):
                parent = _try_parent(base, "unified")
                if parent is not None:
                    # One write per controller: one the parent lacks fails its write alone.
                    for controller in ("memory", "pids", "cpu"):
                        with contextlib.suppress(OSError):
                            (parent / "cgroup.subtree_control").write_text(f"+{controller}")
                    root = CgroupRoot(2, {"unified": parent})
                    atexit.register(root.remove)
                    return root
    parents: dict[str, Path] = {}
    for controller in _V1_CONTROLLERS:
        try:
            base = _ROOT / controller / _own_path(controller).lstrip("/")
        except OSError:
            break
        parent = _try_parent(base, controller) if base.is_dir() else None
        if parent is None:
            break
        parents[controller] = parent
    if len(parents) == len(_V1_CONTROLLERS):
        cpu = _v1_cpu_parent(set(parents.values()))
        if cpu is not None:
            parents[_V1_CPU] = cpu
        root = CgroupRoot(1, parents)
        atexit.register(root.remove)
        return root
    CgroupRoot(1, parents).remove()
    return None


def _v1_cpu_parent(taken: set[Path]) -> Path | None:
    """This arena's directory in the v1 cpu hierarchy, or None where there is none to use
    or it is the cpuacct one (mounted together as "cpu,cpuacct")."""
    try:
        base = _ROOT / _V1_CPU / _own_path(_V1_CPU).lstrip("/")
    except OSError:
        return None
    if not base.is_dir() or any(base.resolve() == p.parent.resolve() for p in taken):
        return None
    return _try_parent(base, _V1_CPU)


def _read_int(path: Path, default: int = 0) -> int:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


def _read_keyed(path: Path) -> dict[str, int]:
    values = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                values[key] = int(value.split()[0])
    return values


@dataclass(frozen=True)
class BotCgroup:
    """The cgroup of one bot process and everything it starts."""

    version: int
    dirs: dict[str, Path]

    def _dir(self, controller: str) -> Path:
        return self.dirs["unified"] if self.version == 2 else self.dirs[controller]

    def set_limits(self, memory_mb: float | None, max_processes: int | None) -> None:
        if memory_mb is not None:
            limit = str(int(memory_mb * 1024 * 1024))
            if self.version == 2:
                (self._dir("memory") / "memory.max").write_text(limit)
                with contextlib.suppress(OSError):
                    (self._dir("memory") / "memory.swap.max").write_text("0")
            else:
                (self._dir("memory") / "memory.limit_in_bytes").write_text(limit)
                with contextlib.suppress(OSError):
                    (self._dir("memory") / "memory.memsw.limit_in_bytes").write_text(limit)
        if max_processes is not None:
            (self._dir("pids") / "pids.max").write_text(str(max_processes))

    def yield_cpu(self, yielding: bool) -> None:
        """Give the group the least CPU weight the kernel takes (``yielding``) or the
        default one, where it is a CPU group (v2's cpu.weight, v1's cpu.shares); elsewhere
        nothing. Against a group of default weight a yielding one gets 1/100 (v2) or
        1/512 (v1) of a contended core: a bot not on turn keeps an idle core but hardly
        slows one that is thinking. A write costs about a microsecond in the kernel (a
        CFS quota's about a hundred, too slow for every turn)."""
        found = self._cpu_weight
        if found is not None:
            path, least, default = found
            path.write_text(least if yielding else default)

    @functools.cached_property
    def _cpu_weight(self) -> tuple[Path, str, str] | None:
        """The group's CPU weight file, its least value and its default, if it has one."""
        if self.version == 2:
            weight = self.dirs["unified"] / "cpu.weight"
            return (weight, "1", "100") if weight.exists() else None
        for d in self.dirs.values():  # the cpu hierarchy, or cpuacct mounted with it
            if (d / "cpu.shares").exists():
                return (d / "cpu.shares", "2", "1024")
        return None

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def join_command(self, command: list[str]) -> list[str]:
        """``command`` behind a shell that moves itself into this cgroup and then execs it:
        nothing the bot runs can start outside the group."""
        files = " ".join(shlex.quote(f) for f in self.procs_files())
        script = f'for f in {files}; do echo $$ > "$f" || exit 125; done; exec "$@"'
        return ["/bin/sh", "-c", script, "arena-bot", *command]

    def pids(self) -> list[int]:
        found: set[int] = set()
        for d in self.dirs.values():
            with contextlib.suppress(OSError):
                found.update(int(x) for x in (d / "cgroup.procs").read_text().split())
        return sorted(found)

    def usage(self) -> CgroupUsage:
        if self.version == 2:
            d = self.dirs["unified"]
            cpu = _read_keyed(d / "cpu.stat").get("usage_usec", 0) / 1e6
            memory = _read_keyed(d / "memory.stat").get("anon", 0)
            oom = _read_keyed(d / "memory.events").get("oom_kill", 0)
            refused = _read_keyed(d / "pids.events").get("max", 0)
        else:
            cpu = _read_int(self.dirs["cpuacct"] / "cpuacct.usage") / 1e9
            stat = _read_keyed(self.dirs["memory"] / "memory.stat")
            memory = stat.get("total_rss", stat.get("rss", 0)) + stat.get("total_rss_huge", 0)
            oom = _read_keyed(self.dirs["memory"] / "memory.oom_control").get("oom_kill", 0)
            refused = _read_keyed(self.dirs["pids"] / "pids.events").get("max", 0)
        return CgroupUsage(cpu, memory / 1e6, oom, refused)

    def kill(self) -> None:
        """SIGKILL every process in the group, until none is left (a bot forking while it
        is being killed cannot outrun this: its process limit bounds the rounds)."""
        if self.version == 2:
            with contextlib.suppress(OSError):
                (self.dirs["unified"] / "cgroup.kill").write_text("1")
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and delete the group."""
        self.kill()
        for d in self.dirs.values():
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except (FileNotFoundError, PermissionError):
                    break
                except OSError:
                    time.sleep(0.02)  # zombies not yet reaped by their parent
