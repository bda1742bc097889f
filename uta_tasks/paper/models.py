"""The paper's models: the name printed in its tables, the Hugging Face id, the family.

The family is what Table 6 pools over. A run's model is matched to a paper model by its
Hugging Face id or by the last part of its name or path (``/models/Qwen3.5-27B`` matches
``Qwen/Qwen3.5-27B``); any other model gets its family from its name (the part before the
first ``-``) unless ``--family MODEL=FAMILY`` names one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaperModel:
    """A model of the paper.

    Attributes:
        name: the name printed in the paper's tables.
        model: the Hugging Face id, or the paper's name when the weights are not published.
        family: the family Table 6 pools over.
        aliases: other names the paper prints for it.
    """

    name: str
    model: str
    family: str
    aliases: tuple[str, ...] = ()


QWEN, GPT_OSS, GLM = "Qwen3.5", "gpt-oss", "GLM-4.7"

_QWEN_SIZES = ("0.8B", "2B", "4B", "9B", "27B", "35B-A3B", "122B-A10B", "397B-A17B")

PAPER_MODELS: tuple[PaperModel, ...] = (
    *(PaperModel(f"Qwen3.5-{s}", f"Qwen/Qwen3.5-{s}", QWEN,
                 (f"Qwen3.5-{s.split('-')[0]}", s, s.split("-")[0]) if "-" in s else (s,)) for s in _QWEN_SIZES),
    PaperModel("gpt-oss-20b", "openai/gpt-oss-20b", GPT_OSS, ("gpt-oss-20B",)),
    PaperModel("gpt-oss-120b", "openai/gpt-oss-120b", GPT_OSS, ("gpt-oss-120B",)),
    PaperModel("GLM-4.7", "zai-org/GLM-4.7", GLM),
    # Table 2: Qwen3.5-2B after collaboration-oriented post-training (weights not published).
    PaperModel("Qwen3.5-2B CollabLLM SFT", "Qwen3.5-2B CollabLLM SFT", QWEN, ("SFT",)),
    PaperModel("Qwen3.5-2B CollabLLM RL", "Qwen3.5-2B CollabLLM RL", QWEN, ("RL",)),
)

# Families of models outside the paper that share a paper family's naming.
_FAMILY_PREFIXES = ((QWEN.lower(), QWEN), (GPT_OSS, GPT_OSS), (GLM.lower(), GLM))


def paper_model(name: str) -> PaperModel | None:
    """The paper model a printed name or a run's model name stands for, if any.

    Args:
        name: a name as printed in the paper, a Hugging Face id, or a local path.
    """
    last = name.rstrip("/").split("/")[-1].lower()
    for m in PAPER_MODELS:
        if name == m.model or last in {m.name.lower(), m.model.split("/")[-1].lower()}:
            return m
    for m in PAPER_MODELS:
        if name in m.aliases:
            return m
    return None


def family_of(model: str, overrides: dict[str, str] | None = None) -> str:
    """The family a model is pooled in (Table 6).

    Args:
        model: the run's model name (Hugging Face id or path).
        overrides: ``--family MODEL=FAMILY`` pairs; they win.
    """
    if overrides and model in overrides:
        return overrides[model]
    found = paper_model(model)
    if found is not None:
        return found.family
    last = model.rstrip("/").split("/")[-1]
    for prefix, family in _FAMILY_PREFIXES:
        if last.lower().startswith(prefix):
            return family
    return last.split("-")[0] or last


def series_family(model: str, model_id: str = "", overrides: dict[str, str] | None = None) -> str:
    """The paper's family of a series (Table 6), with the series' probe modes: runs of
    different modes are never pooled.

    Args:
        model: the series name (the model id, then its modes, e.g. ``'m [pass2_context=template]'``).
        model_id: the model id inside it (empty: the whole name).
        overrides: ``--family MODEL=FAMILY`` pairs.
    """
    model_id = model_id or model
    return family_of(model_id, overrides) + model[len(model_id):]
