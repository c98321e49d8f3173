"""The README's commands that run, read from the file and run here:

- with a server on loopback (llm-katan, echo backend) standing in for the OpenAI-compatible
  server the README names, only its URL substituted: the sweep, then `--replay`,
  `sci-report`, `sci-leaderboard` and `sci-view` on what the sweep wrote, with `limit=1`;
- the embedded default (`sci-eval`, real SmolLM2) once, with `limit=1` and short replies
  (marker e2e); the stock `lm_eval` CPU recipe on the embedded model (marker e2e).

Which kind of check each command gets, and the commands that are not run: test_readme.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from . import readme_commands as readme
from . import smollm2
from .servers import katan

converted_smollm2 = smollm2.converted_smollm2  # the session's converted weights (a fixture)


@dataclass
class Pilot:
    workdir: Path
    sweep: Path
    chat_url: str

    @property
    def base_url(self) -> str:
        return self.chat_url.removesuffix("/chat/completions")


def readme_job(pilot: Pilot) -> Path | None:
    """The pilot's job folder for the job the README names by its real folder name (with
    Ollama's URL): same readable label, and the README's hash is the one sci-eval computes
    for the job's overrides with the README's server URL (the pilot's URL differs)."""
    from sci_tasks.resolvers import job_name

    names = set(re.findall(rf"{readme.README_SWEEP}(\S+)", readme.README.read_text("utf-8")))
    if not names:
        return None
    (name,) = names
    label = name.rsplit("--", 1)[0]
    (job,) = [p for p in pilot.sweep.iterdir() if p.name.rsplit("--", 1)[0] == label]
    hydra = yaml.safe_load((job / ".hydra" / "hydra.yaml").read_text(encoding="utf-8"))["hydra"]
    config = manifest_config(job)
    escaped = {url: url.replace(":", "\\:") for url in (pilot.chat_url, readme.README_SERVER)}
    dirname = hydra["job"]["override_dirname"].replace(
        escaped[pilot.chat_url], escaped[readme.README_SERVER]
    )  # Hydra escapes ":" in override_dirname
    assert job_name(config["model"]["name"], config["tasks"]["name"], dirname) == name
    return job


def manifest_config(job: Path) -> dict[str, Any]:
    from sci_tasks import manifest

    return dict(manifest.read(job).config)


def run_readme(command: readme.Command, workdir: Path, chat_url: str, *extra: str) -> str:
    text = command.text.replace(readme.README_SERVER, chat_url)
    out = subprocess.run(
        ["bash", "-c", " ".join([text, *extra])], capture_output=True, text=True, cwd=workdir,
        env=readme.env_for(workdir, command), timeout=900,
    )  # fmt: skip
    assert out.returncode == 0, f"{text}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pilot]:
    """The README's sweep, run as written against llm-katan with limit=1."""
    workdir = tmp_path_factory.mktemp("readme")
    (sweep,) = [p.values[0] for p in readme.of_kind("sweep")]
    with katan(workdir) as server:
        printed = run_readme(sweep, workdir, server.chat_url, "limit=1")
        name = re.search(r"sweep_name=(\S+)", sweep.text)
        assert name
        folder = workdir / "sci-eval-sweeps" / name.group(1)
        assert re.search(r"\d+ job\(s\)", printed) and "failed" not in printed, printed
        yield Pilot(workdir, folder, server.chat_url)


def test_where_the_readme_says_a_run_records_its_judge_and_image_budget(pilot: Pilot) -> None:
    """The README's statements about settings, on the sweep's own files: documents hold the
    record's fields only (no judge_settings, no image budget, issue 31); the budget is in each
    scored record and in the results' task configs; the judge's settings in the manifest."""
    text = " ".join(readme.README.read_text("utf-8").split())
    assert "in each scored sample's `record.image_budget`" in text
    assert "the judge's settings (never the key) are in the run's `manifest.json`" in text
    assert "judge_settings" not in text  # no document carries it any more
    from sci_tasks import manifest
    from sci_tasks.run_settings import LEGACY_FIELDS

    seen = set()
    for job in [p for p in pilot.sweep.iterdir() if (p / "manifest.json").is_file()]:
        assert "judge" in manifest.read(job).config
        # the sweep's results and any a later README command (sci-score) wrote beside them
        every_results = list(job.rglob("results_*.json"))
        assert every_results, job
        configs: dict = {}
        for results in every_results:
            configs.update(json.loads(results.read_text("utf-8"))["configs"])
        for path in job.rglob("samples_*.jsonl"):
            task = path.stem.removeprefix("samples_").rsplit("_", 1)[0]
            for line in path.read_text("utf-8").splitlines():
                sample = json.loads(line)
                assert not LEGACY_FIELDS & set(sample["doc"]), path
                if task.startswith("spm_bench"):
                    assert sample["record"]["image_budget"] == {
                        "max_image_pixels": None, "max_image_bytes": None,
                    }  # fmt: skip
                    metadata = configs[task]["metadata"]
                    assert {"max_image_pixels", "max_image_bytes"} <= set(metadata)
                    seen.add(task)
    assert seen  # the sweep's image task set was checked


def test_the_sweep_runs_every_job(pilot: Pilot) -> None:
    from sci_tasks import manifest

    (sweep,) = [p.values[0] for p in readme.of_kind("sweep")]
    # a job is a folder with a manifest (sci-leaderboard may have written leaderboard/ here)
    jobs = [p for p in pilot.sweep.iterdir() if (p / "manifest.json").is_file()]
    assert len(jobs) == len(readme.sweep_jobs(readme.argv(sweep)[1:]))
    for job in jobs:
        assert manifest.read(job).status == "done", job
        assert list(job.rglob("results_*.json")), job


def test_replay_report_leaderboard_and_view_run_on_the_sweeps_output(pilot: Pilot) -> None:
    """`--replay` first: it writes the run that `sci-report` / `sci-view` read."""
    from sci_tasks import manifest
    from sci_tasks.resolvers import safe_name

    named = readme_job(pilot)  # the sweep job folder the README names, as the pilot wrote it
    job = named or min(p for p in pilot.sweep.iterdir() if "scimif_text" in p.name)
    runs = pilot.workdir / "sci-eval-runs"
    results = pilot.workdir / "results"  # stands for the lm_eval --output_path folder
    if not results.exists():
        shutil.copytree(pilot.sweep, results, ignore=shutil.ignore_patterns(".*"))
    commands = [p.values[0] for p in readme.of_kind("after_sweep")]
    for command in sorted(commands, key=lambda c: "--replay" not in c.text):
        text = re.sub(rf"{readme.README_SWEEP}\S+", str(named), command.text)
        text = text.replace(
            f"judge.base_url={readme.README_JUDGE}", f"judge.base_url={pilot.base_url}"
        )
        if "--replay" in text:
            text = re.sub(r"sci-eval-runs/\S+", str(job), text)
        else:
            run = max(runs.iterdir()) if runs.exists() else None
            assert run or "<run>" not in text, f"{text}: the replay wrote no run"
            text = text.replace("sci-eval-runs/<run>", f"sci-eval-runs/{run.name if run else ''}")
            text = text.replace("sci-eval-sweeps/<sweep>", str(pilot.sweep))
        printed = run_readme(readme.Command(text, command.env), pilot.workdir, pilot.chat_url)
        if "--replay" in text:
            assert "limit=1: NOT a full run" in printed and "bundled" in printed, printed
        if text.startswith("sci-agree export"):  # a labeller fills the sheet: 1, 0, 1, ...
            sheet = pilot.workdir / text.split("--out", 1)[1].split()[0]
            lines = [json.loads(line) for line in sheet.read_text("utf-8").splitlines()]
            assert lines and all(line["label"] is None for line in lines)
            labelled = [{**line, "label": 1 - i % 2} for i, line in enumerate(lines)]
            sheet.write_text("".join(json.dumps(line) + "\n" for line in labelled), "utf-8")
    run = max(runs.iterdir())
    # the results layout the README states: <time>_<model>/<model>/results_*.json, ...
    model = safe_name(manifest.read(job).config["model"]["name"])
    assert re.fullmatch(rf"[\d-]+_[\d-]+_{re.escape(model)}", run.name), run.name
    assert [p.parent.name for p in run.glob("*/results_*.json")] == [model]
    assert len(list(run.glob("*/samples_scimif_*.jsonl"))) == 2
    assert (run / ".hydra" / "config.yaml").is_file() and (run / "manifest.json").is_file()
    assert list((run / "report").glob("*.md")), "sci-report wrote no tables"
    assert list((pilot.sweep / "leaderboard").iterdir()), "sci-leaderboard wrote nothing"
    assert (run / "sci-view.html").stat().st_size > 1000
    assert (pilot.workdir / "view.html").stat().st_size > 1000
    # sci-agree's table and the page of its disagreements, as the README says
    header = (pilot.workdir / "agreement" / "agreement.csv").read_text("utf-8").splitlines()[0]
    assert header == "constraint,n,agreement,kappa,kappa_low,kappa_high"
    assert (pilot.workdir / "agreement" / "disagreements.html").stat().st_size > 1000


# -- the embedded default, the one real-model run -------------------------------------------


@pytest.mark.e2e
def test_the_embedded_default_runs(tmp_path: Path) -> None:
    """As on a fresh machine (an empty cache: the GGUF is converted, nothing is replayed),
    with limit=1 and replies of at most 16 tokens (nothing here reads the replies: 256 new
    tokens on a shared CPU core cost a minute or more)."""
    (command,) = {
        c.text: c for c in readme.COMMANDS if readme.kind(c) == "embedded_default"
    }.values()
    out = subprocess.run(
        ["bash", "-c", f"{command.text} limit=1 model.gen_kwargs.max_gen_toks=16"],
        capture_output=True, text=True, cwd=tmp_path,
        env={**readme.env_for(tmp_path, command), "OPENAI_API_KEY": ""}, timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "limit=1: NOT a full run" in out.stdout
    for task in ("SciMIF chemistry", "SciMIF biology"):  # n = 1 sample each
        assert re.search(rf"^\|\s*{task}\s*\|\s*1\s*\|", out.stdout, re.M), out.stdout[-3000:]
    assert (tmp_path / "cache" / "models").is_dir(), "the GGUF was not converted afresh"


@pytest.mark.e2e
def test_the_stock_lm_eval_cpu_recipe_runs(tmp_path: Path, converted_smollm2: Path) -> None:
    """The README's stock lm_eval recipe on the embedded model, as written: the one-liner
    names the converted model sci-eval loads, and the run answers 2 samples with at most
    max_gen_toks=64 new tokens."""
    (command,) = [c for c in readme.COMMANDS if readme.EMBEDDED in c.text]
    assert command.env == {"OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        ["bash", "-c", command.text], capture_output=True, text=True, cwd=tmp_path,
        env={**readme.env_for(tmp_path, command), "SCI_TASKS_CACHE": os.environ["SCI_TASKS_CACHE"]},
        timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    (results,) = (tmp_path / "results-cpu").rglob("results_*.json")
    written = json.loads(results.read_text("utf-8"))
    assert written["config"]["model_args"]["pretrained"] == str(converted_smollm2)
    assert written["n-samples"]["scimif_chem"]["effective"] == 2
    (samples,) = (tmp_path / "results-cpu").rglob("samples_scimif_chem_*.jsonl")
    for line in samples.read_text("utf-8").splitlines():
        assert json.loads(line)["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"] == 64
    assert "Custom kwargs can be passed" not in out.stdout + out.stderr
