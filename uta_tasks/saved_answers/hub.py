"""``answers_from`` on the Hugging Face Hub: a dataset repo of lm-eval ``--log_samples`` output.

The Open LLM Leaderboard's details repos (``open-llm-leaderboard/<org>__<model>-details``) and
any other dataset repo that holds lm-eval output are named in huggingface_hub's own spelling,
``hf://datasets/<org>/<repo>[@<revision>][/<folder>]`` (parsed by huggingface_hub's
``parse_hf_uri``; the repo's web address, ``https://huggingface.co/datasets/<org>/<repo>/tree/
<revision>/<folder>``, is read the same way). Only the files of the tasks asked for are
downloaded, with ``snapshot_download``: ``samples_<task>_<date>`` under lm-eval's three names
(``.jsonl``; ``.json``, one object per line, as the leaderboard's 2024 files are named;
``.jsonl.gz``) and the ``results_<date>.json`` files beside them. They are kept in the Hub cache
(``HF_HOME`` / ``HF_HUB_CACHE``, as huggingface_hub decides), which is read again offline
(``HF_HUB_OFFLINE=1``, or the Hub unreachable). The token is huggingface_hub's own (``HF_TOKEN``
or the saved login); it is never named in a message, a log line or the provenance.
"""

from __future__ import annotations

import glob
import logging
from collections.abc import Sequence
from pathlib import Path

from huggingface_hub import constants, get_token, parse_hf_uri, snapshot_download
from huggingface_hub.errors import (
    GatedRepoError,
    HfHubHTTPError,
    HfUriError,
    LocalEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import filter_repo_objects

log = logging.getLogger(__name__)

_SCHEMES = ("hf://", "https://", "http://")  # huggingface_hub's own scheme, and the repo's web address
# lm-eval's date id, e.g. ``2024-06-26T16-56-05.698347``: the names of two tasks one of which
# starts with the other (``gsm8k``, ``gsm8k_cot``) differ before it.
_DATE = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*"
_SAMPLES_SUFFIXES = (".jsonl", ".json", ".jsonl.gz")
_SPELLING = "hf://datasets/<org>/<repo>[@<revision>][/<folder>]"


class HubSourceError(ValueError):
    """A Hub repo cannot give the answers; the message names the task, the repo and the fix."""


def is_hub(answers_from: str) -> bool:
    """True when ``answers_from`` names a Hub repo (``hf://...`` or its web address), not a local path.

    Args:
        answers_from: the ``answers_from`` setting.
    """
    return answers_from.startswith(_SCHEMES)


def local_path(answers_from: str, task_names: Sequence[str], where: str) -> tuple[Path, dict[str, str] | None]:
    """The local folder ``answers_from`` names, and where on the Hub it came from.

    A value that is not a Hub address is a local path, returned expanded, with no provenance.
    A Hub dataset repo is downloaded into the Hub cache (only the samples files of
    ``task_names`` and the results files, under the folder if one is given) or read from that
    cache offline.

    Args:
        answers_from: the ``answers_from`` setting.
        task_names: the task names whose samples files to download (at least one).
        where: the task the answers are for, for the messages.

    Returns:
        The folder to read (the repo's folder inside the cached snapshot), and for a Hub repo
        ``{"repo", "revision" (the commit read), "folder"}``.

    Raises:
        HubSourceError: a malformed address, a gated, private or missing repo, a missing
            revision, files neither cached nor reachable, or no samples file of the tasks.
    """
    if not is_hub(answers_from):
        return Path(answers_from).expanduser(), None
    said = f"{where}: answers_from={answers_from}"
    try:
        uri = parse_hf_uri(answers_from, endpoint=constants.ENDPOINT)
    except HfUriError as exc:
        raise HubSourceError(f"{said}: not a Hub address ({exc.msg}); write {_SPELLING}") from None
    if uri.type != "dataset":
        raise HubSourceError(f"{said} names a {uri.type} repo; lm-eval's samples are published in dataset repos: "
                             f"write {_SPELLING}")
    if not task_names:
        raise HubSourceError(f"{said}: no task names to download the samples of")
    folder = uri.path_in_repo.strip("/")
    samples = _patterns(folder, [f"samples_{glob.escape(name)}_{_DATE}{suffix}" for name in task_names
                                 for suffix in _SAMPLES_SUFFIXES])
    page = f"{constants.ENDPOINT}/datasets/{uri.id}"
    log.info("%s: reading the samples of %s and the results files from the Hub dataset %s (revision %s%s) "
             "through the Hub cache", where, " or ".join(task_names), uri.id, uri.revision or "main",
             f", folder {folder}" if folder else "")
    try:
        snapshot = Path(snapshot_download(uri.id, repo_type="dataset", revision=uri.revision,
                                          allow_patterns=samples + _patterns(folder, [f"results_{_DATE}.json"])))
    except GatedRepoError:
        raise HubSourceError(_refused(said, uri.id, page, gated=True)) from None
    except RepositoryNotFoundError:
        raise HubSourceError(_refused(said, uri.id, page, gated=False)) from None
    except RevisionNotFoundError:
        raise HubSourceError(
            f"{said}: the dataset repo {uri.id} has no revision {uri.revision!r}; after '@' give a branch, tag or "
            f"commit of {page}, or leave '@{uri.revision}' out to read its default branch") from None
    except LocalEntryNotFoundError as exc:
        cause = exc.__cause__
        if isinstance(cause, HfHubHTTPError) and cause.response.status_code in (401, 403):
            raise HubSourceError(_refused(said, uri.id, page, gated=False)) from None
        reason = ("HF_HUB_OFFLINE=1 forbids downloading them" if constants.is_offline_mode()
                  else f"the Hub ({constants.ENDPOINT}) could not be reached")
        raise HubSourceError(
            f"{said}: the files of {' or '.join(task_names)} in the dataset repo {uri.id} (revision "
            f"{uri.revision or 'main'}) are not in the Hub cache ({constants.HF_HUB_CACHE}) and {reason}; run once "
            "with network access to cache them") from None
    except HfHubHTTPError as exc:
        status = exc.response.status_code
        if status in (401, 403):
            raise HubSourceError(_refused(said, uri.id, page, gated=False)) from None
        raise HubSourceError(f"{said}: the Hub answered HTTP {status} for the dataset repo {uri.id}; try again later "
                             f"or check {page}") from None
    root = snapshot / folder if folder else snapshot
    held = [p.relative_to(snapshot).as_posix() for p in root.rglob("samples_*") if p.is_file()] if root.is_dir() else []
    if not any(True for _ in filter_repo_objects(held, allow_patterns=samples)):
        raise HubSourceError(
            f"{said}: the dataset repo {uri.id} (commit {snapshot.name}) holds no samples file of "
            f"{' or '.join(task_names)}{f' in {folder}/' if folder else ''} (samples_<task>_<date> with "
            f"{', '.join(_SAMPLES_SUFFIXES)}); see {page}/tree/{snapshot.name}{f'/{folder}' if folder else ''} for "
            "its files, and name the folder of the model and a task it logged")
    provenance = {"repo": uri.id, "revision": snapshot.name, "folder": folder}
    log.info("%s: answers from the Hub dataset %s at commit %s, cached in %s", where, uri.id, snapshot.name, root)
    return root, provenance


def _patterns(folder: str, names: list[str]) -> list[str]:
    """``snapshot_download``'s ``allow_patterns`` for file names: in the folder, else at any depth
    (its ``*`` crosses folders)."""
    if folder:
        return [f"{glob.escape(folder)}/{name}" for name in names]
    return [pattern for name in names for pattern in (name, f"*/{name}")]


def _refused(said: str, repo: str, page: str, gated: bool) -> str:
    """The one message of a repo the Hub refused: gated, private, or not there."""
    token = ("the token in use (HF_TOKEN or the saved login) has no access to it" if get_token()
             else "no Hugging Face token is set")
    what = "is gated" if gated else "is private or gated, or does not exist"
    return (f"{said}: the dataset repo {repo} {what}, and {token}. Open {page}, check the name, accept its access "
            "conditions while logged in (the Open LLM Leaderboard's details repos ask for this), then set HF_TOKEN to "
            "a read token of that account (or run `hf auth login`)")
