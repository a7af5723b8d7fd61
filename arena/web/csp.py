"""The Content-Security-Policy each page carries in its own head, so that it holds for a
page served by ``arena web`` and for a file opened from disk alike.

Everything a page shows that strangers wrote (bot names, stderr, fault reasons) is
escaped where the page is built; the policy is the second line behind that: only the
page's own inline scripts run (named by their SHA-256), it loads nothing from anywhere,
and it sends nothing but to its own origin (the upload form's request).
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable


def script_source(script: str) -> str:
    """The CSP source that lets exactly this inline script run."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(scripts: Iterable[str] = ()) -> str:
    """The policy of a page whose inline scripts are ``scripts`` (their exact text)."""
    allowed = " ".join(script_source(s) for s in scripts) or "'none'"
    return (
        f"default-src 'none'; script-src {allowed}; style-src 'unsafe-inline'; "
        "img-src data:; connect-src 'self'; form-action 'none'; base-uri 'none'"
    )


def meta_tag(scripts: Iterable[str] = ()) -> str:
    """The policy as a <meta> element, for the head before anything a stranger wrote."""
    return f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy(scripts))}">'
