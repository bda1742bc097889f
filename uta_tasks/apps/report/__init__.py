"""The HTML report of one or more runs: tables and figures of the paper, a sample browser, provenance."""

from __future__ import annotations

from uta_tasks.apps.report.api import ReportFiles, build_report

__all__ = ["ReportFiles", "build_report"]
