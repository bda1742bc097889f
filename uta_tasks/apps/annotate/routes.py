"""The annotation server's routes, as a Starlette app (the checks before them: :class:`.guard.Guard`).

- ``GET /`` the page; ``GET /static/app.js`` and ``/static/app.css`` its script and
  style (from ``uta_tasks/templates/annotate``; no CDN).
- ``GET /api/session?annotator=NAME`` -> ``{annotator, total, answered, position}``
  (position: the first item without a complete answer, else the last).
- ``GET /api/item?annotator=NAME&position=I`` -> ``{position, total, context, user_turn,
  answer}``; ``context`` is a list of ``{role, content}``; ``answer`` is
  ``{label, genuine}`` of this annotator or null.
- ``POST /api/answer`` with ``{annotator, position, label?, genuine?}`` saves at once and
  returns ``{saved, answer, answered}``.

Every other path is a JSON 404 (405 for a known path with another method). The database is
opened per request in Starlette's thread pool (each save is one sqlite transaction, see
:mod:`.db`); the event loop never waits on it.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from uta_tasks.judge import LABELS
from uta_tasks.templates import TEMPLATES_DIR, render

from . import access, guard
from .db import AnnotationDB, AnnotationError, check_annotator

log = logging.getLogger(__name__)

STATIC_DIR = TEMPLATES_DIR / "annotate"
_STATIC = {"/static/app.js": ("app.js", "text/javascript"), "/static/app.css": ("app.css", "text/css")}
MAX_POSITION_DIGITS = 9


def page() -> bytes:
    """The HTML page (labels and shortcuts from :data:`uta_tasks.judge.LABELS`)."""
    return render("annotate/index.html.j2", labels=list(LABELS)).encode("utf-8")


class AccessDenied(Exception):
    """A request without a valid secret, or for another annotator's name; carries the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class NameNeeded(AnnotationError):
    """An open-mode request that names no annotator (the page then asks for a name)."""


@dataclass(frozen=True)
class Policy:
    """Who may read and answer: the database, whether invites are needed, the open-mode token.

    Attributes:
        db_path: the annotation database.
        require_invites: every ``/api/*`` request needs an invite's secret.
        token: the per-server token of open mode (None: invites, or ``--no_token``).
    """

    db_path: Path
    require_invites: bool
    token: str | None

    def token_matches(self, authorization: str | None) -> bool:
        """Whether a request carries this server's open-mode token.

        Args:
            authorization: the ``Authorization`` header.
        """
        scheme, _, sent = (authorization or "").strip().partition(" ")
        return (self.token is not None and scheme == access.AUTH_SCHEME
                and hmac.compare_digest(sent.strip().encode("utf-8", "replace"), self.token.encode()))

    def annotator(self, db: AnnotationDB, authorization: str | None, claimed: str) -> str:
        """The name a request acts under, in its normal form (:func:`.db.check_annotator`): the
        secret's when it has one, else the name it gives.

        Args:
            db: the open database.
            authorization: the ``Authorization`` header.
            claimed: the name the request gives.

        Raises:
            AccessDenied: no valid secret where one is needed, or another annotator's name.
            NameNeeded: an open-mode request without a name.
        """
        if self.token_matches(authorization):
            if not claimed.strip():
                raise NameNeeded("give your name")
            return check_annotator(claimed)
        found = access.check(db, authorization, self.require_invites or self.token is not None)
        if found.decision != "bound" and self.token is not None:
            raise AccessDenied(401, "open the link 'uta-annotate serve' printed: it carries this server's key")
        if found.decision == "missing":
            raise AccessDenied(401, "this annotation server needs your personal link (uta-annotate invite): "
                                    "open it again")
        if found.decision == "invalid":
            raise AccessDenied(401, "this link is not (or no longer) valid: ask for a new one (uta-annotate invite)")
        if found.annotator is None:
            return check_annotator(claimed)
        if claimed.strip() and check_annotator(claimed) != found.annotator:
            raise AccessDenied(403, f"this link belongs to {found.annotator}, not to {claimed.strip()}")
        return found.annotator


def _shown_json(db: AnnotationDB, annotator: str, position: int) -> dict[str, Any]:
    shown = db.shown(annotator, position)
    answer = None if shown.label is None and shown.genuine is None else {"label": shown.label, "genuine": shown.genuine}
    return {
        "position": shown.position,
        "total": shown.total,
        "context": [{"role": role, "content": content} for role, content in shown.context],
        "user_turn": shown.user_turn,
        "answer": answer,
    }


def _json_int(value: Any) -> int:
    """A position from a JSON body: an integer, nothing else (not 1.0, "1" or true), of at most 9 digits."""
    if type(value) is not int or len(str(abs(value))) > MAX_POSITION_DIGITS:
        raise AnnotationError(f"position must be an item number, got {str(value)[:20]!r}")
    return value


def _query_int(value: str) -> int:
    """A position from a query string: decimal digits only, at most 9 of them."""
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_POSITION_DIGITS:
        shown = value if len(value) <= 20 else f"{value[:20]}... ({len(value)} characters)"
        raise AnnotationError(f"position must be an item number, got {shown!r}")
    return int(value)


async def _api(work: Callable[[], Any]) -> Response:
    """Run ``work`` (database access) in the thread pool and answer its result or its refusal as JSON."""
    try:
        return guard.json_response(200, await run_in_threadpool(work))
    except guard.Refused as exc:
        return guard.error_response(exc.status, str(exc), exc.close)
    except AccessDenied as exc:
        return guard.error_response(exc.status, str(exc))
    except NameNeeded as exc:
        return guard.error_response(400, str(exc), need_name=True)
    except AnnotationError as exc:
        return guard.error_response(400, str(exc))
    except Exception:  # noqa: BLE001 - a request never ends its connection with a traceback to the client
        log.exception("uta-annotate: a request failed")
        return guard.error_response(500, "internal error (see the server's log)", close=True)


def build_app(policy: Policy) -> Starlette:
    """The routes over ``policy``'s database (wrap it in :class:`.guard.Guard` before serving).

    Args:
        policy: the database and who may use it.
    """

    async def index(request: Request) -> Response:
        return Response(page(), media_type="text/html; charset=utf-8")

    async def static(request: Request) -> Response:
        name, kind = _STATIC[request.url.path]
        return Response((STATIC_DIR / name).read_bytes(), media_type=f"{kind}; charset=utf-8")

    async def session(request: Request) -> Response:
        authorization, claimed = request.headers.get("Authorization"), request.query_params.get("annotator", "")

        def work() -> dict[str, Any]:
            with AnnotationDB(policy.db_path) as db:
                name = policy.annotator(db, authorization, claimed)
                answered, first = db.progress(name)
                total = db.size()
                position = first if first is not None else total - 1
                return {"annotator": name, "total": total, "answered": answered, "position": position}

        return await _api(work)

    async def item(request: Request) -> Response:
        authorization, claimed = request.headers.get("Authorization"), request.query_params.get("annotator", "")
        position = request.query_params.get("position", "")

        def work() -> dict[str, Any]:
            with AnnotationDB(policy.db_path) as db:
                return _shown_json(db, policy.annotator(db, authorization, claimed), _query_int(position))

        return await _api(work)

    async def answer(request: Request) -> Response:
        try:
            guard.check_json_type(request.headers)
            data = guard.parse_object(await request.body())
        except guard.Refused as exc:
            return guard.error_response(exc.status, str(exc), exc.close)
        except ClientDisconnect:  # gone before its body arrived: nothing to save, no one to answer
            log.debug("uta-annotate: a client disconnected before sending its whole answer")
            return Response(status_code=400)
        authorization = request.headers.get("Authorization")

        def work() -> dict[str, Any]:
            changes: dict[str, Any] = {key: data[key] for key in ("label", "genuine") if key in data}
            claimed = data.get("annotator", "")
            if not isinstance(claimed, str):
                raise AnnotationError(f"annotator must be a name, got {claimed!r}")
            with AnnotationDB(policy.db_path) as db:
                name = policy.annotator(db, authorization, claimed)
                label, genuine = db.answer(name, _json_int(data.get("position")), changes)
                answered, _ = db.progress(name)
            return {"saved": True, "answer": {"label": label, "genuine": genuine}, "answered": answered}

        return await _api(work)

    async def not_served(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        what = "no such page" if status == 404 else f"{request.method} is not served here"
        return guard.error_response(status, f"{what}: {request.url.path}")

    routes = [
        Route("/", index, methods=["GET"]),
        *(Route(path, static, methods=["GET"]) for path in _STATIC),
        Route("/api/session", session, methods=["GET"]),
        Route("/api/item", item, methods=["GET"]),
        Route("/api/answer", answer, methods=["POST"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_served})
    app.router.redirect_slashes = False
    return app
