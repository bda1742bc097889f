"""Setting values that the data layer (:mod:`uta_tasks.datasets`) reads and the task
settings (:mod:`uta_tasks.probe.task_settings`) validate and document."""

from __future__ import annotations

from typing import Literal, get_args

NltkDownload = Literal["auto", "off"]
#: ``nltk_download``: ``auto`` downloads missing NLTK data (unless ``HF_HUB_OFFLINE=1``), ``off`` never does.
NLTK_DOWNLOADS: tuple[NltkDownload, ...] = get_args(NltkDownload)
NLTK_DOWNLOAD_OFF: NltkDownload = "off"
