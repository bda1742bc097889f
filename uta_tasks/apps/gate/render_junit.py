"""The gate's result as JUnit XML: one testcase per rule (failure = fail, error = undecided)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from uta_tasks.apps.gate.api import GateResult
from uta_tasks.stats.display import interval, number
from uta_tasks.templates.escape import display_text


def render_junit(result: GateResult) -> str:
    """A ``<testsuites>`` document with one ``<testsuite name="uta-gate">``.

    Args:
        result: the gate's result.
    """
    c = result.counts()
    suites = ET.Element("testsuites", name="uta-gate", tests=str(len(result.results)),
                        failures=str(c["fail"]), errors=str(c["error"]))
    suite = ET.SubElement(suites, "testsuite", name="uta-gate", tests=str(len(result.results)),
                          failures=str(c["fail"]), errors=str(c["error"]), skipped="0")
    props = ET.SubElement(suite, "properties")
    for key in ("candidate", "baseline", "rules_file"):
        ET.SubElement(props, "property", name=key, value=str(getattr(result, key) or ""))
    for key in ("model", "judge_model", "prompt_version", "temperature"):
        ET.SubElement(props, "property", name=key, value=str(result.provenance.get(key, "")))
    for r in result.results:
        case = ET.SubElement(suite, "testcase", classname=f"uta-gate.{r.rule.task}", name=r.rule.name, time="0")
        iv = interval(r.interval.low, r.interval.high) if r.interval else "—"
        detail = f"value {number(r.value)}, interval {iv}, bound {r.rule.bound_text}, n {r.n}: {r.note}"
        if r.status == "fail":
            ET.SubElement(case, "failure", message=detail, type="GateRuleFailed").text = detail
        elif r.status == "error":
            ET.SubElement(case, "error", message=r.note, type="GateUndecided").text = r.note
        else:
            ET.SubElement(case, "system-out").text = detail
    return _document(suites)


def render_junit_error(cause: str) -> str:
    """The JUnit document of a gate that could not decide: one ``<error>`` case naming the cause.

    Args:
        cause: why the gate cannot decide (a file it cannot read, a malformed rule...).
    """
    suites = ET.Element("testsuites", name="uta-gate", tests="1", failures="0", errors="1")
    suite = ET.SubElement(suites, "testsuite", name="uta-gate", tests="1", failures="0", errors="1", skipped="0")
    case = ET.SubElement(suite, "testcase", classname="uta-gate", name="decide", time="0")
    ET.SubElement(case, "error", message=cause, type="GateUndecided").text = cause
    return _document(suites)


def _document(suites: ET.Element) -> str:
    ET.indent(suites)
    # display_text: control characters and lone surrogates are not XML; they become visible \uXXXX text
    return display_text('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n")
