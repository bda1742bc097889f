"""``answers_from`` on lm-eval output as it exists (issue 43): samples files named ``.json`` (lm-eval
of 2024, the Open LLM Leaderboard's details) or gzipped, folders holding several runs, and files
lm-eval did not write, each refused by ``uta-eval`` with exit 2 naming the file and line, before
the model is created.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from harness_logs import LOGS_A_SAMPLES_RUN
from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import (
    GSM8K,
    ModelCreated,
    save,
    save_0_4_2,
    uta_eval_until_the_model,
)

TASK = "uta_wrap_gsm8k"
LIMIT = 3
GEN = {"max_gen_toks": 200}


def _plain(lm, folders, limit: int = LIMIT) -> dict:
    return evaluate(lm, ["gsm8k"], include=(folders["plain"],), limit=limit, apply_chat_template=True, num_fewshot=0,
                    gen_kwargs=GEN)


def _probe(lm, folders, answers_from) -> dict:
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(answers_from)}
    return evaluate(lm, [TASK], metadata=meta, include=(folders["wrap"],), limit=LIMIT, gen_kwargs=GEN)


def _samples(folder):
    (path,) = folder.glob("samples_gsm8k_*.jsonl")
    return path


def _responses(path) -> dict[int, str]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return {s["doc_id"]: s["resps"][0][0] for s in lines}


def test_samples_named_json_as_in_2024_are_read(greedy, folders):
    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    saved = _responses(samples)
    samples.rename(samples.with_suffix(".json"))
    probed = _probe(greedy, folders, folders["out"])
    for record, sample in zip(records(probed, TASK), probed["samples"][TASK], strict=True):
        assert record.a.startswith(saved[sample["doc_id"]])
        assert record.answer_source["samples"].endswith(".json")


def test_gzipped_samples_are_read(greedy, folders):
    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    saved = _responses(samples)
    samples.with_name(samples.name + ".gz").write_bytes(gzip.compress(samples.read_bytes()))
    samples.unlink()
    probed = _probe(greedy, folders, folders["out"])
    for record, sample in zip(records(probed, TASK), probed["samples"][TASK], strict=True):
        assert record.a.startswith(saved[sample["doc_id"]])
        assert record.answer_source["samples"].endswith(".jsonl.gz")


def test_the_newest_run_holding_the_task_is_read_whatever_came_after(greedy, folders):
    """Three runs in one folder: gsm8k on 2 documents, gsm8k on 3, then a run of another task."""
    save(_plain(greedy, folders, limit=2), folders["out"])
    folder = save(_plain(greedy, folders), folders["out"])
    newest_gsm8k = max(folder.glob("samples_gsm8k_*.jsonl"))
    other = save(_plain(greedy, folders), folders["out"])
    latest = max(other.glob("samples_gsm8k_*.jsonl"))
    latest.rename(latest.with_name(latest.name.replace("gsm8k", "arc_easy")))
    probed = _probe(greedy, folders, folders["out"])
    assert {r.answer_source["samples"] for r in records(probed, TASK)} == {newest_gsm8k.name}
    assert len(records(probed, TASK)) == LIMIT  # document 2 is only in the newer gsm8k run


def test_the_digest_covers_the_answers(greedy, folders):
    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    before = records(_probe(greedy, folders, folders["out"]), TASK)[0].answer_source["config_digest"]
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    lines[-1]["resps"][0][0] = lines[-1]["resps"][0][0][:-1]  # one character less of the same turn
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    after = records(_probe(greedy, folders, folders["out"]), TASK)[0].answer_source["config_digest"]
    assert before != after


def _each(text: str, change) -> str:
    return "".join(json.dumps(change(json.loads(line))) + "\n" for line in text.splitlines())


def _nested(depth: int) -> str:
    return '{"doc_id": 0, "doc": ' + "[" * depth + "]" * depth + "}\n"


@pytest.mark.parametrize(("damage", "said"), [
    pytest.param(lambda text: "this is not json\n", ":1 is not valid JSON", id="garbage"),
    pytest.param(lambda text: gzip.compress(text.encode()), ":1 is not valid JSON", id="gzip-bytes-named-jsonl"),
    pytest.param(lambda text: _nested(10_000), ":1 nests JSON more than", id="doc-nested-10000-deep"),
    pytest.param(lambda text: "7\n" + text, ":1: a JSON int, not an lm-eval sample", id="first-line-a-number"),
    pytest.param(lambda text: _each(text, lambda s: {**s, "resps": s["resps"][0][0]}), "not lm-eval's [[text]]",
                 id="resps-a-string"),
    pytest.param(lambda text: _each(text, lambda s: {k: v for k, v in s.items() if k != "arguments"}),
                 ":1: no request arguments", id="no-arguments"),
])
def test_a_file_lm_eval_did_not_write_is_refused_with_exit_2_naming_file_and_line(greedy, folders, monkeypatch,
                                                                                  capsys, damage, said):
    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    text = samples.read_text()
    broken = damage(text)
    samples.write_bytes(broken if isinstance(broken, bytes) else broken.encode())
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT)
    message = capsys.readouterr().err.splitlines()[-1]
    assert done.value.code == 2 and message.startswith("uta-eval: ")
    assert said in message and samples.name in message


def test_a_symbolic_link_loop_is_named_for_what_it_is(greedy, folders, monkeypatch, capsys):
    loop = folders["out"].parent / "loop"
    loop.symlink_to(loop)
    folders["out"] = loop
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT)
    message = capsys.readouterr().err.splitlines()[-1]
    assert done.value.code == 2 and "is a symbolic link loop" in message and "does not exist" not in message


def test_a_well_formed_run_goes_through_to_the_model(greedy, folders, monkeypatch):
    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    samples.rename(samples.with_suffix(".json"))
    with pytest.raises(ModelCreated):
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT)


def test_the_report_and_uta_summary_say_the_answers_came_from_a_saved_run(greedy, folders, tmp_path, capsys):
    from uta_tasks.apps import summary
    from uta_tasks.apps.report.api import build_report

    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    probed = save(_probe(greedy, folders, folders["out"]), tmp_path / "probed")
    generated = save(evaluate(greedy, [TASK], metadata={**NO_JUDGE, "gsm8k_data_files": str(GSM8K)},
                              include=(folders["wrap"],), limit=LIMIT, gen_kwargs=GEN), tmp_path / "generated")
    capsys.readouterr()
    assert summary.main([str(probed), str(generated)]) == 0
    err = capsys.readouterr().err
    assert f"{TASK}: answers read from a saved run, {folders['out']} ({samples.name}), not generated" in err
    assert err.count("answers read from a saved run") == 1  # the generated run says nothing of it
    page = build_report([probed, generated], tmp_path / "report").html.read_text()
    assert f"read from a saved run: {folders['out']} ({samples.name})" in page and "<td>generated</td>" in page


def _before_0_4_7(line: dict) -> dict:
    """A samples line as lm-eval 0.4.3 to 0.4.6 writes it (evaluator.py: doc_id, doc, target, arguments,
    resps, filtered_resps, the three hashes and each metric's value under its bare name, one line per
    filter in the order of the task's filter_list; no ``filter``, no ``metrics``)."""
    return {key: value for key, value in line.items() if key not in ("filter", "metrics")}


def test_the_scores_of_lm_eval_0_4_3_are_kept_under_their_filters(greedy, folders, caplog):
    samples = _samples(save(_plain(greedy, folders), folders["out"]))
    logged = [json.loads(line) for line in samples.read_text().splitlines()]
    assert [s["filter"] for s in logged] == ["strict-match"] * LIMIT + ["flexible-extract"] * LIMIT
    scored = {(s["doc_id"], f"exact_match_{s['filter']}"): s["exact_match"] for s in logged}
    samples.write_text(_each(samples.read_text(), _before_0_4_7))
    caplog.clear()
    probed = _probe(greedy, folders, folders["out"])
    for record in records(probed, TASK):
        doc_id = record.answer_source["doc_id"]
        assert record.answer_source["saved_scores"] == {name: v for (d, name), v in scored.items() if d == doc_id}
    # the documented warning: where the probe's score of a document differs from the saved run's
    differ = {(s["doc_id"], name) for s in probed["samples"][TASK] for (d, name), v in scored.items()
              if d == s["doc_id"] and s[name] != v}
    warned = {(int(m.split("document ")[1].split(":")[0]), m.split(": ")[2].split(" is ")[0])
              for m in caplog.messages if "in the saved run" in m}
    assert differ and warned == differ


EARLY = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval_0_4_2"  # make_fixture.py there


def test_an_lm_eval_0_4_2_run_is_read_from_its_results_json_and_its_array_of_samples():
    from uta_tasks.saved_answers import load as saved_answers

    logged = json.loads((EARLY / "pretrained__scripted_gsm8k.jsonl").read_text())
    saved = saved_answers.load(EARLY, [TASK, "gsm8k"], TASK)
    assert saved.samples == EARLY / "pretrained__scripted_gsm8k.jsonl" and saved.task == "gsm8k"
    assert saved.source["model"] == "scripted" and saved.source["lm_eval_version"] is None
    assert sorted(saved.answers) == [0, 1, 2]
    for sample in logged[:LIMIT]:  # the array holds each document twice: strict-match, then flexible-extract
        answer = saved.answers[sample["doc_id"]]
        assert (answer.prompt, answer.text) == (sample["arguments"][0][0], sample["resps"][0][0])
        assert answer.gen_kwargs == sample["arguments"][0][1]
        assert answer.scores == {f"exact_match_{f}": s["exact_match"] for f, s in
                                 zip(["strict-match", "flexible-extract"],
                                     [s for s in logged if s["doc_id"] == sample["doc_id"]], strict=True)}
    assert saved_answers.run_files(EARLY) == [EARLY / "results.json", EARLY / "pretrained__scripted_gsm8k.jsonl"]
    alone = saved_answers.load(EARLY / "pretrained__scripted_gsm8k.jsonl", [TASK, "gsm8k"], TASK)  # the file named
    assert {i: (a.prompt, a.text, a.scores) for i, a in alone.answers.items()} == {
        i: (a.prompt, a.text, a.scores) for i, a in saved.answers.items()}


def test_an_lm_eval_0_4_2_run_is_refused_for_its_missing_chat_template_not_for_log_samples(greedy, folders,
                                                                                         monkeypatch, capsys):
    """lm-eval 0.4.2 had no --apply_chat_template: its gsm8k prompts are plain, which the role switch cannot use."""
    folders["out"] = EARLY
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT)
    message = capsys.readouterr().err.splitlines()[-1]
    assert done.value.code == 2 and "--apply_chat_template" in message and "--log_samples" not in message


def test_an_lm_eval_0_4_2_run_whose_prompts_carry_the_chat_template_is_probed(greedy, folders):
    """The same answers saved in 0.4.2's layout and in today's are the same pass 1, and the same scores."""
    plain = _plain(greedy, folders)
    today = records(_probe(greedy, folders, save(plain, folders["out"])), TASK)
    early = records(_probe(greedy, folders, save_0_4_2(plain, folders["out"].parent / "early")), TASK)
    for a, b in zip(early, today, strict=True):
        assert (a.pass1_prompt, a.a, a.u) == (b.pass1_prompt, b.a, b.u)
        assert a.answer_source["saved_scores"] == b.answer_source["saved_scores"] != {}
        assert a.answer_source["samples"] == "pretrained__scripted_gsm8k.jsonl"


@LOGS_A_SAMPLES_RUN
def test_a_samples_run_is_probed_with_the_same_samples(greedy, folders):
    """lm-eval 0.4's --samples hands a task the documents it picks numbered 0, 1, ..., and logs them under
    their own ids: the probe's documents 0 and 1 are the saved run's 1 and 2."""
    picked = [1, 2]
    kwargs = {"apply_chat_template": True, "num_fewshot": 0, "gen_kwargs": GEN}
    saved = save(evaluate(greedy, ["gsm8k"], include=(folders["plain"],), samples={"gsm8k": picked}, **kwargs),
                 folders["out"])
    assert sorted({json.loads(line)["doc_id"] for line in _samples(saved).read_text().splitlines()}) == picked
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folders["out"])}
    probed = evaluate(greedy, [TASK], metadata=meta, include=(folders["wrap"],), samples={TASK: picked}, gen_kwargs=GEN)
    for record, sample in zip(records(probed, TASK), probed["samples"][TASK], strict=True):
        assert record.answer_source["doc_id"] == sample["doc_id"] and sample["doc_id"] in picked
        assert sample["doc"]["question"] in record.pass1_prompt
