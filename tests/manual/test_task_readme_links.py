"""The task folder's README ships in the wheel (lm-eval shows it beside the tasks): each of its
links must work where it is installed, where the repository's ``docs/`` folder does not exist."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from markdown_it import MarkdownIt

PACKAGE = Path(__file__).resolve().parents[2] / "uta_tasks"
README = PACKAGE / "tasks" / "README.md"


def link_targets(text: str) -> list[str]:
    """Every link and image target of a Markdown text, as CommonMark reads it."""
    targets = []
    for token in MarkdownIt("commonmark").parse(text):
        for child in token.children or ():
            if child.type == "link_open":
                targets.append(str(child.attrs["href"]))
            elif child.type == "image":
                targets.append(str(child.attrs["src"]))
    return targets


def broken_once_installed(readme: Path, package: Path) -> list[str]:
    """The targets of ``readme`` that do not resolve inside the installed ``package``: a web
    address and an anchor work anywhere, a relative path only to a file the package ships."""
    broken = []
    for target in link_targets(readme.read_text(encoding="utf-8")):
        url = urlparse(target)
        if url.scheme in ("http", "https") or target.startswith("#"):
            continue
        resolved = (readme.parent / url.path).resolve()
        if url.scheme or not resolved.is_relative_to(package.resolve()) or not resolved.is_file():
            broken.append(target)
    return broken


def test_every_link_of_the_shipped_task_readme_works_once_installed():
    assert broken_once_installed(README, PACKAGE) == [], (
        f"{README} ships in the wheel: use absolute https:// addresses or text that stands alone")


def test_a_link_out_of_the_package_is_found(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "tasks").mkdir(parents=True)
    (package / "tasks" / "shipped.yaml").write_text("task: x\n")
    readme = package / "tasks" / "README.md"
    readme.write_text("[a](shipped.yaml) [b](../../docs/tasks.md) [c](https://example.org/x) [d](#citation) "
                      "![e](missing.svg)\n")
    assert broken_once_installed(readme, package) == ["../../docs/tasks.md", "missing.svg"]
