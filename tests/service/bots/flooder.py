"""A hostile bot for the service tests: says hello, then sends Actions as fast as the
transport takes them and never reads a reply (``python -m tests.service.bots.flooder``).
Once the referee cuts it off it sits still, so the only fault is the referee's verdict."""

from __future__ import annotations

import asyncio
import os

import grpc

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc


async def flood() -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_TARGET"]) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        call = stub.Play()
        await call.write(pb.BotMessage(hello=pb.Hello(token=os.environ["ARENA_TOKEN"])))
        request_id = 10**12  # no turn has this id
        try:
            while True:
                request_id += 1
                await call.write(pb.BotMessage(action=pb.Action(request_id=request_id, code="x")))
        except (grpc.RpcError, asyncio.InvalidStateError):
            pass
        await asyncio.sleep(120)


if __name__ == "__main__":
    asyncio.run(flood())
