"""The fenced commands of the user manual (``README.md``, ``docs/*.md``; not ``docs/dev/``), read
as a shell reads them, and what each one needs installed.

A command is a list of words after ``\\`` line continuations are joined, comments dropped,
``$VAR`` replaced by an example value, and ``;``, ``&&``, ``|`` and a ``for`` loop split into
their commands. An ``...`` word (an elided part) is dropped; ``VAR=value`` words before a
command are its environment.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console"})
# Example values of the variables the pages use.
EXAMPLE_VALUES = {"MODEL": "org/model", "M": "Qwen/Qwen3.5-9B", "T": "0.7", "BIG_MODEL": "org/big-model",
                  "JUDGE": '{"judge_model": "gpt-5.4-mini"}', "OPENAI_API_KEY": "sk-example"}
SPLIT = frozenset({";", "&&", "||", "|"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Command:
    """One command of a page.

    Attributes:
        page: the page, relative to the repository.
        line: the line where its fenced block opens.
        words: the program and its arguments.
    """

    page: str
    line: int
    words: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}: {shlex.join(self.words)}"


def user_pages() -> list[Path]:
    """The pages of the user manual: the README and ``docs/*.md`` (``docs/dev/`` is the developers')."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _drop_comments(text: str) -> str:
    """The text without its shell comments (an unquoted ``#`` at a word's start, to the line's end)."""
    out, quote, i = [], "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _value(word: str) -> str:
    return re.sub(r"\$(\w+)", lambda m: EXAMPLE_VALUES.get(m.group(1), m.group(0)), word)


def _commands_of_block(text: str) -> list[list[str]]:
    text = re.sub(r"\$\{(\w+)#[^}]*\}", "model", re.sub(r"\\\n\s*", " ", text))
    lexer = shlex.shlex(_drop_comments(text), posix=True, punctuation_chars=";&|\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    out: list[list[str]] = [[]]
    for word in lexer:
        if word in SPLIT or set(word) == {"\n"}:
            out.append([])
        else:
            out[-1].append(_value(word))
    commands = []
    for cmd in out:
        if cmd[:1] == ["do"]:
            cmd = cmd[1:]
        if not cmd or cmd[0] in ("for", "done"):
            continue
        while cmd and ASSIGNMENT.match(cmd[0]):
            cmd = cmd[1:]
        if cmd[:1] == ["export"]:
            continue
        cmd = [w for w in cmd if w != "..."]
        if cmd:
            commands.append(cmd)
    return commands


def commands(page: Path) -> list[Command]:
    """Every command of the page's fenced shell blocks (a block of output, a table say, has none)."""
    out = []
    for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
        if token.type != "fence" or token.info.strip() not in SHELL_FENCES:
            continue
        if token.content.lstrip().startswith("|"):
            continue  # a results table as printed
        line = (token.map or (0, 0))[0] + 1
        out.extend(Command(str(page.relative_to(ROOT)), line, tuple(c)) for c in _commands_of_block(token.content))
    return out


def extras_needed(cmd: Command) -> set[str]:
    """The uta-tasks extras a command needs beyond the plain install."""
    words = cmd.words
    program = words[0]
    need: set[str] = set()
    if program == "vllm":
        need.add("vllm")
    if program in ("uta-eval", "lm_eval") and "--plan" not in words:
        pairs = dict(zip(words, words[1:]))
        model = pairs.get("--model")
        if model in ("vllm", "hf"):
            need.add(model)
        if "tokenizer_backend=huggingface" in pairs.get("--model_args", ""):
            need.add("hf")  # transformers, for the model's own tokenizer
        tasks = set(pairs.get("--tasks", "").split(","))
        if "uta" in tasks or any("ifbench" in t for t in tasks):
            need.add("ifbench")
    return need


def names_extra(text: str, extra: str) -> bool:
    """Whether a page names the install of an extra: in a ``pip install`` line's brackets, or as
    "the `X` extra" / "the `X` and `Y` extras"."""
    in_brackets = re.search(rf"\[(?:[a-z-]+,)*{extra}(?:,[a-z-]+)*\]", text)
    in_words = re.search(rf"`{extra}`(?:\s+(?:and|or)\s+`[a-z-]+`)?\s+extras?\b", text)
    other_first = re.search(rf"`[a-z-]+`\s+(?:and|or)\s+`{extra}`\s+extras\b", text)
    return bool(in_brackets or in_words or other_first)
