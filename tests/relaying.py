"""Helpers for the tests of the relays between clients and the referee
(referee/service/relay.py): an echo server standing in for the referee, and waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import suppress


class Echo:
    """A Unix socket server that sends back what it reads, counting it; with ``flood``,
    one that sends that many bytes to each connection and reads nothing. ``peers``: the
    names its clients' ends were bound to, in order ("" for none); ``open``: its
    connections not yet over."""

    def __init__(self, flood: int = 0) -> None:
        self.received = 0
        self.flood = flood
        self.peers: list[str] = []
        self.open = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.peers.append(writer.get_extra_info("peername") or "")
        self.open += 1
        if self.flood:
            writer.write(bytes(self.flood))
        try:
            while data := await reader.read(1 << 16):
                self.received += len(data)
                if not self.flood:
                    writer.write(data)
                    await writer.drain()
        except ConnectionError:
            pass
        finally:
            self.open -= 1
        writer.close()


async def until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), seconds)


async def closed_by_relay(reader: asyncio.StreamReader) -> bool:
    """Whether the connection ends (EOF or reset) within a few seconds, reading on."""

    async def drain() -> None:
        while await reader.read(1 << 16):
            pass

    with suppress(ConnectionError):
        await asyncio.wait_for(drain(), 5)
    return True


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 60))
