"""Reading saved samples: item ids are the fingerprints of the items the live judge saw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from saved_runs import DATE, write_run

from uta_tasks.judge.prompt import load_template
from uta_tasks.judge.prompt_ref import verdict_prompt
from uta_tasks.runs.sample_files import find_samples
from uta_tasks.runs.sample_items import sample_items


@pytest.mark.parametrize("history", ["final", "raw"])
def test_items_rebuilt_from_saved_records_are_the_items_the_judge_judged(tmp_path: Path, judge_meta, history) -> None:
    write_run(tmp_path, "org/model-a", {"uta_gsm8k": 4, "uta_gsm8k_trunc": 4, "uta_heldout_demo": 3},
              judge_meta(), history=history)
    found = sample_items([tmp_path])
    kinds = {entry.kind for entry in found}
    assert kinds == {"verdict", "verdict_ref", "verdict_reference"}
    assert len(found) == 4 + 2 * 4 + 2 * 3
    for entry in found:
        verdict = entry.verdict
        assert verdict is not None and verdict.judged
        # The prompt the judge received is exactly the rendering of the rebuilt item (the record
        # stores it by reference: version 4).
        assert verdict.prompt_by_ref and not verdict.prompt
        assert load_template(verdict.prompt_version).render(entry.item) == verdict_prompt(verdict, entry.item), entry
        assert entry.item_id == entry.item.fingerprint() and len(entry.item_id) == 64
        assert entry.model == "org/model-a"
    trunc = [e for e in found if e.task == "uta_gsm8k_trunc"]
    assert {e.item.context[-1][1] for e in trunc if e.kind == "verdict"}.isdisjoint(
        {e.item.context[-1][1] for e in trunc if e.kind == "verdict_ref"}
    )  # a' (truncated) and a differ: the two kinds are different items


def test_predict_only_records_have_items_without_verdicts(tmp_path: Path) -> None:
    write_run(tmp_path, "org/model-b", {"uta_gsm8k_trunc": 2}, judge=None)
    found = sample_items([tmp_path], kinds=["verdict", "verdict_ref"])
    assert len(found) == 4 and all(entry.verdict is None for entry in found)


def test_model_name_comes_from_the_results_file_else_model_args_else_the_folder(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "a", "org/model-c", {"uta_gsm8k": 1}, judge=None)
    assert [s.model for s in find_samples([tmp_path / "a"])] == ["org/model-c"]
    results = folder / f"results_{DATE}.json"
    data = json.loads(results.read_text())
    del data["model_name"]
    results.write_text(json.dumps(data))
    assert [s.model for s in find_samples([folder])] == ["org/model-c"]
    results.unlink()
    assert [s.model for s in find_samples([folder])] == ["org__model-c"]


def test_missing_or_empty_folders_are_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        find_samples([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="--log_samples"):
        find_samples([tmp_path / "empty"])
    with pytest.raises(ValueError, match="unknown item kind"):
        sample_items([tmp_path], kinds=["verdicts"])
