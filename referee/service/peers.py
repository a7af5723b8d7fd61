"""Client addresses as the referee counts them."""

from __future__ import annotations


def peer_address(peer: str) -> str:
    """A client's address without its port ("ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5")."""
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rsplit(":", 1)[0]
    return peer.split(":", 1)[0]  # unix: every local client is one address
