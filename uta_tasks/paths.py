"""Where the package keeps files on a machine: one place for every cache path."""

from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    """``$XDG_CACHE_HOME/uta-tasks`` (``~/.cache/uta-tasks`` without XDG)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "uta-tasks"


def tools_dir() -> Path:
    """Built tools such as llama-server: ``$UTA_TOOLS_DIR``, else ``cache_home()/tools``."""
    return Path(os.environ.get("UTA_TOOLS_DIR") or cache_home() / "tools")


def judge_cache() -> Path:
    """The default sqlite verdict cache: ``cache_home()/judge.sqlite``."""
    return cache_home() / "judge.sqlite"
