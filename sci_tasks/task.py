"""The lm-eval task class of every sci-tasks task (``class: !function sci_tasks.task.SciTask``
in each task template YAML): how a run's settings reach scoring in lm-eval's own idiom.

lm-eval builds a YAML task with ``class:`` as ``cls(config=...)`` (``tasks/_factory.py``),
its ``metadata`` already merged with the run's (``TaskManager(metadata=...)`` /
``--metadata``). ``SciTask`` resolves the run's settings there, once
(``RunSettings.of_task``: both judges, the image budget, the scorer's parameters; the judges
fall back to ``SCI_TASKS_JUDGE_*``), and hands them on:

* to scoring: ``process_results`` calls the YAML's scorer as ``fn(doc, results, settings)``;
* to the images: ``doc_to_image`` fits the hook's full-resolution images into the budget;
* to the judge prefetch: the ``JudgePrefetch`` filter of the task is given this task's
  ``JudgeBatches`` (its benchmark's ``judge_work`` hook and these settings).

It also makes responses that hold lone surrogates safe before lm-eval's filters run
(``apply_filters``): the task owns its instances, so no filter has to rewrite its input.

Each task object holds its own settings: two tasks built with different settings in one
process (a sweep's jobs, ``sci-score`` beside a run) cannot see each other's, and no
document carries any of it, so ``doc_hash`` depends on the record alone.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from lm_eval.api.task import ConfigurableTask
from PIL import Image

from sci_tasks import registry
from sci_tasks.images import fit
from sci_tasks.metrics.judge.prefetch import JudgeBatches, JudgePrefetch
from sci_tasks.run_settings import RunSettings
from sci_tasks.text import safe_text

log = logging.getLogger(__name__)

CLASS_NAME = f"{__name__}.SciTask"  # how the task class shows in the results' ``configs``


def setting_metrics(scorer: Any, settings: RunSettings) -> dict[str, Any]:
    """The aggregations of the metrics only some settings produce (a jury's agreement, a
    cascade's rules-only figures): runs without them keep their results as they were.
    Shared by tasks and ``sci-score`` (whose settings may differ from the task's). A jury's
    metrics are those its scorer's module declares for the role (``JURY_METRICS``: SciMIF's
    correctness and constraints, SciGen-Verify's verification, SciGen-Rubric's rubric)."""
    import sys

    from sci_tasks.benchmarks.scimif import metrics as scimif
    from sci_tasks.metrics import cascade

    cascades = cascade.policies(settings.options)  # a bad policy: an error now
    module = sys.modules.get(getattr(scorer, "__module__", ""))
    declared: dict[str, dict[str, Any]] = getattr(module, "JURY_METRICS", {})
    added: dict[str, Any] = {}
    juries = settings.juries()
    for role in juries:
        added |= declared.get(role, {})
    if module is not scimif:
        return added
    if cascades and "constraints" in juries:
        raise ValueError("a cascade with a constraints jury is not supported yet")
    if cascades:
        from lm_eval.api.registry import get_aggregation

        added |= {
            name: scimif.ratio_of_sums if how == "ratio_of_sums" else get_aggregation(how)
            for name, how in scimif.RULES_METRICS.items()
        }
    return added


class SciTask(ConfigurableTask):
    """A YAML-configured lm-eval task whose scoring, images and judge prefetch get the run's
    settings from the task's configuration (module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        config = dict(config or {})
        config.pop("class", None)  # lm-eval's route key, not a TaskConfig field
        try:
            self.settings = RunSettings.of_task(config.get("metadata"))
        except ValueError as exc:
            raise ValueError(f"task {config.get('task')} metadata: {exc}") from None
        super().__init__(config=config, **kwargs)
        self.judge_batches = self._bind_prefetch()
        self._add_setting_metrics()

    def _add_setting_metrics(self) -> None:
        """Metrics only some settings produce, aggregated only then (``setting_metrics``)."""
        for name, aggregate in setting_metrics(self.config.process_results, self.settings).items():
            self._aggregation_list[name] = aggregate
            self._higher_is_better[name] = True

    def _bind_prefetch(self) -> JudgeBatches | None:
        """This task's judge batches, given to each ``JudgePrefetch`` step of its filters
        (lm-eval builds a filter anew for each application: the binding is in the step)."""
        steps = [
            (ensemble, i)
            for ensemble in self._filters
            for i, step in enumerate(ensemble.filters)
            if isinstance(step, partial) and step.func is JudgePrefetch
        ]
        if not steps:
            return None
        benchmark = registry.of_task(self.config.task or "")
        if benchmark is None or not benchmark.judge_work:
            raise ValueError(
                f"task {self.config.task}: JudgePrefetch in its filter_list, but "
                f"{'its benchmark declares no judge_work' if benchmark else 'no benchmark owns it'}"
            )
        batches = JudgeBatches(registry.hook(benchmark.judge_work), self.settings)
        for ensemble, i in steps:
            step = ensemble.filters[i]
            ensemble.filters[i] = partial(step.func, *step.args, **step.keywords, batches=batches)
        return batches

    def apply_filters(self) -> Any:
        """Responses holding a lone surrogate (not Unicode) get U+FFFD first, as new lists on
        the task's own instances: lm-eval logs each instance's ``resps`` beside
        ``filtered_resps``, and one such string ends the samples file, losing every good
        sample after it. Then lm-eval's filters, each returning new lists."""
        changed = 0
        for instance in self._instances or []:
            safe = [safe_text(r) if isinstance(r, str) else r for r in instance.resps]
            fixed = sum(a is not b for a, b in zip(safe, instance.resps, strict=True))
            if fixed:
                instance.resps, changed = safe, changed + fixed
        if changed:
            log.warning(
                "%s: %d response(s) held lone surrogates (not Unicode): scored and written "
                "with U+FFFD",
                self.config.task,
                changed,
            )
        return super().apply_filters()

    def process_results(self, doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
        if not callable(self.config.process_results):  # --predict_only: lm-eval's "bypass"
            return super().process_results(doc, results)
        if self.judge_batches is not None:
            self.judge_batches.send()  # the task's judge questions at once, before the first
        return self.config.process_results(doc, results, self.settings)

    def doc_to_image(self, doc: Any, doc_to_image: Any = None) -> Any:
        images = super().doc_to_image(doc, doc_to_image)
        if not self.settings.image_budget.active or not isinstance(images, list):
            return images
        budget = self.settings.image_budget
        return [fit(i, budget) if isinstance(i, Image.Image) else i for i in images]

    def dump_config(self) -> dict[str, Any]:
        """The task's configuration as results record it, with the class by its import name
        (the settings are in ``metadata``: judges by their public settings, keys only by the
        name of their variable)."""
        return {"class": CLASS_NAME, **super().dump_config()}
