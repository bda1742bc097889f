"""Per-annotator access to the annotation server beyond this machine: invites and their secrets.

``uta-annotate invite NAME --db DB`` stores a new random secret for NAME (only its SHA-256
digest goes into the database; inviting a name again replaces its secret) and prints the
link ``<url>#key=<secret>``. The secret sits in the link's fragment, which browsers never
send; the page keeps it in the tab's ``sessionStorage`` and sends it as
``Authorization: Bearer <secret>`` with every API request, so it never appears in a request
line, a server log or an export.

When access is required (the server listens beyond loopback, behind a proxy given by
``--public_url``, or ``require_invites`` is set), ``/api/*`` answers only a request with a
valid secret, and acts for the name the secret was issued to: a request naming another
annotator is refused. On loopback without invites the server's own token (see
:mod:`.server`) is needed instead, unless it runs with ``--no_token`` (a valid invite
secret still binds the name).
"""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
from dataclasses import dataclass
from typing import Literal

from .db import AnnotationDB, check_annotator

SECRET_BYTES = 24
AUTH_SCHEME = "Bearer"
LOOPBACK_NAMES = ("localhost",)

Decision = Literal["open", "bound", "missing", "invalid"]


def digest(secret: str) -> str:
    """The stored form of a secret (SHA-256 hex; the secret itself is random, 192 bits)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def is_loopback(host: str) -> bool:
    """True for an interface only this machine can reach (``127.0.0.0/8``, ``::1``, ``localhost``).

    Args:
        host: the ``--host`` value.
    """
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def invite(db: AnnotationDB, name: str) -> str:
    """Issue a new secret for ``name`` (replacing any earlier one) and return it; only its digest is stored.

    Args:
        db: the annotation database.
        name: the annotator's name.
    """
    secret = secrets.token_urlsafe(SECRET_BYTES)
    db.set_invite(check_annotator(name), digest(secret))
    return secret


def invite_link(url: str, secret: str) -> str:
    """The link an annotator opens: the server's URL with the secret in the fragment.

    Args:
        url: the server's base URL as annotators reach it, e.g. ``http://annot.lab:8765/``.
        secret: from :func:`invite`.
    """
    return f"{url.split('#', 1)[0]}#key={secret}"


@dataclass(frozen=True)
class Access:
    """The outcome of checking a request.

    Attributes:
        decision: ``open`` (no secret needed or given), ``bound`` (a valid secret),
            ``missing`` (a secret is needed and none was sent) or ``invalid`` (unknown secret).
        annotator: the name a valid secret was issued to, else None.
    """

    decision: Decision
    annotator: str | None = None

    @property
    def allowed(self) -> bool:
        """True when the request may go on."""
        return self.decision in ("open", "bound")


def check(db: AnnotationDB, authorization: str | None, required: bool) -> Access:
    """Check a request's ``Authorization`` header.

    Args:
        db: the annotation database.
        authorization: the header's value, or None.
        required: whether a secret is needed (server beyond loopback, or forced).
    """
    scheme, _, secret = (authorization or "").strip().partition(" ")
    if scheme != AUTH_SCHEME or not secret.strip():
        return Access("missing" if required else "open")
    name = db.invited(digest(secret.strip()))
    return Access("bound", name) if name is not None else Access("invalid")
