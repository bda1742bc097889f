"""Tensor names and the query/key row order of a llama GGUF (uta_tasks.embedded.llama_gguf)."""

from __future__ import annotations

import numpy as np
import pytest

from uta_tasks.embedded.gguf_file import GGUFError
from uta_tasks.embedded.llama_gguf import _rows_from_llama_cpp, hf_name


def llama_cpp_rows(weight: np.ndarray, heads: int) -> np.ndarray:
    """What llama.cpp's converter (convert_hf_to_gguf.py, LlamaModel.permute) does to a query or
    key projection: per head, the rows of the two rotary halves are interleaved."""
    rows, cols = weight.shape
    return weight.reshape(heads, 2, rows // heads // 2, cols).swapaxes(1, 2).reshape(rows, cols)


@pytest.mark.parametrize("heads", [1, 3, 9])
def test_rows_from_llama_cpp_undo_its_permutation(heads: int) -> None:
    hf = np.arange(heads * 64 * 5, dtype=np.float32).reshape(heads * 64, 5)
    assert np.array_equal(_rows_from_llama_cpp(llama_cpp_rows(hf, heads), heads), hf)
    assert not np.array_equal(llama_cpp_rows(hf, heads), hf)


def test_one_head_in_hugging_face_order() -> None:
    # head_dim 4: llama.cpp stores rows (0, 2, 1, 3) of the head as rows (0, 1, 2, 3).
    stored = np.array([[0.0], [2.0], [1.0], [3.0]], dtype=np.float32)
    assert _rows_from_llama_cpp(stored, 1).ravel().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_names() -> None:
    assert hf_name("token_embd.weight") == "model.embed_tokens.weight"
    assert hf_name("output_norm.weight") == "model.norm.weight"
    assert hf_name("output.weight") == "lm_head.weight"
    assert hf_name("blk.0.attn_norm.weight") == "model.layers.0.input_layernorm.weight"
    assert hf_name("blk.12.ffn_norm.weight") == "model.layers.12.post_attention_layernorm.weight"
    assert hf_name("blk.29.attn_output.weight") == "model.layers.29.self_attn.o_proj.weight"
    assert hf_name("blk.3.ffn_down.weight") == "model.layers.3.mlp.down_proj.weight"
    for unknown in ("rope_freqs.weight", "blk.0.attn_q.bias", "blk.0.ffn_gate_exps.weight"):
        with pytest.raises(GGUFError):
            hf_name(unknown)
