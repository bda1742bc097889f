"""The local annotation database (sqlite): the packet and every answer, saved at once.

Tables:

- ``packet_meta``: how the packet was drawn (seed, size, allocation, sources).
- ``packet_items``: what annotators see: item id, context turns, candidate user turn.
- ``packet_strata``: task, model and judge label per item, for analysis only; the web
  server never reads this table.
- ``annotations``: one row per (annotator, item): label and genuine (either may still
  be empty), written by every click or key press.
- ``invites``: per annotator, the SHA-256 digest of their access secret (never the
  secret itself; see :mod:`.access`).

Text: a model's output may hold anything, lone surrogates included, which sqlite (UTF-8)
cannot store as TEXT. Packets record ``text_codec: json`` in ``packet_meta``, and then
every text from a run (context, user turn, task, model) is stored as its JSON string
literal in ASCII (``"\\ud800"`` stays six characters), so the text is kept exactly and
decoded back on reading; packets from earlier versions (no ``text_codec``) hold plain
TEXT and are read as such.

Saving: each answer is one ``BEGIN IMMEDIATE`` transaction that reads the stored answer
and writes it back with the change, so concurrent saves for one item never lose a field
(connection, WAL and transactions: :mod:`uta_tasks.stores.sqlite`).

The order of the packet is shuffled per annotator, seeded by the packet seed and the
annotator's name, so it is stable across sessions and differs between annotators.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.judge import LABELS
from uta_tasks.stores.sqlite import SqliteStore

from .packet import PacketItem

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS packet_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS packet_items (
        item_id TEXT PRIMARY KEY, rank INTEGER NOT NULL, context TEXT NOT NULL, user_turn TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS packet_strata (
        item_id TEXT PRIMARY KEY, task TEXT NOT NULL, model TEXT NOT NULL, judge_label TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS annotations (
        annotator TEXT NOT NULL, item_id TEXT NOT NULL, label TEXT, genuine INTEGER, updated REAL NOT NULL,
        PRIMARY KEY (annotator, item_id))""",
    "CREATE TABLE IF NOT EXISTS invites (annotator TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL UNIQUE)",
)
TEXT_CODEC = "json"
_BUSY_TIMEOUT_S = 30.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,63}$")


class AnnotationError(ValueError):
    """A request or command the annotation database cannot serve; the message says why."""


@dataclass(frozen=True)
class Shown:
    """What an annotator sees at one position (blinded: no model, task, verdict).

    Attributes:
        position: 0-based position in this annotator's order.
        total: Packet size.
        context: ``(role, content)`` turns.
        user_turn: The candidate user turn.
        label: The annotator's label so far, or None.
        genuine: The annotator's genuine decision so far, or None.
    """

    position: int
    total: int
    context: tuple[tuple[str, str], ...]
    user_turn: str
    label: str | None
    genuine: bool | None


def check_annotator(name: str) -> str:
    """Validate an annotator name (1-64 letters, digits, space, ``_ . -``) and return its one
    normal form, the form every route and query uses: surrounding spaces removed, case kept
    (the name seeds the annotator's item order and keys the answers already saved, so
    ``Carol`` and ``carol`` stay two annotators).

    Args:
        name: The name as given (``"carol "``, ``carol%20`` decoded).
    """
    cleaned = name.strip()
    if not _NAME.match(cleaned):
        raise AnnotationError(
            f"annotator name {name!r}: use 1-64 letters, digits, spaces, '_', '.' or '-', starting with a letter "
            "or digit"
        )
    return cleaned


class AnnotationDB(SqliteStore):
    """One connection to an annotation database (open one per thread).

    Args:
        path: The sqlite file (created with its parent folders).
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, _SCHEMA, _BUSY_TIMEOUT_S)

    def meta(self) -> dict[str, Any]:
        """How the packet was drawn (empty when there is no packet yet)."""
        return {key: json.loads(value) for key, value in self._conn.execute("SELECT key, value FROM packet_meta")}

    def create_packet(self, items: Sequence[PacketItem], meta: dict[str, Any]) -> None:
        """Store a new packet (one transaction).

        Args:
            items: The packet, in sampling order.
            meta: How it was drawn; must hold ``seed``.

        Raises:
            AnnotationError: The database already holds a packet.
        """
        if self.meta():
            raise AnnotationError(f"{self.path} already holds a packet: use it, or give another --db")
        meta = {**meta, "text_codec": TEXT_CODEC}
        with self.transaction() as conn:
            conn.executemany("INSERT INTO packet_meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])
            conn.executemany(
                "INSERT INTO packet_items VALUES (?, ?, ?, ?)",
                [(_ascii(it.item_id), rank, json.dumps([list(turn) for turn in it.context]), json.dumps(it.user_turn))
                 for rank, it in enumerate(items)],
            )
            conn.executemany(
                "INSERT INTO packet_strata VALUES (?, ?, ?, ?)",
                [(_ascii(it.item_id), json.dumps(it.task), json.dumps(it.model), it.judge_label) for it in items],
            )

    def size(self) -> int:
        """Number of items in the packet."""
        return int(self._conn.execute("SELECT COUNT(*) FROM packet_items").fetchone()[0])

    def order(self, annotator: str) -> list[str]:
        """The item ids in this annotator's order.

        Args:
            annotator: The annotator's name.
        """
        ids = [row[0] for row in self._conn.execute("SELECT item_id FROM packet_items ORDER BY rank")]
        seed = self.meta().get("seed", 0)
        digest = hashlib.sha256(f"{seed}\0{check_annotator(annotator)}".encode()).hexdigest()
        random.Random(int(digest[:16], 16)).shuffle(ids)
        return ids

    def shown(self, annotator: str, position: int) -> Shown:
        """The item at a position of an annotator's order, with their answer so far.

        Args:
            annotator: The annotator's name.
            position: 0-based.
        """
        name = check_annotator(annotator)
        order = self.order(name)
        if not 0 <= position < len(order):
            raise AnnotationError(f"position {position} is outside the packet (0-{len(order) - 1})")
        item_id = order[position]
        context, user_turn = self._conn.execute(
            "SELECT context, user_turn FROM packet_items WHERE item_id = ?", (item_id,)
        ).fetchone()
        label, genuine = self._answer(name, item_id)
        turns = tuple((str(role), str(content)) for role, content in json.loads(context))
        if self.meta().get("text_codec") == TEXT_CODEC:
            user_turn = json.loads(user_turn)
        return Shown(position, len(order), turns, str(user_turn), label, genuine)

    def answer(self, annotator: str, position: int, changes: dict[str, Any]) -> tuple[str | None, bool | None]:
        """Save a label and/or genuine decision at once.

        Args:
            annotator: The annotator's name.
            position: 0-based position in their order.
            changes: ``label`` (one of the eight, or None to clear) and/or ``genuine``
                (bool, or None to clear).

        Returns:
            The stored ``(label, genuine)``.
        """
        unknown = sorted(set(changes) - {"label", "genuine"})
        if unknown or not changes:
            raise AnnotationError(f"an answer holds 'label' and/or 'genuine', got {sorted(changes)}")
        if "label" in changes and changes["label"] is not None and changes["label"] not in LABELS:
            raise AnnotationError(f"label {changes['label']!r} is not one of {list(LABELS)}")
        if "genuine" in changes and changes["genuine"] is not None and type(changes["genuine"]) is not bool:
            raise AnnotationError(f"genuine must be true, false or null, got {changes['genuine']!r}")
        if type(position) is not int:
            raise AnnotationError(f"position must be an integer, got {position!r}")
        order = self.order(annotator)
        if not 0 <= position < len(order):
            raise AnnotationError(f"position {position} is outside the packet (0-{len(order) - 1})")
        name, item_id = check_annotator(annotator), order[position]
        with self.transaction() as conn:  # read and write in one transaction: no lost field
            label, genuine = self._answer(name, item_id)
            label = changes.get("label", label)
            genuine = changes.get("genuine", genuine)
            conn.execute(
                "INSERT OR REPLACE INTO annotations VALUES (?, ?, ?, ?, ?)",
                (name, item_id, label, None if genuine is None else int(genuine), time.time()),
            )
        return label, genuine

    def progress(self, annotator: str) -> tuple[int, int | None]:
        """``(complete answers, first position without a complete answer or None)``.

        Args:
            annotator: The annotator's name.
        """
        name = check_annotator(annotator)
        complete = {
            row[0]
            for row in self._conn.execute(
                "SELECT item_id FROM annotations WHERE annotator = ? AND label IS NOT NULL AND genuine IS NOT NULL",
                (name,),
            )
        }
        order = self.order(name)
        first = next((index for index, item_id in enumerate(order) if item_id not in complete), None)
        return len(complete & set(order)), first

    def export(self, annotator: str | None = None) -> tuple[list[dict[str, Any]], int]:
        """Complete answers as export rows, and the number of incomplete ones left out.

        Args:
            annotator: Only this annotator (default: all).

        Returns:
            Rows ``{"item_id", "annotator", "label", "genuine"}`` sorted by annotator and
            item id, and the count of answers missing label or genuine.
        """
        query = "SELECT annotator, item_id, label, genuine FROM annotations"
        args: tuple[str, ...] = ()
        if annotator is not None:
            query, args = query + " WHERE annotator = ?", (check_annotator(annotator),)
        rows, incomplete = [], 0
        for name, item_id, label, genuine in self._conn.execute(query + " ORDER BY annotator, item_id", args):
            if label is None or genuine is None:
                incomplete += 1
                continue
            rows.append({"item_id": item_id, "annotator": name, "label": label, "genuine": bool(genuine)})
        return rows, incomplete

    def set_invite(self, annotator: str, secret_sha256: str) -> None:
        """Store (or replace) the digest of an annotator's access secret.

        Args:
            annotator: A checked annotator name.
            secret_sha256: The digest (see :func:`uta_tasks.apps.annotate.access.digest`).
        """
        self._conn.execute("INSERT OR REPLACE INTO invites VALUES (?, ?)", (annotator, secret_sha256))

    def invited(self, secret_sha256: str) -> str | None:
        """The annotator whose secret has this digest, or None.

        Args:
            secret_sha256: The digest of the secret a request carried.
        """
        row = self._conn.execute("SELECT annotator FROM invites WHERE secret_sha256 = ?", (secret_sha256,)).fetchone()
        return None if row is None else str(row[0])

    def invite_count(self) -> int:
        """Annotators invited so far."""
        return int(self._conn.execute("SELECT COUNT(*) FROM invites").fetchone()[0])

    def _answer(self, annotator: str, item_id: str) -> tuple[str | None, bool | None]:
        row = self._conn.execute(
            "SELECT label, genuine FROM annotations WHERE annotator = ? AND item_id = ?", (annotator, item_id)
        ).fetchone()
        if row is None:
            return None, None
        return row[0], None if row[1] is None else bool(row[1])


def _ascii(text: str) -> str:
    """An id as stored: ASCII ids unchanged, anything else as its JSON literal (never a crash)."""
    return text if text.isascii() else json.dumps(text)
