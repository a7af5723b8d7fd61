"""Submitting from elsewhere: the SubmitBot RPC of a real `arena serve --db` process, and
the upload form of `arena web` in headless Chromium. Both refuse a missing or wrong
submitter token, another submitter's bot name and malformed archives, storing nothing; the
web server closes connections that go silent and caps those held at once."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import io
import json
import random
import select
import signal
import socket
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import grpc
import pytest

from arena import checks
from arena.artifacts import read_archive
from arena.intake import (
    UPLOAD_LIMITS,
    Places,
    QuotaExceeded,
    TryLater,
    UploadPlaces,
    submit_archive,
)
from arena.store import Store
from arena.submission_service import add_submission_service
from arena.submissions import SubmissionRefused
from arena.web import server as web_server_module
from arena.web.server import make_server
from referee.service import RefereeCore, bound_addresses, start_server
from referee.v1 import submissions_pb2 as pb
from referee.v1 import submissions_pb2_grpc as pb_grpc
from tests.conftest import (
    arena,
    arena_process,
    as_in_a_terminal,
    file_size_limit,
    left_behind,
    temp_dirs_of,
)
from tests.watching.helpers import CHROMIUM, CHROMIUM_ARGS, browser_missing

BOT = b"from referee.client import run_bot\nrun_bot(lambda o, legal: legal[0], name='z')\n"


def bot_zip(
    manifest: str | Literal[False] | None = None,
    extra: dict[str, bytes] | None = None,
    bot: bytes = BOT,
) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as z:
        z.writestr("bot.py", bot)
        if manifest is not False:
            z.writestr(
                "bot.toml",
                manifest or f'command = ["{sys.executable}", "bot.py"]\ngames = ["golf"]\n',
            )
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return raw.getvalue()


def stored(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select name, version, submitter from bot_versions").fetchall()


@pytest.fixture
def submissions_server(tmp_path: Path) -> Iterator[tuple[Path, str, str, str]]:
    """`arena serve --db` with two submitters; yields (db, address, alice's, bob's token)."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    bob = arena(db, "submitters", "add", "bob").stdout.split()[-1]
    with arena_process("serve", "--port", "0", "--db", str(db)) as (_, line):
        assert line.startswith("referee listening on "), line
        yield db, line.split()[-1], alice, bob


def submit(address: str, token: str | None, **fields: Any) -> pb.SubmitBotResponse:
    metadata = [("x-submitter-token", token)] if token is not None else []
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.SubmissionServiceStub(channel)  # type: ignore[no-untyped-call]
        reply: pb.SubmitBotResponse = stub.SubmitBot(
            pb.SubmitBotRequest(**fields), metadata=metadata, timeout=120
        )
        return reply


def test_submit_bot_rpc(submissions_server: tuple[Path, str, str, str]) -> None:
    db, address, alice, bob = submissions_server
    reply = submit(address, alice, name="zbot", archive=bot_zip())
    assert (reply.name, reply.version, list(reply.games)) == ("zbot", 1, ["golf"])
    assert len(reply.sha256) == 64

    refusals = [
        (None, {"name": "zbot", "archive": bot_zip()}, grpc.StatusCode.UNAUTHENTICATED, "token"),
        ("wrong", {"name": "zbot", "archive": bot_zip()}, grpc.StatusCode.UNAUTHENTICATED, "token"),
        (
            bob,
            {"name": "zbot", "archive": bot_zip()},
            grpc.StatusCode.PERMISSION_DENIED,
            "another submitter",
        ),
        (bob, {"name": "b", "archive": b"nope"}, grpc.StatusCode.INVALID_ARGUMENT, "not a .zip"),
        (
            bob,
            {"name": "b", "archive": bot_zip(False)},
            grpc.StatusCode.INVALID_ARGUMENT,
            "no bot.toml",
        ),
        (
            bob,
            {"name": "b", "archive": bot_zip(extra={"../x": b"x"})},
            grpc.StatusCode.INVALID_ARGUMENT,
            "leave the bot's directory",
        ),
        (bob, {"name": "b d", "archive": bot_zip()}, grpc.StatusCode.INVALID_ARGUMENT, "bot name"),
    ]
    for token, fields, code, words in refusals:
        with pytest.raises(grpc.RpcError) as caught:
            submit(address, token, **fields)
        assert caught.value.code() == code, fields
        assert words in (caught.value.details() or "")
    assert stored(db) == [("zbot", 1, "alice")]

    # With check, a bot that cannot play is refused and nothing is stored.
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as z:
        z.writestr("bot.py", "raise SystemExit('no')\n")
        z.writestr("bot.toml", f'command = ["{sys.executable}", "bot.py"]\ngames = ["golf"]\n')
    broken = raw.getvalue()
    with pytest.raises(grpc.RpcError) as caught:
        submit(address, bob, name="broken", archive=broken, check=True)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "problem golf" in (caught.value.details() or "")
    reply = submit(address, alice, name="zbot", archive=bot_zip(), check=True)
    assert reply.version == 2 and any(line.startswith("ok golf") for line in reply.check_report)
    assert stored(db) == [("zbot", 1, "alice"), ("zbot", 2, "alice")]


CHUNK = 64 * 1024


def upload_requests(
    archive: bytes, chunk: int = CHUNK, **fields: Any
) -> Iterator[pb.UploadBotRequest]:
    """UploadBot's requests: the submission, then the archive in pieces."""
    yield pb.UploadBotRequest(submission=pb.SubmitBotRequest(**fields))
    for at in range(0, len(archive), chunk):
        yield pb.UploadBotRequest(chunk=archive[at : at + chunk])


def upload(
    address: str, token: str | None, requests: Iterator[pb.UploadBotRequest]
) -> pb.SubmitBotResponse:
    metadata = [("x-submitter-token", token)] if token is not None else []
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.SubmissionServiceStub(channel)  # type: ignore[no-untyped-call]
        reply: pb.UploadBotResponse = stub.UploadBot(requests, metadata=metadata, timeout=120)
        return reply.submitted


def web_upload(
    base: str,
    token: str,
    name: str,
    archive: bytes,
    extra: dict[str, str] | None = None,
    timeout: float = 60,
) -> tuple[int, str, str | None]:
    """POST ``archive`` to `arena web`'s /api/submit at ``base`` (with ``extra`` headers):
    the HTTP status, the error it says ("" for none) and its Retry-After."""
    request = urllib.request.Request(
        base + "/api/submit",
        data=archive,
        headers={"X-Submitter-Token": token, "X-Bot-Name": name, **(extra or {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, "", None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())["error"], exc.headers.get("Retry-After")


def refusal(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value.code(), caught.value.details() or ""


def test_a_large_bot_is_uploaded_in_pieces_and_no_message_may_be_large(
    submissions_server: tuple[Path, str, str, str],
) -> None:
    """The server's message limit is the referee's 128 KiB: a 3 MiB bot arrives through
    UploadBot in 64 KiB pieces, stored file for file, and the same archive in one
    SubmitBot message is refused by the transport (without a token, before that)."""
    db, address, alice, bob = submissions_server
    big = bot_zip(extra={"weights.bin": random.Random(1).randbytes(3 * 1024 * 1024)})
    reply = upload(address, alice, upload_requests(big, name="big"))
    assert (reply.name, reply.version, list(reply.games)) == ("big", 1, ["golf"])
    assert reply.sha256 == read_archive(big, UPLOAD_LIMITS).sha256  # every file as sent
    code, details = refusal(lambda: submit(address, alice, name="big", archive=big))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "131072" in details, details
    code, details = refusal(lambda: submit(address, None, name="big", archive=big))
    assert code == grpc.StatusCode.UNAUTHENTICATED, details  # refused before it is read
    # A small bot still goes in one message; pieces of any size up to the limit arrive.
    assert submit(address, bob, name="small", archive=bot_zip()).version == 1
    assert upload(address, bob, upload_requests(bot_zip(), chunk=7, name="small")).version == 2
    assert stored(db) == [("big", 1, "alice"), ("small", 1, "bob"), ("small", 2, "bob")]


def test_upload_bot_refuses_what_is_not_one_upload(
    submissions_server: tuple[Path, str, str, str],
) -> None:
    db, address, alice, bob = submissions_server
    archive = bot_zip()
    no_submission = [pb.UploadBotRequest(chunk=archive)]
    twice = [
        *upload_requests(archive, name="a"),
        pb.UploadBotRequest(submission=pb.SubmitBotRequest(name="b")),
    ]
    archive_inside = [
        pb.UploadBotRequest(submission=pb.SubmitBotRequest(name="a", archive=archive))
    ]
    nothing: list[pb.UploadBotRequest] = []
    for requests in (no_submission, twice, archive_inside, nothing):
        code, details = refusal(functools.partial(upload, address, alice, iter(requests)))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "UploadBot" in details, details
    code, details = refusal(lambda: upload(address, "wrong", upload_requests(archive, name="a")))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    code, details = refusal(lambda: upload(address, alice, upload_requests(b"nope", name="a")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "not a .zip" in details
    # The name is the submitter's who first used it, as with SubmitBot.
    assert upload(address, alice, upload_requests(archive, name="a")).version == 1
    code, details = refusal(lambda: upload(address, bob, upload_requests(archive, name="a")))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "another submitter" in details
    assert "alice" not in details  # submitters are not public
    assert stored(db) == [("a", 1, "alice")]


def test_an_upload_past_the_limit_is_refused_whole(tmp_path: Path) -> None:
    """Pieces past the server's upload limit are read and dropped, and the upload is
    refused with its size; the server then takes the next upload as usual."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    limits = dataclasses.replace(UPLOAD_LIMITS, max_upload_bytes=100_000)

    async def serve() -> tuple[str, Any]:
        server = await start_server(
            RefereeCore(),
            ["127.0.0.1:0"],
            services=[lambda s: add_submission_service(s, db, limits)],
        )
        return bound_addresses(server)[0], server

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    address, server = asyncio.run_coroutine_threadsafe(serve(), loop).result(30)
    try:
        too_big = bot_zip(extra={"w": random.Random(2).randbytes(150_000)})
        code, details = refusal(lambda: upload(address, alice, upload_requests(too_big, name="a")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert f"the archive is {len(too_big):,} bytes; the limit is 100,000" in details
        assert upload(address, alice, upload_requests(bot_zip(), name="a")).version == 1
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
    assert stored(db) == [("a", 1, "alice")]


def test_each_submitter_may_fill_only_its_quota(tmp_path: Path) -> None:
    """A token could store distinct archives until the disk was full. Each submitter's
    versions (each content once, removed ones too) hold at most --submitter-quota-mb;
    content stored already takes no more room; others keep theirs. Over gRPC from a real
    `arena serve --db` process, and over HTTP from the web server."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    bob = arena(db, "submitters", "add", "bob").stdout.split()[-1]
    data = bytes(range(256)) * 40  # 10,240 bytes: two such bots pass 12,000
    padded = bot_zip(extra={"data.bin": data})
    quota_mb = str(12_000 / 2**20)
    serve = ("serve", "--port", "0", "--db", str(db), "--submitter-quota-mb", quota_mb)
    with arena_process(*serve) as (_, line):
        address = line.split()[-1]
        assert submit(address, alice, name="a", archive=padded).version == 1
        with pytest.raises(grpc.RpcError) as caught:
            submit(address, alice, name="a", archive=bot_zip(extra={"data.bin": data, "x": b"1"}))
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "would pass the 12,000 a submitter may store" in (caught.value.details() or "")
        assert submit(address, alice, name="a", archive=padded).version == 2  # stored already
        assert submit(address, bob, name="b", archive=padded).version == 1  # bob's own room
    limits = dataclasses.replace(UPLOAD_LIMITS, max_stored_bytes=12_000)
    server = make_server(db, port=0, upload_limits=limits)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        code, error, _ = web_upload(base, bob, "b", bot_zip(extra={"data.bin": data, "y": b"2"}))
        assert code == 507 and "ask the operator for more room" in error
    finally:
        server.shutdown()
    assert stored(db) == [("a", 1, "alice"), ("a", 2, "alice"), ("b", 1, "bob")]


def test_uploads_at_once_stay_within_the_quota(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four uploads at once, room for one: each passes the quota before the others store
    (storing is slowed to make sure), and only one is stored."""
    db = tmp_path / "arena.db"
    store_bot = Store.submit_bot

    def slow_store(self: Store, *args: Any) -> Any:
        time.sleep(0.3)
        return store_bot(self, *args)

    monkeypatch.setattr(Store, "submit_bot", slow_store)
    limits = dataclasses.replace(UPLOAD_LIMITS, max_stored_bytes=15_000)
    data = bytes(range(256)) * 40

    def upload(n: int) -> str:
        archive = bot_zip(extra={"data.bin": data, "n": str(n).encode()})
        try:
            submit_archive(db, "alice", "a", archive, limits=limits)
        except QuotaExceeded:
            return "refused"
        return "stored"

    with ThreadPoolExecutor(4) as pool:
        outcomes = sorted(pool.map(upload, range(4)))
    assert outcomes == ["refused", "refused", "refused", "stored"]
    assert stored(db) == [("a", 1, "alice")]


@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        ("plain", "is a plain-command bot"),
        ("bobs", "belongs to another submitter"),
        ("<b>x", "up to 64"),
    ],
)
def test_a_name_that_cannot_be_stored_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, refusal: str
) -> None:
    """A check (sandboxed matches) ran for uploads whose name was refused only afterwards,
    and the refusal came back as the check's 422 instead of the name's 403 or 400."""
    db = tmp_path / "arena.db"
    arena(db, "bots", "add", "plain", "--game", "golf", "--", sys.executable, "bot.py")
    submit_archive(db, "bob", "bobs", bot_zip())

    def no_work(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a refused name's archive was read or checked")

    monkeypatch.setattr(checks, "check_artifact", no_work)
    monkeypatch.setattr("arena.intake.read_archive", no_work)
    with pytest.raises(SubmissionRefused, match=refusal):
        submit_archive(db, "alice", name, bot_zip(), check=True)
    assert stored(db) == [("bobs", 1, "bob")]


def test_a_quota_must_be_above_0_and_at_most_a_tebibyte(tmp_path: Path) -> None:
    """inf passed the check and ended in a traceback (OverflowError)."""
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    for command in ("serve", "web"):
        for quota in ("0", "-1", "nan", "inf", "1048577"):
            out = arena(db, command, "--submitter-quota-mb", quota, check=False)
            assert out.returncode == 2, (command, quota, out.stderr)
            assert "--submitter-quota-mb must be a number above 0 and at most 1048576" in (
                out.stderr
            )
            assert "Traceback" not in out.stderr


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[Path, str, str, str]]:
    """`arena web` on a free port; yields (db, base URL, alice's token, bob's token)."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    bob = arena(db, "submitters", "add", "bob").stdout.split()[-1]
    server = make_server(db, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield db, f"http://127.0.0.1:{server.server_address[1]}", alice, bob
    server.shutdown()


def test_upload_refuses_oversize_before_reading(web: tuple[Path, str, str, str]) -> None:
    db, base, token, _ = web
    code, _, _ = web_upload(base, token, "a", b"x" * 10, {"Content-Length": str(10**10)})
    assert code == 413
    assert stored(db) == []


def test_upload_form_in_chromium(web: tuple[Path, str, str, str], tmp_path: Path) -> None:
    reason = browser_missing()
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    db, base, token, bob = web
    good = tmp_path / "bot.zip"
    good.write_bytes(bot_zip())
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not an archive")

    def send(page: Any, name: str, token: str, archive: Path) -> str:
        page.goto(base + "/submit")
        page.fill("#name", name)
        page.fill("#token", token)
        page.set_input_files("#archive", str(archive))
        page.click("#send")
        page.wait_for_function("() => document.getElementById('result').className !== ''")
        text: str = page.inner_text("#result")
        return text

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        assert send(page, "webbot", "wrong-token", good).startswith("refused: a missing or unknown")
        assert send(page, "webbot", token, bad) == "refused: not a .zip or .tar.gz archive"
        accepted = send(page, "webbot", token, good)
        assert accepted.startswith("accepted webbot@1 (sha256 ")
        assert page.get_attribute("#result", "class") == "ok"
        taken = send(page, "webbot", bob, good)
        assert (
            taken
            == "refused: the bot name 'webbot' belongs to another submitter; choose another name"
        )
        browser.close()
    assert stored(db) == [("webbot", 1, "alice")]


def test_silent_and_stalled_clients_are_cut_off_and_others_are_served(tmp_path: Path) -> None:
    """Each connection holds a server thread: ones that send nothing, or stop halfway
    through an upload, are closed after the idle time while other visitors are served."""
    db = tmp_path / "arena.db"
    token = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    server = make_server(db, port=0, idle_seconds=1.0, per_address=32)  # all from one address
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        silent = [socket.create_connection((str(host), port), timeout=30) for _ in range(20)]
        stalled = socket.create_connection((str(host), port), timeout=30)
        stalled.sendall(
            b"POST /api/submit HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n"
            + f"X-Submitter-Token: {token}\r\nX-Bot-Name: slow\r\n\r\n".encode()
            + b"only part of the body"
        )
        with urllib.request.urlopen(f"http://{host!s}:{port}/", timeout=30) as page:
            assert page.status == 200
        for sock in silent:
            assert sock.recv(1024) == b""  # closed by the server, nothing sent
        answer = b""
        while chunk := stalled.recv(4096):  # the answer, then the server closes
            answer += chunk
        assert answer.startswith(b"HTTP/1.0 408") and b"the upload stalled for 1 s" in answer
        assert stored(db) == []
    finally:
        server.shutdown()


def test_a_request_head_sent_a_line_at_a_time_is_cut_off(tmp_path: Path) -> None:
    """The idle time counts only silence: a client sending a header line just before it
    ran out held the connection (and its thread) for as long as it liked. The request's
    whole head must arrive within head_seconds; the connection is then closed unanswered,
    while a client sending at once is served."""
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    server = make_server(db, port=0, idle_seconds=1.0, head_seconds=2.0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        trickler = socket.create_connection((str(host), port), timeout=30)
        trickler.sendall(b"GET / HTTP/1.1\r\n")
        lines_sent, answer = 0, None
        while lines_sent < 40:  # 40 lines 0.4 s apart: 16 s, were it never cut off
            readable, _, _ = select.select([trickler], [], [], 0.4)
            if readable:
                answer = trickler.recv(4096)
                break
            trickler.sendall(b"X-Slow: %d\r\n" % lines_sent)
            lines_sent += 1
            with urllib.request.urlopen(f"http://{host!s}:{port}/", timeout=30) as page:
                assert page.status == 200  # others are served meanwhile
        assert answer == b"", (answer, lines_sent)  # closed, nothing served
        assert lines_sent < 40
    finally:
        server.shutdown()


def test_a_request_head_over_64_kib_is_refused_and_one_under_is_served(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The standard library takes 100 headers of 64 KiB each, kept until the head is
    whole: a client held 6.5 MB of the server's memory per connection. A head past 64 KiB
    in all is answered 431 and the connection closed; one just under is served."""
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    server = make_server(db, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]

    def answer(headers: int) -> bytes:
        with socket.create_connection((str(host), port), timeout=30) as sock:
            head = b"GET / HTTP/1.0\r\n" + b"X-Pad: %s\r\n" % (b"p" * 1000) * headers
            with contextlib.suppress(ConnectionError):  # closed before all was sent
                sock.sendall(head + b"\r\n")
            received = b""
            with contextlib.suppress(ConnectionResetError):  # the unread rest: a reset
                while chunk := sock.recv(65536):
                    received += chunk
            return received

    try:
        assert answer(60).startswith(b"HTTP/1.0 200")  # 60 KiB
        refused = answer(99)  # 99 lines of 1 KiB, each far under the library's own limit
        assert refused.startswith(b"HTTP/1.0 431") and b"over 64 KiB" in refused
    finally:
        server.shutdown()
    assert "Traceback" not in capfd.readouterr().err


def test_one_client_holding_connections_cannot_take_the_server_from_others(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Each connection holds a server thread: one client (here 127.0.0.1) that opened 3,000
    and held them left no thread for anyone else (a page request timed out). Past its cap
    per address, and past the cap in all, a connection is answered 503 at once. Clients
    that leave before their answer is sent cost no traceback in the server's log."""
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    server = make_server(db, port=0, max_connections=6, per_address=4)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    def connect(source: str) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
        sock.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest
        return sock

    def status(source: str) -> bytes:
        with socket.create_connection(("127.0.0.1", port), 30, (source, 0)) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        return answer.split(b"\r\n", 1)[0]

    def places_settle(expected: dict[str, int]) -> None:
        """Wait for the places held to be ``expected``: a served connection's place is
        given back by its thread just after the client has read the answer."""
        deadline = time.monotonic() + 30
        while server.open.held != expected and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.open.held == expected

    held: list[socket.socket] = []
    try:
        held += [connect("127.0.0.1") for _ in range(4)]
        places_settle({"ipv4:127.0.0.1": 4})
        assert status("127.0.0.1") == b"HTTP/1.0 503 Service Unavailable"
        assert status("127.0.0.2") == b"HTTP/1.0 200 OK"  # another client is served
        places_settle({"ipv4:127.0.0.1": 4})
        held += [connect("127.0.0.3") for _ in range(2)]  # six held: the cap in all
        places_settle({"ipv4:127.0.0.1": 4, "ipv4:127.0.0.3": 2})
        assert status("127.0.0.4") == b"HTTP/1.0 503 Service Unavailable"
        held.pop(0).close()  # a place comes back when its connection ends
        places_settle({"ipv4:127.0.0.1": 3, "ipv4:127.0.0.3": 2})
        assert status("127.0.0.1") == b"HTTP/1.0 200 OK"
        deadline = time.monotonic() + 30
        for sock in held:  # each leaves before its answer: the server writes to a closed socket
            sock.close()
        while server.open.held and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not server.open.held
        log = capfd.readouterr().err
        assert "BrokenPipeError" not in log and "ConnectionResetError" not in log, log
    finally:
        server.shutdown()
        for sock in held:
            sock.close()


SLOW_BOT = (
    b"import time\ntime.sleep(3)  # a check of this bot lasts at least 3 s\n" + BOT
)  # fmt: skip


def slow_bot_zip(mark: str) -> bytes:
    return bot_zip(extra={"mark": mark.encode()}, bot=SLOW_BOT)


def test_a_submitter_has_one_check_at_a_time(
    submissions_server: tuple[Path, str, str, str],
) -> None:
    """Two uploads with a check at once from one submitter: one is checked and stored, the
    other refused at once with UNAVAILABLE (send it again), storing nothing."""
    db, address, alice, _bob = submissions_server

    def upload(mark: str) -> str:
        try:
            submit(address, alice, name="slow", archive=slow_bot_zip(mark), check=True)
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc.details()
            assert "'alice' has 1 check under way" in (exc.details() or "")
            return "refused"
        return "stored"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(upload, ["a", "b"]))
    assert outcomes == ["refused", "stored"]
    assert stored(db) == [("slow", 1, "alice")]
    # Once the check has ended, the submitter may be checked again.
    assert upload("c") == "stored"


def test_the_upload_form_says_503_while_the_submitter_is_being_checked(
    web: tuple[Path, str, str, str],
) -> None:
    db, base, alice, _bob = web

    def upload(mark: str) -> tuple[int, str | None]:
        code, error, retry = web_upload(
            base, alice, "slow", slow_bot_zip(mark), {"X-Check": "1"}, timeout=120
        )
        assert code == 200 or "'alice' has 1 check under way" in error
        return code, retry

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(upload, ["a", "b"]), key=lambda o: o[0])
    assert outcomes == [(200, None), (503, "30")]
    assert stored(db) == [("slow", 1, "alice")]


def test_checks_run_a_few_at_once_and_others_wait_for_a_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real checks (sandboxed bot processes) of three submitters' uploads at once: with two
    places, no more than two run at once and the third waits its turn; with one place and
    a short wait, those that cannot get a place in time are refused, nothing stored."""
    db = tmp_path / "arena.db"
    running, most = 0, 0
    lock = threading.Lock()
    check = checks.check_artifact

    def counted_check(*args: Any, **kwargs: Any) -> Any:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            return check(*args, **kwargs)
        finally:
            with lock:
                running -= 1

    monkeypatch.setattr(checks, "check_artifact", counted_check)

    def upload_all(places: Places, round_: str) -> list[str]:
        def upload(n: int) -> str:
            try:
                submit_archive(
                    db, f"submitter{n}", f"bot{n}", slow_bot_zip(round_), check=True,
                    check_places=places,
                )  # fmt: skip
            except TryLater as exc:
                assert "the arena has 1 check under way" in str(exc)
                return "busy"
            return "stored"

        with ThreadPoolExecutor(3) as pool:
            return sorted(pool.map(upload, range(3)))

    assert upload_all(Places("check", 2, 1, wait_seconds=120), "1") == ["stored"] * 3
    assert most == 2
    most = 0
    assert upload_all(Places("check", 1, 1, wait_seconds=0.5), "2") == ["busy", "busy", "stored"]
    assert most == 1
    assert len(stored(db)) == 4


class HeldUpload:
    """A SubmitBot call whose archive is not sent until released: what the server does
    before it reads a byte of it."""

    def __init__(self, address: str, token: str) -> None:
        self.release = threading.Event()
        self.channel = grpc.insecure_channel(address)
        call = self.channel.stream_unary(
            "/referee.v1.SubmissionService/SubmitBot",
            request_serializer=pb.SubmitBotRequest.SerializeToString,
            response_deserializer=pb.SubmitBotResponse.FromString,
        )
        self.future = call.future(
            self._requests(), metadata=(("x-submitter-token", token),), timeout=60
        )

    def _requests(self) -> Iterator[pb.SubmitBotRequest]:
        self.release.wait(60)
        yield pb.SubmitBotRequest(name="held", archive=b"not an archive")

    def refusal(self) -> tuple[grpc.StatusCode, str]:
        """The call's status once it has ended, its archive never sent."""
        error = self.future.exception(timeout=30)  # type: ignore[call-arg]  # not in grpc-stubs
        assert isinstance(error, grpc.RpcError)
        return error.code(), error.details() or ""

    def pending(self) -> bool:
        time.sleep(0.5)  # time for a refusal to come back, if any
        return not self.future.done()

    def close(self) -> None:
        self.release.set()
        with pytest.raises(grpc.RpcError):
            self.future.result(timeout=30)  # not an archive
        self.channel.close()


def test_uploads_are_admitted_before_their_archive_is_read(
    submissions_server: tuple[Path, str, str, str],
) -> None:
    """An upload's token and the uploads taken in at once are checked before its archive is
    read (each is held whole in memory): a wrong token is refused with nothing sent; a
    submitter may send two at once, and the server takes in four. A call with several
    requests, or none, is refused."""
    db, address, alice, bob = submissions_server
    carol = arena(db, "submitters", "add", "carol").stdout.split()[-1]
    dave = arena(db, "submitters", "add", "dave").stdout.split()[-1]
    stranger = HeldUpload(address, "wrong")
    assert stranger.refusal()[0] == grpc.StatusCode.UNAUTHENTICATED
    held = [HeldUpload(address, token) for token in (alice, alice, bob)]
    assert all(h.pending() for h in held)
    third = HeldUpload(address, alice)
    code, details = third.refusal()
    assert code == grpc.StatusCode.UNAVAILABLE and "'alice' has 2 uploads under way" in details
    held.append(HeldUpload(address, carol))
    assert held[-1].pending()
    fifth = HeldUpload(address, dave)
    code, details = fifth.refusal()
    assert code == grpc.StatusCode.UNAVAILABLE and "the arena has 4 uploads under way" in details
    for h in held:
        h.close()
    assert submit(address, dave, name="d", archive=bot_zip()).version == 1  # places freed

    with grpc.insecure_channel(address) as channel:
        call = channel.stream_unary(
            "/referee.v1.SubmissionService/SubmitBot",
            request_serializer=pb.SubmitBotRequest.SerializeToString,
            response_deserializer=pb.SubmitBotResponse.FromString,
        )
        for count in (0, 2):
            with pytest.raises(grpc.RpcError) as caught:
                call(
                    iter([pb.SubmitBotRequest(name="d", archive=bot_zip())] * count),
                    metadata=(("x-submitter-token", dave),),
                    timeout=60,
                )
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "send one SubmitBotRequest" in (caught.value.details() or "")
    assert stored(db) == [("d", 1, "dave")]


def test_the_upload_form_answers_a_refused_upload_it_did_not_keep(tmp_path: Path) -> None:
    """A refused upload (wrong token, or its submitter already sending two) gets its answer
    though the client is still sending: the body is read and dropped, never kept."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    server = make_server(db, port=0, idle_seconds=5)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    body = bytes(8 * 1024 * 1024)  # more than the socket buffers take without a reader

    def post(token: str) -> tuple[int, str]:
        code, error, _ = web_upload(f"http://127.0.0.1:{port}", token, "a", body, timeout=30)
        return code, error

    try:
        assert post("wrong") == (401, "a missing or unknown submitter token")
        stalled = []
        for _ in range(2):  # two uploads of alice's that never send their body
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(
                b"POST /api/submit HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n"
                + f"X-Submitter-Token: {alice}\r\nX-Bot-Name: slow\r\n\r\n".encode()
            )
            stalled.append(s)
        time.sleep(0.5)  # both admitted, waiting for their bodies
        status, error = post(alice)
        assert status == 503 and "'alice' has 2 uploads under way" in error
        for s in stalled:
            s.close()
    finally:
        server.shutdown()
    assert stored(db) == []


def trickle_upload(host: str, port: int, token: str) -> tuple[bytes, int]:
    """Upload 1000 bytes to the form a byte every 0.1 s (well inside a 5 s idle time),
    for 5 s at most, until the server answers: the answer, read until the server closes,
    and how many bytes were sent before it came."""
    trickle = socket.create_connection((host, port), timeout=30)
    trickle.sendall(
        b"POST /api/submit HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n"
        + f"X-Submitter-Token: {token}\r\nX-Bot-Name: slow\r\n\r\n".encode()
    )
    sent = 0
    while sent < 50 and not select.select([trickle], [], [], 0.1)[0]:
        trickle.sendall(b"x")
        sent += 1
    answer = b""
    while chunk := trickle.recv(4096):
        answer += chunk
    trickle.close()
    return answer, sent


def test_an_upload_that_trickles_in_loses_its_place_at_the_deadline(tmp_path: Path) -> None:
    """An admitted upload has UploadPlaces.arrive_seconds to arrive, however steadily it
    trickles: over gRPC (a call that never sends its request) and through the form (a byte
    now and then, each inside the idle time). Its place is free again after it."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]

    async def serve_grpc() -> tuple[str, Any]:
        server = await start_server(
            RefereeCore(),
            ["127.0.0.1:0"],
            admin_token="admin",
            services=[lambda s: add_submission_service(s, db, places=UploadPlaces(1, 1, 1.0))],
        )
        bound = bound_addresses(server)[0]
        return f"127.0.0.1:{bound.rsplit(':', 1)[1]}", server

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    address, grpc_server = asyncio.run_coroutine_threadsafe(serve_grpc(), loop).result(30)
    try:
        held = HeldUpload(address, alice)
        code, details = held.refusal()
        assert code == grpc.StatusCode.DEADLINE_EXCEEDED and "more than 1 s to arrive" in details
        held.release.set()
        assert submit(address, alice, name="a", archive=bot_zip()).version == 1
    finally:
        asyncio.run_coroutine_threadsafe(grpc_server.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)

    web_server = make_server(db, port=0, idle_seconds=5)
    web_server.upload_places = UploadPlaces(1, 1, 1.0)
    threading.Thread(target=web_server.serve_forever, daemon=True).start()
    host, port = web_server.server_address[:2]
    try:
        answer, sent = trickle_upload(str(host), port, alice)
        assert answer.startswith(b"HTTP/1.0 408") and sent < 50, (answer[:200], sent)
        assert b"the upload took more than 1 s" in answer
    finally:
        web_server.shutdown()
    assert stored(db) == [("a", 1, "alice")]


def test_a_refused_upload_sending_slowly_is_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused upload's body is read and dropped so that the client gets the answer,
    but for DISCARD_SECONDS at most (patched to 1 s): a client without a token cannot
    hold a connection's thread by sending slowly."""
    monkeypatch.setattr(web_server_module, "DISCARD_SECONDS", 1.0)
    db = tmp_path / "arena.db"
    arena(db, "submitters", "add", "alice")
    server = make_server(db, port=0, idle_seconds=5)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        answer, sent = trickle_upload(str(host), port, "wrong")
    finally:
        server.shutdown()
    assert answer.startswith(b"HTTP/1.0 401"), answer[:200]
    assert sent < 50  # answered (and cut off) while it was still sending


def test_an_upload_the_disk_has_no_room_for_is_refused_to_send_later(tmp_path: Path) -> None:
    """On a full disk `arena web` answered 500 and SubmitBot UNKNOWN: the uploader could
    not tell a refusal of its bot from a fault of the server. Both servers' files here may
    not grow by the archive (RLIMIT_FSIZE, as a full disk: SQLite says "database or disk
    is full"); each refuses as busy (503, UNAVAILABLE), stores nothing, and serves on."""
    db = tmp_path / "arena.db"
    token = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    big = bot_zip(extra={"data.bin": random.Random(5).randbytes(400_000)})  # incompressible
    room = max(db.stat().st_size, 32 * 1024) + 128 * 1024
    limited = functools.partial(file_size_limit, room)

    with arena_process("serve", "--port", "0", "--db", str(db), preexec_fn=limited) as (_, line):
        address = line.split()[-1]
        code, details = refusal(lambda: upload(address, token, upload_requests(big, name="big")))
        assert code == grpc.StatusCode.UNAVAILABLE, details
        assert "cannot store 'big' now" in details and "nothing was stored" in details
        assert submit(address, token, name="small", archive=bot_zip()).version == 1

    with arena_process("web", "--port", "0", "--db", str(db), preexec_fn=limited) as (_, line):
        status, error, _ = web_upload(line.split()[-1].rstrip("/"), token, "big", big)
        assert status == 503 and "cannot store 'big' now" in error
    assert stored(db) == [("small", 1, "alice")]
    with sqlite3.connect(db) as conn:
        assert conn.execute("pragma integrity_check").fetchone() == ("ok",)


STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _running_with(mark: str) -> list[int]:
    """The processes whose command line holds ``mark``."""
    pids = []
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if proc.name.isdigit() and mark.encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
    return pids


def _never_connecting_bot(mark: str, files: int = 0) -> bytes:
    """A bot that sleeps instead of connecting: its check waits for it to time out (a
    minute and more), with ``mark`` on its command line to find its process by, and
    ``files`` more files to unpack."""
    manifest = f'command = ["{sys.executable}", "bot.py", "{mark}"]\ngames = ["golf"]\n'
    extra = {f"data/{n}": b"x" for n in range(files)}
    return bot_zip(manifest=manifest, extra=extra, bot=b"import time\ntime.sleep(600)\n")


CASES = [(signum, "playing") for signum in STOPS] + [(signal.SIGTERM, "unpacking")]


@pytest.mark.parametrize(("signum", "moment"), CASES, ids=[f"{s.name}-{m}" for s, m in CASES])
@pytest.mark.parametrize("command", ["serve", "web"])
def test_a_server_stopped_during_a_check_cancels_it_and_leaves_nothing(
    tmp_path: Path, command: str, signum: int, moment: str
) -> None:
    """`arena serve --db` stopped while it checked an upload stayed until the check's
    thread ended (43-97 s in an audit; systemd kills at 90 s), then printed "Event loop is
    closed" tracebacks; `arena web` was killed by SIGTERM and SIGHUP, and left the check's
    cgroups and folders. Now the check is cancelled: the upload is answered "send it
    again" (UNAVAILABLE, 503), nothing is stored, and the server exits 0 leaving no bot,
    cgroup or folder of its own. So too when it stops while the check unpacks the
    submission (4,000 files): that was not cut short, its upload got no answer, and `arena
    web` left the half-unpacked folder with a traceback."""
    db = tmp_path / "arena.db"
    alice = arena(db, "submitters", "add", "alice").stdout.split()[-1]
    mark = f"never-connects-{uuid.uuid4().hex}"
    archive = _never_connecting_bot(mark, files=4000 if moment == "unpacking" else 0)
    answer: list[tuple[str, str]] = []  # (status, what the server said)

    def send(where: str) -> None:
        if command == "web":
            status, error, _ = web_upload(where, alice, "sleepy", archive, {"X-Check": "1"})
            answer.append((str(status), error))
            return
        try:
            requests = upload_requests(archive, name="sleepy", check=True)
            upload(where, alice, requests)
        except grpc.RpcError as exc:
            answer.append((exc.code().name, exc.details() or ""))

    with (
        tempfile.TemporaryFile("w+") as stderr,
        arena_process(
            command, "--port", "0", "--db", str(db), stderr=stderr, preexec_fn=as_in_a_terminal
        ) as (proc, line),
    ):
        client = threading.Thread(target=send, args=(line.split()[-1],))
        client.start()

        def begun() -> bool:
            if moment == "unpacking":  # its folder is made, its bot not started yet
                return any(p.name.startswith("arena-check-") for p in temp_dirs_of(proc.pid))
            return bool(_running_with(mark))

        deadline = time.monotonic() + 60
        while not begun():
            assert time.monotonic() < deadline, f"the check was never seen {moment}"
            time.sleep(0.001)
        proc.send_signal(signum)
        proc.wait(60)  # the check alone would take minutes
        client.join(30)
        stderr.seek(0)
        errors = stderr.read()
    assert proc.returncode == 0, errors
    assert "Traceback" not in errors and "Exception" not in errors, errors
    refused = "503" if command == "web" else "UNAVAILABLE"
    assert len(answer) == 1 and answer[0][0] == refused, answer
    assert "stopped while checking 'sleepy'; nothing was stored" in answer[0][1]
    assert stored(db) == []
    assert _running_with(mark) == []
    assert left_behind(proc.pid) == []
