"""GGUFFile, our view of gguf-py's reader: small files written here with ``gguf.GGUFWriter``
(every metadata type, string arrays, a custom alignment, each tensor type the embedded models
use) read back as plain metadata values and float32 arrays in numpy's order, and bad files
refused with GGUFError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter
from gguf.quants import dequantize, quantize

from uta_tasks.embedded.gguf_file import GGUFError, GGUFFile

STRINGS = ["Ġthe", "", "<|im_end|>", "日本語 ✓", "a b", "\n\t"]
# key -> (value written, value read back)
SCALARS = {
    "t.u8": ("add_uint8", 200),
    "t.i8": ("add_int8", -5),
    "t.u16": ("add_uint16", 65000),
    "t.i16": ("add_int16", -30000),
    "t.u32": ("add_uint32", 4_000_000_000),
    "t.i32": ("add_int32", -2_000_000_000),
    "t.u64": ("add_uint64", 2**40),
    "t.i64": ("add_int64", -(2**40)),
    "t.f64": ("add_float64", 0.1),
    "t.true": ("add_bool", True),
    "t.false": ("add_bool", False),
    "t.str": ("add_string", "héllo ✓"),
}
# name -> (numpy shape, ggml type)
TENSORS = {
    "norm.weight": ((64,), GGMLQuantizationType.F32),
    "f32.weight": ((3, 64), GGMLQuantizationType.F32),
    "f16.weight": ((3, 64), GGMLQuantizationType.F16),
    "bf16.weight": ((2, 32), GGMLQuantizationType.BF16),
    "q4_0.weight": ((4, 64), GGMLQuantizationType.Q4_0),
    "q4_1.weight": ((5, 96), GGMLQuantizationType.Q4_1),
    "q8_0.weight": ((2, 3, 32), GGMLQuantizationType.Q8_0),
}


def _values(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def write_gguf(path: Path, alignment: int | None = 64) -> Path:
    """A GGUF with every metadata type and the tensors of :data:`TENSORS`."""
    writer = GGUFWriter(path, "llama")
    if alignment is not None:
        writer.add_custom_alignment(alignment)
    for key, (method, value) in SCALARS.items():
        getattr(writer, method)(key, value)
    writer.add_float32("t.f32", 0.1)
    writer.add_array("t.strings", STRINGS)
    writer.add_key_value("t.ints", [1, -2, 3], GGUFValueType.ARRAY, sub_type=GGUFValueType.INT32)
    writer.add_key_value("t.floats", [0.5, -1.25], GGUFValueType.ARRAY, sub_type=GGUFValueType.FLOAT32)
    for seed, (name, (shape, kind)) in enumerate(TENSORS.items()):
        values = _values(shape, seed)
        if kind == GGMLQuantizationType.F32:
            writer.add_tensor(name, values)
        elif kind == GGMLQuantizationType.F16:
            writer.add_tensor(name, values.astype(np.float16))
        else:
            writer.add_tensor(name, quantize(values, kind), raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.fixture(scope="module")
def gguf_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_gguf(tmp_path_factory.mktemp("gguf") / "small.gguf")


def test_metadata_of_every_type_reads_back(gguf_file: Path) -> None:
    with GGUFFile.open(gguf_file) as gguf:
        assert gguf.version == 3
        meta = gguf.metadata
    assert list(meta)[:2] == ["general.architecture", "general.alignment"]  # file order
    assert meta["general.architecture"] == "llama" and meta["general.alignment"] == 64
    for key, (_, value) in SCALARS.items():
        assert meta[key] == value and type(meta[key]) is type(value), key
    assert meta["t.f32"] == float(np.float32(0.1))
    assert meta["t.strings"] == STRINGS
    assert meta["t.ints"] == [1, -2, 3] and meta["t.floats"] == [0.5, -1.25]


def test_metadata_equals_gguf_py(gguf_file: Path) -> None:
    reader = GGUFReader(gguf_file)
    with GGUFFile.open(gguf_file) as gguf:
        expected = {field.name: field.contents() for field in reader.fields.values()}
        assert expected.pop("GGUF.version") == gguf.version
        assert expected.pop("GGUF.tensor_count") == len(gguf.tensors)
        assert expected.pop("GGUF.kv_count") == len(gguf.metadata)
        assert gguf.metadata == expected


def test_tensor_table_in_file_order_with_numpy_shapes(gguf_file: Path) -> None:
    with GGUFFile.open(gguf_file) as gguf:
        assert list(gguf.tensors) == list(TENSORS)
        for name, (shape, kind) in TENSORS.items():
            values = gguf.tensor(name)
            assert values.shape == shape and values.dtype == np.float32, name
            assert gguf.tensors[name].tensor_type == kind


def test_tensors_equal_gguf_py_bit_for_bit_and_the_written_values(gguf_file: Path) -> None:
    reader = GGUFReader(gguf_file)
    with GGUFFile.open(gguf_file) as gguf:
        for seed, tensor in enumerate(reader.tensors):
            ours = gguf.tensor(tensor.name)
            theirs = dequantize(tensor.data, tensor.tensor_type)
            assert ours.dtype == np.float32 and ours.shape == theirs.shape, tensor.name
            assert ours.tobytes() == theirs.astype(np.float32).tobytes(), tensor.name
            assert ours.flags.writeable and not np.may_share_memory(ours, tensor.data), tensor.name  # a copy
            written = _values(TENSORS[tensor.name][0], seed)
            if tensor.tensor_type == GGMLQuantizationType.F32:
                assert np.array_equal(ours, written)
            else:  # quantized: near the written values, in the same order (not transposed or shuffled)
                assert np.corrcoef(ours.ravel(), written.ravel())[0, 1] > 0.9, tensor.name


def test_default_alignment_is_32(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "default.gguf", alignment=None)
    with GGUFFile.open(path) as gguf:
        assert "general.alignment" not in gguf.metadata
        assert gguf.tensor("norm.weight").tobytes() == _values((64,), 0).tobytes()


def test_not_a_gguf_and_cut_files_are_refused(gguf_file: Path, tmp_path: Path) -> None:
    data = gguf_file.read_bytes()
    cases = {
        "magic.gguf": b"GGUF"[::-1] + data[4:],
        "version.gguf": data[:4] + (1).to_bytes(4, "little") + data[8:],
        "cut-header.gguf": data[:300],
        "empty.gguf": b"",
        "cut-data.gguf": data[:-100],
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(GGUFError, match=name):
            GGUFFile.open(tmp_path / name)
