"""The tokenizer a GGUF file describes, as Hugging Face's ``tokenizer.json``,
``tokenizer_config.json`` and ``chat_template.jinja``.

A GGUF carries no ``tokenizer.json``: its ``tokenizer.ggml.*`` keys hold the vocabulary, the
merges, each token's type and the special token ids. For a byte-level BPE vocabulary
(``tokenizer.ggml.model`` = ``gpt2``, as SmolLM2's) this rebuilds the tokenizer transformers makes
of those keys: GPT-2's byte-level BPE, the tokens marked as control as special added tokens, and
the four special tokens named by id.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from uta_tasks.embedded.gguf_file import GGUFError, GGUFFile

# tokenizer.ggml.token_type values (llama.cpp's llama_token_type).
CONTROL, USER_DEFINED = 3, 4
# transformers' "no limit" for model_max_length (int(1e30)).
NO_MAX_LENGTH = int(1e30)
_SPECIAL_IDS = {
    "bos_token": "tokenizer.ggml.bos_token_id",
    "eos_token": "tokenizer.ggml.eos_token_id",
    "pad_token": "tokenizer.ggml.padding_token_id",
    "unk_token": "tokenizer.ggml.unknown_token_id",
}


@lru_cache(maxsize=1)
def byte_spelling() -> dict[int, str]:
    """GPT-2's printable spelling of the 256 byte values: the printable Latin-1 bytes stand for
    themselves, the other 68 take the characters from U+0100 on, in byte order."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    spelling = {byte: chr(byte) for byte in printable}
    extra = (byte for byte in range(256) if byte not in spelling)
    spelling.update({byte: chr(0x100 + n) for n, byte in enumerate(extra)})
    return spelling


def _spelled(token: str, alphabet: frozenset[str]) -> str:
    """A vocabulary entry in the byte alphabet (an entry outside it is spelled from its UTF-8 bytes)."""
    if set(token) <= alphabet:
        return token
    spelling = byte_spelling()
    return "".join(spelling[byte] for byte in token.encode("utf-8"))


def tokenizer(gguf: GGUFFile) -> Any:
    """The ``tokenizers.Tokenizer`` of the file (save it with ``.save(path)`` as ``tokenizer.json``)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

    meta = gguf.metadata
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise GGUFError(f"{gguf.path}: tokenizer {meta.get('tokenizer.ggml.model')!r} is not byte-level BPE ('gpt2')")
    tokens: list[str] = meta["tokenizer.ggml.tokens"]
    kinds: list[int] = meta.get("tokenizer.ggml.token_type") or []
    alphabet = frozenset(byte_spelling().values())
    vocab = {_spelled(token, alphabet): index for index, token in enumerate(tokens)}
    merges = [tuple(merge.split(" ")) for merge in meta.get("tokenizer.ggml.merges", [])]

    bpe = Tokenizer(
        models.BPE(vocab=vocab, merges=merges, continuing_subword_prefix="", end_of_word_suffix="", fuse_unk=False)
    )
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.post_processor = processors.TemplateProcessing(single="$A:0", pair="$A:0 $B:1", special_tokens=[])
    # A control token outside the byte alphabet is a mislabel of llama.cpp's: adding it would grow
    # the vocabulary past the model's.
    control = [t for t, kind in zip(tokens, kinds) if kind == CONTROL and set(t) <= alphabet]
    bpe.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in control])
    user = [t for t, kind in zip(tokens, kinds) if kind == USER_DEFINED and t in vocab]
    bpe.add_tokens([AddedToken(t, normalized=False, special=False) for t in user])
    return bpe


def tokenizer_config(gguf: GGUFFile) -> dict[str, Any]:
    """The ``tokenizer_config.json`` (transformers 5): the special tokens by text, no length limit."""
    tokens = gguf.metadata["tokenizer.ggml.tokens"]
    special = {name: tokens[gguf.metadata[key]] for name, key in _SPECIAL_IDS.items() if key in gguf.metadata}
    return {
        "backend": "tokenizers",
        **special,
        "model_max_length": NO_MAX_LENGTH,
        "tokenizer_class": "TokenizersBackend",
    }


def chat_template(gguf: GGUFFile) -> str | None:
    """The Jinja chat template the file carries, if any."""
    return gguf.metadata.get("tokenizer.chat_template")
