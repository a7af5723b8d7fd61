"""A cap on the long calls anyone may hold without a token, per client address.

The health service's Watch and server reflection's stream stay open as long as their
client likes, and need no token. Each held call keeps its connection from being closed
for idling (server.IDLE_CONNECTION_SECONDS), so without a cap one client could hold
connections up to the server's connection cap and have every other client refused. The
referee's own Watch has its caps in RefereeCore.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from referee.service.peers import PerAddress, peer_address
from referee.service.relay import Bucket

OPEN_CALLS_PER_PEER = 16
# Requests on the capped streams that take them (reflection), per client address: a
# red-team client packing 100 reflection requests into each HTTP/2 frame on 8 streams had
# 17,000 a second answered, 1.2 cores of the server, for 2.5% of what the front door lets
# an address send. A tool such as grpcurl asks a handful.
REQUESTS_PER_SECOND = 20
REQUEST_BURST = 100
MAX_PACED_ADDRESSES = 1024  # past it, the buckets of addresses at rest are forgotten
if TYPE_CHECKING:  # generic in grpc-stubs only
    Context = grpc.aio.ServicerContext[Any, Any]
    Handler = grpc.RpcMethodHandler[Any, Any]
    Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    Interceptor = grpc.aio.ServerInterceptor
CAPPED_METHODS = frozenset(
    {
        "/grpc.health.v1.Health/Watch",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    }
)


class OpenCallsPerPeer(Interceptor):
    """Refuses (RESOURCE_EXHAUSTED) a capped call from an address that already holds
    ``limit`` of them; other calls pass untouched."""

    def __init__(self, limit: int = OPEN_CALLS_PER_PEER) -> None:
        self.open = PerAddress(limit)
        self.requests: dict[str, Bucket] = {}  # per address

    async def intercept_service(
        self,
        continuation: Callable[[Any], Awaitable[Handler]],
        details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(details)
        if handler is None or details.method not in CAPPED_METHODS:
            return handler
        behavior: Any = handler.unary_stream or handler.stream_stream
        if behavior is None:
            return handler
        if inspect.isasyncgenfunction(behavior):
            wrapped = self._generator(behavior, paced=handler.stream_stream is not None)
        else:
            wrapped = self._coroutine(behavior)
        make = (
            grpc.unary_stream_rpc_method_handler
            if handler.unary_stream is not None
            else grpc.stream_stream_rpc_method_handler
        )
        return make(
            wrapped,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    async def _admit(self, context: Context) -> str:
        peer = peer_address(context.peer())
        if not self.open.take(peer):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{self.open.limit} health or reflection streams are open from {peer}, "
                "the most one client address may hold",
            )
        return peer

    def _coroutine(self, behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        """For a handler that writes with ``context.write`` (the health Watch)."""

        async def capped(request: Any, context: Context) -> Any:
            peer = await self._admit(context)
            try:
                return await behavior(request, context)
            finally:
                self.open.give_back(peer)

        return capped

    def _generator(
        self, behavior: Callable[..., AsyncIterator[Any]], paced: bool
    ) -> Callable[..., Any]:
        """For a handler that yields its replies (reflection); with ``paced``, one that
        takes a stream of requests, paced per address."""

        async def capped(request: Any, context: Context) -> AsyncIterator[Any]:
            peer = await self._admit(context)
            try:
                requests = self._paced(request, peer) if paced else request
                async for reply in behavior(requests, context):
                    yield reply
            finally:
                self.open.give_back(peer)

        return capped

    async def _paced(self, requests: AsyncIterator[Any], peer: str) -> AsyncIterator[Any]:
        bucket = self.requests.get(peer)
        if bucket is None:
            if len(self.requests) >= MAX_PACED_ADDRESSES:  # forget the idle, refilled ones
                for idle in [p for p, b in self.requests.items() if b.full()]:
                    if not self.open.held[idle]:
                        del self.requests[idle]
            bucket = self.requests[peer] = Bucket(REQUEST_BURST, REQUESTS_PER_SECOND)
        async for request in requests:
            while not bucket.take(1):
                await asyncio.sleep(bucket.wait())
            yield request
