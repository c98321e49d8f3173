"""Each benchmark's declaration (``sci_tasks.benchmarks``) against what it declares: the
lm-eval task YAMLs, the sci-eval task sets and data options, the report module and the
bundled samples, so a declaration that drifts from the files fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hydra import compose, initialize_config_module

from sci_tasks import benchmarks
from sci_tasks.data.locate import ROOT_KEY, locate, samples_dir

ROOT = Path(__file__).resolve().parents[1]
TASK_DIR = ROOT / "sci_tasks" / "benchmarks"  # each benchmark package's tasks/
STANDARD = {"arc_easy", "gsm8k"}  # lm-eval's own tasks in a shipped task set
DECLARED = benchmarks.all_benchmarks()


def yaml_names(pattern: str) -> set[str]:
    names: set[str] = set()
    for path in TASK_DIR.rglob("*yaml"):
        names |= set(re.findall(pattern, path.read_text("utf-8"), re.M))
    return names


TASKS = yaml_names(r"^task: (\w+)")
GROUPS = yaml_names(r"^group: (\w+)")
METRICS = yaml_names(r"^\s*- metric: (\w+)")


def task_set(name: str) -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "conf" / "tasks" / f"{name}.yaml").read_text("utf-8")))


@pytest.mark.parametrize("b", DECLARED, ids=lambda b: b.name)
def test_splits_group_and_metrics_are_in_the_task_yamls(b: benchmarks.Benchmark) -> None:
    assert b.group in GROUPS and (TASK_DIR / b.name / "tasks").is_dir()
    assert set(b.splits) <= TASKS and b.splits
    assert all(b.owns(t) for t in (b.group, *b.splits))
    mine = {t for t in TASKS | GROUPS if b.owns(t)}
    assert mine and all(benchmarks.of_task(t) is b for t in mine)  # no prefix is shared
    assert {key.split(",")[0] for _, key in b.columns} <= METRICS
    for prefix, metrics in b.headlines.items():
        assert any(t.startswith(prefix) for t in TASKS), prefix
        assert set(metrics) <= METRICS, prefix
        assert all(b.metric(m) for m in metrics), prefix  # each one declared in its specs


@pytest.mark.parametrize("b", DECLARED, ids=lambda b: b.name)
def test_task_sets_report_and_samples(b: benchmarks.Benchmark) -> None:
    for name in b.task_sets:
        config = task_set(name)
        assert config["name"] == name
        assert all(str(t) in TASKS | GROUPS and b.owns(str(t)) for t in config["names"])
    assert callable(benchmarks.report_writer(b))
    assert samples_dir(b.name).is_dir() and any(samples_dir(b.name).glob("*.jsonl"))


def test_every_shipped_task_set_is_declared_or_a_mix_with_standard_tasks() -> None:
    declared = {s for b in DECLARED for s in b.task_sets}
    for path in sorted((ROOT / "conf" / "tasks").glob("*.yaml")):
        names = {str(t) for t in task_set(path.stem)["names"]}
        if path.stem not in declared:  # a mix: our tasks next to lm-eval's own
            assert names & STANDARD and names - STANDARD <= TASKS | GROUPS, path.name


def test_sci_eval_has_a_data_option_per_benchmark_and_locate_reads_it(tmp_path: Path) -> None:
    with initialize_config_module(config_module="sci_tasks.conf", version_base="1.3"):
        cfg = compose(config_name="config")
    assert list(cfg.data)[: 1 + len(DECLARED)] == [ROOT_KEY, *(b.data_key for b in DECLARED)]
    assert all(cfg.data[b.data_key] is None for b in DECLARED)
    for b in DECLARED:
        (tmp_path / b.name).mkdir()
        found = locate(b.name, {b.data_key: str(tmp_path / b.name)})
        assert (found.kind, found.where, found.set_by) == (
            "folder",
            str(tmp_path / b.name),
            f"{b.data_key} (run settings)",
        )
        assert locate(b.name, {ROOT_KEY: str(tmp_path)}).where == str(tmp_path / b.name)


def test_an_unknown_benchmark_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: scigen_verify, scimif, spm_bench"):
        locate("scimath")
    assert benchmarks.of_task("arc_easy") is None
