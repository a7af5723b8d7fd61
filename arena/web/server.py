"""``arena web``: a small local web server for the database: tournaments and their
reports, leaderboards, match lists and replay pages, built on demand (standard library
``http.server``; one database connection per request)."""

from __future__ import annotations

import contextlib
import html
import io
import ipaddress
import socket
import sqlite3
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from arena.artifacts import ArtifactLimits, SubmissionError
from arena.checks import CheckRuns
from arena.disclosure import withheld_reason
from arena.intake import UPLOAD_LIMITS, UploadPlaces, authenticate
from arena.leaderboard import leaderboard
from arena.rendering import terminal_text
from arena.store import Store, StoreError
from arena.submissions import SubmissionRefused
from arena.web.pages import Raw, link, page, table
from arena.web.replay_page import replay_html
from arena.web.report import gather, leaderboard_table, report_html
from arena.web.upload import (
    SUBMIT_PATH,
    handle_upload,
    json_body,
    refusal,
    too_large,
    upload_page,
)
from referee.game import UnknownGame
from referee.numbers import SQLITE_INTEGER_BOUND, whole_number
from referee.replay import ReplayError, parse_replay
from referee.service.peers import PerAddress, client_group, host_and_port, is_ipv6_literal

IDLE_SECONDS = 30.0  # a connection silent this long is closed (each holds a thread)
# A request's line and headers must all arrive within this (each line may come just under
# IDLE_SECONDS apart otherwise: 100 headers trickled in would hold a thread for an hour).
HEAD_SECONDS = 30.0
# A request's line and headers together: the standard library alone takes 100 headers of
# 64 KiB each, and a client held 6.5 MB of the server's memory per connection so.
MAX_HEAD_BYTES = 64 * 1024
# An answer must be sent within SEND_SECONDS plus its size at SEND_BYTES_PER_SECOND (a
# 19 MB replay page: 30 + 1,160 s): the idle time counts only silence, so a client
# reading a few bytes at a time held its connection, and a thread, for as long as the
# page lasted at its pace.
SEND_SECONDS = 30.0
SEND_BYTES_PER_SECOND = 16 * 1024
MATCHES_PER_PAGE = 500
_HEAD_TOO_LARGE = (
    b"HTTP/1.0 431 Request Header Fields Too Large\r\nContent-Type: text/plain\r\n"
    b"Connection: close\r\n\r\nthe request's line and headers are over %d KiB\n"
    % (MAX_HEAD_BYTES // 1024)
)
# Connections served at once, in all and per client address (each holds a thread and a
# file descriptor): past them a connection gets 503 at once and is closed, so one client
# holding connections cannot take the server from everyone else.
MAX_CONNECTIONS = 128
CONNECTIONS_PER_ADDRESS = 8
_BUSY_TEXT = b"too many connections at once; try again soon\n"
_BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\nRetry-After: 5\r\n"
    b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(_BUSY_TEXT), _BUSY_TEXT)
)
REFUSALS_LOGGED_EVERY = 10.0  # seconds: a flood of refusals is one log line per window
DISCARD_SECONDS = 10.0  # how long a refused upload's body is read (and dropped) at most
_INTERNAL_ERROR_TEXT = b"internal server error\n"
UPLOADS_ANSWERED_SECONDS = 5.0  # a stopping server waits this long for uploads' answers


class NotFound(LookupError):
    """A page that does not exist."""


class Withheld(LookupError):
    """A replay that may not be shown yet (see :mod:`arena.disclosure`)."""


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes


def _html(text: str, status: int = HTTPStatus.OK) -> Response:
    return Response(status, "text/html; charset=utf-8", text.encode())


def match_href(match_id: str) -> str:
    return f"/match/{quote(match_id, safe='')}"


def _matches_table(rows: list[dict[str, Any]]) -> str:
    out = []
    for m in rows:
        out_seats = m["outcome"]
        seats = ", ".join(
            f"{n} ({r}, {s:g})"
            for n, r, s in zip(m["entrants"], out_seats["ranks"], out_seats["scores"], strict=True)
        )
        tournament = m["tournament_id"]
        out.append(
            (
                link(match_href(m["id"]), m["id"]),
                m["game"],
                m["rules_key"],
                seats,
                m["reason"],
                m["decisions"],
                link(f"/tournament/{tournament}", str(tournament)) if tournament else "",
                m["finished"],
            )
        )
    return table(
        [
            "match",
            "game",
            "rules",
            "seats: bot (rank, score)",
            "end",
            "decisions",
            "tournament",
            "finished",
        ],
        out,
        numeric=(5,),
    )


def _index(store: Store) -> str:
    tournaments = []
    for t in store.tournaments():
        done = len(store.finished_indexes(t.id))
        tournaments.append(
            (
                link(f"/tournament/{t.id}", str(t.id)),
                t.game,
                t.rules_key,
                ", ".join(t.bots),
                f"{done}/{t.total_matches}",
                t.status,
                t.created,
            )
        )
    boards = []
    games = [r[0] for r in store.db.execute("select distinct game from matches order by game")]
    for game in games:
        for key in store.rules_keys(game):
            href = f"/leaderboard/{quote(game)}?rules={quote(key)}"
            boards.append((link(href, game), key or "default"))
    recent_ids = [
        r[0] for r in store.db.execute("select id from matches order by finished desc limit 20")
    ]
    body = [
        "<h2>Tournaments</h2>",
        table(["id", "game", "rules", "bots", "matches", "status", "created"], tournaments),
        "<h2>Leaderboards</h2>",
        table(["game", "rules"], boards),
        f"<h2>Recent matches</h2><p>{link('/matches', 'all matches').html}</p>",
        _matches_table(store.matches_by_ids(recent_ids)),
    ]
    return page("Card Arena", "\n".join(body), f"database {store.path}")


def _bot_link(game: str, name: str) -> Raw:
    return link(f"/matches?bot={quote(name)}&game={quote(game)}", name)


def _leaderboard(store: Store, game: str, rules_key: str | None) -> str:
    """``/leaderboard/GAME``: a table per rule set played, as `arena leaderboard` prints
    them; ``?rules=KEY`` picks one (without it the page was a 404 naming rules '')."""
    played = store.rules_keys(game)
    if not played:
        raise NotFound(f"no {game} matches stored")
    if rules_key is not None and rules_key not in played:
        raise NotFound(
            f"no {game} matches with rules {rules_key!r}; rule sets played: {', '.join(played)}"
        )
    sections = []
    bot = partial(_bot_link, game)
    for key in [rules_key] if rules_key is not None else played:
        board = leaderboard(store, game, key)
        here = link(f"/leaderboard/{quote(game)}?rules={quote(key)}", f"rules {key}")
        sections.append(f"<h2>{here.html}</h2>" + leaderboard_table(board, bot))
    meta = f"rules {rules_key}" if rules_key is not None else "every rule set played"
    return page(f"Leaderboard: {game}", "\n".join(sections), meta, ("/", "home"))


@lru_cache(maxsize=32)
def _replay_page(db: str, match_id: str, seat: str) -> str:
    store = Store(db)
    try:
        match = store.match(match_id)
        tournament = match.get("tournament_id")
        back = (
            (f"/tournament/{tournament}", f"tournament {tournament}")
            if tournament
            else ("/", "home")
        )
        return replay_html(parse_replay(store.replay_text(match_id)), seat, back)
    finally:
        store.close()


def route(db: Path, path: str, query: dict[str, list[str]]) -> Response:
    """The response to a GET of ``path`` (the part of the URL before '?')."""
    parts = [unquote(p) for p in path.strip("/").split("/") if p]
    arg = {k: v[-1] for k, v in query.items() if v}
    if parts[:1] == ["match"] and len(parts) == 2:
        match_id = parts[1]
        raw = match_id.endswith(".jsonl")
        if raw:
            match_id = match_id[: -len(".jsonl")]
        store = Store(db)
        try:
            # Checked on every request, before any cached page: a deal still in play at
            # other tables is not shown to spectators.
            match = store.match(match_id)
            reason = withheld_reason(store, match)
            if reason is not None:
                raise Withheld(reason)
            text = store.replay_text(match_id) if raw else ""
        finally:
            store.close()
        if raw:
            return Response(HTTPStatus.OK, "application/x-ndjson; charset=utf-8", text.encode())
        # Any other value opens on every seat: each value is a page of its own in the
        # cache, and a client could otherwise have a long match's page built and kept
        # once per value.
        seat = arg.get("seat", "all")
        if seat not in {str(s) for s in range(len(match["entrants"]))}:
            seat = "all"
        return _html(_replay_page(str(db), match_id, seat))
    store = Store(db)
    try:
        if not parts:
            return _html(_index(store))
        if parts == ["submit"]:
            return _html(upload_page())
        if parts[0] == "tournament" and len(parts) == 2:
            tournament_id = whole_number(parts[1])
            if tournament_id is None:
                raise NotFound("no such tournament")
            report = gather(store, tournament_id)
            return _html(report_html(report, match_href, back=("/", "all tournaments")))
        if parts == ["matches"]:
            return _html(_matches_page(store, arg))
        if parts[0] == "leaderboard" and len(parts) == 2:
            return _html(_leaderboard(store, parts[1], arg.get("rules")))
    finally:
        store.close()
    raise NotFound(f"no page {path}")


def _matches_page(store: Store, arg: dict[str, str]) -> str:
    """``/matches``, filtered by game, bot and tournament, MATCHES_PER_PAGE at a time
    (``page=N``): a database of 50,000 matches made an 11 MB page per request."""
    tournament = arg.get("tournament")
    tournament_id = whole_number(tournament) if tournament else None
    # Below the page whose first match's offset SQLite can still take (2**63 // 500: a
    # page of 2**63 - 1 was a 500, "datatype mismatch")
    number = whole_number(arg.get("page", "1"), below=SQLITE_INTEGER_BOUND // MATCHES_PER_PAGE)
    if number is None or number < 1:
        raise NotFound(f"no page {arg.get('page')!r} of matches: pages are numbered from 1")
    first = (number - 1) * MATCHES_PER_PAGE
    # A tournament filter that is not an id matches nothing (as an unknown bot or game
    # does), rather than being ignored. One row more than a page: whether there is a next.
    rows = (
        []
        if tournament and tournament_id is None
        else store.matches(
            arg.get("game") or None,
            tournament_id,
            arg.get("bot") or None,
            limit=MATCHES_PER_PAGE + 1,
            offset=first,
        )
    )
    shown = rows[:MATCHES_PER_PAGE]
    filters = {k: v for k, v in sorted(arg.items()) if k != "page"}
    title = "Matches" + "".join(f" · {k} {v}" for k, v in filters.items())
    meta = f"matches {first + 1:,}-{first + len(shown):,}" if shown else "no matches"
    turns = []
    if number > 1:
        turns.append(("previous page", number - 1))
    if len(rows) > MATCHES_PER_PAGE:
        turns.append(("next page", number + 1))
    paging = " · ".join(
        link("/matches?" + urlencode({**filters, "page": str(n)}), text).html for text, n in turns
    )
    paging = f"<p>{paging}</p>" if paging else ""
    return page(title, _matches_table(shown) + paging, meta, ("/", "home"))


_ELSEWHERE = (
    "this server answers requests for a loopback name only (localhost, 127.0.0.1, [::1]); "
    "serve it on another address (--host) to reach it by another name"
)


def names_loopback(host_header: str | None) -> bool:
    """Whether a request's Host names a loopback address. A server on one answers only
    those: a web site the operator visits could otherwise point its own name at 127.0.0.1
    (DNS rebinding) and read the server through the operator's browser. A request with
    no Host comes from no browser and is answered."""
    if host_header is None:
        return True
    try:
        name = urlsplit(f"//{host_header}").hostname
    except ValueError:
        return False
    if name is None:
        return False
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def server_url(server: ArenaServer) -> str:
    """The server's address as a URL: http://127.0.0.1:8000/, http://[::1]:8000/."""
    host, port = server.server_address[:2]
    return f"http://{host_and_port(str(host), port)}/"


def _error_page(status: int, message: str) -> Response:
    body = f"<p>{html.escape(message)}</p><p>{link('/', 'home').html}</p>"
    return _html(page(f"{status}: {HTTPStatus(status).phrase}", body), status)


class DeadlinePassed(TimeoutError):
    """What was being read (a request's head, an upload's body) did not arrive in time,
    or an answer was not taken in time."""


class HeadTooLarge(ConnectionError):
    """A request's line and headers passed MAX_HEAD_BYTES."""


def _by_deadline(
    connection: socket.socket, idle: float, deadline: float, late: str, step: Callable[[], int]
) -> int:
    """One ``step`` on the connection (a recv or a send), ended by ``deadline`` (monotonic
    seconds: DeadlinePassed, saying ``late``) as well as after ``idle`` seconds in which
    nothing moved (TimeoutError). The socket's own timeout counts only such silence, so a
    client pacing its bytes could hold a thread for ever."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed(late)
    connection.settimeout(min(idle, left))
    try:
        return step()
    except TimeoutError:
        if left < idle:
            raise DeadlinePassed(late) from None
        raise
    finally:
        connection.settimeout(idle)  # what comes next has the idle timeout


class _DeadlineReader(io.RawIOBase):
    """The connection's receiving side, where every read ends by ``deadline`` as well as
    after ``idle`` seconds of silence (``_by_deadline``). At most ``budget`` bytes are
    taken in (the request's head: MAX_HEAD_BYTES)."""

    def __init__(self, connection: socket.socket, idle: float) -> None:
        super().__init__()
        self.connection = connection
        self.idle = idle
        self.deadline = float("inf")
        self.budget: float = float("inf")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.budget <= 0:
            raise HeadTooLarge(f"a request head over {MAX_HEAD_BYTES:,} bytes")
        room = memoryview(buffer).cast("B")[: int(min(len(buffer), self.budget))]
        received = _by_deadline(
            self.connection,
            self.idle,
            self.deadline,
            "the request did not arrive in time",
            partial(self.connection.recv_into, room),
        )
        self.budget -= received
        return received


class _DeadlineWriter(io.BufferedIOBase):
    """The connection's sending side, where every write ends by ``deadline`` as well as
    after ``idle`` seconds in which the client took nothing (``_by_deadline``)."""

    def __init__(self, connection: socket.socket, idle: float) -> None:
        super().__init__()
        self.connection = connection
        self.idle = idle
        self.deadline = float("inf")

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        while view:
            piece = view[:65536]
            sent = _by_deadline(
                self.connection,
                self.idle,
                self.deadline,
                "the answer was not taken in time",
                partial(self.connection.send, piece),
            )
            view = view[sent:]
        return len(data)


class _Handler(BaseHTTPRequestHandler):
    server: ArenaServer
    reader: _DeadlineReader

    def setup(self) -> None:
        # Every connection holds a thread: one that sends nothing (or a body slower than a
        # byte per idle_seconds) is closed rather than kept forever, and the request's
        # head must arrive within head_seconds however it is paced.
        super().setup()
        self.connection.settimeout(self.server.idle_seconds)
        self.reader = _DeadlineReader(self.connection, self.server.idle_seconds)
        self.reader.deadline = time.monotonic() + self.server.head_seconds
        self.reader.budget = MAX_HEAD_BYTES
        self.rfile.close()  # the plain socket file, replaced (the socket stays open)
        self.rfile = io.BufferedReader(self.reader)
        self.wfile.close()  # likewise: answers are sent by a deadline (_send sets it)
        self.wfile = self.writer = _DeadlineWriter(self.connection, self.server.idle_seconds)
        self.writer.deadline = self.reader.deadline + self.server.send_seconds  # early refusals

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except HeadTooLarge:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.wfile.write(_HEAD_TOO_LARGE)
            self.server.say(
                f"{self.client_address[0]}: refused, a request head over {MAX_HEAD_BYTES:,} bytes"
            )

    def do_GET(self) -> None:
        self._answer(self._get)

    def do_HEAD(self) -> None:
        self._answer(self._get, body=False)

    def do_POST(self) -> None:
        with self.server.answering_post():
            self._answer(self._post)

    def _answer(self, respond: Callable[[], Response], body: bool = True) -> None:
        if self.server.loopback and not names_loopback(self.headers.get("Host")):
            self.close_connection = True  # an upload's body is left unread
            self._send(_error_page(HTTPStatus.MISDIRECTED_REQUEST, _ELSEWHERE), body)
            return
        try:
            response = respond()
        except (ConnectionError, TimeoutError):
            raise  # the client left or went silent: no one to answer (handle_error drops it)
        except Exception:
            # A bug, not the client's doing: a short 500 rather than a dropped connection;
            # the traceback goes to the log only, and once (the exception stops here).
            self.server.handle_error(self.request, self.client_address)
            self.close_connection = True  # an upload's body may be left unread
            response = Response(
                HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain", _INTERNAL_ERROR_TEXT
            )
        self._send(response, body)

    def _get(self) -> Response:
        url = urlsplit(self.path)
        try:
            return route(self.server.db, url.path, parse_qs(url.query))
        except (NotFound, StoreError, UnknownGame) as exc:
            return _error_page(HTTPStatus.NOT_FOUND, str(exc))
        except Withheld as exc:
            return _error_page(HTTPStatus.FORBIDDEN, str(exc))
        except (ReplayError, sqlite3.Error, ValueError) as exc:
            return _error_page(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))

    def _post(self) -> Response:
        if urlsplit(self.path).path != SUBMIT_PATH:
            return Response(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n")
        declared = self.headers.get("Content-Length")
        # ASCII digits only (int() would also take "+5", "1_0", " 5"); optional whitespace
        # around a header's value is allowed by HTTP.
        length = None if declared is None else whole_number(declared.strip(" \t"))
        status: int
        answer: dict[str, Any]
        if declared is None:
            status, answer = HTTPStatus.LENGTH_REQUIRED, {"error": "send Content-Length"}
        elif length is None:
            status, answer = HTTPStatus.BAD_REQUEST, {"error": "bad Content-Length"}
        else:
            refusal = too_large(length)
            if refusal is not None:
                self.close_connection = True  # the body is not read
                status, answer = refusal
            else:
                status, answer = self._upload(length)
        return Response(status, "application/json", json_body(answer))

    def _upload(self, length: int) -> tuple[int, dict[str, Any]]:
        """Admit the upload (its token, the uploads taken in at once), then read it."""
        token = self.headers.get("X-Submitter-Token", "")
        try:
            places = self.server.upload_places
            submitter = authenticate(self.server.db, token)
            with places.place(submitter):
                try:
                    body = self._read_body(length, places.arrive_seconds)
                except TimeoutError as exc:
                    self.close_connection = True
                    return HTTPStatus.REQUEST_TIMEOUT, {"error": str(exc)}
                return handle_upload(
                    self.server.db,
                    submitter,
                    dict(self.headers.items()),
                    body,
                    self.server.upload_limits,
                    self.server.checks,
                )
        except (SubmissionError, SubmissionRefused) as exc:
            self._discard(length)
            return refusal(exc)

    def _read_body(self, length: int, within: float, keep: bool = True) -> bytes:
        """The body (b"" unless ``keep``), read a piece at a time for at most ``within``
        seconds: TimeoutError past them, or when the client stays silent for the idle
        time."""
        pieces, missing = [], length
        self.reader.deadline = time.monotonic() + within
        self.reader.budget = float("inf")  # the body has its own limits (too_large)
        while missing > 0:
            try:
                piece = self.rfile.read1(min(missing, 1024 * 1024))
            except DeadlinePassed:
                raise TimeoutError(f"the upload took more than {within:g} s") from None
            except TimeoutError:
                raise TimeoutError(
                    f"the upload stalled for {self.server.idle_seconds:g} s"
                ) from None
            if not piece:
                break  # the client closed early: what came is judged as it is
            if keep:
                pieces.append(piece)
            missing -= len(piece)
        return b"".join(pieces)

    def _discard(self, length: int) -> None:
        """Read a refused upload's body and drop it, for at most DISCARD_SECONDS: a client
        still sending when the answer came and the connection closed would see only a
        broken pipe, not the answer; one sending slowly is cut off."""
        self.close_connection = True
        with contextlib.suppress(OSError):  # TimeoutError among them
            self._read_body(length, DISCARD_SECONDS, keep=False)

    def _send(self, response: Response, body: bool = True) -> None:
        """Send ``response``; without ``body`` (HEAD) the same status and headers only.
        It must be taken in by a deadline that grows with its size (SEND_SECONDS)."""
        size = len(response.body) if body else 0
        self.writer.deadline = (
            time.monotonic() + self.server.send_seconds + size / self.server.send_rate
        )
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        # Pages are never framed by another site, nor their type guessed from their bytes.
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("X-Content-Type-Options", "nosniff")
        if response.status == HTTPStatus.SERVICE_UNAVAILABLE:  # busy: come back later
            self.send_header("Retry-After", "30")
        self.end_headers()
        if body:
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:
        self.server.say(format % args)


class ArenaServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # accept backlog (socketserver's 5 drops a burst's connects)

    def __init__(
        self,
        address: tuple[str, int],
        db: Path,
        log: Callable[[str], None] | None = None,
        idle_seconds: float = IDLE_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
        per_address: int = CONNECTIONS_PER_ADDRESS,
        upload_limits: ArtifactLimits = UPLOAD_LIMITS,
        head_seconds: float = HEAD_SECONDS,
        send_seconds: float = SEND_SECONDS,
        send_rate: float = SEND_BYTES_PER_SECOND,
    ) -> None:
        host, port = address
        # An IPv6 literal ("::1", "[::]") listens on IPv6; "::" takes IPv4 clients too
        # (as ::ffff:a.b.c.d, counted as their IPv4 address).
        self.address_family = socket.AF_INET6 if is_ipv6_literal(host) else socket.AF_INET
        super().__init__((host.strip("[]"), port), _Handler)
        self.loopback = ipaddress.ip_address(str(self.server_address[0])).is_loopback
        self.upload_limits = upload_limits
        self.upload_places = UploadPlaces()
        self.checks = CheckRuns()  # cancelled as the server stops: stop_uploads
        self.posts = threading.Condition()  # notified as an upload's answer is sent
        self.posts_answering = 0
        self.db = db
        self.log = log
        self.idle_seconds = idle_seconds
        self.head_seconds = head_seconds
        self.send_seconds = send_seconds
        self.send_rate = send_rate
        self.max_connections = max_connections
        self.open = PerAddress(per_address)
        self.open_lock = threading.Lock()  # taken in the accepting thread, given back in others
        self.refused_since_log = 0
        self.refusals_logged_at = -REFUSALS_LOGGED_EVERY

    def stop_uploads(self) -> None:
        """As the server stops: cancel the checks under way and wait for their clean-up
        (bots killed, cgroups and folders removed), then give their uploads a moment to be
        answered 503 (request threads are daemons: the process's end would cut them)."""
        self.checks.stop()
        self.checks.wait()
        with self.posts:
            self.posts.wait_for(lambda: not self.posts_answering, UPLOADS_ANSWERED_SECONDS)

    @contextlib.contextmanager
    def answering_post(self) -> Iterator[None]:
        """Count a POST (an upload) from its start until its answer is sent."""
        with self.posts:
            self.posts_answering += 1
        try:
            yield
        finally:
            with self.posts:
                self.posts_answering -= 1
                self.posts.notify_all()

    def process_request(self, request: Any, client_address: Any) -> None:
        address = client_group(str(client_address[0]))
        with self.open_lock:
            admitted = sum(self.open.held.values()) < self.max_connections and self.open.take(
                address
            )
        if not admitted:
            self._refuse(request, address)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: nothing will give the place back
            self._give_back(address)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._give_back(client_group(str(client_address[0])))

    def say(self, text: str, error: bool = False) -> None:
        """Log ``text``. Every line of the server's log passes here, and most quote what a
        client sent: control characters are shown as escapes, so a request cannot drive
        the operator's terminal. An ``error`` is shown on stderr even with no log."""
        text = terminal_text(text)
        if self.log is not None:
            self.log(text)
        elif error:
            sys.stderr.write(text + "\n")

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that left mid-answer or went silent is not the server's error: no
        # traceback for it (clients could otherwise fill the log with them at will).
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        # Through say(), not socketserver's print: the error may quote the request.
        self.say(
            f"{client_address[0]}: error answering:\n{traceback.format_exc().rstrip()}", error=True
        )

    def _give_back(self, address: str) -> None:
        with self.open_lock:
            self.open.give_back(address)

    def _refuse(self, request: socket.socket, address: str) -> None:
        """Answer 503 without a thread: a send that would block is not waited for."""
        with contextlib.suppress(OSError):
            request.setblocking(False)
            request.send(_BUSY)
        self.shutdown_request(request)
        self.refused_since_log += 1
        now = time.monotonic()
        if self.log is not None and now - self.refusals_logged_at >= REFUSALS_LOGGED_EVERY:
            self.say(
                f"{address}: refused, too many connections at once "
                f"({self.refused_since_log} refused since the last such line)"
            )
            self.refused_since_log, self.refusals_logged_at = 0, now


def make_server(
    db: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    log: Callable[[str], None] | None = None,
    idle_seconds: float = IDLE_SECONDS,
    max_connections: int = MAX_CONNECTIONS,
    per_address: int = CONNECTIONS_PER_ADDRESS,
    upload_limits: ArtifactLimits = UPLOAD_LIMITS,
    head_seconds: float = HEAD_SECONDS,
    send_seconds: float = SEND_SECONDS,
    send_rate: float = SEND_BYTES_PER_SECOND,
) -> ArenaServer:
    """A server for ``db`` listening on (host, port); port 0 picks a free port
    (``server.server_address`` has it). A connection silent for ``idle_seconds`` is
    closed, and so is one whose request line and headers take over ``head_seconds``;
    past ``max_connections`` at once, or ``per_address`` from one client address,
    a connection is answered 503 and closed. An answer not taken in within
    ``send_seconds`` plus its size at ``send_rate`` bytes a second is cut off. Uploads
    are read and stored within ``upload_limits``."""
    if not db.exists():
        raise StoreError(f"no database at {db}")
    return ArenaServer(
        (host, port),
        db,
        log,
        idle_seconds,
        max_connections,
        per_address,
        upload_limits,
        head_seconds,
        send_seconds,
        send_rate,
    )
