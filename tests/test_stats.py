"""Bootstrap standard errors and paired differences (``sci_tasks.stats``), on values that
can be checked by hand."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sci_tasks import stats
from sci_tasks.stats import bootstrap, metric_estimate, paired_difference


def test_identical_samples_have_stderr_zero() -> None:
    est = bootstrap([(0.5, 1.0)] * 30)
    assert (est.value, est.stderr, est.n) == (0.5, 0.0, 30)
    drfr = bootstrap([(2.0, 3.0)] * 7)  # every resample is 14/21
    assert drfr.value == pytest.approx(2 / 3) and drfr.stderr == 0.0


def test_ratio_of_sums_matches_the_exact_bootstrap_distribution() -> None:
    # two samples (1 of 2, 2 of 2 constraints): resamples give 0.5, 0.75, 0.75, 1.0 with
    # equal chance, so the bootstrap sd is sqrt(0.03125) = 0.17678
    est = bootstrap([(1.0, 2.0), (2.0, 2.0)], iters=40000, seed=7)
    assert est.value == 0.75
    assert est.stderr == pytest.approx(math.sqrt(0.03125), abs=0.004)


def test_bootstrap_of_a_mean_agrees_with_sd_over_sqrt_n() -> None:
    rng = np.random.default_rng(2024)
    values = rng.random(400)
    est = bootstrap([(float(v), 1.0) for v in values], iters=5000, seed=3)
    analytic = values.std(ddof=0) / math.sqrt(len(values))  # the plug-in sd the bootstrap uses
    assert est.value == pytest.approx(values.mean())
    assert est.stderr == pytest.approx(analytic, rel=0.05)


def test_seeded_and_reproducible() -> None:
    parts = [(float(i % 3 == 0), 1.0) for i in range(50)]
    assert bootstrap(parts, seed=5) == bootstrap(parts, seed=5)
    assert bootstrap(parts, seed=5).stderr != bootstrap(parts, seed=6).stderr


def test_samples_without_a_value_are_left_out_of_the_mean() -> None:
    records = [{"csr": 1.0}, {"csr": None}, {"csr": 0.0}, {"csr": 0.5}]
    est = metric_estimate("csr", records)
    assert est.value == 0.5 and est.n == 4  # (1 + 0 + 0.5) / 3
    nothing = metric_estimate("csr", [{"csr": None}])
    assert math.isnan(nothing.value) and math.isnan(nothing.stderr) and nothing.n == 1


def test_an_unscored_acc_e_makes_value_and_error_nan() -> None:
    records = [{"acc_e": 1.0}, {"acc_e": None}]
    est = metric_estimate("acc_e", records)
    assert math.isnan(est.value) and math.isnan(est.stderr)
    # Acc_i counts negatives only: an unscored positive does not matter
    acc_i = [
        {"acc_i": {"score": None, "negative": False}},
        {"acc_i": {"score": 1.0, "negative": True}},
        {"acc_i": {"score": 0.0, "negative": True}},
    ]
    assert metric_estimate("acc_i", acc_i).value == 0.5


def test_drfr_parts_come_from_the_logged_counts() -> None:
    records = [
        {"drfr": {"satisfied": 1.0, "scored": 3, "constraints": []}},
        {"drfr": {"satisfied": 2.0, "scored": 2, "constraints": []}},
    ]
    assert metric_estimate("drfr", records).value == 3 / 5


def test_paired_difference_of_a_model_with_itself_is_exactly_zero() -> None:
    rng = np.random.default_rng(1)
    a = {("t", str(i)): (float(v), 1.0) for i, v in enumerate(rng.random(60))}
    d = paired_difference(a, dict(a))
    assert (d.diff, d.low, d.high, d.stderr, d.n) == (0.0, 0.0, 0.0, 0.0, 60)
    assert not d.significant


def test_paired_difference_of_constant_models() -> None:
    a = {("t", str(i)): (1.0, 1.0) for i in range(10)}
    b = {("t", str(i)): (0.0, 1.0) for i in range(10)} | {("t", "only-b"): (1.0, 1.0)}
    d = paired_difference(a, b)
    assert (d.diff, d.low, d.high, d.n) == (1.0, 1.0, 1.0, 10)  # unmatched sample left out
    assert d.significant


def test_pairing_narrows_the_interval_of_correlated_models() -> None:
    rng = np.random.default_rng(11)
    base = rng.random(300) < 0.5
    better = base.copy()
    better[np.flatnonzero(~base)[:30]] = True  # b solves everything a solves, and 30 more
    a = {("t", str(i)): (float(v), 1.0) for i, v in enumerate(better)}
    b = {("t", str(i)): (float(v), 1.0) for i, v in enumerate(base)}
    d = paired_difference(a, b, iters=4000)
    assert d.diff == pytest.approx(30 / 300)
    se_a, se_b = bootstrap(list(a.values())).stderr, bootstrap(list(b.values())).stderr
    assert d.stderr < 0.5 * math.hypot(se_a, se_b)  # unpaired errors would hide the gain
    assert d.low > 0 and d.significant
    assert d.low <= d.diff <= d.high


def test_sample_key_is_the_record_whatever_the_run_settings() -> None:
    """Real tasks of SPM-Bench built under two image budgets and of SciMIF under two judge
    settings: the documents, so lm-eval's ``doc_hash`` (computed as lm-eval does), are the
    same, and the sample key is that hash. A samples log written while the settings rode in
    the documents keys the same record to the same hash; different records keep different
    keys."""
    from lm_eval.utils import handle_non_serializable, hash_string

    import sci_tasks

    def lm_eval_hash(doc: dict[str, Any]) -> str:
        text = json.dumps(doc, indent=2, default=handle_non_serializable, ensure_ascii=False)
        return hash_string(text)

    def docs(task: str, **metadata: Any) -> list[dict[str, Any]]:
        manager = sci_tasks.task_manager(metadata=metadata, include_defaults=False)
        return list(manager.load([task])["tasks"][task].test_docs())

    judge = {"model": "j", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "NONE"}
    runs = [
        (docs("spm_bench_stm"), docs("spm_bench_stm", max_image_pixels=200704)),
        (
            docs("scimif_chem", judge=judge | {"concurrency": 1}),
            docs("scimif_chem", judge=judge | {"concurrency": 8}),
        ),
    ]
    legacy = {"judge_settings": json.dumps(judge), "correctness_judge_settings": None,
              "max_image_pixels": 200704, "max_image_bytes": None}  # fmt: skip
    for docs_a, docs_b in runs:
        assert len(docs_a) == len(docs_b) > 1
        for a, b in zip(docs_a, docs_b, strict=True):
            assert lm_eval_hash(a) == lm_eval_hash(b)  # no setting in a document
            key = stats.sample_key("t", {"doc": a, "doc_hash": lm_eval_hash(a)})
            assert key == ("t", lm_eval_hash(a))
            assert stats.sample_key("t", {"doc": b, "doc_hash": lm_eval_hash(b)}) == key
            old = {**a, **legacy}  # an old log's document, settings inside
            assert stats.sample_key("t", {"doc": old, "doc_hash": lm_eval_hash(old)}) == key
        keys = {stats.sample_key("t", {"doc": a, "doc_hash": lm_eval_hash(a)}) for a in docs_a}
        assert len(keys) == len(docs_a)


def test_sample_key_without_the_document() -> None:
    assert stats.sample_key("t", {"doc_hash": "ab", "doc_id": 3}) == ("t", "ab")
    assert stats.sample_key("t", {"doc_id": 3}) == ("t", "doc_id=3")


def test_format() -> None:
    assert stats.fmt(stats.Estimate(0.25, 0.03125, 4)) == "0.2500 ± 0.0312"
    assert stats.fmt(stats.Estimate(math.nan, math.nan, 0)) == "n/a"
    assert stats.fmt(stats.Estimate(0.5, math.nan, 1)) == "0.5000"


# --- in the leaderboard: ± per value and paired differences per pair of models ------------


def _scimif_job(
    sweep: Path,
    model: str,
    isr: list[float],
    extra: int = 0,
    settings: dict[str, Any] | None = None,
    first_id: int = 0,
) -> None:
    """A finished job of ``model`` with ``scimif_chem`` results and logged samples: one
    constraint per document, satisfied or not (so CSR = ISR = DRFR per document); each
    document carries the run ``settings`` a data hook adds (judge, image budget), and its
    own id from ``first_id`` on."""
    from .leaderboard_helpers import make_job, task_values

    stamp = "2026-01-01T10-00-00.000000"
    values = isr + [1.0] * extra  # documents only this model answered
    mean = sum(values) / len(values)
    results = {"scimif_chem": task_values(len(values), csr=mean, isr=mean, drfr=mean)}
    folder = make_job(sweep, f"{model}__chem__1", model, stamp, results)
    lines = []
    for i, v in enumerate(values):
        verdict = {"name": "c", "constraint": "c", "group": "Format", "domain": "general",
                   "score": v, "reason": "hand-made", "judge": None}  # fmt: skip
        doc = {"discipline": "chemistry", "id": first_id + i, **(settings or {})}
        drfr = {"satisfied": v, "scored": 1, "constraints": [verdict]}
        doc_hash = f"doc-{first_id + i}-{json.dumps(settings, sort_keys=True)}"
        lines.append({"doc_id": i, "doc_hash": doc_hash, "doc": doc, "csr": v, "isr": v,
                      "drfr": drfr})  # fmt: skip
    samples = folder / model / f"samples_scimif_chem_{stamp}.jsonl"
    samples.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def test_leaderboard_shows_errors_and_paired_differences(tmp_path: Path) -> None:
    from sci_tasks import leaderboard

    sweep = tmp_path / "sweep"
    _scimif_job(sweep, "x", [1.0, 1.0, 0.0, 0.0], extra=1)
    _scimif_job(sweep, "y", [1.0, 0.0, 0.0, 0.0])
    board = leaderboard.build(sweep)
    x, _ = board.rows
    assert x.values["SciMIF chemistry ISR"] == 0.6  # 3 of 5
    se = bootstrap([(v, 1.0) for v in (1.0, 1.0, 0.0, 0.0, 1.0)]).stderr
    assert x.stderr["SciMIF chemistry ISR"] == se > 0
    assert x.stderr["SciMIF Overall"] == se  # one discipline

    pairs = {p.column: p.difference for p in leaderboard.pairwise(board)}
    assert sorted(pairs) == [f"SciMIF chemistry {m}" for m in ("CSR", "DRFR", "ISR")]
    isr = pairs["SciMIF chemistry ISR"]
    # the 4 shared documents: x - y = 0.5 - 0.25; they differ on one document only, so
    # every resample's difference is k/4, k ~ Binomial(4, 1/4) the draws of that document:
    # P(k = 0) = 0.32 > 2.5% and P(k <= 2) = 0.949 < 97.5% <= P(k <= 3) give [0, 0.75]
    assert (isr.diff, isr.n, isr.low, isr.high) == (0.25, 4, 0.0, 0.75)
    assert not isr.significant

    written = leaderboard.write(board, tmp_path / "out")
    markdown = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert f"0.6000 ± {se:.4f}" in markdown
    assert "## Paired differences" in markdown and "### x - y" in markdown
    assert re.search(
        r"\| SciMIF chemistry ISR +\| \+0\.2500 +\| \[\+0\.0000, \+0\.7500\] +\| 4 ", markdown
    )
    with (tmp_path / "out" / "pairwise.csv").open(newline="", encoding="utf-8") as fh:
        rows = {r["column"]: r for r in csv.DictReader(fh)}
    assert tmp_path / "out" / "pairwise.csv" in written
    assert float(rows["SciMIF chemistry ISR"]["a - b"]) == 0.25
    assert rows["SciMIF chemistry ISR"]["paired samples"] == "4"


def test_paired_across_run_settings_and_unpaired_said_in_words(tmp_path: Path) -> None:
    """Rows that differ only in the judge's concurrency or the image budget pair every
    sample; rows that answered other documents say so in the Markdown and pairwise.csv."""
    from sci_tasks import leaderboard

    sweep = tmp_path / "sweep"
    _scimif_job(sweep, "c1", [1.0, 1.0, 0.0, 0.0], settings={"judge_settings": '{"c": 1}'})
    _scimif_job(sweep, "c8", [1.0, 0.0, 0.0, 0.0], settings={"judge_settings": '{"c": 8}'})
    _scimif_job(sweep, "px", [1.0, 1.0, 1.0, 0.0], settings={"max_image_pixels": 200704})
    _scimif_job(sweep, "other", [1.0, 0.0], first_id=100)  # other documents
    board = leaderboard.build(sweep)
    pairs = {(p.a, p.b, p.column): p.difference for p in leaderboard.pairwise(board)}
    isr = "SciMIF chemistry ISR"
    assert pairs[("c1", "c8", isr)].n == 4 and pairs[("c1", "c8", isr)].diff == 0.25
    assert pairs[("c1", "px", isr)].n == 4 and pairs[("c1", "px", isr)].diff == -0.25
    assert pairs[("c1", "other", isr)].n == 0 and math.isnan(pairs[("c1", "other", isr)].diff)

    leaderboard.write(board, tmp_path / "out")
    markdown = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    section = markdown.split("### c1 - other", 1)[1].split("###", 1)[0]
    shared_none = "No sample in common for `SciMIF chemistry CSR`, `SciMIF chemistry ISR`, `SciMIF"
    assert shared_none in section
    assert "no paired comparison is possible" in section
    with (tmp_path / "out" / "pairwise.csv").open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if (r["model a"], r["model b"]) == ("c1", "other")]
    assert {r["paired samples"] for r in rows} == {"0"} and len(rows) == 3
