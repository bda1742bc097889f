"""GPQA (Idavidrein/gpqa) as a four-option multiple choice with a final letter: two benchmarks,
``gpqa_main`` (config "gpqa_main", 448 questions) and ``gpqa_diamond`` (config
"gpqa_diamond", 198), the same prompt, shuffle and scoring on two configs (:data:`MAIN`,
:data:`DIAMOND`).

Access: the data set is gated. Accept its terms on
https://huggingface.co/datasets/Idavidrein/gpqa while logged in, then give this
machine a token (``export HF_TOKEN=...`` or ``huggingface-cli login``). Without
network, pass a local copy (the CSV/JSONL of the config, same columns) with
``gpqa_main_data_files`` / ``gpqa_diamond_data_files``.

Documents keep the real schema ("Question", "Correct Answer", "Incorrect Answer
1".."3", "Record ID", ...) and gain "choices" (the four option texts in shown order)
and "answer" (the letter of the correct one). Option texts are cleaned as lm-eval 0.4.13's
GPQA ``preprocess`` does (:func:`clean_option`). The order is shuffled with ``random.Random(seed)``, the seed being
the first 16 hex digits of SHA-256 of the "Record ID" (of the question text when the
record has no id), so every run and every machine shows the same order.

``q`` asks for the answer on a last line "Answer: $LETTER" (the simple-evals GPQA
prompt). Extraction takes the LAST "Answer: X" in the answer (case-insensitive,
optional "$", "*", "(" or "[" before the letter, the letter not followed by another
letter). No match is a wrong answer. Metric ``exact_match`` (primary), per doc 0/1.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import TYPE_CHECKING, Any

from .base import Benchmark, Message, mean
from .sources import DataSource, load_source

if TYPE_CHECKING:
    import datasets

LETTERS = "ABCD"
PRIMARY = "exact_match"
PAPER_SIZES = {"gpqa_main": 448, "gpqa_diamond": 198}
ACCESS_HELP = (
    "accept the terms on https://huggingface.co/datasets/Idavidrein/gpqa, then "
    "`export HF_TOKEN=...` or run `huggingface-cli login`"
)
PROMPT = (
    "Answer the following multiple choice question. The last line of your response should be of the "
    "following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by "
    "step before answering.\n\n{question}\n\nA) {A}\nB) {B}\nC) {C}\nD) {D}"
)
ANSWER_PATTERN = re.compile(r"answer[ \t]*:[ \t]*[$*(\[]*[ \t]*([A-D])(?![A-Za-z])", re.IGNORECASE)


def source(config: str) -> DataSource:
    """The data source of one GPQA config.

    Args:
        config: "gpqa_main" or "gpqa_diamond" (also the benchmark name).
    """
    return DataSource(
        benchmark=config, hub_id="Idavidrein/gpqa", hub_config=config, hub_split="train", access_help=ACCESS_HELP,
        paper_size=PAPER_SIZES.get(config),
    )


def shuffle_seed(doc: dict) -> int:
    """The per-question seed of the option order.

    Args:
        doc: a GPQA record.
    """
    ident = str(doc.get("Record ID") or doc["Question"])
    return int(hashlib.sha256(ident.encode("utf-8")).hexdigest()[:16], 16)


def clean_option(text: str | None) -> str:
    """An option as shown: stripped, the data set's " [title]" marker turned into ". ",
    double spaces collapsed. Bracketed content such as "[Ar]" is kept (lm-eval 0.5's
    preprocessing deletes it, 0.4.13's keeps it; the probe shows the same text on both).

    Args:
        text: the raw option.
    """
    if text is None:
        return " "
    return text.strip().replace(" [title]", ". ").replace("  ", " ")


def add_choices(doc: dict) -> dict[str, Any]:
    """The shuffled options and the correct letter of one record.

    Args:
        doc: a GPQA record.

    Returns:
        {"choices": four option texts in shown order, "answer": correct letter}.
    """
    options = [doc["Correct Answer"], doc["Incorrect Answer 1"], doc["Incorrect Answer 2"], doc["Incorrect Answer 3"]]
    order = list(range(4))
    random.Random(shuffle_seed(doc)).shuffle(order)
    return {"choices": [clean_option(options[i]) for i in order], "answer": LETTERS[order.index(0)]}


def load_config(config: str, metadata: dict[str, Any]) -> datasets.DatasetDict:
    """Load one GPQA config with choices added.

    Args:
        config: "gpqa_main" or "gpqa_diamond".
        metadata: task metadata; reads ``<config>_data_files``, ``<config>_dataset_path``,
            ``data_hub_timeout``.
    """
    import datasets

    docs = load_source(source(config), metadata)
    return datasets.DatasetDict({"test": docs.map(add_choices)})


def doc_to_messages(doc: dict) -> list[Message]:
    """The question with lettered options and the answer-format request, as the user turn.

    Args:
        doc: a GPQA record with "choices".
    """
    text = PROMPT.format(question=doc["Question"].strip(), **dict(zip(LETTERS, doc["choices"], strict=True)))
    return [{"role": "user", "content": text}]


def extract_letter(answer: str) -> str | None:
    """The final "Answer: X" letter of an answer, or None.

    Args:
        answer: the final answer text.
    """
    matches = ANSWER_PATTERN.findall(answer)
    return matches[-1].upper() if matches else None


def score(doc: dict, answer: str) -> dict[str, float]:
    """1.0 when the extracted letter is the correct one, else 0.0.

    Args:
        doc: a GPQA record with "answer".
        answer: the final answer, reasoning removed.
    """
    return {PRIMARY: float(extract_letter(answer) == doc["answer"])}


def load_main(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: GPQA Main with shuffled choices.

    Args:
        metadata: task metadata; reads ``gpqa_main_data_files``, ``gpqa_main_dataset_path``,
            ``data_hub_timeout``.
    """
    return load_config("gpqa_main", metadata)


def load_diamond(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: GPQA Diamond with shuffled choices.

    Args:
        metadata: task metadata; reads ``gpqa_diamond_data_files``, ``gpqa_diamond_dataset_path``,
            ``data_hub_timeout``.
    """
    return load_config("gpqa_diamond", metadata)


def _benchmark(config: str, load: Any) -> Benchmark:
    """The :class:`Benchmark` of one GPQA config.

    Args:
        config: "gpqa_main" or "gpqa_diamond" (the benchmark's name).
        load: that config's loader (named in task YAMLs).
    """
    return Benchmark(
        name=config,
        load=load,
        doc_to_messages=doc_to_messages,
        score=score,
        aggregations={PRIMARY: mean},
        primary=PRIMARY,
        source=source(config),
    )


MAIN = _benchmark("gpqa_main", load_main)
DIAMOND = _benchmark("gpqa_diamond", load_diamond)
# Both benchmarks of this module, as ``uta_tasks.datasets`` registers them.
BENCHMARKS = (MAIN, DIAMOND)
