"""The metric specs of each benchmark (``Benchmark.metrics`` / ``task_metrics``): the task
YAMLs' ``metric_list`` blocks are what ``scripts/generate_metric_lists.py`` writes from them,
byte for byte, and the statistics module takes each metric's per-sample parts from them."""

from __future__ import annotations

import math
import runpy
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from sci_tasks import benchmarks, stats
from sci_tasks.benchmarks import Benchmark, MetricSpec

ROOT = Path(__file__).resolve().parents[1]


def _generator() -> dict[str, Any]:
    """The generator script's globals (scripts/ is no package)."""
    return runpy.run_path(str(ROOT / "scripts" / "generate_metric_lists.py"))


def test_committed_metric_lists_are_what_the_script_generates() -> None:
    generator = _generator()
    wanted = generator["wanted"]()
    task_dir = ROOT / "sci_tasks" / "benchmarks"
    assert sorted(p.relative_to(task_dir).as_posix() for p in wanted) == [
        "scigen_verify/tasks/_scigen_verify_template_yaml",
        "scigen_verify/tasks/scigen_rubric.yaml",
        "scimif/tasks/_scimif_template_yaml",
        "spm_bench/tasks/_spm_bench_template_yaml",
    ]
    for path, text in wanted.items():
        assert path.read_bytes() == text.encode("utf-8"), path
    assert generator["main"](["--check"]) == 0


def test_a_plugins_metric_list_is_generated_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test-only fourth benchmark, registered as a plugin: its template's block too."""
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, "tests.fourth_benchmark")
    generator = _generator()
    template = benchmarks.get("units").task_folder() / "_units_template_yaml"
    assert generator["wanted"]()[template].encode("utf-8") == template.read_bytes()
    assert generator["main"](["--check"]) == 0


def test_a_plugin_that_cannot_load_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, "no_such_plugin_module")
    assert _generator()["main"](["--check"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "generate_metric_lists.py: benchmark plugin 'no_such_plugin_module': "
        "No module named 'no_such_plugin_module'\n"
    )


@pytest.mark.parametrize("b", benchmarks.all_benchmarks(), ids=lambda b: b.name)
def test_each_yaml_metric_list_is_its_specs(b: Benchmark) -> None:
    """Read back with a YAML parser: names, aggregations and directions in spec order."""
    for path, specs in b.metric_lists().items():
        parsed = yaml.safe_load(path.read_text("utf-8").replace("!function ", "fn:"))
        entries = [
            (m["metric"], m["aggregation"], m["higher_is_better"]) for m in parsed["metric_list"]
        ]
        assert entries == [
            (s.name, s.aggregation.replace("!function ", "fn:"), s.higher_is_better) for s in specs
        ]
        assert entries[-1] == ("record", "fn:sci_tasks.metrics.aggregate.count", True)


def test_a_block_is_replaced_and_nothing_else() -> None:
    generator = _generator()
    text = (
        "task: t\n"
        "metric_list:\n"
        "  # stale comment\n"
        "  - metric: old\n"
        "    aggregation: mean\n"
        "# after the block\n"
        "metadata:\n"
        "  version: 1.0\n"
    )
    specs = (
        MetricSpec("acc", True, "mean", comment="one two three " * 8),
        MetricSpec("misses", False, "!function m.total"),
    )
    assert generator["rewrite"](text, specs, Path("t.yaml")) == (
        "task: t\n"
        "metric_list:\n"
        "  # one two three one two three one two three one two three one two three one two three\n"
        "  # one two three one two three\n"
        "  - metric: acc\n"
        "    aggregation: mean\n"
        "    higher_is_better: true\n"
        "  - metric: misses\n"
        "    aggregation: !function m.total\n"
        "    higher_is_better: false\n"
        "# after the block\n"
        "metadata:\n"
        "  version: 1.0\n"
    )
    with pytest.raises(ValueError, match=r"t\.yaml: 0 top-level metric_list blocks"):
        generator["rewrite"]("task: t\n", specs, Path("t.yaml"))


def test_headline_columns_come_from_the_labelled_specs() -> None:
    """The leaderboard columns the declarations used to spell out, now derived."""
    columns = {b.name: b.columns for b in benchmarks.all_benchmarks()}
    assert columns["scimif"] == (("CSR", "csr,none"), ("ISR", "isr,none"), ("DRFR", "drfr,none"))
    assert columns["spm_bench"] == (
        ("EM", "em,none"),
        ("SPC", "spc,none"),
        ("SIP-F1", "sip_f1,none"),
        ("Delta", "delta,none"),
    )
    assert columns["scigen_verify"] == (
        ("Acc_a", "acc_a,none"),
        ("Acc_e", "acc_e,none"),
        ("Acc_i", "acc_i,none"),
    )
    keys = {b.name: (b.data_key, b.group) for b in benchmarks.all_benchmarks()}
    assert keys == {
        "scimif": ("SCIMIF_DATA_DIR", "scimif"),
        "spm_bench": ("SPM_BENCH_DATA_DIR", "spm_bench"),
        "scigen_verify": ("SCIGEN_VERIFY_DATA_DIR", "scigen_verify"),
    }


def test_the_bootstrapped_metrics_are_the_specs_with_parts() -> None:
    assert sorted(stats.sample_parts()) == sorted(
        ["csr", "isr", "drfr", "em", "spc", "sip_f1", "acc_a", "acc_e", "acc_i"]
    )
    assert stats.has_parts("drfr") and not stats.has_parts("delta")  # Delta: no ratio of sums
    assert benchmarks.get("scigen_verify").metric("rr") == MetricSpec(
        "rr", True, "!function sci_tasks.benchmarks.scigen_verify.rubric.macro_over_domains"
    )


def _plugin(folder: Path, module: str, name: str, parts: str) -> None:
    (folder / f"{module}.py").write_text(
        "from sci_tasks.benchmarks import Benchmark, MetricSpec\n\n"
        "def hits(sample):\n"
        "    return (float(sample['hits']), float(sample['tries']))\n\n"
        "def write_report(run_dir, out_dir):\n"
        "    return []\n\n"
        f"BENCHMARK = Benchmark(name={name!r}, title={name!r}, splits=({name!r} + '_a',),\n"
        f"    report={module!r}, metrics=(MetricSpec('hits', True, 'mean', parts={parts!r}),))\n",
        encoding="utf-8",
    )


def test_a_plugins_parts_reach_the_bootstrap_and_a_clash_names_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _plugin(tmp_path, "plugin_darts", "darts", "plugin_darts:hits")
    _plugin(tmp_path, "plugin_bowls", "bowls", "mean")
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, "plugin_darts")
    samples = [{"hits": 1, "tries": 4}, {"hits": 3, "tries": 4}, {"other": 1}]
    est = stats.metric_estimate("hits", samples)
    assert (est.value, est.n) == (0.5, 2)  # (1 + 3) / (4 + 4), the third has no hits
    assert benchmarks.get("darts").data_key == "DARTS_DATA_DIR"
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, "plugin_darts,plugin_bowls")
    with pytest.raises(RuntimeError, match="'hits' has two per-sample parts: plugin_darts:hits"):
        stats.sample_parts()
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, "plugin_bowls")
    mean = stats.metric_estimate("hits", [{"hits": 1.0}, {"hits": math.nan}, {"hits": 0.0}])
    assert (mean.value, mean.n) == (0.5, 3)  # the NaN sample is left out of the mean
    for module in ("plugin_darts", "plugin_bowls"):
        sys.modules.pop(module, None)
