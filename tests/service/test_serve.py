"""`arena serve` as a separate process: admin RPCs, seat tokens for remote bots, match
status, and a spectator on Watch seeing public information only."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from referee.service import RefereeCore, start_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.conftest import (
    ADMIN,
    ADMIN_TOKEN,
    arena,
    arena_process,
    as_in_a_terminal,
    random_bots,
    serving,
)

ROOT = Path(__file__).resolve().parents[2]


def test_admin_rpcs_need_the_admin_token(served: str) -> None:
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as denied:
            stub.CreateMatch(pb.CreateMatchRequest(game="gin_rummy", seats=2))
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as bad:
            stub.CreateMatch(
                pb.CreateMatchRequest(game="gin_rummy", seats=2, rules={"knock": "3"}),
                metadata=ADMIN,
            )
        assert (
            bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            and "unknown rule option knock" in (bad.value.details() or "")
        )
        for names in (["only one"], ["a", "b", "c"]):  # a name per seat, or none
            with pytest.raises(grpc.RpcError) as bad_names:
                stub.CreateMatch(
                    pb.CreateMatchRequest(game="gin_rummy", seats=2, names=names), metadata=ADMIN
                )
            assert bad_names.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert f"2 seats need 2 names, got {len(names)}" in (bad_names.value.details() or "")
        games = stub.ListGames(pb.ListGamesRequest())
        gin = next(g for g in games.games if g.name == "gin_rummy")
        assert (gin.min_seats, gin.max_seats) == (2, 2)
        assert {"knock_limit", "target_score", "max_hands"} <= {o.name for o in gin.options}


def test_a_match_seats_a_player_once_and_no_seat_token_of_another_match(served: str) -> None:
    """One player token in two seats: its stream holds one turn, and a reconnect lost the
    other seat's (it timed out with the bot connected). Another match's seat token was
    taken and the match forfeited at once as a crash."""
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        player = stub.IssuePlayerToken(pb.IssuePlayerTokenRequest(name="p"), metadata=ADMIN)
        seated = stub.CreateMatch(pb.CreateMatchRequest(game="gin_rummy", seats=2), metadata=ADMIN)
        for players, words in (
            ([player.token, player.token], "seat 1: the player token of seat 0 too"),
            ([seated.seat_tokens[0], ""], "seat 0: a seat token of another match"),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                stub.CreateMatch(
                    pb.CreateMatchRequest(game="gin_rummy", seats=2, players=players),
                    metadata=ADMIN,
                )
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert words in (refused.value.details() or "")


def test_remote_bots_play_a_created_match_while_a_spectator_watches(served: str) -> None:
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        created = stub.CreateMatch(
            pb.CreateMatchRequest(
                game="gin_rummy", seats=2, seed=5, rules={"max_hands": "2"}, names=["x", "y"]
            ),
            metadata=ADMIN,
        )
        assert len(created.seat_tokens) == 2 and len(set(created.seat_tokens)) == 2
        watch = stub.Watch(pb.WatchRequest(match_id=created.match_id))
        bots = random_bots(served, created.seat_tokens)
        seen = list(watch)
        request = pb.MatchStatusRequest(match_id=created.match_id)
        status = stub.MatchStatus(request, metadata=ADMIN)
        for _ in range(50):
            if status.state == "over":
                break
            time.sleep(0.1)
            status = stub.MatchStatus(request, metadata=ADMIN)
        exits = [bot.wait(30) for bot in bots]  # seat tokens end with their match
        # A finished match's feed is rebuilt from its replay: the same messages as live.
        again = list(stub.Watch(pb.WatchRequest(match_id=created.match_id)))
    assert exits == [0, 0]
    assert [m.SerializeToString(deterministic=True) for m in again] == [
        m.SerializeToString(deterministic=True) for m in seen
    ]
    assert status.state == "over" and status.decisions > 0 and len(status.result.ranks) == 2
    assert seen[0].match_start.game == "gin_rummy" and seen[0].match_start.seat == -1
    assert seen[-1].match_over.reason == "finished"
    views = [m.view.gin_rummy for m in seen if m.HasField("view")]
    assert views and all(v.seat == -1 for v in views)
    texts = [e.text for m in seen for e in m.events]
    assert texts and not any(t.startswith("you ") for t in texts)


def test_a_spectator_does_not_see_golf_solitaire_seats_play_during_a_hole(served: str) -> None:
    # Seats play their own copies of the hole; their moves are secret until the hole is
    # over, so the feed has no step for them, not even an empty one (its count would tell
    # a seat's move count, and that its score).
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        created = stub.CreateMatch(
            pb.CreateMatchRequest(game="golf_solitaire", seats=2, seed=3, rules={"holes": "2"}),
            metadata=ADMIN,
        )
        watch = stub.Watch(pb.WatchRequest(match_id=created.match_id))
        bots = random_bots(served, created.seat_tokens)
        seen = list(watch)
        exits = [bot.wait(30) for bot in bots]
        again = list(stub.Watch(pb.WatchRequest(match_id=created.match_id)))
    assert exits == [0, 0]
    kinds = [[e.kind for e in m.events] for m in seen[1:-1]]
    assert kinds == [["deal"], ["hole_over", "deal"], ["hole_over", "match_over"]]
    assert seen[-1].match_over.reason == "finished"
    assert [m.SerializeToString(deterministic=True) for m in again] == [
        m.SerializeToString(deterministic=True) for m in seen
    ]


def _listening_tcp_ports(pid: int) -> list[int]:
    """TCP ports process ``pid`` listens on, read from /proc (Linux)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _silent_seats(stub: Any, tokens: Sequence[str]) -> tuple[list[Any], threading.Event]:
    """Seats that say Hello and never answer (the match waits on them); set the event to
    let them go."""
    leave = threading.Event()

    def requests(token: str) -> Iterator[pb.BotMessage]:
        yield pb.BotMessage(hello=pb.Hello(token=token, bot_name="silent"))
        leave.wait(60)

    return [stub.Play(requests(token)) for token in tokens], leave


def test_match_status_tells_who_is_to_act_only_to_the_admin(served: str) -> None:
    # A public to_act would show every bot's thinking time (and in Dingo before engine
    # version 3 who held a wolf), and a public decision count a golf solitaire seat's score.
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        created = stub.CreateMatch(
            pb.CreateMatchRequest(game="gin_rummy", seats=2, seed=5, move_seconds=30),
            metadata=ADMIN,
        )
        streams, leave = _silent_seats(stub, created.seat_tokens)
        try:
            request = pb.MatchStatusRequest(match_id=created.match_id)
            for _ in range(100):
                admin = stub.MatchStatus(request, metadata=ADMIN)
                if admin.to_act:
                    break
                time.sleep(0.1)
            public = stub.MatchStatus(request)
        finally:
            leave.set()
            for stream in streams:
                stream.cancel()
    assert admin.state == "running" and len(admin.to_act) == 1
    assert public.state == "running" and public.game == "gin_rummy"
    assert list(public.to_act) == [] and public.decisions == 0


def test_private_watch_serves_watch_only_with_the_admin_token() -> None:
    """For matches that share a deal: a bot watching another table would see its cards."""
    with serving("--private-watch") as address, grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        created = stub.CreateMatch(
            pb.CreateMatchRequest(game="gin_rummy", seats=2, seed=5, rules={"max_hands": "1"}),
            metadata=ADMIN,
        )
        with pytest.raises(grpc.RpcError) as denied:
            list(stub.Watch(pb.WatchRequest(match_id=created.match_id), timeout=10))
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # another table's result would tell a seated bot the deal it shares with it
        with pytest.raises(grpc.RpcError) as no_status:
            stub.MatchStatus(pb.MatchStatusRequest(match_id=created.match_id))
        assert no_status.value.code() == grpc.StatusCode.UNAUTHENTICATED
        bots = random_bots(address, created.seat_tokens)
        seen = list(stub.Watch(pb.WatchRequest(match_id=created.match_id), metadata=ADMIN))
        assert [bot.wait(30) for bot in bots] == [0, 0]
    assert seen[0].HasField("match_start") and seen[-1].HasField("match_over")


def test_serve_with_only_a_unix_socket_listens_on_no_tcp_port(tmp_path: Path) -> None:
    sock = tmp_path / "referee.sock"
    with arena_process("serve", "--unix", str(sock)) as (proc, line):
        assert line.split()[3:] == [f"unix:{sock}"]
        assert _listening_tcp_ports(proc.pid) == []
        with grpc.insecure_channel(f"unix:{sock}") as channel:
            games = referee_pb2_grpc.RefereeStub(channel).ListGames(pb.ListGamesRequest())  # type: ignore[no-untyped-call]
        assert games.games


def test_a_busy_or_invalid_port_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = arena(tmp_path / "a.db", "serve", "--port", str(port), check=False, timeout=30)
    invalid = arena(tmp_path / "a.db", "serve", "--port", "99999", check=False, timeout=30)
    web = arena(tmp_path / "a.db", "web", "--port", "99999", check=False, timeout=30)
    assert busy.returncode == 2
    assert (
        busy.stderr.strip() == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    for done in (invalid, web):
        assert done.returncode == 2
        assert done.stderr.strip() == "error: --port must be 0-65535, not 99999"


def test_serve_offers_health_checks_and_reflection(served: str) -> None:
    with grpc.insecure_channel(served) as channel:
        checks = health_pb2_grpc.HealthStub(channel)
        for service in ("", "referee.v1.Referee"):
            reply = checks.Check(health_pb2.HealthCheckRequest(service=service))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        (reply,) = list(reflect.ServerReflectionInfo(iter([request])))
        names = {s.name for s in reply.list_services_response.service}
        # and the service's own descriptors, for grpcurl to build requests with
        request = reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="referee.v1.Referee"
        )
        (files,) = list(reflect.ServerReflectionInfo(iter([request])))
    assert names == {"referee.v1.Referee", "grpc.health.v1.Health", reflection.SERVICE_NAME}
    assert files.file_descriptor_response.file_descriptor_proto


def test_health_turns_not_serving_as_the_referee_stops(tmp_path: Path) -> None:
    async def scenario() -> list[int]:
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(RefereeCore(), [address])
        seen = []
        async with grpc.aio.insecure_channel(address) as channel:
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service="referee.v1.Referee")
            )
            seen.append((await watch.read()).status)
            stopping = asyncio.get_running_loop().create_task(server.stop(grace=1.0))
            seen.append((await watch.read()).status)
            await stopping
        return seen

    seen = asyncio.run(scenario())
    assert seen == [
        health_pb2.HealthCheckResponse.SERVING,
        health_pb2.HealthCheckResponse.NOT_SERVING,
    ]


def test_times_out_of_their_range_are_refused(served: str, tmp_path: Path) -> None:
    """Every time of CreateMatch is refused out of its range, nan and infinities too. A nan
    start timeout was accepted: in the event loop's timer heap it compares with nothing,
    and other matches' deadlines fired seconds late behind it; inf and 1e16 s waited for
    ever or overflowed the Turn's deadline; a nan spectator delay was no delay at all."""
    fields = {
        "move_seconds": "move seconds",
        "time_bank_seconds": "time bank seconds",
        "start_timeout_seconds": "start timeout seconds",
        "spectator_delay_seconds": "spectator delay seconds",
    }
    with grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        for field, name in fields.items():
            for seconds in (float("nan"), float("inf"), float("-inf"), -1.0, 86_401.0, 1e16):
                request = pb.CreateMatchRequest(game="gin_rummy", seats=2)
                setattr(request, field, seconds)
                with pytest.raises(grpc.RpcError) as refused:
                    stub.CreateMatch(request, metadata=ADMIN)
                assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (field, seconds)
                assert f"{name} must be a finite number" in (refused.value.details() or "")
            setattr(request, field, 86_400.0)  # a day is allowed
            stub.CreateMatch(request, metadata=ADMIN)
        # No players given: a fresh token per seat, made once the count is known to be
        # the game's (the server built a list of 2**28 first: 17 s and 5 GB)
        for seats in (2**31 - 1, -(2**31), 3):
            with pytest.raises(grpc.RpcError) as refused:
                stub.CreateMatch(
                    pb.CreateMatchRequest(game="gin_rummy", seats=seats), metadata=ADMIN
                )
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert f"not {seats}" in (refused.value.details() or ""), refused.value.details()
    db = tmp_path / "a.db"
    arena(
        db, "bots", "add", "r", "--game", "*", "--", sys.executable, "-m", "sample_bots.random_bot"
    )
    for option, value in (
        ("--move-seconds", "nan"),
        ("--move-seconds", "0"),
        ("--time-bank", "-1"),
    ):
        done = arena(
            db,
            "tournament",
            "run",
            "--game",
            "gin_rummy",
            "--bots",
            "r,r",
            option,
            value,
            check=False,
        )
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert "must be" in done.stderr and "finite" in done.stderr


def test_a_remote_player_with_nothing_more_to_play_is_told_goodbye(tmp_path: Path) -> None:
    """A player token on `arena serve` plays the match it was given, then, with no match
    for the idle limit, receives Goodbye and its stream ends: the bot exits by itself."""
    with serving("--player-idle-seconds", "1") as served, grpc.insecure_channel(served) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        token = stub.IssuePlayerToken(pb.IssuePlayerTokenRequest(name="p"), metadata=ADMIN)
        created = stub.CreateMatch(
            pb.CreateMatchRequest(game="gin_rummy", seats=2, rules={"max_hands": "1"},
                                  players=[token.token, ""]),
            metadata=ADMIN,
        )  # fmt: skip
        bots = random_bots(served, [token.token, created.seat_tokens[1]])
        exits = [bot.wait(60) for bot in bots]
        status = stub.MatchStatus(pb.MatchStatusRequest(match_id=created.match_id))
        replies = list(stub.Play(iter([pb.BotMessage(hello=pb.Hello(token=token.token))])))
    assert exits == [0, 0] and status.state == "over"
    assert [r.error.code for r in replies] == ["unauthenticated"]  # the token is retired


def test_the_last_message_to_a_retired_player_is_goodbye(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], str]:
        core = RefereeCore()
        address = f"unix:{tmp_path}/r.sock"
        server = await start_server(core, [address])
        token = core.issue_player_token("p")
        async with grpc.aio.insecure_channel(address) as channel:
            call = referee_pb2_grpc.RefereeStub(channel).Play()  # type: ignore[no-untyped-call]
            await call.write(pb.BotMessage(hello=pb.Hello(token=token)))
            kinds = [(await call.read()).WhichOneof("kind")]
            expiry = asyncio.get_running_loop().create_task(core.expire_idle_players(0.5))
            while (message := await call.read()) is not grpc.aio.EOF:  # type: ignore[attr-defined]
                assert isinstance(message, pb.RefereeMessage)
                kinds.append(message.WhichOneof("kind"))
                reason = message.goodbye.reason
            code = await call.code()
            expiry.cancel()
        await server.stop(0)
        return kinds, f"{code.name}: {reason}"

    kinds, ending = asyncio.run(scenario())
    assert kinds == ["welcome", "goodbye"]
    assert ending == "OK: no match for this player in 0.5 s"


def test_a_killed_servers_private_folder_is_removed_by_the_next() -> None:
    """A server killed outright (SIGKILL) cannot remove the private folder its front door
    listens in; the next server started on the machine removes it, and never a live
    one's."""
    temp = Path(tempfile.mkdtemp(prefix="ts", dir="/tmp"))  # short: socket paths must fit
    env = {**os.environ, "TMPDIR": str(temp)}
    serve = ("serve", "--port", "0", "--admin-token", ADMIN_TOKEN)
    try:
        with arena_process(*serve, env=env) as (live, line):
            assert line.startswith("referee listening on "), line
            [kept] = temp.glob(f"referee-*-{live.pid}-*")
            with arena_process(*serve, env=env) as (killed, line):
                assert line.startswith("referee listening on "), line
                [left] = temp.glob(f"referee-*-{killed.pid}-*")
                killed.kill()
                killed.wait(10)
            assert left.exists()  # nothing of the killed server's removed it
            with arena_process(*serve, env=env) as (_, line):
                assert line.startswith("referee listening on "), line
                assert not left.exists()
                assert kept.exists()
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def test_a_start_cut_short_leaves_no_server_listening(tmp_path: Path) -> None:
    """A start cancelled at any step (Ctrl-C or SIGTERM just as an arena begins) stops the
    server it began: its caller never gets it to stop, and grpc's stop in the middle of
    its start failed with "invalid state" in a task nobody awaited."""
    path = tmp_path / "r.sock"

    def listening() -> bool:
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(str(path))
            except (ConnectionRefusedError, FileNotFoundError):
                return False
        return True

    async def scenario() -> tuple[list[bool], list[dict[str, Any]]]:
        loop = asyncio.get_running_loop()
        problems: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _loop, context: problems.append(context))
        cut_short = []
        for steps in range(8):
            starting = loop.create_task(start_server(RefereeCore(), [f"unix:{path}"]))
            for _ in range(steps):
                await asyncio.sleep(0)
            starting.cancel()
            try:
                server = await starting
            except asyncio.CancelledError:
                cut_short.append(listening())
            else:  # it started before the cancel came
                await server.stop(0)
        await asyncio.sleep(0.2)
        return cut_short, problems

    cut_short, problems = asyncio.run(scenario())
    assert cut_short and not any(cut_short)
    assert problems == []


STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _ignoring_sigint() -> None:
    """As a shell starts a job in the background: SIGINT ignored, SIGHUP at its default."""
    as_in_a_terminal()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("signum", STOPS, ids=[s.name for s in STOPS])
def test_a_server_stops_cleanly_with_matches_waiting_and_playing(
    tmp_path: Path, signum: int
) -> None:
    """Stopped with a match that waited for its players, `arena serve` printed "_GatheringFuture
    exception was never retrieved" and a traceback (9 of 9 tries in an audit), and SIGHUP
    killed it outright. Each stop signal now ends it with exit 0 and nothing on stderr,
    a match waiting for its seats and one being played alike."""
    stderr_path = tmp_path / "stderr"
    serve = ["serve", "--port", "0", "--admin-token", ADMIN_TOKEN]
    with (
        stderr_path.open("w") as stderr,
        arena_process(*serve, stderr=stderr, preexec_fn=as_in_a_terminal) as (proc, line),
    ):
        address = line.split()[-1]
        with grpc.insecure_channel(address) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
            stub.CreateMatch(pb.CreateMatchRequest(game="gin_rummy", seats=2), metadata=ADMIN)
            playing = stub.CreateMatch(
                pb.CreateMatchRequest(game="gin_rummy", seats=2, rules={"max_hands": "50"}),
                metadata=ADMIN,
            )
            bots = random_bots(address, playing.seat_tokens)
            request = pb.MatchStatusRequest(match_id=playing.match_id)
            deadline = time.monotonic() + 60
            while stub.MatchStatus(request, metadata=ADMIN).decisions < 5:
                assert time.monotonic() < deadline, "the match never got going"
                time.sleep(0.05)
        proc.send_signal(signum)
        proc.wait(30)
        for bot in bots:
            bot.wait(30)
    assert proc.returncode == 0
    assert stderr_path.read_text() == ""


def test_a_server_started_with_sigint_ignored_keeps_ignoring_it(tmp_path: Path) -> None:
    """A server started in the background by a shell (SIGINT ignored) stopped at a Ctrl-C
    meant for the shell's foreground job."""
    serve = ["serve", "--port", "0", "--admin-token", ADMIN_TOKEN]
    with arena_process(*serve, preexec_fn=_ignoring_sigint) as (proc, line):
        assert line.startswith("referee listening on "), line
        proc.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
