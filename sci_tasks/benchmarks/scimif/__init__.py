"""SciMIF (scientific multimodal instruction following): the benchmark's declaration.

Its package holds everything of it: ``loader`` (the two published layouts -> records),
``hooks`` (lm-eval's prompt and image hooks), ``metrics`` (scoring: constraint
verdicts and correctness), ``report`` (sci-report), ``view`` (sci-view's checks),
``leaderboard`` (its sci-leaderboard section), ``tasks/`` (the lm-eval YAMLs) and
``samples/`` (the bundled samples). The hooks below name its modules relative to this
package; the registry (``sci_tasks.benchmarks``) checks each when it registers the benchmark.
"""

from __future__ import annotations

from sci_tasks.registry import (
    BUNDLED_SAMPLES,
    DISTINCT_COUNT,
    TOTAL,
    Benchmark,
    MetricSpec,
    record_metric,
)

# discipline -> the short code of its lm-eval task names (scimif_chem, ...)
SHORT = {
    "chemistry": "chem",
    "geography": "geo",
    "biology": "bio",
    "material": "mat",
    "physics": "phy",
}
_RATIO = "!function sci_tasks.benchmarks.scimif.metrics.ratio_of_sums"


BENCHMARK = Benchmark(
    name="scimif",
    title="SciMIF",
    splits=tuple(f"scimif_{short}" for short in SHORT.values()),
    report=".report",
    leaderboard=".leaderboard",
    judge_roles=("constraints", "correctness"),
    metrics=(
        MetricSpec(
            "csr",
            True,
            "nanmean",
            label="CSR",
            parts="mean",
            comment=(
                "per sample a number, NaN when nothing was scored: nanmean leaves those out and "
                "lets lm-eval bootstrap the stderr"
            ),
        ),
        MetricSpec("isr", True, "nanmean", label="ISR", parts="mean"),
        MetricSpec("drfr", True, _RATIO, label="DRFR", parts=".metrics:drfr_parts"),
        MetricSpec(
            "csr_unscored_as_fail",
            True,
            "mean",
            comment=(
                "The paper's convention (the authors' summarize_results): unscored constraints "
                "count 0, a sample with nothing scored counts 0. Compare these with the paper's "
                "tables."
            ),
        ),
        MetricSpec("isr_unscored_as_fail", True, "mean"),
        MetricSpec("drfr_unscored_as_fail", True, _RATIO),
        MetricSpec(
            "drfr_original", True, _RATIO, comment="DRFR per constraint source, in both conventions"
        ),
        MetricSpec("drfr_original_unscored_as_fail", True, _RATIO),
        MetricSpec("drfr_core_task", True, _RATIO),
        MetricSpec("drfr_core_task_unscored_as_fail", True, _RATIO),
        MetricSpec("drfr_added_general", True, _RATIO),
        MetricSpec("drfr_added_general_unscored_as_fail", True, _RATIO),
        MetricSpec("unscored", False, TOTAL),
        MetricSpec(
            "unscored_rate", False, "!function sci_tasks.benchmarks.scimif.metrics.unscored_rate"
        ),
        MetricSpec(
            "unknown_constraints",
            False,
            DISTINCT_COUNT,
            comment=(
                "how many distinct constraint names no checker knows; each sample lists its names"
            ),
        ),
        MetricSpec(
            "correct",
            True,
            "nanmean",
            judged=True,
            comment=(
                "1 / 0 per graded sample, NaN when not graded (no judge or no reference answer)"
            ),
        ),
        BUNDLED_SAMPLES,
        record_metric(
            "samples scored; each sample's value is its detail (every constraint's verdict "
            "with its reason and source, the correctness grade), shown in the samples log only"
        ),
    ),
    checks=".view:checks",
    headlines={"scimif": ("csr", "isr", "drfr", "correct", "unscored_rate")},
    task_sets=("scimif", "scimif_all", "scimif_text", *(f"scimif_{s}" for s in SHORT.values())),
)
