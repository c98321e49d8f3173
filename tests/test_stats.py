"""Bootstrap standard errors and paired differences (``sci_tasks.stats``), on values that
can be checked by hand."""

from __future__ import annotations

import math

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
    records = [{"acc_e": {"score": 1.0}}, {"acc_e": {"score": None}}]
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


def test_sample_key_prefers_the_doc_hash() -> None:
    assert stats.sample_key("t", {"doc_hash": "ab", "doc_id": 3}) == ("t", "ab")
    assert stats.sample_key("t", {"doc_id": 3}) == ("t", "doc_id=3")


def test_format() -> None:
    assert stats.fmt(stats.Estimate(0.25, 0.03125, 4)) == "0.2500 ± 0.0312"
    assert stats.fmt(stats.Estimate(math.nan, math.nan, 0)) == "n/a"
    assert stats.fmt(stats.Estimate(0.5, math.nan, 1)) == "0.5000"
