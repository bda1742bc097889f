"""A benchmark's documents as the plan counts them: read as its task reads them, what that
contacts over the network, and why they could not be read (the loader's reason in whole
sentences), or the paper's size instead."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

HUB = "the Hugging Face Hub"
Contact = tuple[str, str]  # (what is contacted, for what: a Hub data set id, or when)


class PlanError(ValueError):
    """A plan cannot be made from these arguments; the message names the fix."""


@dataclass(frozen=True)
class Documents:
    """A benchmark's documents as the plan counts them.

    Attributes:
        n: documents (after ``--limit``).
        loaded: whether the data set was read (else ``n`` is the paper's size).
        origin: where ``n`` comes from, in words.
        fixed_chars: per judge item kind (``u``, ``reference``), the characters of the rendered
            judge prompts over the counted documents with the unknown texts empty.
        contacts: what reading them may contact over the network (:func:`contacts`).
    """

    n: int
    loaded: bool
    origin: str
    fixed_chars: Mapping[str, int] = field(default_factory=dict)
    contacts: tuple[Contact, ...] = ()


def limited(n: int, limit: float | None) -> int:
    """lm-eval's ``--limit``: a count, or a fraction below 1 of the documents (rounded up)."""
    if limit is None:
        return n
    return min(n, int(math.ceil(n * limit)) if limit < 1.0 else int(limit))


def paper_size(benchmark: str) -> int | None:
    """The documents the paper evaluated for a benchmark, as its entry declares them
    (``Benchmark.documents_in_paper``); None when it gives none."""
    from uta_tasks.datasets import BENCHMARKS

    return BENCHMARKS[benchmark].documents_in_paper


def contacts(benchmark: str, metadata: Mapping[str, Any]) -> tuple[Contact, ...]:
    """What reading a benchmark's documents as its task does may contact over the network,
    each as ``(what, detail)``: the Hub (detail: the data set) or a URL for the data (nothing with ``HF_HUB_OFFLINE=1`` or
    local files), NLTK's data index for the instruction-following benchmarks when downloads
    are on (only to fetch NLTK data their documents need and this machine lacks).

    Args:
        benchmark: the benchmark key.
        metadata: the run's ``--metadata``.
    """
    import os

    import datasets

    from uta_tasks.datasets import BENCHMARKS, nltk_data

    source = BENCHMARKS[benchmark].source
    offline = bool(datasets.config.HF_HUB_OFFLINE)
    found: list[Contact] = []
    if source is not None:
        files = metadata.get(source.files_key)
        given = [files] if isinstance(files, str) else list(files or [])
        hub = metadata.get(source.hub_key) or (None if files else source.hub_id)
        urls = [f for f in given if str(f).startswith(("http://", "https://"))]
        if not files and source.url and not hub and source.packaged_file is None:
            urls.append(source.url)
        if hub and not offline:
            found.append((HUB, str(hub)))
        found += [(str(u), "") for u in urls if not offline]
    if BENCHMARKS[benchmark].needs_nltk and nltk_data.download_refusal(dict(metadata)) is None:
        from nltk.downloader import Downloader

        index = os.environ.get(nltk_data.INDEX_URL_ENV) or Downloader.DEFAULT_URL
        found.append((f"NLTK's data index {index}", "only if NLTK data the documents need is missing here"))
    return tuple(found)



_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def whole_sentences(text: str, limit: int = 700) -> str:
    """``text`` on one line, cut after the last whole sentence within ``limit`` characters
    (never inside a sentence, a path or a URL; the first sentence is kept whole however long).

    Args:
        text: a message, e.g. a loader's error.
        limit: the characters to keep at most, beyond the first sentence.
    """
    kept = ""
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        if kept and len(kept) + 1 + len(sentence) > limit:
            break
        kept = f"{kept} {sentence}" if kept else sentence
    return kept if kept.endswith((".", "!", "?")) else f"{kept}."


def judge_prompt_chars(template: Any, context: list[tuple[str, str]], user_turn: str) -> int:
    """Characters of the judge's messages for one item (the template around this context and turn)."""
    from uta_tasks.judge import JudgeItem

    return sum(len(m["content"]) for m in template.render(JudgeItem(tuple(context), user_turn)))


def load_documents(benchmark: str, metadata: Mapping[str, Any], limit: float | None, template: Any) -> Documents:
    """Read a benchmark's documents as its task would and measure their judge prompts;
    when the data set cannot be read, count the paper's size and say so.

    Args:
        benchmark: the benchmark key.
        metadata: the run's ``--metadata`` (data settings included).
        limit: ``--limit``.
        template: the judge's prompt template (:func:`uta_tasks.judge.prompt.load_template`).
    """
    from uta_tasks.datasets import BENCHMARKS

    bench = BENCHMARKS[benchmark]
    reached = contacts(benchmark, metadata)
    try:
        split = bench.load(**dict(metadata))["test"]
    except Exception as error:  # noqa: BLE001 - any failure to read is reported, and counted from the paper
        size = paper_size(benchmark)
        reason = whole_sentences(str(error)) if str(error).strip() else f"{type(error).__name__}."
        if size is None:
            raise PlanError(f"{benchmark}: its data set could not be loaded ({reason}) and the paper gives no size; "
                            f"pass --metadata '{{\"{benchmark}_data_files\": \"/path/to/file.jsonl\"}}'") from None
        n = limited(size, limit)
        # The judge prompts are counted without the question (not known): the template alone.
        chars = {"u": n * judge_prompt_chars(template, [("user", ""), ("assistant", "")], "")}
        return Documents(n, False, f"the data set did not load, so counted from the paper's N = {size} (question "
                                   f"texts not in the token estimate). The loader said: {reason}", chars, reached)
    n = limited(len(split), limit)
    chars = {"u": 0, "reference": 0}
    for doc in split.select(range(n)):
        turns = [(m["role"], str(m["content"])) for m in bench.doc_to_messages(doc)]
        given = bench.given_answer(doc) if bench.given_answer else ""
        chars["u"] += judge_prompt_chars(template, [*turns, ("assistant", given)], "")
        if bench.reference_user_turn is not None:
            chars["reference"] += judge_prompt_chars(template, [*turns, ("assistant", given)],
                                                      bench.reference_user_turn(doc))
    return Documents(n, True, f"loaded ({len(split)} in the data set)", chars, reached)
