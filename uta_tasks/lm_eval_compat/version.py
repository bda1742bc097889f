"""The installed lm-eval version and the names both modules share."""

from __future__ import annotations

import importlib.metadata

LM_EVAL_VERSION = importlib.metadata.version("lm_eval")
IS_05 = not LM_EVAL_VERSION.startswith("0.4.")
ENTRY_POINT_GROUP = "lm_eval.tasks"
FILTER_NAME = "none"


