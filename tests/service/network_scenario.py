"""Clients from several IPv6 addresses of one network, for test_client_networks.

Run as root of a network namespace of its own (``unshare --user --map-root-user --net``):
it gives the loopback interface addresses of two /64 networks, starts the web server and
the referee on "::", and connects from those addresses (a connection to a local address
comes from that address). Prints what each server answered, as JSON.

    python -m tests.service.network_scenario DB
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.web.server import make_server
from referee.service import RefereeCore, bound_addresses, start_server
from referee.service.open_calls import OPEN_CALLS_PER_PEER

ONE_NETWORK = ("2001:db8::7", "2001:db8::9", "2001:db8::a")  # one /64
OTHER_NETWORK = "2001:db8:0:1::7"


def set_up_addresses() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for address in (*ONE_NETWORK, OTHER_NETWORK):
        subprocess.run(
            ["ip", "-6", "addr", "add", f"{address}/64", "dev", "lo", "nodad"], check=True
        )


def web(db: Path) -> dict[str, Any]:
    server = make_server(db, host="::", port=0, per_address=2, idle_seconds=20.0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    def status(address: str) -> str:
        with socket.create_connection((address, port), timeout=30) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        return answer.split(b"\r\n", 1)[0].decode()

    def held_settles(expected: dict[str, int]) -> dict[str, int]:
        deadline = time.monotonic() + 30
        while dict(server.open.held) != expected and time.monotonic() < deadline:
            time.sleep(0.05)
        return dict(server.open.held)

    held = []
    try:
        for address in ONE_NETWORK[:2]:  # two addresses of one network: its two places
            sock = socket.create_connection((address, port), timeout=30)
            sock.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest
            held.append(sock)
        after_holding = held_settles({"ipv6:2001:db8::/64": 2})
        return {
            "held": after_holding,
            "third address of the network": status(ONE_NETWORK[2]),
            "other network": status(OTHER_NETWORK),
            "ipv4 through the dual-stack socket": status("127.0.0.1"),
        }
    finally:
        for sock in held:
            sock.close()
        server.shutdown()


async def referee() -> dict[str, Any]:
    server = await start_server(RefereeCore(), ["[::]:0"])
    port = bound_addresses(server)[0].rsplit(":", 1)[1]
    own = [("grpc.use_local_subchannel_pool", 1)]
    channels = {
        a: grpc.aio.insecure_channel(f"[{a}]:{port}", options=own)
        for a in (*ONE_NETWORK, OTHER_NETWORK)
    }
    held: list[Any] = []
    try:
        for i in range(OPEN_CALLS_PER_PEER):  # the network's places, from two of its addresses
            stub = health_pb2_grpc.HealthStub(channels[ONE_NETWORK[i % 2]])
            watch = stub.Watch(health_pb2.HealthCheckRequest())
            await watch.read()
            held.append(watch)
        refused = health_pb2_grpc.HealthStub(channels[ONE_NETWORK[2]]).Watch(
            health_pb2.HealthCheckRequest()
        )
        try:
            await refused.read()
            third: str = "admitted"
        except grpc.aio.AioRpcError as exc:
            third = f"{exc.code().name}: {exc.details()}"
        other = health_pb2_grpc.HealthStub(channels[OTHER_NETWORK]).Watch(
            health_pb2.HealthCheckRequest()
        )
        status = (await other.read()).status
        held.append(other)
        return {
            "third address of the network": third,
            "other network": health_pb2.HealthCheckResponse.ServingStatus.Name(status),
        }
    finally:
        for call in held:
            call.cancel()
        await asyncio.sleep(0.2)  # the server sees the cancellations before it stops
        for channel in channels.values():
            await channel.close(None)
        await server.stop(0)


def main() -> None:
    set_up_addresses()
    print(json.dumps({"web": web(Path(sys.argv[1])), "referee": asyncio.run(referee())}))


if __name__ == "__main__":
    main()
