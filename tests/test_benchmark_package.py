"""Adding a benchmark is one folder plus one registration line (issue 30).

The test-only fourth benchmark (``tests/fourth_benchmark``: unit conversions) is copied into
an installed copy of the package, as ``sci_tasks/benchmarks/units/``, and registered by one
more line in that copy's ``DECLARED_IN``; no environment variable names it and ``tests`` is
not importable. It then runs through ``sci-eval`` (against a scripted OpenAI-compatible
server on loopback), ``sci-score``, ``sci-view``, ``sci-report`` and ``sci-leaderboard``,
each checked against the hand-counted scores of ``tests/test_fourth_benchmark.py``.

The copy's declaration and Python modules are used as they are (its hooks name modules
relative to its package); only its task YAMLs' ``!function`` lines are rewritten to the
folder's new dotted name, since lm-eval resolves those names as absolute imports.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import loopback_env, ok, scripted_model_args
from .misbehaving import scripted_server
from .test_fourth_benchmark import answer, scores

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_FOLDER = ROOT / "tests" / "fourth_benchmark"
OLD_NAME, NEW_NAME = "tests.fourth_benchmark", "sci_tasks.benchmarks.units"
LAST_LINE = '    "sci_tasks.benchmarks.scigen_verify",\n)'
MODEL = "units-a"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package installed into a folder of its own (never the checkout), with the units
    benchmark copied in as one folder and registered by one added line."""
    site = tmp_path_factory.mktemp("site")
    ok(subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
         str(ROOT)],
        capture_output=True, text=True, timeout=600,
    ))  # fmt: skip
    folder = site / "sci_tasks" / "benchmarks" / "units"
    shutil.copytree(PLUGIN_FOLDER, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for yaml_file in (folder / "tasks").iterdir():
        yaml_file.write_text(yaml_file.read_text().replace(OLD_NAME, NEW_NAME))
    registry = site / "sci_tasks" / "benchmarks" / "__init__.py"
    text = registry.read_text()
    assert text.count(LAST_LINE) == 1
    registry.write_text(text.replace(LAST_LINE, LAST_LINE[:-1] + f'    "{NEW_NAME}",\n)'))
    return site


def env_of(site: Path, tmp: Path) -> dict[str, str]:
    """Offline, a private cache, the installed copy first on the path, no plugin named."""
    env = loopback_env(tmp, PYTHONPATH=str(site))
    return {k: v for k, v in env.items() if k not in ("SCI_TASKS_BENCHMARKS", "UNITS_DATA_DIR")}


def command(site: Path, name: str) -> str:
    script = site / "bin" / name  # the copy's console script (pip --target writes it there)
    assert script.is_file(), f"{name} not installed into {site}"
    return str(script)


def run(site: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return ok(subprocess.run(
        [*args], capture_output=True, text=True, cwd=tmp, env=env_of(site, tmp), timeout=900
    ))  # fmt: skip


@pytest.fixture(scope="module")
def job(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One sci-eval run of model units-a on the group ``units``."""
    tmp = tmp_path_factory.mktemp("units-run")
    with scripted_server(answer) as server:
        run(site, tmp, command(site, "sci-eval"),
            *scripted_model_args(server.chat_url, "model.args.max_retries=1", "use_cache=false"),
            f"model.args.model={MODEL}", "tasks.name=units", "tasks.names=[units]")  # fmt: skip
        assert len(server.requests) == 8  # the eight questions, each asked once
    (folder,) = (tmp / "sci-eval-runs").iterdir()
    return folder


def test_the_copy_is_the_registered_benchmark(site: Path, tmp_path: Path) -> None:
    code = (
        "import sci_tasks\n"
        "from sci_tasks import benchmarks\n"
        "try:\n"
        "    import tests.fourth_benchmark\n"
        "    raise SystemExit('the original is importable')\n"
        "except ImportError:\n"
        "    pass\n"
        "units = benchmarks.get('units')\n"
        "print(sci_tasks.__file__, units.report, units.task_folder(), benchmarks.names())\n"
    )
    out = run(site, tmp_path, sys.executable, "-c", code).stdout.split()
    assert out[0] == str(site / "sci_tasks" / "__init__.py")
    assert out[1] == "sci_tasks.benchmarks.units.report"
    assert out[2] == str(site / "sci_tasks" / "benchmarks" / "units" / "tasks")
    assert out[3:] == ["('scimif',", "'spm_bench',", "'scigen_verify',", "'units')"]


def test_sci_eval_gives_the_hand_counted_scores(job: Path) -> None:
    (path,) = job.rglob("results_*.json")
    results = json.loads(path.read_text())["results"]
    number, exact = scores(MODEL)
    assert results["units"]["number,none"] == pytest.approx(sum(number) / 8) == 7 / 8
    assert results["units"]["exact,none"] == pytest.approx(sum(exact) / 8) == 6 / 8
    assert results["units_metric"]["exact,none"] == pytest.approx(3 / 4)


def test_sci_score_rescores_it_to_the_same_scores(site: Path, job: Path, tmp_path: Path) -> None:
    copy = tmp_path / "job"  # a copy: the module's run stays as sci-eval left it
    shutil.copytree(job, copy)
    run(site, copy, command(site, "sci-score"), f"run_dir={copy}")
    (path,) = (copy / "scores" / "none").rglob("results_*.json")
    results = json.loads(path.read_text())["results"]
    assert results["units"]["number,none"] == pytest.approx(7 / 8)
    assert results["units"]["exact,none"] == pytest.approx(6 / 8)


def test_sci_view_shows_its_checks(site: Path, job: Path, tmp_path: Path) -> None:
    page = tmp_path / "view.html"
    run(site, tmp_path, command(site, "sci-view"), str(job), "--out", str(page))
    html = page.read_text()
    # the checks its view hook reads from the record of u3 ("1200 ml" for 1200 mL)
    assert "said ml, answer mL" in html and "said 1200, answer 1200" in html


def test_sci_report_writes_its_table(site: Path, job: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    printed = run(site, tmp_path, command(site, "sci-report"), str(job), "--out", str(out))
    assert str(out / "units.md") in printed.stdout.splitlines()
    with (out / "units.csv").open(newline="") as fh:
        rows = {r["kind"]: r for r in csv.DictReader(fh)}
    assert float(rows["metric"]["number"]) == 1.0 and float(rows["metric"]["exact"]) == 0.75
    assert float(rows["imperial"]["number"]) == 0.75 and float(rows["all"]["exact"]) == 0.75


def test_sci_leaderboard_shows_its_columns(site: Path, job: Path, tmp_path: Path) -> None:
    out = tmp_path / "leaderboard"
    run(site, tmp_path, command(site, "sci-leaderboard"), str(job), "--out", str(out))
    with (out / "leaderboard.csv").open(newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert float(row["Units Number"]) == pytest.approx(7 / 8)
    assert float(row["Units Exact"]) == pytest.approx(6 / 8)
    assert "\n## Units\n" in (out / "leaderboard.md").read_text()
