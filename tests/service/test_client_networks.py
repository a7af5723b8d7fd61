"""Caps per client address count an IPv6 client by its /64 network: a site is routinely
given a whole /64, so a client could otherwise take a fresh address for every
connection and no per-address cap would hold it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.service.peers import client_group, host_and_port, peer_address
from tests.conftest import ROOT, arena, arena_process

NAMESPACE = ("unshare", "--user", "--map-root-user", "--net")  # root of its own network


@pytest.mark.parametrize(
    ("host", "group"),
    [
        ("127.0.0.1", "ipv4:127.0.0.1"),
        ("2001:db8::7", "ipv6:2001:db8::/64"),
        ("2001:db8::ffff:1:2", "ipv6:2001:db8::/64"),
        ("2001:db8:0:1::7", "ipv6:2001:db8:0:1::/64"),
        ("[2001:db8::7]", "ipv6:2001:db8::/64"),
        ("fe80::1%eth0", "ipv6:fe80::/64"),
        ("::1", "ipv6:::/64"),
        ("::ffff:10.1.2.3", "ipv4:10.1.2.3"),  # IPv4 through a dual-stack socket
    ],
)
def test_a_client_is_an_ipv4_address_or_an_ipv6_network(host: str, group: str) -> None:
    assert client_group(host) == group


@pytest.mark.parametrize(
    ("peer", "group"),
    [
        ("ipv4:10.0.0.5:41234", "ipv4:10.0.0.5"),
        ("ipv6:%5B2001:db8::7%5D:41234", "ipv6:2001:db8::/64"),  # how grpc writes IPv6
        ("ipv6:[2001:db8::9]:1", "ipv6:2001:db8::/64"),
        ("ipv6:%5B::ffff:10.0.0.5%5D:41234", "ipv4:10.0.0.5"),
        ("unix:/run/referee.sock", "unix"),
        ("unix:", "unix"),
    ],
)
def test_a_grpc_peer_counts_as_its_client(peer: str, group: str) -> None:
    assert peer_address(peer) == group


def test_an_ipv6_host_is_bracketed_before_its_port() -> None:
    assert host_and_port("::1", 50051) == "[::1]:50051"
    assert host_and_port("[::]", 0) == "[::]:0"
    assert host_and_port("127.0.0.1", 8000) == "127.0.0.1:8000"
    assert host_and_port("localhost", 8000) == "localhost:8000"


def test_clients_from_one_ipv6_network_share_its_places(tmp_path: Path) -> None:
    """In a network namespace of its own with addresses of two /64 networks: connections
    from two addresses of one network take both of its places in the web server (2 here),
    a third address of it gets 503 and the other network and IPv4 (through the same
    dual-stack socket) are served; the referee's tokenless streams likewise."""
    missing = [tool for tool in ("unshare", "ip") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {' and '.join(missing)} (util-linux, iproute2)")
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    done = subprocess.run(
        [*NAMESPACE, sys.executable, "-m", "tests.service.network_scenario", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["web"] == {
        "held": {"ipv6:2001:db8::/64": 2},
        "third address of the network": "HTTP/1.0 503 Service Unavailable",
        "other network": "HTTP/1.0 200 OK",
        "ipv4 through the dual-stack socket": "HTTP/1.0 200 OK",
    }
    assert seen["referee"] == {
        "third address of the network": "RESOURCE_EXHAUSTED: 16 health or reflection streams "
        "are open from ipv6:2001:db8::/64, the most one client address may hold",
        "other network": "SERVING",
    }


def test_arena_web_listens_on_an_ipv6_address(tmp_path: Path) -> None:
    """``--host ::1`` (with or without brackets) serves on IPv6 and prints a URL that
    works; it used to fail with "Address family for hostname not supported"."""
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    for host in ("::1", "[::1]"):
        with arena_process("web", "--host", host, "--port", "0", "--db", str(db)) as (_, line):
            url = line.split()[-1]
            assert url.startswith("http://[::1]:"), line
            with urllib.request.urlopen(url, timeout=30) as page:
                assert page.status == 200


def test_an_address_that_cannot_be_listened_on_is_one_clear_line(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    done = arena(db, "web", "--host", "no-such-host.invalid", "--port", "0", check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("error: cannot listen on no-such-host.invalid:0: ")
    assert len(done.stderr.strip().splitlines()) == 1


def test_arena_serve_takes_an_unbracketed_ipv6_host() -> None:
    """``--host ::1`` was passed to gRPC as "::1:50051", which it cannot parse."""
    with arena_process("serve", "--host", "::1", "--port", "0") as (_, line):
        assert line.startswith("referee listening on [::1]:"), line
        address = line.split()[-1]
        with grpc.insecure_channel(address) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=30
            )
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
