"""Builders for data folders in the authors' released layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image


def write_release(root: Path, records: dict[str, list[object]], images: Sequence[str] = ()) -> Path:
    """A folder in the authors' layout: <discipline>.jsonl files and images/."""
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in records.items():
        lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
        (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for rel in images:
        path = root / "images" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 8), "white").save(path)
    return root


GEO_IMG = "geography/SrcBench/images/a1.png"
GEO_IMG2 = "geography/SrcBench/images/a2.png"
GEO_RECORDS = [
    {
        "id": 7,
        "task": "formated_calculation_task",
        "original_question": "Q?",
        "edit_question": "Q? Answer in all lowercase.",
        "answer": 3.5,
        "choose_instruction": [{"instruction_name": "geography_unit_consistency"}, "x_y"],
        "instruction_list": [
            {"instruction_name": "general_all_lowercase", "source": "added_general"},
            {
                "instruction_name": "geography_unit_consistency",
                "source": "core_task",
                "required_parameters": None,
            },
        ],
        "image": GEO_IMG,
    },
    {
        "id": 8,
        "task": "formated_scene_option",
        "original_question": "Q2",
        "edit_question": "Q2",
        "answer": None,
        "instruction_list": [
            {
                "instruction_name": "made_up_name",
                "source": "added_general",
                "required_parameters": "two",
            }
        ],
        "image": [GEO_IMG, "images/" + GEO_IMG2],
    },
]


def console_script(name: str) -> str:
    """A console script of this environment (next to the running interpreter, else on PATH)."""
    import shutil
    import sys

    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    assert found, f"{name} is not installed in this environment"
    return found


def loopback_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment for a CLI run against loopback servers: offline, a private cache,
    a dummy key, and no data location or HYDRA_FULL_ERROR leaking in from the caller."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OPENAI_API_KEY": "loopback-key",
        "SCI_TASKS_CACHE": str(tmp_path / "cache"),
    }
    for key in ("SCIMIF_DATA_DIR", "SCI_TASKS_DATA_DIR", "SPM_BENCH_DATA_DIR", "HYDRA_FULL_ERROR"):
        env.pop(key, None)
    return {**env, **extra}


def must_fail(tmp_path: Path, argv: list[str], timeout: float = 120, **env: str) -> str:
    """The whole output (stdout + stderr) of console script ``argv[0]`` run in ``tmp_path``
    against loopback servers (``loopback_env``); it must exit non-zero."""
    out = subprocess.run(
        [console_script(argv[0]), *argv[1:]], capture_output=True, text=True, cwd=tmp_path,
        env=loopback_env(tmp_path, **env), timeout=timeout,
    )  # fmt: skip
    assert out.returncode != 0, out.stdout + out.stderr
    return out.stdout + out.stderr


def judged_env(tmp_path: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment for runs whose judges the test sets: offline, the caller's judge
    settings (``SCI_TASKS_JUDGE_*``, ``SCI_TASKS_CORRECTNESS_*``) left out but for their keys
    (``..._KEY``), a private cache under ``tmp_path`` when given, then ``extra``."""
    roles = ("SCI_TASKS_JUDGE_", "SCI_TASKS_CORRECTNESS_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(roles) or k.endswith("_KEY")}
    env |= {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    if tmp_path is not None:
        env["SCI_TASKS_CACHE"] = str(tmp_path / "cache")
    return {**env, **extra}


def judge_settings(model: str, base_url: str, tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    """Judge settings for a loopback judge: short timeouts and backoff, a private cache,
    the key in SCI_TASKS_TEST_JUDGE_KEY."""
    settings: dict[str, Any] = {
        "model": model,
        "base_url": base_url,
        "api_key_env": "SCI_TASKS_TEST_JUDGE_KEY",
        "timeout": 5.0,
        "max_attempts": 3,
        "backoff_initial": 0.05,
        "backoff_max": 0.2,
        "cache_dir": str(tmp_path / "judge-cache"),
    }
    return settings | overrides


def redrawn_sample_images(script: str, tmp_path: Path) -> tuple[Path, list[Path]]:
    """Run ``scripts/<script>.py`` into ``tmp_path`` and check that it draws exactly the
    committed PNGs, byte for byte; returns the committed folder and the drawn files (relative)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / f"{script}.py"
    spec = importlib.util.spec_from_file_location(script, path)
    assert spec and spec.loader
    module: Any = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # as `python scripts/<script>.py` runs: drawing.py
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    committed = Path(module.ROOT)
    module.ROOT = tmp_path
    module.main()
    drawn = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.png"))
    assert drawn == sorted(p.relative_to(committed) for p in committed.rglob("*.png"))
    for rel in drawn:
        assert (tmp_path / rel).read_bytes() == (committed / rel).read_bytes(), rel
    return committed, drawn


def offline_hub_snapshot(
    tmp_path: Path, monkeypatch: Any, repo_id: str = "someone/sci-data",
    revision: str = "0123456789abcdef0123456789abcdef01234567",
) -> Path:  # fmt: skip
    """The snapshot folder of dataset ``repo_id`` in a hub cache under ``tmp_path``, laid out
    as a download leaves it (``refs/main`` -> ``revision``), with huggingface_hub switched
    to that cache and offline: what the test writes there is what a fetch returns."""
    import huggingface_hub.constants as hub_constants

    repo = tmp_path / "hf" / f"datasets--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    return repo / "snapshots" / revision


def bundled_lines(benchmark: str) -> list[str]:
    """The non-blank lines of a benchmark's bundled ``*.jsonl`` files: the count a loader of
    the bundled samples must return, read from the files rather than written down."""
    from sci_tasks.data.locate import samples_dir

    return [
        line
        for path in sorted(samples_dir(benchmark).glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def split_doc_ids(tasks: Any, splits: dict[str, str], key: str) -> Counter[str]:
    """How often each document id occurs across the split tasks ``splits`` (task name ->
    the value of ``key`` its documents must all have), asserting that each split task holds
    documents and only its own."""
    seen: Counter[str] = Counter()
    for name, value in splits.items():
        docs = list(tasks[name].test_docs())
        assert docs and {d[key] for d in docs} == {value}, name
        seen.update(d["id"] for d in docs)
    return seen


def ok(out: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``out`` of a command that must succeed; else the tails of its output as the failure."""
    assert out.returncode == 0, f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def scripted_model_args(url: str, *more: str) -> list[str]:
    """sci-eval overrides for the model ``scripted`` of a local OpenAI-compatible server at
    ``url``, one request at a time, then ``more``."""
    return [
        "model=local_api", "model.args.model=scripted", f"model.args.base_url={url}",
        "model.args.num_concurrent=1", *more,
    ]  # fmt: skip
