"""The directory ``smollm2.prepare`` writes by converting the GGUF itself equals the one
transformers' GGUF loader and ``save_pretrained`` write (tests/embedded/transformers_prep.py):
the same weights bit for bit, the same config and generation config, and a tokenizer that
gives the same ids, chat template renderings and special tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers_prep import prepare_with_transformers

from uta_tasks.embedded import smollm2

pytestmark = pytest.mark.slow

# Load-time facts transformers records in tokenizer_config.json (where the files came from, and
# whether HF_HUB_OFFLINE was set); the direct conversion leaves them out.
LOAD_TIME_KEYS = {"is_local", "local_files_only"}

CORPUS = [
    "Hello, world!",
    " leading space and trailing space ",
    "Don't stop: it's 3:45pm, we'll see; they're here, I've 12,345,678.90 reasons (x2).",
    "tabs\tand\t\tmore\n\nnewlines\r\nand carriage returns\r",
    "runs of spaces:  two,   three,        eight.",
    "numbers 0 7 42 1234567890 3.14159 -273.15 1e-9 0x1F 1_000_000",
    "naïve café résumé Ångström façade coöperate",
    "日本語のテキストと中文文本，한국어 텍스트.",
    "Ελληνικά, русский текст, עברית, العربية, हिन्दी, ไทย",
    "emoji 😀👍🏽 👨‍👩‍👧‍👦 🇫🇷 ✓ ★ ∑ ∫ √ ≠ ≤",
    "combining e\u0301 and zero\u200bwidth and nbsp\u00a0here and soft\u00adhyphen",
    "def f(x):\n    return {'a': [1, 2, 3], \"b\": None}  # comment\n",
    "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    "<|endoftext|><repo_name>uta<file_sep>a.py<filename>b.py<gh_stars>10<jupyter_code>",
    "<|im_start|> not-special <|im_end |> <| im_end|>",
    "",
    " ",
    "\n",
    "ALL CAPS AND MiXeD cAsE",
    "URL https://example.com/path?q=1&r=two#frag and e-mail a.b@c.org",
]
CONVERSATIONS = [
    [{"role": "user", "content": "What is 2 + 2?"}],
    [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Name three colors.\n\nOnly three."},
        {"role": "assistant", "content": "Red, green, blue."},
        {"role": "user", "content": "Thanks! 😀"},
    ],
    [{"role": "user", "content": "日本語で答えて"}, {"role": "assistant", "content": "はい。"}],
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(the direct conversion's directory, transformers')``."""
    root = tmp_path_factory.mktemp("smollm2")
    new = smollm2.prepare(root / "direct")
    old = prepare_with_transformers(smollm2.gguf_path(), root / "transformers")
    return new, old


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_weights_are_equal_bit_for_bit(folders: tuple[Path, Path]) -> None:
    from safetensors import safe_open
    from safetensors.numpy import load_file

    new, old = (load_file(folder / "model.safetensors") for folder in folders)
    assert sorted(new) == sorted(old) and len(new) == 272
    for name, values in old.items():
        assert new[name].dtype == values.dtype == "float32", name
        assert new[name].shape == values.shape, name
        assert new[name].tobytes() == values.tobytes(), name
    metadata = [safe_open(str(folder / "model.safetensors"), "np").metadata() for folder in folders]
    assert metadata[0] == metadata[1] == {"format": "pt"}


def test_config_and_generation_config_are_equal(folders: tuple[Path, Path]) -> None:
    from transformers import GenerationConfig, LlamaConfig

    new, old = folders
    assert _json(new / "config.json") == _json(old / "config.json")
    assert _json(new / "generation_config.json") == _json(old / "generation_config.json")
    configs = [LlamaConfig.from_pretrained(folder).to_dict() for folder in folders]
    for config in configs:
        config.pop("_name_or_path")  # the directory it was loaded from
    assert configs[0] == configs[1]
    expected = {
        "hidden_size": 576,
        "intermediate_size": 1536,
        "num_hidden_layers": 30,
        "num_attention_heads": 9,
        "num_key_value_heads": 3,
        "head_dim": 64,
        "max_position_embeddings": 8192,
        "vocab_size": 49152,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "pad_token_id": 2,
        "tie_word_embeddings": True,
        "dtype": "float32",
    }
    assert {key: configs[0][key] for key in expected} == expected
    assert configs[0]["rope_parameters"] == {"rope_theta": 100000.0, "rope_type": "default"}
    generation = [GenerationConfig.from_pretrained(folder).to_dict() for folder in folders]
    assert generation[0] == generation[1]


def test_tokenizer_files_are_equal(folders: tuple[Path, Path]) -> None:
    new, old = folders
    assert (new / "tokenizer.json").read_bytes() == (old / "tokenizer.json").read_bytes()
    assert (new / "chat_template.jinja").read_bytes() == (old / "chat_template.jinja").read_bytes()
    old_config = {k: v for k, v in _json(old / "tokenizer_config.json").items() if k not in LOAD_TIME_KEYS}
    assert _json(new / "tokenizer_config.json") == old_config


def test_tokenizers_agree(folders: tuple[Path, Path]) -> None:
    from transformers import AutoTokenizer

    new, old = (AutoTokenizer.from_pretrained(folder) for folder in folders)
    for name in ("bos_token", "eos_token", "pad_token", "unk_token"):
        assert getattr(new, name) == getattr(old, name) is not None, name
        assert getattr(new, f"{name}_id") == getattr(old, f"{name}_id"), name
    assert (new.bos_token, new.eos_token, new.pad_token, new.unk_token) == (
        "<|im_start|>",
        "<|im_end|>",
        "<|im_end|>",
        "<|endoftext|>",
    )
    assert new.all_special_tokens == old.all_special_tokens
    assert len(new) == len(old) and new.model_max_length == old.model_max_length
    rendered = []
    for messages in CONVERSATIONS:
        for prompt in (True, False):
            text = new.apply_chat_template(messages, tokenize=False, add_generation_prompt=prompt)
            assert text == old.apply_chat_template(messages, tokenize=False, add_generation_prompt=prompt)
            rendered.append(text)
    for text in CORPUS + rendered:
        ids = new(text)["input_ids"]
        assert ids == old(text)["input_ids"], text
        assert new(text, add_special_tokens=False)["input_ids"] == old(text, add_special_tokens=False)["input_ids"]
        assert new.decode(ids) == old.decode(ids)
        assert new.decode(ids, skip_special_tokens=True) == old.decode(ids, skip_special_tokens=True)
    assert new(CORPUS)["input_ids"] == old(CORPUS)["input_ids"]
