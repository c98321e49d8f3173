"""Who decides the questions of SciGen-Verify's two judged tasks: the verification role's
(``metrics.py``: explanations and edits) and the rubric role's (``rubric.py``: match matrices)
judge or jury, as the task's settings give them, and a sample's values for the role's jury
agreement metrics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sci_tasks.metrics.judge import JudgeClient, Jury, client_for
from sci_tasks.metrics.judge.jury import agreement_metrics
from sci_tasks.run_settings import RunSettings

NO_JUDGE = "no judge configured"  # the reason of a question no judge was there to decide


@dataclass(frozen=True)
class Judging:
    """A role's judge (its pooled client) or jury; both None: no judge, the role's
    questions are unscored."""

    role: str
    judge: JudgeClient | None
    jury: Jury | None

    @classmethod
    def of(cls, settings: RunSettings, role: str) -> Judging:
        return cls(role, client_for(settings.judge_of(role)), settings.jury(role))

    def agreement(self, items: list[list[str | None]]) -> dict[str, Any]:
        """A sample's values for the jury's agreement metrics (``<role>_agreement``,
        ``<role>_kappa``): its items, each juror's vote on each; none without a jury."""
        return dict.fromkeys(agreement_metrics(self.role), items) if self.jury else {}
