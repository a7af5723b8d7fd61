"""The bots' connections to the referee, counted at the referee's end, in this process.

A bot's own descriptor tables do not show every connection it holds: a socket sent over
SCM_RIGHTS into a queue nobody reads is in no process's table, yet its connection stays
open, with every unfinished message the referee holds for it (a red-team bot hid 300
connections so and took the arena from 75 MB to 1.5 GB). The referee's end is always
here, and SO_PEERCRED names the process that connected.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

_PEERCRED = struct.Struct("3i")  # pid, uid, gid


@dataclass(frozen=True)
class RefereeLink:
    fd: int  # the referee's end, in this process
    inode: int
    peer_pid: int  # the process that connected, in this pid namespace (0: none here)


def referee_links(socket_path: str) -> list[RefereeLink]:
    """Every connection accepted on the Unix socket at ``socket_path`` whose referee end
    is open in this process: an accepted socket carries its listener's path. (Not from
    /proc/net/unix: the referee's end of a connection lives in the network namespace of
    the bot that connected, not the arena's.)"""
    links = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inode = int(target[8:-1])
            pid = _peer_pid(int(name), inode, socket_path)
            if pid is not None:
                links.append(RefereeLink(int(name), inode, pid))
    return links


def links_by_process(links: list[RefereeLink]) -> Counter[int]:
    return Counter(link.peer_pid for link in links)


def cut(link: RefereeLink) -> None:
    """End a connection from the referee's side: the transport reads its end and closes
    it, with every call on it."""
    with contextlib.suppress(OSError), _same_socket(link.fd, link.inode) as sock:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)


def _peer_pid(fd: int, inode: int, socket_path: str) -> int | None:
    """The connecting process of socket ``fd`` if it is a connection accepted on
    ``socket_path``, else None."""
    with contextlib.suppress(OSError), _same_socket(fd, inode) as sock:
        if (
            sock is not None
            and sock.family == socket.AF_UNIX
            and sock.type == socket.SOCK_STREAM
            and not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
            and sock.getsockname() == socket_path
        ):
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
            return int(_PEERCRED.unpack(raw)[0])
    return None


@contextlib.contextmanager
def _same_socket(fd: int, inode: int) -> Iterator[socket.socket | None]:
    """A duplicate of descriptor ``fd`` as a socket if it still is socket ``inode`` (the
    transport may have closed it and reused the number meanwhile), else None."""
    copy = os.dup(fd)
    sock: socket.socket | None = None
    with contextlib.suppress(OSError):  # e.g. a family Python cannot wrap
        if os.fstat(copy).st_ino == inode:
            sock = socket.socket(fileno=copy)  # its family and type as they are
    if sock is None:
        os.close(copy)
        yield None
        return
    try:
        yield sock
    finally:
        sock.close()  # the duplicate only: the referee's end stays open
