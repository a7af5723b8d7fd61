"""asyncio helpers shared by the referee and the arena."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def awaited_to_the_end(work: Awaitable[T]) -> tuple[T, bool]:
    """``work``'s result, awaited to its end even if the task awaiting it is cancelled
    meanwhile, and whether it was: the caller passes the cancel on once it has done what
    the result needs (a started bot joins the pool that stops it). Only the loop's own
    shutdown cancels ``work`` itself."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            return await asyncio.shield(task), cancelled
        except asyncio.CancelledError:
            cancelled = True
            if task.done():  # it ended while the cancellation was on its way
                return task.result(), cancelled


async def to_the_end(work: Awaitable[T]) -> T:
    """Await ``work`` (a clean-up: closing bots, a server; or a start that must not be
    left half done) to its end even when the task awaiting it is cancelled meanwhile, as
    SIGTERM or Ctrl-C does to a run closing down, then pass the cancel on. A clean-up cut
    short leaves bot processes and a gRPC server for the closed loop to find ("Event loop
    is closed" tracebacks)."""
    result, cancelled = await awaited_to_the_end(work)
    if cancelled:
        raise asyncio.CancelledError
    return result


async def all_to_the_end(*works: Awaitable[object]) -> None:
    """Await each of ``works`` (clean-ups, in order) to its end, then pass on a cancel that
    came meanwhile: the first one's cancel must not skip the others."""
    cancelled = False
    for work in works:
        _, stopped = await awaited_to_the_end(work)
        cancelled = cancelled or stopped
    if cancelled:
        raise asyncio.CancelledError
