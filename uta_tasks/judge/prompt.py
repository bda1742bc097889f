"""Render the judge prompt from a versioned jinja2 template set.

A template set is a directory holding ``system.j2`` (the instructions) and ``user.j2``
(the trace). Its name is the prompt version (``followupeval-v4``) that goes into every
verdict and cache key, together with a digest of the two files and of the reply schema
(:data:`.labels.VERDICT_SCHEMA`), so an edit that forgets to rename the set, or a change
of the schema the judge answers in, still invalidates the cache. Released sets are
never edited: copy to a new name instead.

Untrusted text (every context turn and the candidate user turn ``u``) is placed
verbatim between markers that carry a tag derived from the item's content and chosen
so that it occurs in none of the texts: a text cannot contain its own closing marker,
so it cannot break out of its section or pose as instructions outside it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import jinja2

from .errors import JudgeConfigError
from .labels import VERDICT_SCHEMA
from .records import JudgeItem

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates" / "judge"
_TEMPLATE_FILES = ("system.j2", "user.j2")
_TAG_ATTEMPTS = 1000
# Characters per token of the judge's input, for estimates only (English text): the plan
# (``uta-eval --plan``) and the Batch API's request file print token counts made with it.
CHARS_PER_TOKEN = 4


def estimated_tokens(chars: int) -> int:
    """Tokens of ``chars`` characters of judge input, rounded up (:data:`CHARS_PER_TOKEN`).

    Args:
        chars: characters of rendered judge prompts.
    """
    return -(-chars // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class PromptTemplate:
    """A loaded template set.

    Attributes:
        version: The set's name, e.g. ``followupeval-v4``.
        sha: First 16 hex characters of the sha256 over both files and the reply schema.
        system: Compiled system template.
        user: Compiled user template.
    """

    version: str
    sha: str
    system: jinja2.Template
    user: jinja2.Template

    def render(self, item: JudgeItem) -> list[dict[str, str]]:
        """Build the chat messages for one item.

        Args:
            item: The trace to judge.

        Returns:
            ``[{"role": "system", ...}, {"role": "user", ...}]``.
        """
        tag = delimiter_tag(item)
        turns = [
            {"index": index, "role": role, "content": content}
            for index, (role, content) in enumerate(item.context, start=1)
        ]
        user = self.user.render(tag=tag, turns=turns, user_turn=item.user_turn)
        # A lone surrogate (a model's "\\ud800") cannot be sent as UTF-8: the judge reads it as that escape.
        user = user.encode("utf-8", "backslashreplace").decode("utf-8")
        return [{"role": "system", "content": self.system_text}, {"role": "user", "content": user}]

    @cached_property
    def system_text(self) -> str:
        """The system message: the system template takes no variables (the item goes in the
        user message), so it is rendered once."""
        return self.system.render()


def delimiter_tag(item: JudgeItem) -> str:
    """A tag for the markers that occurs in none of the item's texts (deterministic).

    Args:
        item: The trace.

    Returns:
        ``id-`` followed by 16 hex characters.
    """
    texts = [content for _, content in item.context] + [item.user_turn]
    seed = item.fingerprint()
    for counter in range(_TAG_ATTEMPTS):
        tag = "id-" + hashlib.sha256(f"{seed}:{counter}".encode()).hexdigest()[:16]
        if not any(tag in text for text in texts):
            return tag
    raise ValueError("could not find a delimiter tag absent from the item's texts")


def _environment(directory: Path) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def resolve_template_dir(prompt: str) -> Path:
    """Find a template set by name (under ``uta_tasks/templates/judge``) or path.

    Args:
        prompt: The ``judge_prompt`` setting.
    """
    candidate = Path(prompt).expanduser()
    directory = candidate if candidate.is_dir() else TEMPLATES_DIR / prompt
    missing = [name for name in _TEMPLATE_FILES if not (directory / name).is_file()]
    if missing:
        available = sorted(p.name for p in TEMPLATES_DIR.iterdir() if p.is_dir())
        raise JudgeConfigError(
            f"judge_prompt={prompt!r}: {directory} lacks {missing}; use one of {available} "
            "or a directory holding system.j2 and user.j2"
        )
    return directory


@lru_cache(maxsize=16)
def load_template(prompt: str) -> PromptTemplate:
    """Load and compile a template set.

    Args:
        prompt: The ``judge_prompt`` setting (name or directory).
    """
    directory = resolve_template_dir(prompt)
    digest = hashlib.sha256()
    for name in _TEMPLATE_FILES:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes() + b"\0")
    digest.update(b"schema\0" + json.dumps(VERDICT_SCHEMA, sort_keys=True).encode())
    env = _environment(directory)
    try:
        system, user = (env.get_template(name) for name in _TEMPLATE_FILES)
    except jinja2.TemplateSyntaxError as exc:
        raise JudgeConfigError(f"judge_prompt={prompt!r}: template syntax error: {exc}") from exc
    return PromptTemplate(version=directory.name, sha=digest.hexdigest()[:16], system=system, user=user)
