"""Client addresses as the referee and the web server count them, and per-address counts
with a cap."""

from __future__ import annotations

import ipaddress
from collections import Counter
from urllib.parse import unquote

# An IPv6 client is counted by its /64 network: a site is routinely given a whole /64 (or
# more), so one client can take as many of its addresses as it likes, and a cap per
# address would be no cap at all.
IPV6_NETWORK_BITS = 64
# The client each connection a front door (front_door.py) relays counts as, by the name
# its end is bound to, as gRPC gives the peer ("unix:FOLDER/c17" -> "ipv4:10.0.0.5").
FORWARDED: dict[str, str] = {}


def client_group(host: str) -> str:
    """The client a connection from ``host`` (an IP address as sockets give it) counts
    as: "ipv4:ADDRESS", or "ipv6:NETWORK/64"; an IPv4 address reaching a dual-stack
    socket as ::ffff:a.b.c.d counts as that IPv4 address. Anything else is returned
    unchanged."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"ipv4:{address.ipv4_mapped}"
        network = ipaddress.IPv6Network((address, IPV6_NETWORK_BITS), strict=False)
        return f"ipv6:{network}"
    return f"ipv4:{address}"


def is_ipv6_literal(host: str) -> bool:
    """Whether ``host`` is an IPv6 address, bracketed or not ("::1", "[::]")."""
    try:
        return ipaddress.ip_address(host.strip("[]")).version == 6
    except ValueError:
        return False


def host_and_port(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets ("[::1]:50051") as gRPC and URLs
    want it."""
    if is_ipv6_literal(host):
        return f"[{host.strip('[]')}]:{port}"
    return f"{host}:{port}"


def peer_address(peer: str) -> str:
    """The client a gRPC peer counts as (``client_group`` of its address, port dropped:
    "ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5", "ipv6:%5B2001:db8::7%5D:41234" ->
    "ipv6:2001:db8::/64"); a connection a front door relays counts as its client's
    address; every other Unix-socket client is "unix"."""
    forwarded = FORWARDED.get(peer)
    if forwarded is not None:
        return forwarded
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return client_group(unquote(rest).rsplit(":", 1)[0])
    return kind  # unix: every local client is one address


class PerAddress:
    """How many of something each client address holds, at most ``limit`` each."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: Counter[str] = Counter()

    def take(self, address: str) -> bool:
        """Count one more for ``address``; False (and nothing counted) at its limit."""
        if self.held[address] >= self.limit:
            return False
        self.held[address] += 1
        return True

    def give_back(self, address: str) -> None:
        self.held[address] -= 1
        if not self.held[address]:
            del self.held[address]
