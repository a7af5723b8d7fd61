"""Client addresses as the referee counts them, and per-address counts with a cap."""

from __future__ import annotations

from collections import Counter


def peer_address(peer: str) -> str:
    """A client's address without its port ("ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5")."""
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rsplit(":", 1)[0]
    return peer.split(":", 1)[0]  # unix: every local client is one address


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
