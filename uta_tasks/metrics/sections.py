"""Where the report shows a metric, and how: the values of a metric row's ``section`` and
``shown_as`` (:class:`uta_tasks.metrics.table.MetricSpec`).

The report (``uta-report``) draws one table per section, a row per task and a column per
metric of that section that a run reports, in the order of the metric table; the manual's
list of them (docs/report.md) is generated from :data:`SECTIONS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Section = Literal["followup", "conditioned", "labels", "generation", "judging"]
#: ``percent``: a share in [0, 1] shown as a percentage with its interval and units (``n``);
#: ``count``: a number summed over docs, shown as is (with the verdicts behind it when the row
#: has units, ``unjudged``).
ShownAs = Literal["percent", "count"]
SHOWN_AS: tuple[ShownAs, ...] = get_args(ShownAs)


@dataclass(frozen=True)
class SectionText:
    """A section's heading and caption in the report.

    Attributes:
        title: the table's heading.
        caption: one line on what its metrics have in common.
    """

    title: str
    caption: str


SECTIONS: dict[Section, SectionText] = {
    "followup": SectionText("Follow-up rates by task",
                            "Shares of judged user turns that are genuine follow-ups, each metric's interval in "
                            "brackets and the units behind it (n)."),
    "conditioned": SectionText("Accuracy-conditioned rates by task",
                               "Genuine follow-up rate on the repeats whose own answer was correct / wrong, with the "
                               "judged turns behind each."),
    "labels": SectionText("Label shares by task",
                          "Share of judged user turns with each label."),
    "generation": SectionText("Generation by task",
                              "What the model's turns were, judge or no judge: changed, emptied, incomplete or "
                              "dropped answers and user turns."),
    "judging": SectionText("Judging by task",
                           "Verdicts asked for and missing, and what the judge cost."),
}
