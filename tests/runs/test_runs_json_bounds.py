"""The run readers bound what they accept: nesting depth, bytes per file and per line, and
digits per number; beyond, a ValueError names the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from uta_tasks.runs import jsonio


def test_a_deeply_nested_results_file_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{\n  "results": {},\n  "x": ' + "[" * 100_000 + "]" * 100_000 + "\n}")
    with pytest.raises(ValueError, match=rf"^{path}, line 3, nests JSON more than 100 levels deep"):
        jsonio.read_json(path)


def test_nesting_just_below_the_recursion_limit_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("[" * 500 + "]" * 500)  # json reads it; the walkers behind it would not all cope
    with pytest.raises(ValueError, match="more than 100 levels"):
        jsonio.read_json(path)
    path.write_text("[" * 100 + "]" * 100)
    assert jsonio.read_json(path) is not None


def test_bad_lines_are_counted_and_the_first_is_named(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"[" * 5000 + b"]" * 5000 + b'\n{"n": ' + b"9" * 5000 + b"}\n{trunc\n")
    with pytest.raises(ValueError, match=rf"^{path}:2 nests JSON .* \(3 bad lines in all\)$"):
        list(jsonio.read_jsonl(path))


def test_a_huge_number_is_named_as_not_json(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text('{"n": ' + "9" * 5000 + "}\n")
    with pytest.raises(ValueError, match=rf"^{path}:1 is not valid JSON \(Exceeds the limit"):
        list(jsonio.read_jsonl(path))


def test_a_line_or_file_beyond_the_size_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonio, "MAX_BYTES", 64)
    path = tmp_path / "samples.jsonl"
    path.write_text('{"a": 1}\n{"long": "' + "x" * 200 + '"}\n{"b": 2}\n')
    with pytest.raises(ValueError, match=rf"^{path}:2 is longer than 64 bytes$"):
        list(jsonio.read_jsonl(path))
    whole = tmp_path / "results.json"
    whole.write_text('{"results": "' + "x" * 200 + '"}')
    with pytest.raises(ValueError, match=rf"^{whole} holds 215 bytes, more than the 64 this reads"):
        jsonio.read_json(whole)


def test_an_integer_beyond_a_floats_range_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text('{"judge_usage": {"calls": ' + "9" * 400 + "}}\n")
    with pytest.raises(ValueError, match=rf"^{path}:1 is not valid JSON \(a number of 400 digits"):
        list(jsonio.read_jsonl(path))
    path.write_text('{"calls": ' + "9" * 300 + "}\n")
    assert list(jsonio.read_jsonl(path))
