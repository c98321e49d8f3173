"""The sweep leaderboard (``sci_tasks.leaderboard``) end to end: a real ``sci-eval -m``
sweep of two models (two llm-katan echo servers) x the task sets ``scimif_text`` and
``spm_bench``, and two stock ``lm_eval --output_path`` folders; every number of the
leaderboard is checked against the jobs' own results files and the SciMIF samples (on
hand-built job folders: test_leaderboard_jobs.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from sci_tasks.benchmarks.scimif.report import group_table, read_samples

from .helpers import console_script
from .leaderboard_helpers import read_csv, run_leaderboard, same
from .servers import KATAN_KEY, katan

MODELS = ("model-a", "model-b")
SCIMIF = {"chemistry": "scimif_chem", "biology": "scimif_bio"}
PNGS = ("scimif_isr_by_discipline.png", "scimif_drfr_by_group.png", "spm_bench_spc_vs_sip_f1.png")


def sweep_env(tmp_path: Path, urls: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SCI_TASKS_JUDGE_")
        and k not in ("SCI_TASKS_DATA_DIR", "SCIMIF_DATA_DIR", "SPM_BENCH_DATA_DIR")
    }  # bundled samples, no judge
    env |= {
        "OPENAI_API_KEY": KATAN_KEY,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "SCI_TASKS_CACHE": str(tmp_path / "cache"),
    }
    # each model's server, picked by the model name inside the config (Hydra sweeps take
    # the cross product of overrides, so model and URL cannot be swept side by side)
    env |= {f"KATAN_URL_{model}": url for model, url in urls.items()}
    return env


def test_two_model_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with katan(tmp_path, model="model-a") as a, katan(tmp_path, model="model-b") as b:
        env = sweep_env(tmp_path, {"model-a": a.chat_url, "model-b": b.chat_url})
        run = subprocess.run(
            [
                console_script("sci-eval"), "-m", "model=local_api",
                "model.args.model=" + ",".join(MODELS),
                "model.args.base_url='${oc.env:KATAN_URL_${model.args.model}}'",
                "model.args.num_concurrent=2", "model.args.max_retries=1",
                "tasks=scimif_text,spm_bench", "limit=2", "sweep_name=two",
                # the four jobs in parallel: each spends most of its time indexing lm-eval's tasks
                "hydra/launcher=joblib", "hydra.launcher.n_jobs=4",
            ],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
        )  # fmt: skip
        assert run.returncode == 0, f"sci-eval failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        assert a.requests_received() > 0 and b.requests_received() > 0

    sweep = tmp_path / "sci-eval-sweeps" / "two"
    jobs = {p.name: p for p in sweep.iterdir() if (p / "manifest.json").exists()}
    assert sorted(n.split("__")[:2] for n in jobs) == [
        [m, t] for m in MODELS for t in ("scimif_text", "spm_bench")
    ]

    markdown, stdout = run_leaderboard(sweep, capsys)
    out = sweep / "leaderboard"
    rows = {r["model"]: r for r in read_csv(out / "leaderboard.csv")}
    assert sorted(rows) == list(MODELS)  # one row per model, its two jobs merged

    for name, folder in jobs.items():
        model, taskset = name.split("__")[:2]
        (results_file,) = folder.rglob("results_*.json")
        results = json.loads(results_file.read_text())["results"]
        row = rows[model]
        assert name in row["jobs"].split("; ")
        if taskset == "scimif_text":
            isrs = []
            for discipline, task in SCIMIF.items():
                for label, key in (("CSR", "csr,none"), ("ISR", "isr,none"), ("DRFR", "drfr,none")):
                    column = f"SciMIF {discipline} {label}"
                    assert same(row[column], results[task][key]), (model, column)
                isrs.append(results[task]["isr,none"])
            assert float(row["SciMIF Overall"]) == sum(isrs) / len(isrs)
            assert row["SciMIF Overall disciplines"] == "2"
            table = group_table(read_samples(results_file.parent))
            assert len(table) == 11  # header + the ten functional groups
            for group, *_, pooled in table[1:]:
                assert same(row[f"SciMIF DRFR {group}"], pooled), (model, group)
        else:
            group = results["spm_bench"]
            for label, key in (("EM", "em,none"), ("SPC", "spc,none"),
                               ("SIP-F1", "sip_f1,none"), ("Delta", "delta,none")):  # fmt: skip
                assert same(row[f"SPM-Bench {label}"], group[key]), (model, label)
            assert row["SPM-Bench questions"] == str(group["sample_len"])
        assert row["bundled sample data"] == "SciMIF; SPM-Bench"
    # only our columns: no standard task, no SciGen-Verify in this sweep
    assert not [c for c in rows["model-a"] if c.startswith("SciGen") or c.startswith("arc_")]

    for png in PNGS:
        assert (out / png).stat().st_size > 0
        with Image.open(out / png) as image:
            image.verify()
            assert image.format == "PNG"
        with Image.open(out / png) as image:
            assert image.size[0] > 300 and image.size[1] > 200
        assert f"]({png})" in markdown
    assert "| model-a " in markdown and "| model-b " in markdown
    assert "Jobs not in the leaderboard" not in markdown and "unfinished" not in stdout

    # a job that has not finished is listed as such, and its numbers leave the row (blank)
    running = next(n for n in jobs if n.startswith("model-b__spm_bench"))
    manifest_path = jobs[running] / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["status"] = "running"
    manifest_path.write_text(json.dumps(manifest))
    markdown, stdout = run_leaderboard(sweep, capsys)
    assert f"unfinished: {running} (running)" in stdout
    assert "**Jobs not in the leaderboard (unfinished, or without results):**" in markdown
    assert f"- `{running}` (model-b, spm_bench): running; still running, or stopped" in markdown
    status = {r["job"]: r for r in read_csv(out / "jobs.csv")}
    assert (status[running]["status"], status[running]["in leaderboard"]) == ("running", "no")
    assert sum(r["in leaderboard"] == "yes" for r in status.values()) == 3
    rows = {r["model"]: r for r in read_csv(out / "leaderboard.csv")}
    assert [rows["model-b"][f"SPM-Bench {x}"] for x in ("EM", "SPC", "SIP-F1", "Delta")] == [""] * 4
    assert rows["model-a"]["SPM-Bench SIP-F1"] != ""
    assert rows["model-b"]["SciMIF Overall"] != ""


# --- any folder holding lm-eval results (issue 31) -----------------------------------------


def test_a_leaderboard_over_two_stock_lm_eval_output_folders(tmp_path: Path) -> None:
    """Two stock ``lm_eval --output_path`` folders (model-a on both disciplines, model-b on
    chemistry with --limit 2), bundled samples, under one folder: a row per model, each value
    its results file's, each row flagged with what its numbers are not."""
    root = tmp_path / "lm-eval-outputs"
    env = sweep_env(tmp_path, {})
    with katan(tmp_path, model="model-a") as a, katan(tmp_path, model="model-b") as b:
        for server, folder, tasks, limit in (
            (a, "first", "scimif_chem,scimif_bio", []),
            (b, "second", "scimif_chem", ["--limit", "2"]),
        ):
            done = subprocess.run(
                [
                    console_script("lm_eval"), "--model", "local-chat-completions",
                    "--model_args", f"model={server.model},base_url={server.chat_url},"
                    "num_concurrent=2,max_retries=1,tokenized_requests=False",
                    "--apply_chat_template", "--tasks", tasks, "--include_path",
                    leaderboard_include_path(), "--log_samples", "--output_path",
                    str(root / folder), *limit,
                ],
                capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-3000:]
    out = subprocess.run(
        [console_script("sci-leaderboard"), str(root)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    rows = {r["model"]: r for r in read_csv(root / "leaderboard" / "leaderboard.csv")}
    assert sorted(rows) == list(MODELS)
    for model, folder in zip(MODELS, ("first", "second"), strict=True):
        (path,) = (root / folder / model).glob("results_*.json")
        results = json.loads(path.read_text(encoding="utf-8"))["results"]
        assert same(rows[model]["SciMIF chemistry ISR"], results["scimif_chem"]["isr,none"])
        assert rows[model]["bundled sample data"] == "SciMIF"
        assert rows[model]["jobs"] == f"{folder}/{model}/{path.name}"
    assert same(rows["model-a"]["SciMIF biology ISR"], json.loads(
        next((root / "first" / "model-a").glob("results_*.json")).read_text()
    )["results"]["scimif_bio"]["isr,none"])  # fmt: skip
    assert rows["model-b"]["SciMIF biology ISR"] == ""  # not run: n/a, never 0
    assert (rows["model-a"]["limit"], rows["model-b"]["limit"]) == ("", "limit=2")
    markdown = (root / "leaderboard" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| model-a [bundled samples] |" in markdown
    assert "| model-b [bundled samples; limit=2] |" in markdown
    assert "**Limit runs** (a `limit` of samples per task; marked `[limit=N]`): model-b " in (
        markdown
    )


def leaderboard_include_path() -> str:
    import sci_tasks

    return sci_tasks.include_path()
