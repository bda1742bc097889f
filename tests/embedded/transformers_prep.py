"""The embedded model prepared through transformers' GGUF loader and ``save_pretrained``: how
``smollm2.prepare`` worked before it converted the GGUF itself (about a minute on two cores),
kept as the reference the direct conversion is compared with (tests/embedded/) and timed
against (perf/model_prep.py)."""

from __future__ import annotations

from pathlib import Path


def prepare_with_transformers(src: Path, out: Path) -> Path:
    """Write the Hugging Face directory of the GGUF ``src`` into ``out`` through transformers.

    transformers dequantizes the GGUF on load but refuses to ``save_pretrained`` a
    GGUF-quantized model, so the weights are moved into a model built from the same config
    without ``quantization_config``.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    quantized = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, torch_dtype=torch.float32)
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
    return out
