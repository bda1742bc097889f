"""A verdict's judge prompt stored by reference, and the one function that rebuilds it.

The messages sent to the judge are its template set (``prompt_version``, digest ``prompt_sha``:
:func:`.prompt.load_template`) applied to the item judged. A probe record therefore need not
store them: :func:`by_reference` drops a verdict's prompt when the installed template of that
name and digest gives it back character for character (else the prompt stays), and
:func:`verdict_prompt` rebuilds it from the item
(:func:`uta_tasks.probe.verdict_prompts.record_prompts` does so for each slot of a record).
"""

from __future__ import annotations

from dataclasses import replace

from uta_tasks.schema.verdict import Verdict

from .errors import JudgeConfigError
from .prompt import TEMPLATES_DIR, PromptTemplate, load_template
from .records import JudgeItem

Messages = list[dict[str, str]]


def _template(verdict: Verdict) -> PromptTemplate | None:
    """The released template set the verdict names, when it has the verdict's digest."""
    directory = TEMPLATES_DIR / verdict.prompt_version
    if not verdict.prompt_version or directory.parent != TEMPLATES_DIR or not directory.is_dir():
        return None
    try:
        template = load_template(str(directory))
    except JudgeConfigError:
        return None
    return template if template.sha == verdict.prompt_sha else None


def by_reference(verdict: Verdict, item: JudgeItem) -> Verdict:
    """The verdict without its prompt when :func:`verdict_prompt` rebuilds it exactly, else as it is.

    Args:
        verdict: the judge's verdict on ``item``.
        item: what was judged.
    """
    if verdict.prompt_by_ref or not verdict.prompt:
        return verdict
    template = _template(verdict)
    if template is None or template.render(item) != verdict.prompt:
        return verdict
    return replace(verdict, prompt=[], prompt_by_ref=True)


def verdict_prompt(verdict: Verdict, item: JudgeItem) -> Messages:
    """The messages the judge was sent for ``item``: stored, or rebuilt from the template.

    Args:
        verdict: the verdict on ``item``.
        item: what was judged.

    Raises:
        ValueError: the prompt is stored by reference and the template set of that name and
            digest is not installed (read the record with the uta-tasks version that wrote it).
    """
    if not verdict.prompt_by_ref:
        return [dict(message) for message in verdict.prompt]
    template = _template(verdict)
    if template is None:
        raise ValueError(f"judge prompt {verdict.prompt_version!r} at digest {verdict.prompt_sha!r} is not installed: "
                         "the record stores its prompt by reference; read it with the uta-tasks version that wrote it")
    return template.render(item)
