"""Versioned jinja2 templates of the project (role switches, judge prompt, perturbation cues).

Every template is rendered with ``StrictUndefined``: a missing variable is an error, never "".
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

TEMPLATES_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The shared jinja2 environment over this folder."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(name: str, **context: object) -> str:
    """Render a template file of this folder.

    Args:
        name: path relative to ``uta_tasks/templates``, e.g. ``role_switch/harmony.jinja``.
        context: the template's variables.
    """
    return environment().get_template(name).render(**context)
