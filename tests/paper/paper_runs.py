"""Constructed runs of the paper's models whose verdicts equal published cells."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from run_builder import Doc, RunSpec, Turn, write_run  # noqa: E402

PAPER_JUDGE, PAPER_PROMPT = "gpt-5.4-mini", "followupeval-v2"


def rate_docs(k: int, n: int) -> list[Doc]:
    """``n`` docs of which the first ``k`` got a genuine follow-up."""
    return [Doc([Turn(i < k)]) for i in range(n)]


def trunc_docs(k_trunc: int, k_full: int, n: int) -> list[Doc]:
    """``n`` docs of a truncation task: ``k_trunc`` genuine after a', ``k_full`` genuine after a."""
    return [Doc([Turn(i < k_trunc, ref=i < k_full)]) for i in range(n)]


def write_paper_run(out: Path, model: str, tasks: dict[str, list[Doc]], *, judge: str = PAPER_JUDGE,
                    prompt: str = PAPER_PROMPT, pass2_context: str | None = "trace",
                    temperature: float = 0.0) -> Path:
    """Write the run and record its ``pass2_context`` in each task's metadata (as ``--metadata`` does) and
    in its records; ``None`` writes neither, as a run from before the setting existed."""
    path = write_run(out, RunSpec(tasks, model=model, judge_model=judge, prompt_version=prompt,
                                  temperature=temperature, pass2_context=pass2_context))
    if pass2_context is not None:
        results = json.loads(path.read_text())
        for config in results["configs"].values():
            config["metadata"]["pass2_context"] = pass2_context
        path.write_text(json.dumps(results, indent=2))
    return path
