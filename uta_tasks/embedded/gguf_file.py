"""A GGUF file (llama.cpp's model format) read through gguf-py: its metadata as Python values,
its tensor table, and each tensor's values as a float32 numpy array.

gguf-py (``gguf.GGUFReader`` and ``gguf.quants.dequantize``, the reader and dequantization
llama.cpp maintains, which transformers' own GGUF loader also uses) does the reading; this
module only turns its fields into plain values and its failures into :class:`GGUFError`, so
that :mod:`.llama_gguf`, :mod:`.gguf_tokenizer` and :mod:`.smollm2` need no gguf-py types.

Speed: ``GGUFReader`` parses every element of the metadata arrays (SmolLM2's 49,152 tokens and
48,900 merges) as slices of its ``np.memmap``, and each memmap slice runs numpy's Python-level
``memmap.__array_finalize__``. :class:`_Reader` hands the reader a plain ``ndarray`` view of the
same map instead (no copy): opening SmolLM2's GGUF takes 1.5-1.8 s instead of 5.4-5.7 s, measured
on the 2-core development machine under load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
from gguf import GGUFReader, ReaderTensor
from gguf.quants import dequantize

# GGUFReader lists the header's counts and version among the fields; they are not metadata.
_HEADER_FIELDS = "GGUF."


class GGUFError(ValueError):
    """The file is not a GGUF gguf-py reads (or is cut short)."""


class _Reader(GGUFReader):
    """``GGUFReader`` over a plain ``ndarray`` view of its memory map (see the module's docstring)."""

    @property  # type: ignore[override]  # gguf-py annotates it np.memmap; every use is an ndarray's
    def data(self) -> np.ndarray:
        return self._plain

    @data.setter
    def data(self, mapped: np.ndarray) -> None:
        self._plain = mapped.view(np.ndarray)


@dataclass
class GGUFFile:
    """A GGUF file opened for reading (a context manager, as the memory map it holds is released then).

    Attributes:
        path: the file.
        version: the GGUF version.
        metadata: each key's value (int, float, bool, str or a list of those), in file order.
        tensors: gguf-py's ``ReaderTensor`` of each tensor, by name, in file order.
    """

    path: Path
    version: int
    metadata: dict[str, Any]
    tensors: dict[str, ReaderTensor]

    @classmethod
    def open(cls, path: str | Path) -> GGUFFile:
        """Read the header, metadata and tensor table of ``path`` (tensor values are read when asked for).

        Raises:
            GGUFError: not a GGUF, a version gguf-py does not read, or a file cut short.
        """
        path = Path(path)
        try:
            reader = _Reader(path)
            fields = {name: field.contents() for name, field in reader.fields.items()}
        except (ValueError, IndexError, UnicodeDecodeError) as exc:
            raise GGUFError(f"{path}: unreadable GGUF ({exc})") from exc
        version = fields.pop(f"{_HEADER_FIELDS}version")
        metadata = {name: value for name, value in fields.items() if not name.startswith(_HEADER_FIELDS)}
        return cls(path, int(version), metadata, {tensor.name: tensor for tensor in reader.tensors})

    def close(self) -> None:
        """Forget the tensors (their memory map closes when no array of it is left)."""
        self.tensors = {}

    def __enter__(self) -> GGUFFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def tensor(self, name: str) -> np.ndarray:
        """The values of tensor ``name``: a new float32 array in numpy's order (the ggml dimensions reversed).

        Raises:
            GGUFError: a tensor type gguf-py cannot dequantize.
        """
        stored = self.tensors[name]
        try:
            values = dequantize(stored.data, stored.tensor_type)
        except NotImplementedError as exc:
            raise GGUFError(f"{self.path}: tensor {name} is {stored.tensor_type.name}, which gguf-py cannot "
                            f"dequantize ({exc})") from exc
        if np.may_share_memory(values, stored.data):  # F32 comes back as a view of the file
            values = values.copy()
        return values.astype(np.float32, copy=False)
