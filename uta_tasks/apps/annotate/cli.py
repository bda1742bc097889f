"""``uta-annotate``: the blinded human annotation page and the export of its labels.

    uta-annotate serve OUTPUT_DIR [...] --db annotations.sqlite --n 200 --seed 0
    uta-annotate serve --db annotations.sqlite            # reopen: resumes every annotator
    uta-annotate export --db annotations.sqlite --output human.jsonl
    uta-annotate invite alice --db annotations.sqlite --url http://annot.lab:8765/   # prints alice's link
    uta-annotate serve --db annotations.sqlite --host 0.0.0.0   # needs invites: each link acts for its name

``serve`` draws the packet from the saved samples the first time (see
:mod:`.packet`), then serves it on http://127.0.0.1:8765/ until Ctrl-C. ``export``
writes one JSON line per complete answer: ``{"item_id", "annotator", "label",
"genuine"}``, the input of ``uta-agreement``. ``invite`` issues an annotator's personal
link (see :mod:`.access`): a server listening beyond 127.0.0.1 or behind a proxy
(``--public_url``) serves items and takes answers only through such links, and refuses to
start before anyone is invited. On 127.0.0.1 the printed link carries a per-server token
(``--no_token`` serves without it); pages of other sites are refused either way (see
:mod:`.guard`).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.runs.atomic import write_text

from . import access
from .db import AnnotationDB, AnnotationError
from .packet import ALLOCATIONS, ANNOTATED_KINDS, draw_hard_packet, draw_packet
from .protocol import DEFAULT_READ_TIMEOUT_S
from .server import DEFAULT_HOST, DEFAULT_PORT, AnnotationServer

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uta-annotate``."""
    parser = argparse.ArgumentParser(
        prog="uta-annotate", description="Blinded human annotation of generated user turns."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="draw the packet (first time) and serve the annotation page")
    serve.add_argument("paths", nargs="*", help="lm-eval --output_path folders written with --log_samples")
    serve.add_argument("--db", type=Path, required=True, help="annotation database (sqlite), created if missing")
    serve.add_argument("--n", type=int, default=200, help="packet size (default 200)")
    serve.add_argument("--seed", type=int, default=0, help="sampling and ordering seed (default 0)")
    serve.add_argument("--allocation", choices=ALLOCATIONS, default="proportional",
                       help="strata allocation: natural prevalence (default), equal, or hard (disagreements with "
                       "--hard_against, balanced; never a calibration set)")
    serve.add_argument("--hard_against", help="hard packets: the other judge's saved-samples folder (uta-rejudge output)")
    serve.add_argument("--kinds", default=",".join(ANNOTATED_KINDS),
                       help="user turns to sample: verdict (u after a') and/or verdict_ref (u after a)")
    serve.add_argument("--host", default=DEFAULT_HOST, help="interface (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--require_invites", action="store_true",
                       help="demand an invite link even on 127.0.0.1 (always demanded beyond it and behind a proxy)")
    serve.add_argument("--public_url", action="append", default=[], metavar="URL",
                       help="behind a reverse proxy: the address annotators open (e.g. https://annot.lab/); its host "
                       "and origin are accepted, and invites are demanded (repeatable)")
    serve.add_argument("--no_token", action="store_true",
                       help="on 127.0.0.1 without invites, serve without the per-server token of the printed link "
                       "(any program on this machine may then read and answer under any name; pages of other "
                       "sites are still refused)")
    serve.add_argument("--read_timeout", type=float, default=DEFAULT_READ_TIMEOUT_S, metavar="SECONDS",
                       help="a request must arrive whole (head and body) within this time, else its connection is "
                       "closed (default %(default)s)")
    invite = commands.add_parser("invite", help="issue an annotator's personal link (replaces an earlier one)")
    invite.add_argument("name", help="the annotator's name (1-64 letters, digits, space, '_', '.', '-')")
    invite.add_argument("--db", type=Path, required=True, help="annotation database")
    invite.add_argument("--url", default=f"http://{DEFAULT_HOST}:{DEFAULT_PORT}/",
                        help="the server's address as the annotator reaches it (default %(default)s)")
    export = commands.add_parser("export", help="write the complete answers as JSONL")
    export.add_argument("--db", type=Path, required=True, help="annotation database")
    export.add_argument("--output", type=Path, required=True, help="JSONL file to write")
    export.add_argument("--annotator", help="only this annotator (default: all)")
    return lm_eval_spelling(parser)


def prepare_packet(
    db_path: Path, paths: Sequence[str], n: int, seed: int, allocation: str, kinds: Sequence[str],
    hard_against: str | None = None,
) -> int:
    """Draw and store the packet unless the database holds it already.

    Args:
        db_path: The annotation database.
        paths: Saved-samples folders (may be empty when reopening).
        n: Packet size.
        seed: Seed.
        allocation: Strata allocation.
        kinds: Record fields of the user turns to sample.
        hard_against: ``hard`` allocation: the other judge's saved-samples folder.

    Returns:
        The packet size.

    Raises:
        AnnotationError: No packet and no folders, or folders/settings that differ from the stored packet.
    """
    from uta_tasks.runs.sample_items import sample_items

    wanted: dict[str, Any] = {
        "seed": seed, "n": n, "allocation": allocation, "kinds": list(kinds),
        "sources": sorted(str(Path(p).expanduser().resolve()) for p in paths),
    }
    if hard_against is not None or allocation == "hard":
        wanted["hard_against"] = None if hard_against is None else str(Path(hard_against).expanduser().resolve())
    with AnnotationDB(db_path) as db:
        meta = db.meta()
        if meta:
            if paths and {k: meta.get(k) for k in wanted} != wanted:
                raise AnnotationError(
                    f"{db_path} already holds a packet drawn with {json.dumps({k: meta.get(k) for k in wanted})}: "
                    "reopen it without folders (uta-annotate serve --db ...), or give another --db for a new packet"
                )
            return db.size()
        if not paths:
            raise AnnotationError(f"{db_path} holds no packet yet: give the lm-eval output folders to draw it from")
        unknown = sorted(set(kinds) - set(ANNOTATED_KINDS))
        if unknown:
            raise AnnotationError(f"--kinds {unknown}: annotators see only {list(ANNOTATED_KINDS)}")
        found = sample_items(list(paths), kinds=list(kinds))
        if allocation == "hard":
            if hard_against is None:
                raise AnnotationError("--allocation hard needs --hard_against FOLDER: the other judge's verdicts")
            from uta_tasks.runs.label_sources import load_sources

            (other,) = load_sources(hard_against)
            items = draw_hard_packet(found, {i: a[1] for i, a in other.answers.items()}, n=n, seed=seed)
        else:
            items = draw_packet(found, n=n, seed=seed, allocation=allocation)
        db.create_packet(items, {**wanted, "drawn": len(items)})
        return len(items)


def export(db_path: Path, output: Path, annotator: str | None = None) -> int:
    """Write complete answers as JSONL.

    Args:
        db_path: The annotation database.
        output: The file to write.
        annotator: Only this annotator.

    Returns:
        Lines written.
    """
    if not db_path.is_file():
        raise AnnotationError(f"{db_path} does not exist: give the --db used with uta-annotate serve")
    with AnnotationDB(db_path) as db:
        rows, incomplete = db.export(annotator)
    write_text(output, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    if incomplete:
        log.warning("left out %d answer(s) without both a label and a genuine decision", incomplete)
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-annotate``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.command == "export":
            count = export(args.db, args.output, args.annotator)
            print(f"wrote {count} answer(s) to {args.output}")
            return 0
        if args.command == "invite":
            with AnnotationDB(args.db) as db:
                secret = access.invite(db, args.name)
            print(f"{args.name.strip()}'s link (share it with them only; inviting again replaces it):")
            print(access.invite_link(args.url, secret))
            return 0
        kinds = [kind.strip() for kind in args.kinds.split(",") if kind.strip()]
        size = prepare_packet(args.db, args.paths, args.n, args.seed, args.allocation, kinds, args.hard_against)
        server = AnnotationServer(args.db, host=args.host, port=args.port, require_invites=args.require_invites,
                                  public_urls=args.public_url, open_token=not args.no_token,
                                  read_timeout=args.read_timeout)
    except (AnnotationError, FileNotFoundError, ValueError, OSError) as exc:
        print(f"uta-annotate: {exc}", file=sys.stderr)
        return 2
    where = "each annotator opens their invite link" if server.require_invites else f"open {server.link}"
    print(f"annotating {size} item(s) from {args.db} on {server.url}: {where} (Ctrl-C to stop; answers are saved "
          "at once)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
