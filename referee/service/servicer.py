"""The gRPC servicer: Play, Watch and the admin RPCs as transport over a RefereeCore."""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from referee.game import game_names, get_game
from referee.match import MatchConfig
from referee.matchspec import MatchConfigError, check_seconds
from referee.rules import RulesError, describe_rules
from referee.service.connection import Connection
from referee.service.core import RefereeCore, WatchLimitError
from referee.service.errors import RefereeError
from referee.service.messages import match_over
from referee.service.peers import PerAddress, peer_address
from referee.service.sessions import MAX_MESSAGE_BYTES, PlayerSession
from referee.v1 import referee_pb2 as pb

PROTOCOL = "referee.v1"
SERVICE_NAME = "referee.v1.Referee"
HELLO_TIMEOUT = 30.0  # seconds a new stream has to say hello
# Play streams one network address may hold open before their Hello: a client re-opening
# streams that never say Hello would otherwise keep connections from ever idling out.
# Local (unix socket) clients are not counted: they are the arena's own bots, started in
# bursts.
HELLO_WAITS_PER_PEER = 64
STREAM_END_GRACE = 0.5  # seconds for a disconnect to show after the reads end


class RefereeServicer:
    """The gRPC face of a :class:`RefereeCore`."""

    def __init__(
        self, core: RefereeCore, admin_token: str | None, private_watch: bool = False
    ) -> None:
        self.core = core
        self.admin_token = admin_token
        # Watch needs the admin token too: where the players may be spectators of other
        # matches on their own deal (a tournament's referee, docs/security.md).
        self.private_watch = private_watch
        self.hello_waits = PerAddress(HELLO_WAITS_PER_PEER)

    async def Play(
        self,
        request_iterator: AsyncIterator[bytes],
        context: grpc.aio.ServicerContext[bytes, bytes],
    ) -> AsyncIterator[bytes]:
        peer = peer_address(context.peer())
        counted = not peer.startswith("unix")
        if counted and not self.hello_waits.take(peer):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{self.hello_waits.limit} Play streams from {peer} have not said Hello yet",
            )
        try:
            raw = await asyncio.wait_for(anext(request_iterator), HELLO_TIMEOUT)
        except TimeoutError:
            message = f"no Hello within {HELLO_TIMEOUT:g} seconds"
            yield pb.RefereeMessage(
                error=pb.Error(code="protocol", message=message)
            ).SerializeToString()
            return
        except Exception:  # the stream ended, or a transport error
            return
        finally:
            if counted:
                self.hello_waits.give_back(peer)
        session, refusal = self._hello(raw)
        if session is None:
            yield pb.RefereeMessage(error=refusal).SerializeToString()
            return
        conn = session.attach()
        # Queue the resumed match before anything can await: a match starting meanwhile
        # then sends its own MatchStart after these, never a second copy.
        session.resume()
        welcome = pb.RefereeMessage(welcome=pb.Welcome(player=session.name, protocol=PROTOCOL))
        yield welcome.SerializeToString()
        reader = asyncio.get_running_loop().create_task(self._read(request_iterator, session, conn))
        try:
            while (item := await conn.get()) is not None:
                data, turn_id = item
                yield data
                if turn_id:
                    session.delivered_turn = turn_id
            if conn.abort_reason is not None:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, conn.abort_reason)
        finally:
            reader.cancel()
            session.detach(conn)

    def _hello(self, raw: bytes) -> tuple[PlayerSession | None, pb.Error]:
        """The session a stream's first message opens, or the error that refuses it."""
        try:  # the size first: a big message is refused without the cost of parsing it
            hello = (
                pb.BotMessage() if len(raw) > MAX_MESSAGE_BYTES else pb.BotMessage.FromString(raw)
            )
        except DecodeError:
            hello = pb.BotMessage()
        if hello.WhichOneof("kind") != "hello":
            return None, pb.Error(code="protocol", message="the first message must be a Hello")
        session = self.core.session(hello.hello.token)
        if session is None or session.gone is not None:
            return None, pb.Error(code="unauthenticated", message="unknown or expired token")
        return session, pb.Error()

    async def _read(
        self, requests: AsyncIterator[bytes], session: PlayerSession, conn: Connection
    ) -> None:
        try:
            async for raw in requests:
                if session.connection is not conn:
                    return
                session.on_message(raw)
            # The bot's side ended. A disconnect cancels this task within the grace; a
            # stream still open after it was half-closed, or its message was over the
            # transport's limit (grpc ends the reads the same way for both).
            await asyncio.sleep(STREAM_END_GRACE)
            if session.connection is conn:
                session.on_stream_end()
        except Exception:  # whatever broke the stream, it is gone
            pass
        finally:
            if session.connection is conn:
                session.detach(conn)
                conn.close()

    async def Watch(
        self,
        request: pb.WatchRequest,
        context: grpc.aio.ServicerContext[pb.WatchRequest, bytes],
    ) -> AsyncIterator[bytes]:
        if self.private_watch:
            try:
                self._check_admin(context)
            except _Abort as exc:
                await context.abort(exc.code, exc.message)
                return
        runtime = self.core.matches.get(request.match_id)
        if runtime is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            return
        try:
            # A watcher that asked to lag forever kept its place (one of the match's
            # WATCHERS_PER_MATCH), and kept the match in memory, as long as it liked.
            check_seconds("delay_seconds", request.delay_seconds)
        except MatchConfigError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
            return
        delay = max(runtime.spectator_delay, request.delay_seconds)
        peer = peer_address(context.peer())
        try:
            self.core.admit_watcher(runtime, peer)
        except WatchLimitError as exc:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
            return
        try:
            async for stamp, data in runtime.spectators.follow(lambda: runtime.result):
                wait = stamp + delay - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                yield data
        finally:
            self.core.release_watcher(runtime, peer)

    def _is_admin(self, context: grpc.aio.ServicerContext[Any, Any]) -> bool:
        if self.admin_token is None:
            return True
        given = dict(context.invocation_metadata() or ()).get("x-admin-token", "")
        return hmac.compare_digest(str(given).encode(), self.admin_token.encode())

    def _check_admin(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        if not self._is_admin(context):
            raise _Abort(
                grpc.StatusCode.UNAUTHENTICATED, "admin RPCs need the x-admin-token metadata"
            )

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        games = []
        for name in game_names():
            engine = get_game(name)
            default_rules = engine.Rules()
            allowed = engine.seats(default_rules)
            games.append(
                pb.GameInfo(
                    name=name,
                    version=engine.version,
                    min_seats=allowed.start,
                    max_seats=allowed.stop - 1,
                    options=[
                        pb.RuleOption(
                            name=o.name,
                            type=o.type,
                            default=o.default,
                            choices=o.choices,
                            doc=o.doc,
                        )
                        for o in describe_rules(engine.Rules)
                    ],
                    presets=sorted(engine.Rules.presets),
                )
            )
        return pb.ListGamesResponse(games=games)

    async def CreateMatch(
        self, request: pb.CreateMatchRequest, context: Any
    ) -> pb.CreateMatchResponse:
        try:
            self._check_admin(context)
            config = MatchConfig(
                move_seconds=request.move_seconds or 5.0,
                time_bank_seconds=request.time_bank_seconds,
                fault_policy=request.fault_policy or "forfeit",  # type: ignore[arg-type]
                max_strikes=request.max_strikes or 3,
            )
            runtime, tokens = self.core.create_match(
                request.game,
                dict(request.rules),
                request.seats,
                request.seed or secrets.randbits(63),  # unset: a deal nobody can predict
                # None: a fresh token per seat, made once the seat count is known to be
                # the game's (a list of 2**28 built first took the server 5 GB)
                [p or None for p in request.players] or None,
                list(request.names) or None,
                config,
                spectator_delay=request.spectator_delay_seconds,
                start_timeout=request.start_timeout_seconds or 60.0,
            )
        except _Abort as exc:
            await context.abort(exc.code, exc.message)
            raise
        except (ValueError, RulesError) as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
            raise
        return pb.CreateMatchResponse(match_id=runtime.spec.match_id, seat_tokens=tokens)

    async def IssuePlayerToken(
        self, request: pb.IssuePlayerTokenRequest, context: Any
    ) -> pb.IssuePlayerTokenResponse:
        try:
            self._check_admin(context)
        except _Abort as exc:
            await context.abort(exc.code, exc.message)
            raise
        return pb.IssuePlayerTokenResponse(
            token=self.core.issue_player_token(request.name or "player")
        )

    async def MatchStatus(
        self, request: pb.MatchStatusRequest, context: Any
    ) -> pb.MatchStatusResponse:
        admin = self._is_admin(context)
        if self.private_watch and not admin:
            # Matches share deals here: another table's result would tell a seated bot its own.
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, "MatchStatus needs the x-admin-token metadata"
            )
            raise RefereeError("unreachable")
        runtime = self.core.matches.get(request.match_id)
        if runtime is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            raise RefereeError("unreachable")
        response = pb.MatchStatusResponse(
            match_id=runtime.spec.match_id, game=runtime.spec.game, state=runtime.state
        )
        driver = runtime.driver
        # Who is to act and how many decisions were made are not public: in golf
        # solitaire the count is a seat's score (and in Dingo before engine version 3,
        # who was asked told who held wolves).
        if admin and driver is not None and driver.state is not None:
            response.decisions = driver.decisions
            if runtime.result is None:
                response.to_act.extend(driver.game.to_act(driver.state))
        if runtime.result is not None:
            response.result.CopyFrom(match_over(runtime.result, -1))
        return response


class _Abort(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def handlers(servicer: RefereeServicer) -> grpc.GenericRpcHandler[Any, Any]:
    """The service's method handlers. Play takes raw bytes so that a garbage message is a
    recorded fault of that seat rather than a transport error."""
    ser = {
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=None,
            response_serializer=None,  # sessions queue messages serialized (to bound them)
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            servicer.Watch,
            request_deserializer=pb.WatchRequest.FromString,
            response_serializer=None,  # feeds hold WatchMessages serialized, shared
        ),
        "ListGames": grpc.unary_unary_rpc_method_handler(
            servicer.ListGames,
            request_deserializer=pb.ListGamesRequest.FromString,
            response_serializer=pb.ListGamesResponse.SerializeToString,
        ),
        "CreateMatch": grpc.unary_unary_rpc_method_handler(
            servicer.CreateMatch,
            request_deserializer=pb.CreateMatchRequest.FromString,
            response_serializer=pb.CreateMatchResponse.SerializeToString,
        ),
        "IssuePlayerToken": grpc.unary_unary_rpc_method_handler(
            servicer.IssuePlayerToken,
            request_deserializer=pb.IssuePlayerTokenRequest.FromString,
            response_serializer=pb.IssuePlayerTokenResponse.SerializeToString,
        ),
        "MatchStatus": grpc.unary_unary_rpc_method_handler(
            servicer.MatchStatus,
            request_deserializer=pb.MatchStatusRequest.FromString,
            response_serializer=pb.MatchStatusResponse.SerializeToString,
        ),
    }
    return grpc.method_handlers_generic_handler(SERVICE_NAME, ser)
