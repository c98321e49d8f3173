"""Every command takes every folder the project writes, as the user has it: sweep job
folders (named by their overrides, so with ``=``) and paths with spaces, unquoted; and
sci-score checks its judge before any work (one line, no output folder left behind)."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from sci_tasks.paths import hydra_quoted, path_override

from .helpers import console_script, loopback_env, ok
from .misbehaving import completion, refused_url, scripted_server


def cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script(args[0]), *args[1:]], capture_output=True, text=True, cwd=tmp_path,
        env=loopback_env(tmp_path, **env), timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize(
    "path",
    ["runs/job__max_gen_toks=64--2004d636", "with space/a=b,c", "it's", "end\\", "[x]", "d${x}"],
)
def test_a_quoted_path_reads_back_verbatim_in_hydra(path: str) -> None:
    from omegaconf import OmegaConf

    parsed = OverridesParser.create().parse_override(f"run_dir={hydra_quoted(path)}").value()
    assert OmegaConf.create({"run_dir": parsed}).run_dir == path


def test_path_override_takes_run_dir_or_a_positional_path(tmp_path: Path) -> None:
    job = tmp_path / "sweep" / "m__scimif_chem__max_gen_toks=64--abc"
    job.mkdir(parents=True)
    assert path_override([f"run_dir={job}", "judge=none"], "run_dir") == (
        [f"run_dir='{job}'", "judge=none"], str(job)
    )  # fmt: skip
    assert path_override(["judge=none", str(job)], "run_dir") == (
        ["judge=none", f"run_dir='{job}'"], str(job)
    )  # fmt: skip
    # an override is never taken for the path, a path quoted for Hydra is left as it is
    assert path_override(["judge=local_api", "judge.model=m"], "run_dir")[1] is None
    assert path_override(["run_dir='a=b'"], "run_dir") == (["run_dir='a=b'"], "a=b")


@dataclass(frozen=True)
class Swept:
    sweep: Path  # <folder>/sci-eval-sweeps/s, its one job folder named by its overrides
    job: Path
    stderr: str


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Swept:
    """A one-job sweep on a scripted model server, run outside a git checkout (a temporary
    folder), for the module's tests; the server is gone once it has run."""
    folder = tmp_path_factory.mktemp("swept")
    with scripted_server(lambda _: (200, "application/json", completion("4"))) as model:
        out = ok(cli(
            folder, "sci-eval", "-m", "model=local_api", "model.args.model=scripted",
            f"model.args.base_url={model.chat_url}", "model.args.num_concurrent=1",
            "tasks=scimif_chem", "limit=2", "+model.gen_kwargs.max_gen_toks=64", "sweep_name=s",
        ))  # fmt: skip
    sweep = folder / "sci-eval-sweeps" / "s"
    (job,) = [p for p in sweep.iterdir() if (p / "manifest.json").is_file()]
    return Swept(sweep, job, out.stderr)


def test_every_command_takes_a_sweep_job_folder_and_a_path_with_spaces_unquoted(
    tmp_path: Path, swept: Swept
) -> None:
    # run outside a git checkout: nothing about git on the console
    assert "git" not in swept.stderr and "fatal" not in swept.stderr, swept.stderr[-2000:]
    sweep, job = swept.sweep, swept.job
    assert "__max_gen_toks=64,num_concurrent=1," in job.name  # "=" and "," in the name
    spaced = tmp_path / "my runs" / f"copy of {job.name}"
    shutil.copytree(job, spaced)
    for folder in (job, spaced):
        for form in ([f"run_dir={folder}"], [str(folder)]):  # unquoted, as the shell passes it
            out = ok(cli(tmp_path, "sci-score", *form))
            assert "re-scored results:" in out.stdout
            (scores,) = (folder / "scores").iterdir()  # <run_dir>/scores/<judge>/
            rescored = json.loads(next(scores.rglob("results_*.json")).read_text())
            assert rescored["rescored"]["tasks"] == ["scimif_chem"]
            shutil.rmtree(folder / "scores")
        ok(cli(tmp_path, "sci-report", str(folder)))
        assert any((folder / "report").iterdir())
        ok(cli(tmp_path, "sci-view", str(folder)))
        assert (folder / "sci-view.html").is_file()
    ok(cli(tmp_path, "sci-leaderboard", str(sweep)))
    assert "scripted" in (sweep / "leaderboard" / "leaderboard.md").read_text(encoding="utf-8")
    ok(cli(tmp_path, "sci-leaderboard", str(spaced)))
    assert (spaced / "leaderboard" / "leaderboard.md").is_file()
    # --replay of the job folder: its manifest's overrides, unquoted path
    replayed = cli(tmp_path, "sci-eval", "--replay", str(spaced), "hydra.run.dir=replayed")
    # the model server is gone now: the replay's pre-flight says so in one line
    assert replayed.returncode == 1
    assert replayed.stderr.strip().startswith("sci-eval: ServerUnreachable: cannot reach the model")
    assert not (tmp_path / "replayed").exists()


def test_sci_score_checks_its_judge_before_any_work(tmp_path: Path, swept: Swept) -> None:
    run = tmp_path / "run"  # a copy of the sweep's job: a finished run with nothing scored
    shutil.copytree(swept.job, run, ignore=shutil.ignore_patterns("scores"))
    judge = refused_url()
    cases: list[tuple[list[str], dict[str, Any], str]] = [
        (["judge=local_api", "judge.model=grader", f"judge.base_url={judge}"], {},
         f"sci-score: cannot reach the judge server at {judge} (connection refused): start it "
         "(vllm serve grader, llama.cpp's llama-server -m MODEL.gguf, or llm-katan) or set "
         "judge.base_url (or judge=none)"),
        # a remote judge without its key: named before any connection is tried
        (["judge=openai"], {"OPENAI_API_KEY": ""},
         "sci-score: judge.api_key_env: OPENAI_API_KEY is not set (the key for "
         "https://api.openai.com/v1); export it or name another variable"),
        (["judge=local_api"], {},
         "sci-score: judge.model is not set (required by judge/local_api.yaml): add "
         "judge.model=VALUE to the command"),
    ]  # fmt: skip
    for overrides, env, line in cases:
        out = cli(tmp_path, "sci-score", f"run_dir={run}", *overrides, **env)
        assert out.returncode == 1, out.stdout[-2000:]
        assert out.stderr.strip() == line
        assert not (run / "scores").exists()  # no output folder left behind
    out = cli(tmp_path, "sci-score", str(tmp_path / "nowhere"))
    assert (out.returncode, out.stderr.strip()) == (
        1, f"sci-score: run_dir {tmp_path / 'nowhere'} is not a folder"
    )  # fmt: skip
    assert not (tmp_path / "nowhere").exists()
