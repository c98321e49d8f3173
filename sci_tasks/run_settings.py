"""A run's settings for scoring (both judges, the image budget, a scorer's own parameters),
resolved once per task from the task's configuration and handed to scoring beside the
document, never inside it.

lm-eval builds a task whose YAML names a ``class:`` as ``cls(config=...)``, with the task's
``metadata`` already merged with the run's (``TaskManager(metadata=...)`` / ``--metadata``).
Our task class (``sci_tasks.task.SciTask``) reads its ``RunSettings`` there and passes them
to its scorer (``process_results(doc, results, settings)``, in one scoring pass:
``sci_tasks.scoring``) and to its images (``doc_to_image``). A document holds the record's
own fields only, so lm-eval's ``doc_hash`` of one record is the same whatever the judge or
image budget, and paired comparisons match samples by it.

A light module: ``sci_tasks.stats`` reads ``LEGACY_FIELDS`` and ``doc_hash`` without the
judge client (the judge modules are imported when settings are resolved)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sci_tasks.images import ImageBudget

if TYPE_CHECKING:
    from sci_tasks.metrics.judge import CorrectnessJudge, JudgeConfig, Jury

# The fields samples logs written before settings left the documents carry in every
# document (both judges, the image budget, SPM-Bench's SIP-F1 parameters): the run's, not
# the record's.
# ``sci_tasks.stats.sample_key`` hashes such a document without them.
LEGACY_FIELDS = frozenset(
    {
        "judge_settings",
        "correctness_judge_settings",
        "max_image_pixels",
        "max_image_bytes",
        "sip_lambda",
        "sip_gamma",
    }
)


def doc_hash(doc: Mapping[str, Any]) -> str:
    """lm-eval's ``doc_hash`` of ``doc`` (its evaluator: sha256 of the document as JSON with
    indent 2, non-ASCII kept, anything else as ``str``)."""
    text = json.dumps(doc, indent=2, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class RunSettings:
    """What scoring a task's documents needs beyond the documents: the constraint judge
    (None: judge-scored checks are unscored), the correctness judge (None: the constraint
    judge grades with the project's prompt), the image budget, and the task's metadata
    (``options``: a scorer's own parameters, e.g. SPM-Bench's ``sip_lambda``)."""

    judge: JudgeConfig | None = None
    correctness: CorrectnessJudge | None = None
    image_budget: ImageBudget = field(default_factory=ImageBudget)
    options: Mapping[str, Any] = field(default_factory=dict)
    # the other roles' judges, where given (SciGen's ``verification``, ``rubric``; None: none),
    # and the constraints role's jury when it has one (``judges.JURY_ROLES``)
    roles: Mapping[str, JudgeConfig | Jury | None] = field(default_factory=dict)

    @classmethod
    def of_task(
        cls, metadata: Mapping[str, Any] | None, environ: Mapping[str, str] | None = None
    ) -> RunSettings:
        """The settings of a task whose (run-merged) metadata is ``metadata``; the judges
        fall back to the environment (``judges.resolve``). A bad value is a ``ValueError``
        naming the option."""
        from sci_tasks.metrics import judge as judges

        metadata = dict(metadata or {})
        return cls(
            judges.resolve(metadata, environ),
            judges.resolve_correctness(metadata, environ),
            ImageBudget.from_settings(metadata),
            metadata,
            judges.resolve_roles(metadata, environ),
        )

    def grader(self) -> tuple[str, JudgeConfig | None]:
        """How answer correctness is graded: (protocol, judge). Without a correctness judge
        of its own: the constraint judge, with the project's prompt; one without a model:
        the constraint judge's server with its protocol."""
        if self.correctness is None:
            return "json_grade", self.judge
        return self.correctness.protocol, self.correctness.judge or self.judge

    def judge_of(self, role: str) -> JudgeConfig | None:
        """The judge of a role other than correctness: its own where given, else the
        constraint judge (so ``judge=`` alone still serves SciGen-Verify and -Rubric)."""
        if role not in self.roles:
            return self.judge
        from sci_tasks.metrics.judge.jury import Jury

        given = self.roles[role]
        return None if isinstance(given, Jury) else given

    def jury(self, role: str = "correctness") -> Jury | None:
        """A role's jury, when it has one (``metrics.judge.jury``): the correctness role's
        is in its ``CorrectnessJudge``, the constraints role's in ``roles``."""
        if role == "correctness":
            return self.correctness.jury if self.correctness is not None else None
        from sci_tasks.metrics.judge.jury import Jury

        given = self.roles.get(role)
        return given if isinstance(given, Jury) else None

    def juries(self) -> dict[str, Jury]:
        """Every role's jury, by role."""
        roles = ("correctness", *self.roles)
        return {r: jury for r in roles if (jury := self.jury(r)) is not None}

    def public(self) -> dict[str, Any]:
        """The settings as results may show them (no key: only the key's variable name)."""
        return {
            "judge": self.judge.public() if self.judge else None,
            "correctness_judge": self.correctness.public() if self.correctness else None,
            "image_budget": self.image_budget.fields(),
            # only when given: other runs' results are as they were
            **(
                {"judges": {r: j.public() if j else None for r, j in self.roles.items()}}
                if self.roles
                else {}
            ),
        }


NO_SETTINGS = RunSettings()  # scoring outside a task: no judge, no budget, default parameters
