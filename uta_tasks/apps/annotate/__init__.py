"""Blinded human annotation of generated user turns (the paper's Fig. 6), served locally.

- :mod:`.packet` draws a seeded sample stratified by task, model and judge label;
- :mod:`.db` keeps the packet and every answer in a local sqlite file;
- :mod:`.server` serves the page on 127.0.0.1, showing only the context and the
  candidate user turn;
- :mod:`.access` issues per-annotator invite links and checks them (required beyond 127.0.0.1);
- :mod:`.cli` is ``uta-annotate serve`` / ``invite`` / ``export``.
"""

from __future__ import annotations

from .db import AnnotationDB, AnnotationError
from .packet import PacketItem, draw_packet
from .server import AnnotationServer

__all__ = ["AnnotationDB", "AnnotationError", "AnnotationServer", "PacketItem", "draw_packet"]
