"""A llama-architecture GGUF as a Hugging Face ``LlamaForCausalLM``: its ``config.json``,
``generation_config.json`` and float32 weights under the Hugging Face names.

What transformers' GGUF loader does for a llama file, without building the model: the config
comes from the ``llama.*`` and ``tokenizer.ggml.*`` keys, each tensor is dequantized to float32,
renamed, and the query and key projections get their rows back in Hugging Face's order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import metadata as package_metadata
from typing import Any

import numpy as np

from uta_tasks.embedded.gguf_file import GGUFError, GGUFFile

# llama.cpp's names inside a block -> the Hugging Face module under ``model.layers.N``.
_BLOCK_NAMES = {
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
# A llama model has weights only: a bias tensor has no place in it.
_BLOCK = re.compile(r"blk\.(\d+)\.(\w+)\.weight")
_TOP = re.compile(r"(\w+)\.weight")


def hf_name(gguf_name: str) -> str:
    """The Hugging Face parameter name of a llama.cpp tensor (``blk.3.attn_q.weight`` ->
    ``model.layers.3.self_attn.q_proj.weight``); a tensor a llama model has no place for raises."""
    if (block := _BLOCK.fullmatch(gguf_name)) and block[2] in _BLOCK_NAMES:
        return f"model.layers.{block[1]}.{_BLOCK_NAMES[block[2]]}.weight"
    if (top := _TOP.fullmatch(gguf_name)) and top[1] in _TOP_NAMES:
        return f"{_TOP_NAMES[top[1]]}.weight"
    raise GGUFError(f"tensor {gguf_name} has no place in a Hugging Face llama model")


def _transformers_version() -> dict[str, str]:
    """``{"transformers_version": ...}`` as ``save_pretrained`` writes it, if transformers is installed."""
    try:
        return {"transformers_version": package_metadata.version("transformers")}
    except package_metadata.PackageNotFoundError:
        return {}


def config(gguf: GGUFFile) -> dict[str, Any]:
    """The ``config.json`` of the model (transformers 5's ``LlamaConfig`` keys, float32)."""
    meta = gguf.metadata
    if meta.get("general.architecture") != "llama":
        raise GGUFError(f"{gguf.path} is a {meta.get('general.architecture')!r} model, not llama")

    def llama(key: str) -> Any:
        if f"llama.{key}" not in meta:
            raise GGUFError(f"{gguf.path} has no llama.{key}")
        return meta[f"llama.{key}"]

    hidden, heads = llama("embedding_length"), llama("attention.head_count")
    vocab = meta.get("llama.vocab_size", len(meta.get("tokenizer.ggml.tokens", ())))
    values = {
        "_model_name_or_path": meta.get("general.name"),
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": meta.get("tokenizer.ggml.bos_token_id"),
        "dtype": "float32",
        "eos_token_id": meta.get("tokenizer.ggml.eos_token_id"),
        "head_dim": meta.get("llama.rope.dimension_count", hidden // heads),
        "hidden_act": "silu",
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": llama("feed_forward_length"),
        "max_position_embeddings": llama("context_length"),
        "mlp_bias": False,
        "model_type": "llama",
        "num_attention_heads": heads,
        "num_hidden_layers": llama("block_count"),
        "num_key_value_heads": meta.get("llama.attention.head_count_kv", heads),
        "pad_token_id": meta.get("tokenizer.ggml.padding_token_id"),
        "pretraining_tp": 1,
        "rms_norm_eps": llama("attention.layer_norm_rms_epsilon"),
        "rope_parameters": {"rope_theta": meta.get("llama.rope.freq_base", 10000.0), "rope_type": "default"},
        # llama.cpp writes no output matrix when it is the embedding matrix.
        "tie_word_embeddings": "output.weight" not in gguf.tensors,
        **_transformers_version(),
        "unk_token_id": meta.get("tokenizer.ggml.unknown_token_id"),
        "use_cache": True,
        "vocab_size": vocab,
    }
    return {key: value for key, value in values.items() if value is not None}


def generation_config(model_config: dict[str, Any]) -> dict[str, Any]:
    """The ``generation_config.json`` transformers derives from ``model_config``."""
    ids: dict[str, Any] = {
        key: model_config[key] for key in ("bos_token_id", "eos_token_id", "pad_token_id") if key in model_config
    }
    return {
        "_from_model_config": True,
        **ids,
        "output_attentions": False,
        "output_hidden_states": False,
        **_transformers_version(),
        "use_cache": True,
    }


def _rows_from_llama_cpp(weight: np.ndarray, heads: int) -> np.ndarray:
    """Undo llama.cpp's reordering of a query or key projection.

    Rotary embeddings pair dimension i of a head with dimension i + head_dim/2 in Hugging Face's
    layout; llama.cpp's converter stores each head's rows as those pairs side by side (rows
    0, h/2, 1, h/2+1, ...). Viewed per head as (pair, half), the rows go back to (half, pair).
    """
    rows, cols = weight.shape
    return weight.reshape(heads, rows // heads // 2, 2, cols).swapaxes(1, 2).reshape(rows, cols)


def weights(gguf: GGUFFile, model_config: dict[str, Any]) -> Iterator[tuple[str, np.ndarray]]:
    """``(Hugging Face name, float32 values)`` for every tensor of the file, in file order."""
    heads = {
        "attn_q": model_config["num_attention_heads"],
        "attn_k": model_config["num_key_value_heads"],
    }
    for name in gguf.tensors:
        values = gguf.tensor(name)
        block = _BLOCK.fullmatch(name)
        if block and block[2] in heads:
            values = _rows_from_llama_cpp(values, heads[block[2]])
        yield hf_name(name), values
