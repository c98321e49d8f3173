"""A plain (non-editable) install carries task YAMLs, templates, configs and samples, and
works from another directory; only `sci_tasks` is importable at top level."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from lm_eval.tasks import TaskManager

import sci_tasks

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    (path,) = out.glob("sci_tasks-*.whl")
    return path


def repo_files(folder: str, *patterns: str) -> set[str]:
    base = ROOT / folder
    return {
        str(p.relative_to(base))
        for pat in patterns
        for p in base.rglob(pat)
        if "__pycache__" not in p.parts
    }


def test_wheel_holds_every_data_file_under_the_sci_tasks_namespace(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"sci_tasks"}
    expected = (
        {
            f"sci_tasks/benchmarks/{f}"
            for f in repo_files(
                "sci_tasks/benchmarks", "*.yaml", "*_yaml", "*.jsonl", "*.png", "*.jpg", "*.jpeg"
            )
        }
        | {f"sci_tasks/templates/{f}" for f in repo_files("templates", "*.jinja")}
        | {f"sci_tasks/conf/{f}" for f in repo_files("conf", "*.yaml")}
        | {f"sci_tasks/metrics/{f}" for f in repo_files("metrics", "*.py")}
        | {f"sci_tasks/{f}" for f in repo_files("sci_tasks", "*.py")}
    )
    assert len(expected) > 60
    assert expected - names == set()


def python(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def test_installed_copy_runs_from_another_directory(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
         str(wheel)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    code = (
        "import sci_tasks, pathlib\n"
        f"assert sci_tasks.__file__.startswith({str(site)!r}), sci_tasks.__file__\n"
        "task = sci_tasks.task_manager().load('scimif_phy')['tasks']['scimif_phy']\n"
        "doc = next(iter(task.test_docs()))\n"
        "n = len(task.doc_to_image(doc))\n"
        "assert n and task.doc_to_text(doc) == '<image>' * n + '\\n' + doc['edit_question']\n"
        "print(len(list(task.test_docs())))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "HF_HUB_OFFLINE": "1"}
    out = python("-c", code, cwd=tmp_path, env=env)
    assert int(out.stdout.strip().splitlines()[-1]) >= 6
    cfg = python("-m", "sci_tasks.app", "--cfg", "job", cwd=tmp_path, env=env)
    assert "scimif_chem" in cfg.stdout and "gguf_file" in cfg.stdout


def test_the_entry_point_resolves_to_our_task_folder_as_lm_eval_plugins_do() -> None:
    """lm-eval's task plugins (PR #4015, ``discover_plugin_task_paths``): the entry point's
    value up to ``:`` is a module; ``importlib.util.find_spec`` gives the package's folder
    (``submodule_search_locations[0]``), which lm-eval scans for ``*.yaml`` like its own."""
    (ep,) = [e for e in entry_points(group="lm_eval.tasks") if e.name == "sci_tasks"]
    assert ep.value == "sci_tasks.benchmarks"
    spec = importlib.util.find_spec(ep.value.split(":", 1)[0].strip())
    assert spec is not None and spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations))).resolve()
    assert folder == Path(sci_tasks.include_path()).resolve()
    yamls = {p.name for p in folder.glob("**/*.yaml")}
    assert {"scimif_chem.yaml", "spm_bench.yaml", "scigen_verify.yaml"} <= yamls
    # the folder alone (nothing else of the package) is what lm-eval then indexes
    names = TaskManager(include_path=str(folder), include_defaults=False).all_tasks
    expected = {"scimif_chem", "scimif_bio", "scimif", "spm_bench", "scigen_verify"}
    assert expected | {"scigen_rubric", "spm_bench_afm"} <= set(names)
