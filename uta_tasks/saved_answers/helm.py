"""HELM's ``scenario_state.json`` read as saved answers (``answers_from`` that file).

HELM writes it per run (``benchmark_output/runs/<suite>/<run spec>/scenario_state.json``,
``helm.benchmark.runner``: ``asdict_without_nones(scenario_state)``): the run's ``adapter_spec``
and one ``request_state`` per request, each with its ``instance``, the ``request`` as sent and its
``result``. Per request state of the first train trial (``train_trial_index`` 0) of a generation
request (no ``reference_index``):

- **the document**: HELM draws and names its instances itself (``instance.id``, ``id12``), so the
  probe finds each document's request by its text (the request's prompt holds it,
  :meth:`uta_tasks.saved_answers.task.SavedTask.answer`); a state's number is its place in the file;
- **pass 1**: the request's ``messages`` (HELM's chat adapter), else its ``prompt`` as the one user
  message HELM's chat clients send it as (``HuggingFaceClient`` with ``apply_chat_template`` renders
  ``[{"role": "user", "content": prompt}]`` with the model's chat template; the OpenAI client sends
  the same message). The file does not record the rendered text: the probe renders those messages
  with the model's chat template, as for an inspect_ai log;
- **the answer**: ``result.completions[0].text``; a reasoning model's ``thinking.text``, where HELM
  keeps it apart, is put back in front as ``<think>\\n...\\n</think>\\n``;
- **generation settings**: the request's ``temperature``, ``max_tokens`` (``max_gen_toks``) and
  ``stop_sequences`` (``until``), which HELM always writes (a request without one, a file from a
  writer that left it out, is refused naming ``answers_from_settings``);
- **the model**: the request's ``model`` (HELM's model name, ``HuggingFaceTB/SmolLM2-135M-Instruct``);
  a HELM name that is not the checkpoint is stated with ``answers_from_settings``' ``model``.

HELM's version is not in the file (``harness_version`` None).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uta_tasks.runs.jsonio import read_json
from uta_tasks.saved_answers import harness
from uta_tasks.saved_answers.harness import HarnessLog, HarnessLogError
from uta_tasks.saved_answers.lm_eval_lines import SavedLine
from uta_tasks.saved_answers.source import SavedFiles
from uta_tasks.schema.probe import SAVED_HELM

NAME = "scenario_state.json"


def files(path: Path, where: str) -> SavedFiles | None:
    """The files of HELM's ``scenario_state.json`` at ``path`` (its task: the run spec, the folder's
    name), or None for another file."""
    return SavedFiles(path, None, path.parent.name, "", SAVED_HELM) if path.name == NAME else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _messages(where: str, request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The messages the request sent: its own (the chat adapter), else its prompt as the user turn."""
    sent = request.get("messages")
    if isinstance(sent, list) and sent and all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in sent):
        return [{"role": m.get("role"), "content": m["content"]} for m in sent]
    prompt = request.get("prompt")
    if isinstance(prompt, str) and prompt:
        return [{"role": "user", "content": prompt}]
    raise HarnessLogError(f"{where}: the request holds neither a text prompt nor chat messages (a multimodal "
                          "prompt?); answers_from reads text requests")


def _answer(where: str, result: Mapping[str, Any]) -> str:
    if not result or result.get("success") is False:
        raise HarnessLogError(f"{where}: the request has no successful result ({result.get('error') or 'none'}); "
                              "answers_from needs every answer")
    completions = result.get("completions")
    first = completions[0] if isinstance(completions, list) and completions else None
    if not isinstance(first, dict) or not isinstance(first.get("text"), str):
        raise HarnessLogError(f"{where}: the result holds no completion text")
    thinking = _object(first.get("thinking")).get("text")
    return f"<think>\n{thinking}\n</think>\n{first['text']}" if thinking else first["text"]


def _line(where: str, number: int, state: Mapping[str, Any], stated: Mapping[str, Any] | None) -> SavedLine:
    request = _object(state.get("request"))
    messages = _messages(where, request)
    logged = {"temperature": request.get("temperature"), "max_gen_toks": request.get("max_tokens"),
              "until": request.get("stop_sequences")}
    instance = _object(_object(state.get("instance")).get("input")).get("text")
    sent = "\n".join([*(m["content"] for m in messages), str(instance or "")])
    return SavedLine(number, sent, "", _answer(where, _object(state.get("result"))),
                     harness.gen_kwargs(where, logged, stated), {}, False, messages)


def read(found: SavedFiles, stated: Mapping[str, Any] | None) -> HarnessLog:
    """Read HELM's ``scenario_state.json``.

    Args:
        found: the file (``found.samples``).
        stated: ``answers_from_settings`` (None: not set).

    Raises:
        HarnessLogError: not HELM's file, or a request state cannot give its document an answer.
    """
    path = found.samples
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise HarnessLogError(f"{path}: not a readable HELM scenario state ({harness.reason(exc)})") from None
    states = data.get("request_states") if isinstance(data, dict) else None
    if not isinstance(states, list):
        raise HarnessLogError(f"{path}: no request_states list: not the scenario_state.json HELM writes")
    kept = [s for s in states if isinstance(s, dict) and s.get("train_trial_index", 0) == 0
            and s.get("reference_index") is None]
    lines = [_line(f"{path} (request state {i})", i, state, stated) for i, state in enumerate(kept)]
    spec = _object(data.get("adapter_spec"))
    models = {str(_object(s.get("request")).get("model") or spec.get("model") or "") for s in kept} - {""}
    if len(models) > 1:
        raise HarnessLogError(f"{path}: the requests name {len(models)} models ({', '.join(sorted(models))}); "
                              "answers_from reads the answers of one model")
    logged_model = next(iter(models), None)
    facts = {"harness": "helm", "harness_version": None, "harness_task": found.task,
             "adapter_method": spec.get("method"), "logged_model": logged_model, "stated": dict(stated or {})}
    return HarnessLog(SAVED_HELM, lines, harness.model(logged_model, stated), facts)

