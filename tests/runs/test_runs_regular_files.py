"""The readers open only regular files and bound what they read (not what stat says), read
gzipped and ``.json``-named JSON Lines, and name the file in every refusal."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from uta_tasks.apps.gate.cli import main as gate_main
from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.apps.gate.rules import load_rules
from uta_tasks.runs import jsonio
from uta_tasks.runs.calibration import read_calibration
from uta_tasks.runs.regular_file import UnreadableFileError, read_bounded
from uta_tasks.runs.retest_file import read_retest

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@needs_fifo
@pytest.mark.parametrize("reader", [jsonio.read_json, lambda p: list(jsonio.read_jsonl(p)), read_calibration,
                                    read_retest, lambda p: read_bounded(p, 10)])
def test_a_fifo_without_a_writer_is_refused_at_once_naming_it(tmp_path: Path, reader) -> None:
    fifo = tmp_path / "results_x.json"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=rf"{fifo}.* is a named pipe \(FIFO\), not a regular file"):
        reader(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_a_device_is_refused_with_where_it_leads(tmp_path: Path) -> None:
    link = tmp_path / "samples_uta_x_2025.jsonl"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnreadableFileError, match=rf"^{link} \(a link to /dev/zero\) is a character device"):
        list(jsonio.read_jsonl(link))


def test_a_folder_and_a_link_loop_are_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(UnreadableFileError, match="dir.json is a folder, not a regular file"):
        jsonio.read_json(tmp_path / "dir.json")
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    with pytest.raises(UnreadableFileError, match="a.json is a symbolic link that loops"):
        jsonio.read_json(tmp_path / "a.json")


def test_reading_stops_at_the_bound_whatever_the_size(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 11)
    assert read_bounded(path, 11) == b"x" * 11
    with pytest.raises(UnreadableFileError, match="holds more than 10 bytes"):
        read_bounded(path, 10)


def test_gzipped_lines_are_read_and_bounded_decompressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "samples_uta_x_2025.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"doc_id": 0}\n\n{"doc_id": 1}\n'))
    assert [row for _, row in jsonio.read_jsonl(path)] == [{"doc_id": 0}, {"doc_id": 1}]
    monkeypatch.setattr(jsonio, "MAX_BYTES", 64)
    path.write_bytes(gzip.compress(b'{"doc_id": 0}\n{"long": "' + b"x" * 10_000 + b'"}\n'))  # 10 KB from ~50 bytes
    with pytest.raises(ValueError, match=rf"^{path}:2 is longer than 64 bytes$"):
        list(jsonio.read_jsonl(path))
    monkeypatch.setattr(jsonio, "MAX_GZIP_BYTES", 100)
    path.write_bytes(gzip.compress(b"\n" * 1000))
    with pytest.raises(UnreadableFileError, match="decompresses to more than 100 bytes"):
        list(jsonio.read_jsonl(path))


def test_a_damaged_gzip_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "samples_uta_x_2025.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"doc_id": 0}\n' * 100)[:40])
    with pytest.raises(UnreadableFileError, match=rf"^{path} is not a whole gzip file"):
        list(jsonio.read_jsonl(path))
    path.write_bytes(b"not gzip at all\n")
    with pytest.raises(UnreadableFileError, match=rf"^{path} cannot be read"):
        list(jsonio.read_jsonl(path))


def test_a_json_named_file_of_one_object_per_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "samples_uta_x_2025.json"
    path.write_text('{"doc_id": 0}\n{"doc_id": 1}\n')
    assert [where for where, _ in jsonio.read_jsonl(path)] == [f"{path}:1", f"{path}:2"]


@needs_fifo
def test_a_fifo_as_rules_file_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "gate.yaml"
    os.mkfifo(fifo)
    with pytest.raises(GateInputError, match="is a named pipe"):
        load_rules(fifo)


def test_the_gate_writes_its_junit_file_when_the_command_line_is_refused(tmp_path: Path) -> None:
    junit = tmp_path / "gate.xml"
    with pytest.raises(SystemExit) as stopped:
        gate_main([str(tmp_path), "--rules", "r.yaml", "--junit", str(junit), "--no-such-option"])
    assert stopped.value.code == 2
    assert "command line is not valid" in junit.read_text()
    junit.unlink()
    assert gate_main([str(tmp_path), "--junit", str(junit)]) == 2  # neither --rules nor --paper
    assert "give either --rules FILE or --paper" in junit.read_text()
