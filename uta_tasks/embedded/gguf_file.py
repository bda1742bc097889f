"""Reading a GGUF file (llama.cpp's model format): its metadata, its tensor table, and each
tensor's values as a float32 numpy array.

The layout, all little-endian (versions 2 and 3; ggml's ``docs/gguf.md``)::

    "GGUF" | version u32 | tensor count u64 | key/value count u64
    key/value:    key (string) | value type u32 | value
    tensor info:  name (string) | dimension count u32 | dimensions u64 each | ggml type u32 | offset u64
    zero padding up to a multiple of ``general.alignment`` (32 by default), then the tensor data;
    each tensor's offset counts from the start of that data.

A string is its byte length (u64) and UTF-8 bytes; an array is its element type (u32), its length
(u64) and the elements. Dimensions are listed fastest-moving first (a matrix's row length first),
the reverse of numpy's shape.

Only the tensor types the embedded model and its likes use are dequantized here: F32, F16, BF16,
Q4_0, Q4_1 and Q8_0, with the same float32 arithmetic as gguf-py (so, bit for bit, the values
transformers loads).
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32

# Metadata value types: the fixed-size ones by their struct format; 8 is a string, 9 an array.
_SCALAR_FORMATS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9

# ggml tensor types read here (ggml.h's enum ggml_type) -> (values per block, bytes per block).
F32, F16, Q4_0, Q4_1, Q8_0, BF16 = 0, 1, 2, 3, 8, 30
BLOCKS = {F32: (1, 4), F16: (1, 2), BF16: (1, 2), Q4_0: (32, 18), Q4_1: (32, 20), Q8_0: (32, 34)}
TYPE_NAMES = {F32: "F32", F16: "F16", BF16: "BF16", Q4_0: "Q4_0", Q4_1: "Q4_1", Q8_0: "Q8_0"}


class GGUFError(ValueError):
    """The file is not a GGUF this reader understands (or is cut short)."""


@dataclass(frozen=True)
class TensorInfo:
    """One entry of the tensor table."""

    name: str
    dims: tuple[int, ...]  # ggml order: the row length first
    ggml_type: int
    offset: int  # from the start of the data section

    @property
    def shape(self) -> tuple[int, ...]:
        """The numpy shape of the values (``dims`` reversed)."""
        return self.dims[::-1]

    @property
    def nbytes(self) -> int:
        """How many bytes the tensor takes in the file."""
        per_block, block_bytes = BLOCKS[self.ggml_type]
        count = 1
        for dim in self.dims:
            count *= dim
        return count // per_block * block_bytes


@dataclass
class GGUFFile:
    """A GGUF file opened for reading; use it as a context manager (it holds a memory map).

    ``metadata`` maps each key to an int, float, bool, str or list of those, in file order;
    ``tensors`` maps each tensor name to its :class:`TensorInfo`, in file order.
    """

    path: Path
    version: int
    metadata: dict[str, Any]
    tensors: dict[str, TensorInfo]
    alignment: int
    data_offset: int
    _map: mmap.mmap = field(repr=False)

    @classmethod
    def open(cls, path: str | Path) -> GGUFFile:
        """Parse the header, metadata and tensor table of ``path`` (tensor data is read lazily)."""
        path = Path(path)
        with path.open("rb") as handle:
            if not path.stat().st_size:
                raise GGUFError(f"{path} is empty")
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            return _parse(path, mapped)
        except (struct.error, UnicodeDecodeError, IndexError) as exc:
            mapped.close()
            raise GGUFError(f"{path}: unreadable GGUF ({exc})") from exc
        except GGUFError:
            mapped.close()
            raise

    def close(self) -> None:
        """Release the memory map."""
        self._map.close()

    def __enter__(self) -> GGUFFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def raw(self, name: str) -> np.ndarray:
        """The bytes of tensor ``name`` as stored (a read-only ``uint8`` view of the map)."""
        info = self.tensors[name]
        start = self.data_offset + info.offset
        if start + info.nbytes > len(self._map):
            raise GGUFError(f"{self.path}: tensor {name} runs past the end of the file")
        return np.frombuffer(self._map, dtype=np.uint8, count=info.nbytes, offset=start)

    def tensor(self, name: str) -> np.ndarray:
        """The values of tensor ``name``: a new float32 array of shape ``TensorInfo.shape``."""
        info = self.tensors[name]
        values = _DEQUANTIZE[info.ggml_type](self.raw(name))
        return values.reshape(info.shape)


def _parse(path: Path, data: mmap.mmap) -> GGUFFile:
    reader = _Reader(data)
    if reader.take(4) != MAGIC:
        raise GGUFError(f"{path} is not a GGUF file (no 'GGUF' magic)")
    version = reader.scalar("I")
    if version not in VERSIONS:
        raise GGUFError(f"{path} is GGUF version {version}; this reader reads little-endian versions {VERSIONS}")
    tensor_count, kv_count = reader.scalar("Q"), reader.scalar("Q")
    metadata: dict[str, Any] = {}
    for _ in range(kv_count):
        key = reader.string()
        metadata[key] = reader.value(reader.scalar("I"))
    tensors: dict[str, TensorInfo] = {}
    for _ in range(tensor_count):
        name = reader.string()
        dims = reader.array_of("Q", reader.scalar("I"))
        ggml_type, offset = reader.scalar("I"), reader.scalar("Q")
        if ggml_type not in BLOCKS:
            raise GGUFError(
                f"{path}: tensor {name} has ggml type {ggml_type}, not one of {sorted(TYPE_NAMES.values())}"
            )
        if dims and dims[0] % BLOCKS[ggml_type][0]:
            raise GGUFError(f"{path}: tensor {name} has rows of {dims[0]}, not whole {TYPE_NAMES[ggml_type]} blocks")
        tensors[name] = TensorInfo(name, tuple(dims), ggml_type, offset)
    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0:
        raise GGUFError(f"{path}: general.alignment is {alignment!r}")
    data_offset = -(-reader.pos // alignment) * alignment
    return GGUFFile(path, version, metadata, tensors, alignment, data_offset, data)


class _Reader:
    """A cursor over the file's bytes."""

    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        self.pos = 0

    def take(self, count: int) -> bytes:
        end = self.pos + count
        if end > len(self.data):
            raise GGUFError("the file ends inside its header")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def scalar(self, fmt: str) -> Any:
        (value,) = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return value

    def array_of(self, fmt: str, count: int) -> list[Any]:
        values = list(struct.unpack_from(f"<{count}{fmt}", self.data, self.pos))
        self.pos += count * struct.calcsize(fmt)
        return values

    def string(self) -> str:
        return self.take(self.scalar("Q")).decode("utf-8")

    def value(self, kind: int) -> Any:
        if kind in _SCALAR_FORMATS:
            return self.scalar(_SCALAR_FORMATS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            element, count = self.scalar("I"), self.scalar("Q")
            if element in _SCALAR_FORMATS:
                return self.array_of(_SCALAR_FORMATS[element], count)
            return [self.value(element) for _ in range(count)]
        raise GGUFError(f"unknown metadata value type {kind} at byte {self.pos - 4}")


# Dequantization: flat stored bytes -> flat float32 values. A quantized block is a float16 scale
# d (Q4_1 also a float16 offset m) and 32 codes; Q4 packs two codes per byte, the low nibbles
# being the block's first 16 values and the high nibbles its last 16.


def _f32(raw: np.ndarray) -> np.ndarray:
    return raw.view("<f4").copy()


def _f16(raw: np.ndarray) -> np.ndarray:
    return raw.view("<f2").astype(np.float32)


def _bf16(raw: np.ndarray) -> np.ndarray:
    return (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)


def _blocks(raw: np.ndarray, ggml_type: int) -> tuple[np.ndarray, np.ndarray]:
    """``(blocks as rows of bytes, each block's scale d as float32 of shape (n, 1))``."""
    blocks = raw.reshape(-1, BLOCKS[ggml_type][1])
    return blocks, blocks[:, :2].copy().view("<f2").astype(np.float32)


def _nibbles(packed: np.ndarray) -> np.ndarray:
    """``(n, 16)`` packed bytes -> ``(n, 32)`` codes 0..15, low nibbles first."""
    return np.concatenate([packed & 0x0F, packed >> 4], axis=1)


def _q4_0(raw: np.ndarray) -> np.ndarray:
    blocks, d = _blocks(raw, Q4_0)
    codes = _nibbles(blocks[:, 2:18]).astype(np.int8) - np.int8(8)
    return (d * codes.astype(np.float32)).reshape(-1)


def _q4_1(raw: np.ndarray) -> np.ndarray:
    blocks, d = _blocks(raw, Q4_1)
    m = blocks[:, 2:4].copy().view("<f2").astype(np.float32)
    return (d * _nibbles(blocks[:, 4:20]).astype(np.float32) + m).reshape(-1)


def _q8_0(raw: np.ndarray) -> np.ndarray:
    blocks, d = _blocks(raw, Q8_0)
    return (blocks[:, 2:].view(np.int8).astype(np.float32) * d).reshape(-1)


_DEQUANTIZE: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    F32: _f32,
    F16: _f16,
    BF16: _bf16,
    Q4_0: _q4_0,
    Q4_1: _q4_1,
    Q8_0: _q8_0,
}
