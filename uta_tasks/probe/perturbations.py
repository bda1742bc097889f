"""The perturbation registry: every perturbation of the assistant turn, one entry each.

An entry holds all the code knows about a perturbation: its name (the task-name suffix
``uta_<bench>_<name>`` and the ``uta_perturbation`` metadata value), its function, what the
function needs (the model's tokenizer; the whole response rather than the final answer) and
whether it belongs to the paper's group ``uta``. The task generator
(:mod:`uta_tasks.tasks.generate`), the wrapped families (:mod:`uta_tasks.wrap`), the probe
(:mod:`uta_tasks.probe.turns`) and the readers of a run (:mod:`uta_tasks.runs`) read this
table and nothing else; no module names a perturbation but ``none``, the unperturbed control.

The paper's three are registered below, in the order tables list them. A new one is a
function of ``(text, context) -> Perturbed`` (:mod:`uta_tasks.probe.perturb`) and one
:func:`register` call here; ``make generate`` then writes its tasks (CONTRIBUTING.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from uta_tasks.probe import perturb
from uta_tasks.probe.perturb import Context, Perturbed
from uta_tasks.schema.output import PERTURBATION_NONE

PerturbFunction = Callable[[str, Context], Perturbed]


@dataclass(frozen=True)
class Perturbation:
    """One registered perturbation.

    Attributes:
        name: ``[a-z0-9_]+``; the task suffix (``uta_gsm8k_<name>``) and the metadata value.
        apply: ``(text, context) -> Perturbed``; ``Perturbed.text`` is a'.
        doc: one line: what a' is.
        needs_tokenizer: the function counts the model's tokens (``context.tokenizer`` is set).
        whole_response: under ``truncate_scope: response`` (the default) the function gets the
            whole response, reasoning included; otherwise, and for every entry without this
            flag, it gets the final answer and the reasoning in front is kept as generated.
        paper: one of the paper's perturbations, so its tasks are in the group ``uta``.
    """

    name: str
    apply: PerturbFunction
    doc: str
    needs_tokenizer: bool = False
    whole_response: bool = False
    paper: bool = False

    def takes_whole_response(self, truncate_scope: str) -> bool:
        """The function is given the whole response under this ``truncate_scope``.

        Args:
            truncate_scope: the task's setting.
        """
        return self.whole_response and truncate_scope == "response"


_REGISTRY: dict[str, Perturbation] = {}


def register(entry: Perturbation) -> Perturbation:
    """Add a perturbation; returns it.

    Args:
        entry: its entry; the name must be new and a valid task-name suffix.
    """
    if entry.name in _REGISTRY:
        raise ValueError(f"perturbation {entry.name!r} is already registered; pick another name")
    if not entry.name or not all(c.islower() or c.isdigit() or c == "_" for c in entry.name):
        raise ValueError(f"perturbation name {entry.name!r} must be lower-case letters, digits and '_' "
                         "(it becomes the task suffix uta_<bench>_<name>)")
    _REGISTRY[entry.name] = entry
    return entry


def names() -> tuple[str, ...]:
    """Every registered perturbation, ``none`` first, in the order tables list them."""
    return tuple(_REGISTRY)


def paper_names() -> tuple[str, ...]:
    """The paper's perturbations (their tasks make the group ``uta``)."""
    return tuple(name for name, entry in _REGISTRY.items() if entry.paper)


def get(name: str) -> Perturbation:
    """The entry of one perturbation.

    Args:
        name: a registered name (a task's ``uta_perturbation``).
    """
    entry = _REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"perturbation {name!r} is not one of {', '.join(_REGISTRY)}; register it in "
                         "uta_tasks/probe/perturbations.py and run `make generate`")
    return entry


def apply(name: str, text: str, context: Context) -> Perturbed:
    """Apply one perturbation.

    Args:
        name: a registered name.
        text: what it perturbs (the whole response or the final answer, see ``whole_response``).
        context: the doc's question and the task's settings.
    """
    return get(name).apply(text, context)


register(Perturbation(PERTURBATION_NONE, perturb.unchanged, "a' = a, the unperturbed control", paper=True))
register(Perturbation("trunc", perturb.trunc, "the last max(25, ceil(n/4)) tokens of a removed",
                      needs_tokenizer=True, whole_response=True, paper=True))
register(Perturbation("question", perturb.question, "a generic conversational question appended to a", paper=True))
