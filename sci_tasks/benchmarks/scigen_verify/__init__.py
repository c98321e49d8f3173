"""SciGen-Verify (verifying scientific images against their instruction) and SciGen-Rubric:
the benchmark's declaration.

Its package holds everything of it: ``loader`` (a folder or hub copy of JSONL records; the
rubric records in its ``rubric/`` subfolder), ``hooks`` (lm-eval's prompt, image and target
hooks), ``parse`` (reading a verifier's reply), ``metrics`` (Acc_a, Acc_e, Acc_i),
``rubric`` (SciGen-Rubric's scoring), ``report`` (sci-report), ``view`` (sci-view's checks),
``tasks/`` (the lm-eval YAMLs) and ``samples/`` (the bundled samples). The hooks below name
its modules relative to this package; the registry (``sci_tasks.benchmarks``) checks each
when it registers the benchmark.
"""

from __future__ import annotations

from sci_tasks.registry import BUNDLED_SAMPLES, TOTAL, Benchmark, MetricSpec, record_metric

CATEGORIES = ("instruction_following", "multidisciplinary_reasoning", "world_knowledge")
_MACRO = "!function sci_tasks.benchmarks.scigen_verify.rubric.macro_over_domains"
RUBRIC_METRICS = (
    *(MetricSpec(name, True, _MACRO) for name in ("rr", "nhr", "sf1")),  # RR, NHR, SF1
    MetricSpec("rubric_unscored", False, TOTAL),
    MetricSpec("rubric_unparsed", False, "mean"),
    MetricSpec(
        "weights_off",
        False,
        "mean",
        comment="share of rubrics whose weights do not sum to 10 (recorded, never failed)",
    ),
    MetricSpec("rubric_points", False, "mean", comment="mean checking points per rubric"),
    BUNDLED_SAMPLES,
    record_metric(
        "rubrics scored; each sample's value is its full record (points, weights, match matrix, "
        "matched counts, judge provenance), shown in the samples log only"
    ),
)


BENCHMARK = Benchmark(
    name="scigen_verify",
    title="SciGen-Verify",
    splits=tuple(f"scigen_verify_{c}" for c in CATEGORIES),
    report=".report",
    # explanation and edit judgements; SciGen-Rubric's match matrix (metrics.judge.usage)
    judge_roles=("verification", "rubric"),
    metrics=(
        MetricSpec(
            "acc_a",
            True,
            "mean",
            label="Acc_a",
            parts="mean",
            comment="1 / 0 per sample: lm-eval's mean, with its stderr",
        ),
        MetricSpec(
            "acc_e",
            True,
            "!function sci_tasks.benchmarks.scigen_verify.metrics.cascade_mean",
            label="Acc_e",
            parts=".metrics:acc_e_parts",
            judged=True,
            comment="1 / 0 per sample, null when unscored (then the task value is NaN)",
        ),
        MetricSpec(
            "acc_i",
            True,
            "!function sci_tasks.benchmarks.scigen_verify.metrics.acc_i_of_scores",
            label="Acc_i",
            parts=".metrics:acc_i_parts",
            judged=True,
        ),
        MetricSpec("acc_e_unscored", False, TOTAL),
        MetricSpec("acc_i_unscored", False, TOTAL),
        MetricSpec("unparsed_rate", False, "mean"),
        BUNDLED_SAMPLES,
        record_metric(
            "samples scored; each sample's value is its full record (category, discipline, "
            "label, judgement, explanation, edit, the three scores with reasons and judge "
            "provenance), shown in the samples log only: sci-report reads it"
        ),
    ),
    task_metrics={"scigen_rubric.yaml": RUBRIC_METRICS},
    checks=".view:checks",
    headlines={
        "scigen_verify": ("acc_a", "acc_e", "acc_i", "unparsed_rate"),
        "scigen_rubric": ("rr", "nhr", "sf1", "rubric_unparsed"),
    },
    task_prefixes=("scigen_verify", "scigen_rubric"),  # the rubric data is a subfolder
    task_sets=("scigen_verify", "scigen_rubric"),
    leaderboard_doc="the `scigen_verify` group's values (size-weighted over the categories; "
    "the exact pooled Acc_i is in `sci-report`); without the group, the size-weighted mean "
    "over the category tasks present.",
)
