"""uta-rejudge's reading streams (issue 45): the docs stay on disk, are judged a chunk at a time,
and the re-judged folder is the same as when every record is judged in one run; the records of
a samples file are read a line at a time."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from run_builder import Doc, RunSpec, Turn, write_run

from uta_tasks.runs import write_run_folders
from uta_tasks.runs.rescore import judge_docs, load_scored, rescore
from uta_tasks.runs.sample_files import find_samples, read_records
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict

N = 25
JUDGE = {"judge_model": "judge-y", "judge_base_url": "http://127.0.0.1:9/v1", "judge_cache": "none"}


def _folder(root: Path) -> Path:
    docs = [Doc([Turn(i % 3 != 0, ref=i % 2 == 0), Turn(i % 4 == 0, ref=False)], correct=i % 2 == 0)
            for i in range(N)]
    return write_run(root, RunSpec({"uta_gsm8k": docs, "uta_gsm8k_trunc": docs})).parent


def _verdict(u: str, salt: str) -> Verdict:
    genuine = len(u + salt) % 2 == 0
    label = "plausible_followup" if genuine else "previous_turn_restate"
    return Verdict.judged_as(label, genuine, rationale=f"r {u}", prompt=[], judge_model="judge-y", prompt_version="v")


def _rejudged(folder: Path, out: Path, chunk: int) -> tuple[list[int], dict]:
    calls: list[int] = []

    def judge(flat: list[ProbeRecord]) -> list[ProbeRecord]:
        calls.append(len(flat))
        return [replace(r, verdict=_verdict(r.u, "u"), verdict_ref=_verdict(r.u_ref, "ref") if r.perturbed else None)
                for r in flat]

    tasks = load_scored([folder])
    judge_docs(tasks, judge, chunk=chunk)
    for task in tasks:
        rescore(task, judged=True, bootstrap_iters=0)
    write_run_folders(tasks, out, JUDGE, "2026-12-04T00-00-00")
    files = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}
    return calls, {"metrics": {t.task: t.metrics for t in tasks}, "files": files}


@pytest.mark.parametrize("shuffled", [False, True])
def test_a_rejudge_in_chunks_writes_what_one_judge_run_writes(tmp_path, shuffled):
    folder = _folder(tmp_path / "run")
    if shuffled:  # a file out of doc order (a data-parallel run) is written in doc order all the same
        for path in folder.glob("samples_*.jsonl"):
            lines = path.read_text().splitlines()
            random.Random(3).shuffle(lines)
            path.write_text("\n".join(lines) + "\n")
    one_calls, one = _rejudged(folder, tmp_path / "one", chunk=10_000)
    calls, chunked = _rejudged(folder, tmp_path / "chunked", chunk=7)
    assert one_calls == [4 * N]  # 2 tasks x N docs x 2 repeats, in one judge run
    assert len(calls) > 1 and max(calls) <= 7 + 1 and sum(calls) == 4 * N  # a chunk: at most 7 records and a doc
    assert chunked == one and one["metrics"]["uta_gsm8k_trunc"]


def test_the_records_of_a_samples_file_are_read_a_line_at_a_time(tmp_path):
    folder = _folder(tmp_path / "run")
    (found, *_) = find_samples([folder])
    lines = found.path.read_text().splitlines()
    found.path.write_text("\n".join([*lines[:3], "{damaged", *lines[3:]]) + "\n")
    records = read_records(found)
    first = [next(records) for _ in range(6)]  # three docs of two repeats, before the damaged line is read
    assert [(doc_id, repeat) for doc_id, repeat, _ in first] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    with pytest.raises(ValueError, match=":4"):
        list(records)
