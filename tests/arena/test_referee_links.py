"""arena.referee_links finds the connections accepted on one Unix socket in this process,
names the process that made each, and ends one from this side."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from arena.referee_links import cut, links_by_process, referee_links


def test_links_are_the_accepted_connections_by_the_process_that_made_them(
    tmp_path: Path,
) -> None:
    path, other_path = str(tmp_path / "referee.sock"), str(tmp_path / "other.sock")
    with socket.socket(socket.AF_UNIX) as listener, socket.socket(socket.AF_UNIX) as other:
        listener.bind(path)
        listener.listen()
        other.bind(other_path)
        other.listen()
        # A child connects to each socket, then waits to be told to go.
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import socket, sys\n"
                f"a = socket.socket(socket.AF_UNIX); a.connect({path!r})\n"
                f"b = socket.socket(socket.AF_UNIX); b.connect({other_path!r})\n"
                "print('connected', flush=True); sys.stdin.read()",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline() == "connected\n"
        ours = socket.socket(socket.AF_UNIX)
        ours.connect(path)
        accepted = [listener.accept()[0] for _ in range(2)]
        elsewhere = other.accept()[0]
        try:
            links = referee_links(path)
            assert sorted(link.fd for link in links) == sorted(s.fileno() for s in accepted)
            assert links_by_process(links) == {child.pid: 1, os.getpid(): 1}
            mine = next(link for link in links if link.peer_pid == os.getpid())
            cut(mine)
            assert ours.recv(1) == b""  # ended from the referee's side
            assert len(referee_links(path)) == 2  # cut, not closed: the server closes it
        finally:
            assert child.stdin is not None
            child.stdin.close()
            child.wait()
            for s in (*accepted, elsewhere, ours):
                s.close()
