"""The ``SubmissionService`` gRPC service (proto/referee/v1/submissions.proto): bots
submitted from another machine, served by ``arena serve --db PATH`` beside the referee.
Transport only: the work is arena.intake's, mapped onto gRPC status codes here.

``SubmitBot`` is a unary call on the wire, but it is served as a client stream of one
message: a unary handler only runs once gRPC has read the whole request, and an upload
must be admitted (its token, the uploads taken in at once) before its bytes are read.
``UploadBot`` sends the archive in pieces, so the server's message limit stays the
referee's 128 KiB: with one message per archive it had to be the upload limit (50 MiB),
and any client, token or not, could make the server hold that much per unfinished
message.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc

from arena.artifacts import ArtifactLimits, SubmissionError
from arena.checks import CheckRuns
from arena.intake import (
    UPLOAD_LIMITS,
    UPLOADS_AT_ONCE,
    CheckFailed,
    QuotaExceeded,
    TryLater,
    UploadPlaces,
    submit_archive,
)
from arena.store import Store
from arena.submissions import NameTaken, SubmissionRefused, UnknownSubmitter
from referee.v1 import submissions_pb2 as pb

TOKEN_METADATA = "x-submitter-token"
SERVICE = pb.DESCRIPTOR.services_by_name["SubmissionService"].full_name
# An upload as it arrived: the request naming the bot (its archive unread) and the archive.
Upload = tuple[pb.SubmitBotRequest, bytes]


def _status(exc: SubmissionError | SubmissionRefused) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, UnknownSubmitter):
        return grpc.StatusCode.UNAUTHENTICATED, f"{exc} ({TOKEN_METADATA})"
    if isinstance(exc, NameTaken):
        return grpc.StatusCode.PERMISSION_DENIED, str(exc)
    if isinstance(exc, QuotaExceeded):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc)
    if isinstance(exc, TryLater):
        return grpc.StatusCode.UNAVAILABLE, str(exc)
    if isinstance(exc, CheckFailed):
        return grpc.StatusCode.FAILED_PRECONDITION, "\n".join([str(exc), *exc.report])
    return grpc.StatusCode.INVALID_ARGUMENT, str(exc)


class SubmissionServicer:
    def __init__(self, db: Path, limits: ArtifactLimits, places: UploadPlaces) -> None:
        self.db = db
        self.limits = limits
        self.places = places
        # Tokens are checked on the event loop, before the archive is read: with one
        # connection kept open, not a database opened per call.
        self.tokens = Store(db).submissions
        # Admitted uploads are read, checked and stored in threads of their own: a check
        # takes up to a minute, and must not hold the threads the rest of the server shares.
        self.workers = ThreadPoolExecutor(UPLOADS_AT_ONCE, thread_name_prefix="submit")
        # Stopped as the server stops: the checks under way end their uploads with
        # UNAVAILABLE, nothing stored, and no new one begins.
        self.checks = CheckRuns()

    async def close(self) -> None:
        """After the server stopped: wait for the upload threads to end (a cancelled
        check's clean-up, a version being stored), so none outlives the event loop."""
        self.checks.stop()
        await asyncio.to_thread(self.workers.shutdown, wait=True, cancel_futures=True)

    async def SubmitBot(
        self,
        requests: AsyncIterator[pb.SubmitBotRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> pb.SubmitBotResponse:
        return await self._take(context, lambda: _only_message(requests))

    async def UploadBot(
        self,
        requests: AsyncIterator[pb.UploadBotRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> pb.UploadBotResponse:
        limit = self.limits.max_upload_bytes
        return pb.UploadBotResponse(
            submitted=await self._take(context, lambda: _assembled(requests, limit))
        )

    async def _take(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        arrive: Callable[[], Awaitable[Upload | None]],
    ) -> pb.SubmitBotResponse:
        """Admit an upload (its token, a place), let ``arrive`` read it (None: the call's
        requests were not one upload), then check and store it in a thread of its own."""
        metadata = dict(context.invocation_metadata() or ())
        token = str(metadata.get(TOKEN_METADATA, ""))
        try:
            submitter = self.tokens.submitter_for(token)  # before the archive is read
            with self.places.place(submitter):
                try:
                    async with asyncio.timeout(self.places.arrive_seconds):
                        upload = await arrive()
                except TimeoutError:
                    return _refuse(
                        context,
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"the upload took more than {self.places.arrive_seconds:g} s to arrive",
                    )
                if upload is None:
                    return _refuse(
                        context,
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "send one SubmitBotRequest (SubmitBot), or a submission and then "
                        "the archive's chunks (UploadBot)",
                    )
                request, archive = upload
                accepted = await asyncio.get_running_loop().run_in_executor(
                    self.workers,
                    functools.partial(
                        submit_archive,
                        self.db,
                        submitter,
                        request.name,
                        archive,
                        list(request.command),
                        list(request.games),
                        request.check,
                        limits=self.limits,
                        check_runs=self.checks,
                    ),
                )
        except (SubmissionError, SubmissionRefused) as exc:
            return _refuse(context, *_status(exc))
        return pb.SubmitBotResponse(
            name=accepted.name,
            version=accepted.version,
            sha256=accepted.sha256,
            size_bytes=accepted.size,
            games=accepted.games,
            command=accepted.command,
            check_report=accepted.check_report,
        )


async def _only_message(requests: AsyncIterator[pb.SubmitBotRequest]) -> Upload | None:
    """The call's one request, or None if it sent none or several. Read to the end of the
    stream, even past the first: a handler that left a received message's stream unread
    lost it in gRPC's native memory for good (about 46 MB a 45 MiB upload, measured)."""
    first, count = None, 0
    async for request in requests:
        count += 1
        first = request if count == 1 else first  # any later one is dropped as it comes
    return (first, first.archive) if first is not None and count == 1 else None


async def _assembled(requests: AsyncIterator[pb.UploadBotRequest], limit: int) -> Upload | None:
    """UploadBot's requests as one upload: the first one's ``submission`` and every
    ``chunk`` in order as the archive. None when the first has no submission (or an
    archive in it) or a later one has one. Past ``limit`` bytes the rest is read and
    dropped (as ``_only_message`` does, so that gRPC keeps none of it) and
    SubmissionError is raised."""
    submission = pb.SubmitBotRequest()
    archive = bytearray()
    count = size = 0
    well_formed = True
    async for request in requests:
        count += 1
        if count == 1:
            submission = request.submission
            well_formed = request.HasField("submission") and not submission.archive
        elif request.HasField("submission"):
            well_formed = False
        size += len(request.chunk)
        if well_formed and size <= limit:
            archive += request.chunk
    if size > limit:
        raise SubmissionError(f"the archive is {size:,} bytes; the limit is {limit:,}")
    return (submission, bytes(archive)) if count and well_formed else None


def _refuse(
    context: grpc.aio.ServicerContext[Any, Any], code: grpc.StatusCode, details: str
) -> pb.SubmitBotResponse:
    """End the call with ``code`` (gRPC sends no message with it). Not context.abort:
    the AbortError it raises here would hold the refused archive (through the refusal's
    traceback) for as long as the call's state lives, and that outlived the call: every
    refused 45 MiB upload kept about 90 MB of an ``arena serve``."""
    context.set_code(code)
    context.set_details(details)
    return pb.SubmitBotResponse()


def add_submission_service(
    server: grpc.aio.Server,
    db: Path,
    limits: ArtifactLimits = UPLOAD_LIMITS,
    places: UploadPlaces | None = None,
) -> SubmissionServicer:
    """Register the service on a server that has not started yet; the servicer returned
    is the server's to stop (``checks.stop()``, then ``close()`` once the server stopped)."""
    servicer = SubmissionServicer(db, limits, places or UploadPlaces())
    submit_bot = grpc.stream_unary_rpc_method_handler(
        servicer.SubmitBot,
        request_deserializer=pb.SubmitBotRequest.FromString,
        response_serializer=pb.SubmitBotResponse.SerializeToString,
    )
    upload_bot = grpc.stream_unary_rpc_method_handler(
        servicer.UploadBot,
        request_deserializer=pb.UploadBotRequest.FromString,
        response_serializer=pb.UploadBotResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                SERVICE, {"SubmitBot": submit_bot, "UploadBot": upload_bot}
            ),
        )
    )
    return servicer
