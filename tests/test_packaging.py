"""A plain (non-editable) install carries task YAMLs, templates, configs and samples, and
works from another directory; only `sci_tasks` is importable at top level."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

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
        {f"sci_tasks/tasks/{f}" for f in repo_files("sci_tasks/tasks", "*.yaml", "*_yaml")}
        | {f"sci_tasks/templates/{f}" for f in repo_files("templates", "*.jinja")}
        | {f"sci_tasks/conf/{f}" for f in repo_files("conf", "*.yaml")}
        | {
            f"sci_tasks/samples/{f}"
            for f in repo_files("sci_tasks/samples", "*.jsonl", "*.png", "*.jpg", "*.jpeg")
        }
        | {f"sci_tasks/metrics/{f}" for f in repo_files("metrics", "*.py")}
        | {f"sci_tasks/{f}" for f in repo_files("sci_tasks", "*.py")}
    )
    assert len(expected) > 60
    assert expected - names == set()


def test_installed_copy_runs_from_another_directory(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    code = (
        "import sci_tasks, pathlib\n"
        f"assert sci_tasks.__file__.startswith({str(site)!r}), sci_tasks.__file__\n"
        "task = sci_tasks.task_manager().load('scimif_phy')['tasks']['scimif_phy']\n"
        "doc = next(iter(task.test_docs()))\n"
        "assert task.doc_to_text(doc) == doc['edit_question'] and task.doc_to_image(doc)\n"
        "print(len(list(task.test_docs())))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.strip().splitlines()[-1]) >= 6
    cfg = subprocess.run(
        [sys.executable, "-m", "sci_tasks.app", "--cfg", "job"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert cfg.returncode == 0, cfg.stderr[-3000:]
    assert "scimif_chem" in cfg.stdout and "gguf_file" in cfg.stdout
