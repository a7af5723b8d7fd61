"""The ``SubmissionService`` gRPC service (proto/referee/v1/submissions.proto): bots
submitted from another machine, served by ``arena serve --db PATH`` beside the referee.
Transport only: the work is arena.intake's, mapped onto gRPC status codes here."""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc

from arena.artifacts import ArtifactLimits, SubmissionError
from arena.intake import UPLOAD_LIMITS, CheckFailed, ChecksBusy, QuotaExceeded, submit_archive
from arena.submissions import NameTaken, SubmissionRefused, UnknownSubmitter
from referee.v1 import submissions_pb2 as pb
from referee.v1 import submissions_pb2_grpc as pb_grpc

TOKEN_METADATA = "x-submitter-token"
SUBMISSION_THREADS = 4  # uploads read, checked or stored at once; more wait their turn


class SubmissionServicer(pb_grpc.SubmissionServiceServicer):
    def __init__(self, db: Path, limits: ArtifactLimits = UPLOAD_LIMITS) -> None:
        self.db = db
        self.limits = limits
        # Uploads read, check and store in threads of their own: a check takes up to a
        # minute, and must not hold the threads the rest of the server shares.
        self.workers = ThreadPoolExecutor(SUBMISSION_THREADS, thread_name_prefix="submit")

    async def SubmitBot(
        self, request: pb.SubmitBotRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SubmitBotResponse:
        metadata = dict(context.invocation_metadata() or ())
        token = str(metadata.get(TOKEN_METADATA, ""))
        try:
            accepted = await asyncio.get_running_loop().run_in_executor(
                self.workers,
                functools.partial(
                    submit_archive,
                    self.db,
                    token,
                    request.name,
                    request.archive,
                    list(request.command),
                    list(request.games),
                    request.check,
                    limits=self.limits,
                ),
            )
        except UnknownSubmitter as exc:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, f"{exc} ({TOKEN_METADATA})")
        except NameTaken as exc:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, str(exc))
        except QuotaExceeded as exc:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except ChecksBusy as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        except CheckFailed as exc:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, "\n".join([str(exc), *exc.report])
            )
        except (SubmissionError, SubmissionRefused) as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return pb.SubmitBotResponse(
            name=accepted.name,
            version=accepted.version,
            sha256=accepted.sha256,
            size_bytes=accepted.size,
            games=accepted.games,
            command=accepted.command,
            check_report=accepted.check_report,
        )


def add_submission_service(
    server: grpc.aio.Server, db: Path, limits: ArtifactLimits = UPLOAD_LIMITS
) -> None:
    """Register the service on a server that has not started yet."""
    # The generated registration function carries no annotations.
    pb_grpc.add_SubmissionServiceServicer_to_server(  # type: ignore[no-untyped-call]
        SubmissionServicer(db, limits), server
    )
