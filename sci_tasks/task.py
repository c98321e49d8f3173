"""The lm-eval task class of every sci-tasks task (``class: !function sci_tasks.task.SciTask``
in each task template YAML): how a run's settings reach scoring in lm-eval's own idiom.

lm-eval builds a YAML task with ``class:`` as ``cls(config=...)`` (``tasks/_factory.py``),
its ``metadata`` already merged with the run's (``TaskManager(metadata=...)`` /
``--metadata``). ``SciTask`` resolves the run's settings there, once
(``RunSettings.of_task``: both judges, the image budget, the scorer's parameters; the judges
fall back to ``SCI_TASKS_JUDGE_*``), and hands them on:

* to scoring: one pass over the task's documents (``sci_tasks.scoring.score_all``: each
  scored once, concurrently within its judges' limits) when lm-eval asks for the first
  document's result; ``process_results`` returns each document's result of that pass. The
  scorer is the YAML's, called as ``fn(doc, results, settings)``;
* to the images: ``doc_to_image`` fits the hook's full-resolution images into the budget.

It also makes responses that hold lone surrogates safe before lm-eval's filters run
(``apply_filters``): the task owns its instances, so no filter has to rewrite its input.
Everything it uses of lm-eval is public: ``instances``, ``apply_filters``,
``process_results``, ``aggregation``, ``higher_is_better``.

Each task object holds its own settings: two tasks built with different settings in one
process (a sweep's jobs, ``sci-score`` beside a run) cannot see each other's, and no
document carries any of it, so ``doc_hash`` depends on the record alone.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import defaultdict
from typing import Any

from lm_eval.api.task import ConfigurableTask
from PIL import Image

from sci_tasks.images import fit
from sci_tasks.run_settings import RunSettings
from sci_tasks.scoring import Pair, score_all
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
    """A YAML-configured lm-eval task whose scoring and images get the run's settings from
    the task's configuration, and whose documents are scored in one pass (module
    docstring)."""

    def __init__(self, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        config = dict(config or {})
        config.pop("class", None)  # lm-eval's route key, not a TaskConfig field
        try:
            self.settings = RunSettings.of_task(config.get("metadata"))
        except ValueError as exc:
            raise ValueError(f"task {config.get('task')} metadata: {exc}") from None
        super().__init__(config=config, **kwargs)
        # metrics only some settings produce, aggregated only then (``setting_metrics``)
        self.setting_metrics = setting_metrics(self.config.process_results, self.settings)
        self._scored: dict[str, list[dict[str, Any]]] | None = None  # the pass's (score_pass)
        self._scoring = threading.Lock()

    def aggregation(self) -> dict[str, Any]:
        return {**super().aggregation(), **self.setting_metrics}

    def higher_is_better(self) -> dict[str, Any]:
        return {**super().higher_is_better(), **dict.fromkeys(self.setting_metrics, True)}

    def apply_filters(self) -> Any:
        """Responses holding a lone surrogate (not Unicode) get U+FFFD first, as new lists on
        the task's own instances: lm-eval logs each instance's ``resps`` beside
        ``filtered_resps``, and one such string ends the samples file, losing every good
        sample after it. Then lm-eval's filters, each returning new lists; the responses
        are new, so the results of an earlier pass are dropped."""
        changed = 0
        for instance in self.instances or []:
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
        self._scored = None
        return super().apply_filters()

    def process_results(self, doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
        """The document's result of the task's scoring pass (``score_pass``, run when lm-eval
        asks for the first result after its filters); a pair outside the task's instances
        is scored alone."""
        if not callable(self.config.process_results):  # --predict_only: lm-eval's "bypass"
            return super().process_results(doc, results)
        with self._scoring:
            if self._scored is None:
                self._scored = self.score_pass()
            found = self._scored.get(_pair_key(doc, results))
            if found:
                return found.pop(0)
        return self.config.process_results(doc, results, self.settings)

    def score_pass(self) -> dict[str, list[dict[str, Any]]]:
        """Every (document, responses) of the task's instances, for each of its filters,
        scored once (``scoring.score_all``), by ``_pair_key``: lm-eval's evaluator groups
        instances by document and orders them by ``idx`` the same way, and hands each pair
        to ``process_results`` once."""
        by_doc: dict[int, list[Any]] = defaultdict(list)
        # none before lm-eval's build_all_requests (a task scoring documents handed to it)
        for instance in getattr(self, "instances", None) or []:
            by_doc[instance.doc_id].append(instance)
        pairs: list[Pair] = []
        for group in by_doc.values():
            group.sort(key=lambda instance: instance.idx)
            for filter_key in group[0].filtered_resps:
                pairs.append((group[0].doc, [i.filtered_resps[filter_key] for i in group]))
        results = score_all(self.config.process_results, self.settings, pairs)
        scored: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for (doc, responses), result in zip(pairs, results, strict=True):
            scored[_pair_key(doc, responses)].append(result)  # a repeated record: each its own
        return scored

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


def _pair_key(doc: Any, responses: list[Any]) -> str:
    """A document and its responses as one string: the same record with the same replies
    is the same scoring, whichever object lm-eval hands over."""
    return json.dumps([doc, responses], sort_keys=True, default=str, ensure_ascii=False)
