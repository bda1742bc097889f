"""Run :func:`uta_tasks.saved_answers.hub.local_path` in a process of its own, as ``uta-eval`` does:
huggingface_hub reads ``HF_ENDPOINT``, ``HF_HOME``, ``HF_HUB_OFFLINE`` and ``HF_TOKEN`` when it is
imported, so each environment is a fresh process.

``python hub_client.py '[[answers_from, [task, ...]], ...]'`` writes to stdout one JSON list with,
per call, ``{"path": ..., "provenance": ...}`` or ``{"error": message}``; the log goes to stderr.
"""

from __future__ import annotations

import json
import logging
import sys

from uta_tasks.saved_answers.hub import HubSourceError, local_path

TASK = "uta_wrap_gsm8k"

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    out: list[dict] = []
    for answers_from, names in json.loads(sys.argv[1]):
        try:
            path, provenance = local_path(answers_from, names, TASK)
            out.append({"path": str(path), "provenance": provenance})
        except HubSourceError as exc:
            out.append({"error": str(exc)})
    sys.stdout.write(json.dumps(out) + "\n")
