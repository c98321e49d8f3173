"""SPM-Bench (scanning-probe and electron microscopy questions): the benchmark's declaration.

Its package holds everything of it: ``loader`` (a folder or hub copy of JSONL records),
``hooks`` (lm-eval's prompt, image and target hooks), ``parse`` (reading a reply's answer
and confidence), ``metrics`` (EM, SPC, SIP-F1, Delta, ECE), ``report`` (sci-report),
``view`` (sci-view's checks), ``leaderboard`` (its sci-leaderboard section), ``tasks/``
(the lm-eval YAMLs) and ``samples/`` (the bundled samples). The hooks below name its
modules relative to this package; the registry (``sci_tasks.benchmarks``) checks each when
it registers the benchmark.
"""

from __future__ import annotations

from sci_tasks.registry import BUNDLED_SAMPLES, Benchmark, MetricSpec, record_metric

TECHNIQUES = ("STM", "AFM", "SEM", "TEM")

BENCHMARK = Benchmark(
    name="spm_bench",
    title="SPM-Bench",
    splits=tuple(f"spm_bench_{t.lower()}" for t in TECHNIQUES),
    metrics=(
        MetricSpec("em", True, "mean", label="EM", parts="mean"),
        MetricSpec("spc", True, "mean", label="SPC", parts="mean"),
        MetricSpec("sip_f1", True, "mean", label="SIP-F1", parts="mean"),
        MetricSpec("f1", True, "mean"),
        # no parts: |mean SPC - mean SIP-F1| is no ratio of sums, so no ± for it
        MetricSpec(
            "delta",
            False,
            "!function sci_tasks.benchmarks.spm_bench.metrics.delta_of_records",
            label="Delta",
            comment="|mean SPC - mean SIP-F1|, from each question's SPC and SIP-F1",
        ),
        MetricSpec("ece", False, "!function sci_tasks.benchmarks.spm_bench.metrics.ece_of_records"),
        MetricSpec("output_tokens", False, "mean"),
        MetricSpec("unparsed_rate", False, "mean"),
        MetricSpec("no_confidence_rate", False, "mean"),
        BUNDLED_SAMPLES,
        record_metric(
            "questions scored; each sample's value is its full record (id, technique, field, "
            "gold, prediction, parse and confidence notes, scores), shown in the samples log only"
        ),
    ),
    report=".report",
    leaderboard=".leaderboard",
    checks=".view:checks",
    headlines={"spm_bench": ("em", "spc", "sip_f1", "f1", "delta", "ece", "unparsed_rate")},
    task_sets=("spm_bench",),
    count_column="questions",
    leaderboard_doc="the `spm_bench` group's values (size-weighted over the technique tasks; "
    "its Delta is the weighted mean of per-technique Deltas); without the group, the "
    "size-weighted mean over the technique tasks present.",
)
