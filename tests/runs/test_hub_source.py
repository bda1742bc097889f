"""``answers_from`` naming a Hub dataset repo (:mod:`uta_tasks.saved_answers.hub`), against a local
double of the Hub (``hub_double.py``) that huggingface_hub reaches through ``HF_ENDPOINT``.

huggingface_hub reads ``HF_ENDPOINT``, ``HF_HOME`` and ``HF_HUB_OFFLINE`` once, when it is imported
(``constants.ENDPOINT`` and the URL template built from it), so each environment runs in a process of
its own (``hub_client.py``), with the variables a user sets, and nothing of it stays in this process.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_double import HubDouble, Repo

from uta_tasks.saved_answers.hub import HubSourceError, local_path

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).with_name("hub_client.py")
TOKEN = "hf_uta_test_token_never_shown_1234"
REPO = "open-llm-leaderboard/org__model-details"
GATED = "open-llm-leaderboard/gated__model-details"
NEW, OLD = (hashlib.sha1(name).hexdigest() for name in (b"new", b"old"))
DATE_2024, DATE_2025 = "2024-06-26T16-56-05.698347", "2025-01-02T10-00-00.000001"


def _lines(task: str) -> bytes:
    return b"".join(json.dumps({"doc_id": i, "doc": {"question": f"{task} {i}"}, "arguments": {},
                                "resps": [["answer"]]}).encode() + b"\n" for i in range(2))


def _files(old: bool = False) -> dict[str, bytes]:
    """A details repo as the leaderboard lays it out: one folder per model, results and samples
    beside them (2024's samples named ``.json``), here also a gzipped run and a second model."""
    files = {
        "README.md": b"details\n",
        f"org__model/results_{DATE_2024}.json": b'{"results": {}}',
        f"org__model/samples_gsm8k_{DATE_2024}.json": _lines("gsm8k"),
        f"org__model/samples_gsm8k_cot_{DATE_2024}.json": _lines("gsm8k_cot"),
    }
    if not old:
        files.update({
            f"org__model/results_{DATE_2025}.json": b'{"results": {}}',
            f"org__model/samples_gsm8k_{DATE_2025}.jsonl.gz": gzip.compress(_lines("gsm8k"), mtime=0),
            f"other__model/results_{DATE_2025}.json": b'{"results": {}}',
            f"other__model/samples_gsm8k_{DATE_2025}.jsonl": _lines("gsm8k"),
        })
    return files


def _repos() -> dict[str, Repo]:
    details = Repo(commits={NEW: _files(), OLD: _files(old=True)}, refs={"main": NEW, "v1": OLD})
    return {REPO: details, GATED: Repo(commits={NEW: _files()}, refs={"main": NEW}, gated=True)}


def _run(calls: list[tuple[str, list[str]]], home: Path, endpoint: str, **env: str) -> list[dict[str, Any]]:
    """Call ``local_path`` in a fresh process whose Hub settings are only these."""
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("HF_", "HUGGINGFACE_")) and k != "TRANSFORMERS_OFFLINE"}
    clean.update(HF_HOME=str(home), HF_ENDPOINT=endpoint, HF_TOKEN=TOKEN, HF_HUB_DISABLE_TELEMETRY="1",
                 HF_HUB_DISABLE_PROGRESS_BARS="1", NO_PROXY="127.0.0.1", no_proxy="127.0.0.1",
                 PYTHONPATH=os.pathsep.join([str(ROOT), clean.get("PYTHONPATH", "")]), **env)
    done = subprocess.run([sys.executable, str(CLIENT), json.dumps(calls)], env=clean, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert TOKEN not in done.stdout + done.stderr  # no token in a message or a log line
    return json.loads(done.stdout)


DETAILS = f"hf://datasets/{REPO}/org__model"
ONLINE = [
    (DETAILS, ["uta_wrap_gsm8k", "gsm8k"]),
    ("{endpoint}/datasets/" + REPO + "/tree/v1/org__model", ["gsm8k"]),  # the repo's web address, at a tag
    (f"hf://datasets/{GATED}/org__model", ["gsm8k"]),
    (f"hf://datasets/{REPO}@no-such-branch/org__model", ["gsm8k"]),
    (DETAILS, ["mmlu"]),
]


@pytest.fixture(scope="module")
def hub() -> Iterator[HubDouble]:
    with HubDouble(_repos()) as double:
        yield double


@pytest.fixture(scope="module")
def online(hub: HubDouble, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """One process making the calls of ONLINE against the double, with a Hub cache of its own."""
    home = tmp_path_factory.mktemp("hf-home")
    calls = [(value.format(endpoint=hub.endpoint), names) for value, names in ONLINE]
    return home, _run(calls, home, hub.endpoint)


def test_only_the_asked_tasks_files_are_downloaded_into_the_hub_cache(online, hub):
    home, results = online
    snapshot = home / "hub" / f"datasets--{REPO.replace('/', '--')}" / "snapshots" / NEW
    assert results[0] == {"path": str(snapshot / "org__model"),
                          "provenance": {"repo": REPO, "revision": NEW, "folder": "org__model"}}
    assert sorted(p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file()) == [
        f"org__model/results_{DATE_2024}.json", f"org__model/results_{DATE_2025}.json",
        f"org__model/samples_gsm8k_{DATE_2024}.json", f"org__model/samples_gsm8k_{DATE_2025}.jsonl.gz"]
    assert (snapshot / f"org__model/samples_gsm8k_{DATE_2024}.json").read_bytes() == _lines("gsm8k")
    fetched = {name for commit, name in hub.downloaded() if commit == NEW}
    assert not [name for name in fetched if "gsm8k_cot" in name or name.startswith("other__model/")], fetched
    assert not list(home.rglob("*gsm8k_cot*"))


def test_the_revision_read_is_the_commit_a_tag_resolves_to(online):
    home, results = online
    assert results[1]["provenance"] == {"repo": REPO, "revision": OLD, "folder": "org__model"}
    assert Path(results[1]["path"]).parent.name == OLD
    assert sorted(p.name for p in Path(results[1]["path"]).iterdir()) == [
        f"results_{DATE_2024}.json", f"samples_gsm8k_{DATE_2024}.json"]


def test_a_gated_repo_is_one_message_naming_the_page_and_hf_token(online, hub):
    error = online[1][2]["error"]
    assert error.startswith(f"uta_wrap_gsm8k: answers_from=hf://datasets/{GATED}/org__model: ")
    assert f"{hub.endpoint}/datasets/{GATED}" in error and "HF_TOKEN" in error and "is gated" in error
    assert "the token in use" in error  # HF_TOKEN was set, and sent:
    assert any(r.authorization == f"Bearer {TOKEN}" and GATED in r.path for r in hub.requests)


def test_a_missing_revision_has_its_own_message(online):
    error = online[1][3]["error"]
    assert "has no revision 'no-such-branch'" in error and REPO in error
    assert "gated" not in error


def test_a_folder_without_the_tasks_samples_is_refused_naming_the_tasks(online):
    error = online[1][4]["error"]
    assert "holds no samples file of mmlu in org__model/" in error and f"/tree/{NEW}/org__model" in error


def test_offline_the_cache_is_read_without_a_request(online, hub):
    home, results = online
    before = len(hub.requests)
    again = _run([(DETAILS, ["gsm8k"]), (f"hf://datasets/{REPO}@v1/org__model", ["gsm8k"]),
                  (DETAILS, ["gsm8k_cot"])], home, hub.endpoint, HF_HUB_OFFLINE="1")
    assert len(hub.requests) == before
    assert again[0] == results[0] and again[1] == results[1]
    assert "not in the Hub cache" in again[2]["error"] and "HF_HUB_OFFLINE=1" in again[2]["error"]


def test_with_the_hub_unreachable_the_cache_is_read(tmp_path):
    with HubDouble(_repos()) as double:
        first = _run([(DETAILS, ["gsm8k"])], tmp_path, double.endpoint)
        double.stop()
        again = _run([(DETAILS, ["gsm8k"]), (DETAILS, ["gsm8k_cot"])], tmp_path, double.endpoint)
    assert first[0]["provenance"]["revision"] == NEW
    assert again[0] == first[0]
    assert f"the Hub ({double.endpoint}) could not be reached" in again[1]["error"]


def test_a_local_path_is_returned_as_it_is(tmp_path):
    assert local_path("~/runs/gsm8k", ["gsm8k"], "t") == (Path.home() / "runs" / "gsm8k", None)
    assert local_path(str(tmp_path), ["gsm8k"], "t") == (tmp_path, None)


@pytest.mark.parametrize("value, said", [
    ("hf://open-llm-leaderboard/org__model-details", "names a model repo"),
    ("hf://datasets/no-namespace", "not a Hub address"),
    ("https://example.com/datasets/a/b", "not a Hub address"),
])
def test_an_address_that_is_not_a_dataset_repo_is_refused_before_any_request(value, said):
    with pytest.raises(HubSourceError, match=said) as caught:
        local_path(value, ["gsm8k"], "uta_wrap_gsm8k")
    assert "hf://datasets/<org>/<repo>[@<revision>][/<folder>]" in str(caught.value)
