"""Text from a run (model outputs, model, task and benchmark names) made safe to display.

The rule: keep the text, escape it for display, never crash.

- :func:`display_text` turns what would corrupt or spoof a page, a terminal or an XML file
  into visible ``\\uXXXX`` text: C0/C1 control characters (NUL, ESC...; tab and newline
  stay), bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069),
  lone surrogates and the XML non-characters U+FFFE/U+FFFF. Every rendered output
  (report.html, report.md, SVG, JUnit, the gate's text and Markdown) goes through it as a
  whole after its markup is escaped, which leaves the markup intact (only those characters
  change, into ASCII).
- :func:`markdown_text` escapes a name for CommonMark (inline HTML, emphasis, links, table
  pipes): ``<img src=x onerror=...>`` renders as text.
- :func:`code_span` puts a name in a Markdown code span that no backtick in it can close.
- :func:`bounded_text` cuts a text shown in a page (the report's sample browser, the
  annotation page's items) at :data:`MAX_SHOWN_CHARS` characters, with a visible note of
  how much was cut; the full text stays in the samples file.

Markup escaping itself stays with each format: jinja2's ``|e`` in HTML,
``xml.sax.saxutils.escape`` in SVG, ElementTree in JUnit.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)
# Inline HTML and autolinks (<), entities (&, as &amp;), links and images (a ] followed by
# "(", "[" or ":"; an interval such as [2.8, 30.1] stays readable), code spans, emphasis (*,
# and _ at a word's edge: snake_case names stay readable), strikethrough, table cells (|)
# and the escape itself.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*<|~]|\](?=[(\[:])|(?<!\w)_|_(?!\w))")


def display_text(text: object) -> str:
    """``text`` with control, bidi-override and surrogate code points as visible ``\\uXXXX``.

    Args:
        text: any value (``str()`` of it).
    """
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", str(text))


def markdown_text(text: object) -> str:
    """A name as inert CommonMark text on one line (no HTML, emphasis, link or table cell break).

    Args:
        text: any value (``str()`` of it).
    """
    flat = display_text(text).replace("\r", " ").replace("\n", " ").replace("&", "&amp;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", flat)


def code_span(text: object) -> str:
    """A name as a Markdown code span (rendered literally, never as HTML).

    Args:
        text: any value (``str()`` of it).
    """
    flat = display_text(text).replace("\r", " ").replace("\n", " ").replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    return f"{fence} {flat} {fence}"


#: Characters of one text (a question, an answer, a user turn, a judge prompt) shown in the
#: report or on the annotation page; the rest is cut, with a note (:func:`bounded_text`).
MAX_SHOWN_CHARS = 20_000


def bounded_text(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """``text`` as shown in a page: whole up to ``limit`` characters, else its first ``limit``
    characters and a note saying how many were cut and where the full text is.

    Args:
        text: the text.
        limit: characters kept (default :data:`MAX_SHOWN_CHARS`).
    """
    if len(text) <= limit:
        return text
    return (f"{text[:limit]}\n\n[... {len(text) - limit:,} more characters cut here: this page shows the first "
            f"{limit:,}; the full text is in the run's samples file]")
