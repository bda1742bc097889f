"""A task's logged docs on disk, read one at a time in doc order (:class:`DocStore`): what
``uta-rejudge`` holds instead of every document.

A samples file that lm-eval wrote (docs in doc order) is its own store: each pass reads it
again, a line at a time. The docs a tool changes (new verdicts, new per-doc values) go to a
temporary spool file (:class:`DocSpool`), deleted with the store that reads it. A file whose
docs are out of doc order is the one case held in memory (sorted, as
:func:`uta_tasks.runs.samples.read_samples` reads it).
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

from uta_tasks.runs.atomic import encode
from uta_tasks.runs.facts import SampleFacts
from uta_tasks.runs.jsonio import dumps_strict
from uta_tasks.runs.samples import DocSample, iter_samples, read_samples
from uta_tasks.schema import output
from uta_tasks.schema.probe import FilteredRecord


class DocStore(Sequence[DocSample]):
    """A task's docs in doc order, each whole line kept, read from disk on each pass.

    Args:
        path: the samples file (or spool) holding them in doc order.
        count: how many docs it holds.
        held: the docs, when they are held in memory instead (a file out of doc order).
    """

    def __init__(self, path: Path, count: int, held: list[DocSample] | None = None) -> None:
        self.path, self._count, self._held = path, count, held

    @classmethod
    def read(cls, path: Path) -> tuple[DocStore, SampleFacts]:
        """The docs of a samples file and what they show, in one pass a doc at a time.

        Args:
            path: a ``samples_<task>_<date>.jsonl`` file of a uta task.

        Raises:
            ValueError: a line is not a logged uta sample (the message names file and line).
        """
        facts, last, ordered = SampleFacts(), -1, True
        for doc in iter_samples(path, whole_lines=False):
            facts.add(doc)
            ordered, last = ordered and doc.doc_id > last, doc.doc_id
        held = None if ordered else read_samples(path)
        return cls(path, facts.docs, held), facts

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[DocSample]:
        return iter(self._held) if self._held is not None else iter_samples(self.path)

    @overload
    def __getitem__(self, index: int) -> DocSample: ...

    @overload
    def __getitem__(self, index: slice) -> list[DocSample]: ...

    def __getitem__(self, index: int | slice) -> DocSample | list[DocSample]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        position = index + self._count if index < 0 else index
        if not 0 <= position < self._count:
            raise IndexError(f"{self.path}: doc {index} of {self._count}")
        for i, doc in enumerate(self):
            if i == position:
                return doc
        raise IndexError(f"{self.path}: doc {index} of {self._count}")


class DocSpool:
    """Docs written to a temporary file as they come (each line with its current records),
    read back as a :class:`DocStore`; the file goes when that store does."""

    def __init__(self) -> None:
        handle, name = tempfile.mkstemp(prefix="uta-docs-", suffix=".jsonl")
        self.path, self.count = Path(name), 0
        self._stream = os.fdopen(handle, "wb")

    def add(self, doc: DocSample) -> None:
        """Append a doc: its line with its records as they are now (``resps``, and
        ``filtered_resps`` saying where they are, as lm-eval logs record version 4).

        Args:
            doc: the doc (its ``line`` read whole).
        """
        texts = [record.to_json() for record in doc.records]
        line = {**doc.line, output.SAMPLE_RESPS: [[str(FilteredRecord(t, i)) for i, t in enumerate(texts)]],
                output.SAMPLE_RAW_RESPS: [texts]}
        self._stream.write(encode(dumps_strict(line, indent=None) + "\n"))
        self.count += 1

    def store(self) -> DocStore:
        """The docs written, in the order they were added; the file is deleted with the store."""
        self._stream.close()
        store = DocStore(self.path, self.count)
        weakref.finalize(store, _remove, self.path)
        return store


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
