"""The bot upload form of ``arena web`` (GET /submit) and the endpoint it posts to
(POST /api/submit). The form sends the archive as the raw request body, with the bot's
name and the submitter token in headers: a custom header cannot be sent cross-site
without a CORS preflight, which this server never grants, so another site cannot make
a visitor's browser submit. The work is arena.intake's, shared with the SubmitBot RPC."""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus
from pathlib import Path
from typing import Any

from arena.artifacts import ArtifactLimits, SubmissionError
from arena.checks import CheckRuns
from arena.intake import UPLOAD_LIMITS, CheckFailed, QuotaExceeded, TryLater, submit_archive
from arena.submissions import NameTaken, SubmissionRefused, UnknownSubmitter
from arena.web.pages import page

SUBMIT_PATH = "/api/submit"

_FORM = """
<form id="submit-form">
  <p><label>Bot name <input id="name" name="name" required pattern="[A-Za-z0-9][A-Za-z0-9._-]{0,63}"></label></p>
  <p><label>Submitter token <input id="token" name="token" type="password" required></label></p>
  <p><label>Archive (.zip or .tar.gz with bot.toml) <input id="archive" name="archive" type="file" accept=".zip,.tar.gz,.tgz" required></label></p>
  <p><label><input id="check" name="check" type="checkbox"> check it first (a short match per game)</label></p>
  <p><button id="send" type="submit">Submit</button></p>
</form>
<pre id="result" aria-live="polite"></pre>
"""

_SCRIPT = """
document.getElementById("submit-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("result");
  const file = document.getElementById("archive").files[0];
  out.className = "";
  out.textContent = "uploading…";
  try {
    const response = await fetch("%(path)s", {
      method: "POST",
      headers: {
        "X-Bot-Name": document.getElementById("name").value,
        "X-Submitter-Token": document.getElementById("token").value,
        "X-Check": document.getElementById("check").checked ? "1" : "0",
        "Content-Type": "application/octet-stream",
      },
      body: file,
    });
    const answer = await response.json();
    out.className = response.ok ? "ok" : "error";
    out.textContent = response.ok
      ? `accepted ${answer.name}@${answer.version} (sha256 ${answer.sha256.slice(0, 12)}, ${answer.size} bytes) for ${answer.games.join(", ")}`
        + (answer.check_report.length ? "\\n" + answer.check_report.join("\\n") : "")
      : `refused: ${answer.error}`;
  } catch (error) {
    out.className = "error";
    out.textContent = `refused: ${error}`;
  }
});
"""


def upload_page() -> str:
    limit = UPLOAD_LIMITS.max_upload_bytes // (1024 * 1024)
    body = _FORM + (
        f"<p>Archives up to {limit} MB. Submitter tokens come from "
        "<code>arena submitters add NAME</code>.</p>"
    )
    script = _SCRIPT % {"path": SUBMIT_PATH}
    return page("Submit a bot", body, "a new version of a bot you own", ("/", "home"), script)


def refusal(exc: SubmissionError | SubmissionRefused) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON answer) for an upload refused, before or after it was read."""
    if isinstance(exc, UnknownSubmitter):
        return HTTPStatus.UNAUTHORIZED, {"error": str(exc)}
    if isinstance(exc, NameTaken):
        return HTTPStatus.FORBIDDEN, {"error": str(exc)}
    if isinstance(exc, QuotaExceeded):
        return HTTPStatus.INSUFFICIENT_STORAGE, {"error": str(exc)}
    if isinstance(exc, TryLater):
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(exc)}
    if isinstance(exc, CheckFailed):
        return HTTPStatus.UNPROCESSABLE_ENTITY, {"error": "\n".join([str(exc), *exc.report])}
    return HTTPStatus.BAD_REQUEST, {"error": str(exc)}


def handle_upload(
    db: Path,
    submitter: str,
    headers: Mapping[str, str],
    body: bytes,
    limits: ArtifactLimits = UPLOAD_LIMITS,
    check_runs: CheckRuns | None = None,
) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON answer) for one upload of ``submitter``, admitted and read;
    its check, if asked for, among the server's ``check_runs``."""
    try:
        accepted = submit_archive(
            db,
            submitter,
            headers.get("X-Bot-Name", ""),
            body,
            check=headers.get("X-Check", "0") == "1",
            limits=limits,
            check_runs=check_runs,
        )
    except (SubmissionError, SubmissionRefused) as exc:
        return refusal(exc)
    return HTTPStatus.OK, {
        "name": accepted.name,
        "version": accepted.version,
        "sha256": accepted.sha256,
        "size": accepted.size,
        "games": list(accepted.games),
        "check_report": list(accepted.check_report),
    }


def too_large(length: int) -> tuple[int, dict[str, Any]] | None:
    """The refusal for a declared body size over the limit (before reading it)."""
    if length > UPLOAD_LIMITS.max_upload_bytes:
        return HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {
            "error": f"the archive is {length:,} bytes; the limit is "
            f"{UPLOAD_LIMITS.max_upload_bytes:,}"
        }
    return None


def json_body(answer: dict[str, Any]) -> bytes:
    return json.dumps(answer).encode()
