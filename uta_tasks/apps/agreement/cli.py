"""``uta-agreement``: agreement between label sources, matched by item id.

    uta-agreement mini=out/rejudge-mini nano=out/rejudge-nano human=human.jsonl \\
        --reference human --json agreement.json

Each source is ``[NAME=]PATH``: a saved-samples folder (judge verdicts) or a JSONL of
labels (``uta-annotate export``; one source per annotator). Prints the table (kappa,
sensitivity and specificity before raw agreement) with the confusion matrices, and writes
the JSON report with ``--json``. Also, when they apply:

- three or more sources: Krippendorff's alpha over all of them (genuine and labels);
- a labels file with several annotators: each judge against the annotators pooled (D.2);
- ``--slices``: the paper's Table 7 slices (full, random, balanced hard cases) for every
  compared pair of judges, with the per-file rate correlations and per-model rate shifts;
- ``--calibration_out FILE``: the calibration set of the one judge against the humans, read
  by ``--calibration`` of ``uta-summary``, ``uta-report`` and ``uta-gate``.

Exit status 1 when no pair of sources shares an item, 2 when an input cannot be read or is malformed.
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
from uta_tasks.judge import LABELS
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.runs.atomic import write_text
from uta_tasks.runs.label_sources import LabelSource, load_sources
from uta_tasks.stats.alpha import Alpha, krippendorff_alpha
from uta_tasks.templates.escape import display_text

from .compare import Comparison, compare_all, compare_pooled, report
from .slices import DEFAULT_SIZE, file_view, render_slices, slice_rows
from .stats import DEFAULT_REPLICATES
from .table import render_table


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uta-agreement``."""
    parser = argparse.ArgumentParser(
        prog="uta-agreement", description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("sources", nargs="+", help="[NAME=]PATH: saved-samples folder or labels JSONL")
    parser.add_argument("--reference", help="compare every source with this one only (default: every pair)")
    parser.add_argument("--replicates", type=int, default=DEFAULT_REPLICATES, help="bootstrap resamples (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap and slice seed (default 0)")
    parser.add_argument("--json", type=Path, help="write the JSON report here")
    parser.add_argument("--no_confusion", action="store_true", help="print the table without confusion matrices")
    parser.add_argument("--slices", action="store_true",
                        help="Table 7 slices (full, random, balanced hard) for every compared pair of judges")
    parser.add_argument("--slice_size", type=int, default=DEFAULT_SIZE,
                        help=f"random-slice size; the hard slice takes at most half as many disagreements "
                        f"(default {DEFAULT_SIZE})")
    parser.add_argument("--hard_from", metavar="A,B", help="the two judges whose disagreements define the hard slice "
                        "(default: the compared pair)")
    parser.add_argument("--calibration_out", type=Path,
                        help="write the calibration set of the one judge folder against the labels file(s)")
    return lm_eval_spelling(parser)


def _alphas(sources: Sequence[LabelSource], replicates: int, seed: int) -> dict[str, Alpha]:
    names = [s.name for s in sources]
    return {
        "genuine": krippendorff_alpha(names, [{i: a[1] for i, a in s.answers.items()} for s in sources],
                                      (True, False), replicates, seed),
        "label": krippendorff_alpha(names, [{i: a[0] for i, a in s.answers.items()} for s in sources],
                                    LABELS, replicates, seed),
    }


def _render_alpha(alphas: dict[str, Alpha]) -> str:
    lines = ["", f"Krippendorff's alpha (nominal) over {len(alphas['genuine'].raters)} sources"]
    for what, a in alphas.items():
        value = "undefined" if a.value is None else f"{a.value:.3f}"
        ci = "" if a.ci is None or a.value is None else f" [{a.ci[0]:.3f}, {a.ci[1]:.3f}]"
        reason = f" ({a.reason})" if a.reason else ""
        lines.append(f"- {what}: {value}{ci} on {a.items} items{reason}")
    return "\n".join(lines) + "\n"


def _pooled(groups: Sequence[list[LabelSource]], replicates: int, seed: int) -> list[Comparison]:
    judges = [s for group in groups for s in group if s.judge is not None]
    rows = []
    for group in groups:
        if len(group) > 1 and all(s.judge is None for s in group):
            base = group[0].name.split(":")[0]
            name = f"{base} (pooled, {len(group)} annotators)"
            rows += [compare_pooled(name, group, judge, replicates, seed) for judge in judges]
    return rows


def _hard_from(spec: str | None, sources: Sequence[LabelSource]) -> tuple[LabelSource, LabelSource] | None:
    if spec is None:
        return None
    by_name = {s.name: s for s in sources}
    picked = [by_name.get(n.strip()) for n in spec.split(",")]
    if len(picked) != 2 or any(p is None for p in picked):
        raise ValueError(f"--hard_from {spec!r}: name two of the sources {sorted(by_name)}, e.g. nano,full")
    return picked[0], picked[1]  # type: ignore[return-value]


def _calibration(path: Path, sources: Sequence[LabelSource]) -> str:
    from uta_tasks.runs.calibration import build_calibration

    judges = [s for s in sources if s.judge is not None]
    humans = [s for s in sources if s.judge is None]
    if len(judges) != 1 or not humans:
        raise ValueError(
            f"--calibration_out needs one judge folder and the human labels; got judges {[j.name for j in judges]} "
            f"and label files {[h.name for h in humans]}"
        )
    calibration = build_calibration(humans, judges[0])
    calibration.write(path)
    acc = calibration.accuracy
    return (f"\nCalibration set: {acc.items} items of {calibration.judge_model} ({calibration.prompt_version}), "
            f"sensitivity {acc.sensitivity}, specificity {acc.specificity}: {path}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-agreement``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.replicates < 0:
        parser.error("--replicates must be 0 or more")
    extra: dict[str, Any] = {}
    text: list[str] = []
    try:
        groups = [load_sources(spec) for spec in args.sources]
        sources = [source for group in groups for source in group]
        if len(sources) < 2:
            raise ValueError(f"need two label sources, got {[s.name for s in sources]}")
        rows = compare_all(sources, args.reference, args.replicates, args.seed)
        pooled = _pooled(groups, args.replicates, args.seed)
        if pooled:
            text.append("\nJudge vs the annotators pooled (every annotator's answer is one pair, Appendix D.2):\n")
            text.append(render_table(pooled, args.replicates, args.seed, confusion=False))
            extra["pooled"] = [row.to_dict() for row in pooled]
        if len(sources) >= 3:
            alphas = _alphas(sources, args.replicates, args.seed)
            text.append(_render_alpha(alphas))
            extra["alpha"] = {k: v.to_dict() for k, v in alphas.items()}
        if args.slices:
            hard = _hard_from(args.hard_from, sources)
            by_name = {s.name: s for s in sources}
            slices, views = [], {}
            for row in rows:
                a, b = by_name[row.a], by_name[row.b]
                if a.judge is None or b.judge is None or row.n == 0:
                    continue
                found = slice_rows(a, b, args.slice_size, args.seed, args.replicates, hard)
                view = file_view(a, b)
                text.append(render_slices(found, view))
                slices += [r.to_dict() for r in found]
                views[f"{a.name} vs {b.name}"] = None if view is None else view.to_dict()
            extra["slices"] = slices
            extra["files"] = views
        if args.calibration_out:
            text.append(_calibration(args.calibration_out, sources))
    except (OSError, ValueError) as exc:  # a source that cannot be read: exit 2 (1 is "no pair overlaps")
        print(f"uta-agreement: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - anything else that stops it: exit 2 with the cause, no traceback
        logging.getLogger(__name__).debug("uta-agreement stopped", exc_info=True)
        print(f"uta-agreement: internal error {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 2
    sys.stdout.write(display_text(render_table(rows, args.replicates, args.seed, confusion=not args.no_confusion)))
    sys.stdout.write(display_text("".join(text)))  # model names: no control, bidi or surrogate character
    if args.json:
        data = report(sources, rows, args.replicates, args.seed, **extra)
        try:
            write_text(args.json, json.dumps(data, indent=2) + "\n")
        except OSError as exc:
            print(f"uta-agreement: cannot write {args.json}: {exc}", file=sys.stderr)
            return 2
    if rows and all(row.n == 0 for row in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
