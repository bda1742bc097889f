"""A saved run full of hostile text (lone surrogates, NUL, invalid UTF-8 bytes, bidi
overrides, terminal escapes, a 1 MB turn, script and Markdown payloads, a hostile model
name and credentials in lm-eval's model_args) goes through uta-summary, uta-gate,
uta-report, uta-annotate, uta-agreement and uta-rejudge: every command succeeds, every
output renders the text as text, no credential is written, and a run that fails leaves
the earlier outputs whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from fault_server import MODEL, FaultConfig, FaultServer
from hostile_run import BIG, HOSTILE_NAME, PAYLOAD, SECRETS, hostile_run

import uta_tasks
from uta_tasks.apps.annotate import AnnotationDB, AnnotationServer
from uta_tasks.apps.annotate.cli import export, prepare_packet
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.templates.escape import MAX_SHOWN_CHARS


def _no_secret(*paths: Path) -> None:
    for path in paths:
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        for file in files:
            data = file.read_bytes()
            for secret in SECRETS:
                assert secret.encode() not in data, (file, secret)


def _plant(folder: Path, *names: str) -> dict[Path, bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    planted = {}
    for name in names:
        (folder / name).write_bytes(f"GOOD EARLIER {name}\n".encode())
        planted[folder / name] = (folder / name).read_bytes()
    return planted


def _run_limited(argv: list[str], limit: int) -> subprocess.CompletedProcess:
    """A command in a child whose files may not grow beyond ``limit`` bytes (a full disk, for real)."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    root = str(Path(uta_tasks.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-c", "import sys; from uta_tasks.apps.report.cli import main; "
                           "sys.exit(main(sys.argv[1:]))", *argv], capture_output=True, text=True, env=env,
                          preexec_fn=limited, timeout=600)


def test_hostile_text_survives_every_command(tmp_path: Path, judge_meta, capsys, caplog) -> None:
    from uta_tasks.apps.agreement.cli import main as agreement_main
    from uta_tasks.apps.gate.cli import main as gate_main
    from uta_tasks.apps.rejudge.cli import main as rejudge_main
    from uta_tasks.apps.report.cli import main as report_main
    from uta_tasks.apps.summary import main as summary_main

    runs = tmp_path / "runs"
    folder, written = hostile_run(runs, judge_meta())

    # uta-summary: the text kept (a lone surrogate as its JSON escape), no credential
    assert summary_main([str(runs)]) == 0
    summary_file = folder / "summary.json"
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    assert summary["provenance"]["model"] == HOSTILE_NAME
    assert "[REDACTED]" in summary["provenance"]["model_args"]
    _no_secret(summary_file)

    # uta-gate: text, JSON, JUnit (well-formed XML) and Markdown (no live HTML)
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump({"settings": {"min_judged": 1},
                                     "rules": ["uta_gsm8k: genuine_followup >= 0.0"]}))
    out = tmp_path / "gate"
    code = gate_main([str(runs / "org__model-a"), "--rules", str(rules), "--json", str(out / "g.json"),
                      "--junit", str(out / "g.xml"), "--markdown", str(out / "g.md")])
    assert code == 0
    junit = ET.parse(out / "g.xml").getroot()
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert props["model"].startswith(PAYLOAD) and "\\u202e" in props["model"] and "\\ud800" in props["model"]
    markdown = (out / "g.md").read_text(encoding="utf-8")
    assert _live_markup(markdown) == [] and "\u202e" not in markdown and "\x1b" not in markdown
    assert "\x1b" not in capsys.readouterr().out
    _no_secret(out)

    # uta-report: an earlier report stays whole when a run fails half-way (its files may not grow)
    report = tmp_path / "report"
    planted = _plant(report, "report.html", "report.md")
    failed = _run_limited([str(runs), "--output_path", str(report)], limit=20_000)
    assert failed.returncode != 0, failed.stdout
    assert {path: path.read_bytes() for path in planted} == planted
    assert not [p.name for p in report.iterdir() if p.name.startswith(".")]  # no temporary file left
    assert report_main([str(runs), "--output_path", str(report)]) == 0
    html = (report / "report.html").read_text(encoding="utf-8")
    assert "GOOD EARLIER" not in html
    cut = f"[... {len(BIG) - MAX_SHOWN_CHARS:,}"[:-3]  # the 1 MB turn (and its tail): bounded, with a note
    assert len(html) < 10 * MAX_SHOWN_CHARS
    assert BIG[:MAX_SHOWN_CHARS - 200] in html and BIG[:MAX_SHOWN_CHARS] not in html and cut in html
    assert PAYLOAD not in html.split('id="sample-data">')[0]  # names escaped in the tables
    assert "&lt;img src=x onerror=" in html and "\u202e" not in html and "\x00" not in html
    assert "\\ud800" in html  # the surrogate kept, as its escape
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert _live_markup(markdown) == []
    for svg in (report / "figures").glob("*.svg"):
        ET.parse(svg)  # well-formed XML, whatever the names
    _no_secret(report)

    # uta-annotate: the packet draws, the server shows the text exactly, the export writes
    db_path = tmp_path / "ann.sqlite"
    size = prepare_packet(db_path, [str(runs)], 9, 0, "proportional", ["verdict"])
    assert size == 9
    shown = []
    with AnnotationServer(db_path, port=0) as server, AnnotationDB(db_path) as db:
        for position in range(db.size()):
            item = db.shown("alice", position)
            shown.append(item.user_turn)
            db.answer("alice", position, {"label": "other", "genuine": position % 2 == 0})
        import urllib.request

        request = urllib.request.Request(server.url + "api/item?annotator=alice&position=0",
                                         headers={"Authorization": f"Bearer {server.token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert json.loads(response.read())["user_turn"] == shown[0]
    assert any("\ud800" in turn for turn in shown)
    big = [turn for turn in shown if BIG[:1000] in turn]  # the 1 MB turns: bounded, with a note
    assert big and all(BIG[:MAX_SHOWN_CHARS - 200] in turn and cut in turn and "more characters cut here" in turn
                       and len(turn) < MAX_SHOWN_CHARS + 200 for turn in big)
    assert any("\ufffd" in turn for turn in shown)  # the invalid bytes, read as U+FFFD
    human = tmp_path / "human.jsonl"
    assert export(db_path, human) == size

    # uta-agreement: the human labels against the saved verdicts, slices printed
    agreement = tmp_path / "agreement.json"
    assert agreement_main([f"judge={runs}", f"human={human}", "--json", str(agreement), "--slices",
                           "--replicates", "50"]) in (0, 1)
    assert json.loads(agreement.read_text())
    assert "\x1b" not in capsys.readouterr().out

    # uta-rejudge: the hostile turns go to a real judge server and come back whole
    rejudged = tmp_path / "rejudged"
    with FaultServer(FaultConfig()) as judge:
        meta = {"judge_base_url": judge.base_url, "judge_model": MODEL, "judge_cache": str(tmp_path / "c.sqlite"),
                "judge_max_retries": 0}
        assert rejudge_main([str(runs), "--metadata", json.dumps(meta), "--output_path", str(rejudged),
                             "--bootstrap_iters", "10"]) == 0
    turns = []
    for path in rejudged.rglob("samples_*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            turns.append(ProbeRecord.from_json(json.loads(line)["resps"][0][0]).u)
    assert sorted(turns) == sorted(written)
    _no_secret(rejudged, tmp_path / "report", tmp_path / "gate", human, agreement, db_path, folder / "summary.json")
    logged = capsys.readouterr()
    for secret in SECRETS:  # nor in anything the commands printed or logged
        assert secret not in logged.out + logged.err + caplog.text, secret


def _live_markup(markdown: str) -> list[tuple[str, list]]:
    """What a CommonMark renderer makes live of ``markdown``: event-handler attributes, scripts,
    frames, inline SVG, ``javascript:`` links and images other than the report's own figures."""
    from html.parser import HTMLParser

    from markdown_it import MarkdownIt

    live: list[tuple[str, list]] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list) -> None:
            names = {name for name, _ in attrs}
            values = " ".join(str(value) for _, value in attrs)
            own_figure = tag == "img" and dict(attrs).get("src", "").startswith("figures/")
            if (tag in ("script", "iframe", "svg", "object", "embed") or (tag == "img" and not own_figure)
                    or any(name.startswith("on") for name in names) or "javascript:" in values):
                live.append((tag, attrs))

    Tags().feed(MarkdownIt("commonmark").enable("table").render(markdown))
    return live
