"""Real sci-eval / sci-score runs (Hydra, lm-eval, loopback servers) that meet bad replies,
bad caches, secrets, changed inputs and failing jobs, and end as they should."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module

import sci_tasks
from sci_tasks import manifest
from sci_tasks.data.jsonl import read_samples
from sci_tasks.run.evaluate import response_cache

from .helpers import console_script, loopback_env, ok, scripted_model_args
from .misbehaving import completion, scripted_server

SURROGATE_REPLY = "The answer is 4 \ud800 mol."
HTML = b"<html><body>maintenance</body></html>"
LEAK = "sk-LEAKED-not-a-real-key-0123456789-SECRET"  # fake, dashed: no scanner takes it


def cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [console_script(args[0]), *args[1:]], capture_output=True, text=True, cwd=tmp_path,
        env=env or loopback_env(tmp_path), timeout=900,
    )  # fmt: skip


def model_args(url: str) -> list[str]:
    return scripted_model_args(url, "model.args.max_retries=1")


def judge_args(url: str, tmp_path: Path) -> list[str]:
    return [
        "judge=local_api", "judge.model=html-judge", f"judge.base_url={url}",
        "judge.max_attempts=2", "judge.backoff_initial=0.01", "judge.backoff_max=0.02",
        f"judge.cache_dir={tmp_path / 'judge-cache'}",
    ]  # fmt: skip


def samples(folder: Path) -> list[dict[str, Any]]:
    (path,) = folder.rglob("samples_scimif_chem_*.jsonl")
    return read_samples(path)


def test_surrogate_replies_an_html_judge_and_a_corrupt_cache_do_not_end_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a response cache that is not sqlite, where this model's cache lives
    monkeypatch.setenv("SCI_TASKS_CACHE", str(tmp_path / "cache"))
    with scripted_server(lambda _: (200, "application/json", completion(SURROGATE_REPLY))) as model:
        with initialize_config_module(config_module="sci_tasks.conf", version_base="1.3"):
            cfg = compose(config_name="config", overrides=model_args(model.chat_url))
        garbage = Path(f"{response_cache(cfg)}_rank0.db")
        garbage.write_bytes(b"this is not a database, it is garbage " * 100)
        with scripted_server(lambda _: (200, "text/html", HTML)) as judge:
            out = ok(cli(
                tmp_path, "sci-eval", *model_args(model.chat_url),
                *judge_args(judge.base_url, tmp_path),
                "tasks=scimif_chem", "limit=3", "hydra.run.dir=run",
            ))  # fmt: skip
            assert judge.requests  # the judge was asked, and answered HTML every time
    # 6: the corrupt cache was moved aside with a warning and a new one written
    said = out.stdout + out.stderr  # Hydra's log handler writes to stdout
    assert f"response cache {garbage} is not a usable sqlite database" in said
    (aside,) = garbage.parent.glob(f"{garbage.name}.corrupt-*")
    assert aside.read_bytes().startswith(b"this is not a database")
    assert garbage.is_file() and garbage.read_bytes()[:15] == b"SQLite format 3"
    # 3: every sample kept (lm-eval would have dropped them), the surrogate made safe once
    logged = samples(tmp_path / "run")
    assert len(logged) == 3
    assert {s["resps"][0][0] for s in logged} == {"The answer is 4 \ufffd mol."}
    assert "response(s) held lone surrogates (not Unicode): scored and written with U+FFFD" in said
    # 1: judged constraints and correctness unscored with the true reason, the run went on
    reason = f"malformed reply: body is not JSON (text/html): {HTML.decode()!r} (after 2 attempts)"
    judged = [
        c for s in logged for c in s["record"]["constraints"] if c["reason"].startswith("judge ")
    ]
    assert judged and all(c["reason"] == f"judge html-judge: {reason}" for c in judged)
    assert all(c["score"] is None for c in judged)
    graded = [s["record"]["correctness"] for s in logged if s["doc"].get("answer")]
    assert graded and all(g == {"score": None, "grade": None, "reason": reason,
                                "judge": g["judge"], "protocol": "json_grade",
                                "prompt_version": g["prompt_version"]}
                          for g in graded)  # fmt: skip
    assert all(g["prompt_version"].startswith("judge/scimif_correctness.jinja@") for g in graded)
    assert manifest.read(tmp_path / "run").status == "done"

    # sci-score on a samples file whose reply holds a "\ud800" escape, with no judge and
    # with the HTML judge: both finish, every sample kept
    (path,) = (tmp_path / "run").rglob("samples_scimif_chem_*.jsonl")
    broken = [{**s, "filtered_resps": [SURROGATE_REPLY]} for s in logged]
    path.write_text("".join(json.dumps(s) + "\n" for s in broken), encoding="utf-8")
    assert "\\ud800" in path.read_text(encoding="utf-8")
    out = ok(cli(tmp_path, "sci-score", f"run_dir={tmp_path / 'run'}"))
    assert "3 string(s) held lone surrogates (not Unicode): read with U+FFFD" in (
        out.stdout + out.stderr
    )
    rescored = samples(tmp_path / "run" / "scores" / "none")
    assert [s["filtered_resps"] for s in rescored] == [["The answer is 4 \ufffd mol."]] * 3
    with scripted_server(lambda _: (200, "text/html", HTML)) as judge:
        ok(cli(tmp_path, "sci-score", f"run_dir={tmp_path / 'run'}",
               *judge_args(judge.base_url, tmp_path), "judge.name=html"))  # fmt: skip
    rescored = samples(tmp_path / "run" / "scores" / "html")
    assert len(rescored) == 3
    assert all(
        s["record"]["correctness"]["reason"] == reason for s in rescored if s["doc"].get("answer")
    )


# --- 5. literal secrets -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "path"),
    [
        (["sci-eval", f"+judge.api_key={LEAK}", "hydra.run.dir=out"], "judge.api_key"),
        (["sci-eval", f"+model.args.api_key={LEAK}", "hydra.run.dir=out"], "model.args.api_key"),
        (["sci-eval", "judge=local_api", "judge.model=m", f"judge.api_key_env={LEAK}",
          "hydra.run.dir=out"], "judge.api_key_env"),
        (["sci-eval", "-m", f"+model.args.api_key={LEAK},{LEAK}x", "hydra.sweep.dir=out"],
         "model.args.api_key"),
        (["sci-score", "run_dir=out", f"+judge.api_key={LEAK}"], "judge.api_key"),
        (["sci-score", "run_dir=out", "judge=local_api", "judge.model=m",
          f"judge.api_key_env={LEAK}"], "judge.api_key_env"),
    ],
)  # fmt: skip
def test_a_literal_secret_is_refused_before_anything_is_written_and_never_printed(
    tmp_path: Path, args: list[str], path: str
) -> None:
    out = cli(tmp_path, *args)
    assert out.returncode != 0
    assert f"secret value(s) in the config at {path}: put the secret in an environment" in (
        out.stderr
    )
    assert "LEAKED" not in out.stdout + out.stderr
    assert not (tmp_path / "out").exists()  # no .hydra/config.yaml, overrides.yaml, manifest
    assert not list(tmp_path.rglob("*.yaml"))


def test_a_key_pasted_as_a_variable_name_never_reaches_a_manifest() -> None:
    config = {"judge": {"api_key_env": LEAK, "model": "m"}, "model": {"api_key_env": "OK_NAME"}}
    assert manifest.secret_paths(config) == ["judge.api_key_env"]
    assert manifest.redact(config)["judge"]["api_key_env"] == manifest.REDACTED
    assert manifest.redact(config)["model"]["api_key_env"] == "OK_NAME"


# --- 7 and 8. re-running a sweep; failing jobs --------------------------------------------


def job_folders(sweep: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted(sweep.iterdir()) if (p / "manifest.json").is_file()}


def test_a_sweep_reruns_only_changed_jobs_into_fresh_folders_and_reports_failures(
    tmp_path: Path,
) -> None:
    answered = []

    def answer(payload: dict[str, Any]) -> tuple[int, str, bytes]:
        answered.append(payload)
        return 200, "application/json", completion("Final answer: 4")

    with scripted_server(answer) as model:
        sweep_args = [
            "sci-eval", "-m", *model_args(model.chat_url), "tasks=scimif_chem,spm_bench",
            f"data.SPM_BENCH_DATA_DIR={tmp_path / 'no-such-folder'}", "sweep_name=s",
            "use_cache=false",
        ]  # fmt: skip
        first = cli(tmp_path, *sweep_args, "limit=1")
        sweep = tmp_path / "sci-eval-sweeps" / "s"
        jobs = job_folders(sweep)
        chem = next(p for n, p in jobs.items() if "__scimif_chem__" in n)
        spm = next(p for n, p in jobs.items() if "__spm_bench__" in n)
        # 8: the failed job says so, with its one-line error; the other job finished
        assert first.returncode != 0
        failed = manifest.read(spm)
        assert failed.status == "failed"
        assert failed.error.startswith("DataError: ")
        assert "\n" not in failed.error and (spm / "traceback.txt").is_file()
        assert manifest.read(chem).status == "done"
        assert f"FAILED {spm}: {failed.error}" in first.stderr
        assert f"  done     {chem.name}\n" in first.stdout
        assert f"  failed   {spm.name}: {failed.error}\n" in first.stdout
        assert "sci-eval: 1 job(s) failed" in first.stderr
        board = ok(cli(tmp_path, "sci-leaderboard", str(sweep)))
        assert f"failed: {spm.name}: {failed.error}" in board.stdout
        asked = len(answered)
        assert asked == 1

        # 7: nothing changed -> skipped, no request; the failed job runs again (fails again)
        again = cli(tmp_path, *sweep_args, "limit=1")
        assert len(answered) == asked
        assert f"already finished with the same config, data and packages, skipped: {chem}" in (
            again.stdout
        )
        assert f"  skipped  {chem.name}: unchanged since it finished\n" in again.stdout

        # a new limit: runs again into a fresh folder and says why; the old results stay
        old_results = sorted(chem.rglob("results_*.json"))
        changed = cli(tmp_path, *sweep_args, "limit=2")
        fresh = [p for n, p in job_folders(sweep).items() if n.startswith(f"{chem.name}__rerun-")]
        assert len(fresh) == 1
        assert (
            f"{chem.name} finished with other inputs (config limit: 1 -> 2): "
            f"running again into {fresh[0]}" in changed.stdout
        )
        assert len(answered) == asked + 2
        assert manifest.read(fresh[0]).config["limit"] == 2
        assert manifest.read(chem).config["limit"] == 1
        assert sorted(chem.rglob("results_*.json")) == old_results
        assert "limit=1" in (chem / ".hydra" / "overrides.yaml").read_text()
        assert "limit=2" in (fresh[0] / ".hydra" / "overrides.yaml").read_text()
        # ... and that fresh folder is then the finished job for those inputs
        third = cli(tmp_path, *sweep_args, "limit=2")
        assert f"skipped: {fresh[0]}" in third.stdout and len(answered) == asked + 2

        # a new data location (an environment variable, not an override): runs again
        data = tmp_path / "data"
        shutil.copytree(Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples", data)
        moved = cli(
            tmp_path, *sweep_args, "limit=1", env=loopback_env(tmp_path, SCIMIF_DATA_DIR=str(data))
        )
        assert f"{chem.name} finished with other inputs (data scimif.source: " in moved.stdout
        assert len(answered) == asked + 3


def test_a_failed_single_run_says_failed_in_its_manifest_and_exits_non_zero(
    tmp_path: Path,
) -> None:
    """A run that passed its pre-flight and then failed (every model request answered with
    HTTP 500) keeps its folder with a ``failed`` manifest; a pre-flight failure leaves none."""
    with scripted_server(lambda _: (500, "text/plain", b"server exploded")) as model:
        out = cli(
            tmp_path, "sci-eval", *model_args(model.chat_url), "tasks=scimif_chem", "limit=1",
            "hydra.run.dir=r", "use_cache=false",
        )  # fmt: skip
    assert out.returncode == 1
    recorded = manifest.read(tmp_path / "r")
    assert recorded.status == "failed"
    assert recorded.error and "\n" not in recorded.error
    assert f"FAILED {tmp_path / 'r'}: {recorded.error}" in out.stderr
    assert out.stderr.rstrip().endswith("sci-eval: 1 job(s) failed")
    assert (tmp_path / "r" / ".hydra" / "config.yaml").is_file()
    assert (tmp_path / "r" / "traceback.txt").is_file()
    board = ok(cli(tmp_path, "sci-leaderboard", str(tmp_path / "r")))
    assert f"failed: r: {recorded.error}" in board.stdout
    markdown = (tmp_path / "r" / "leaderboard" / "leaderboard.md").read_text(encoding="utf-8")
    assert f"failed; {recorded.error}" in markdown

    missing = tmp_path / "no-such-folder"
    out = cli(
        tmp_path, "sci-eval", *model_args("http://127.0.0.1:9/v1/chat/completions"),
        "tasks=spm_bench", f"data.SPM_BENCH_DATA_DIR={missing}", "hydra.run.dir=p",
    )  # fmt: skip
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f"sci-eval: DataError: SPM_BENCH_DATA_DIR (run settings) is {str(missing)!r}: neither "
        "an existing folder nor a hub dataset id"
    )
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize("command", ["lm_eval", "sci-lm-eval"])
def test_lm_eval_keeps_every_sample_when_a_reply_holds_a_lone_surrogate(
    tmp_path: Path, command: str
) -> None:
    """lm-eval alone stops writing the samples file at the first reply that cannot be
    encoded (0 of 3 kept before our tasks made such text safe, checked by hand); our tasks
    make such text safe first, on the stock CLI too."""
    include = ["--include_path", sci_tasks.include_path()] if command == "lm_eval" else []
    with scripted_server(lambda _: (200, "application/json", completion(SURROGATE_REPLY))) as model:
        out = ok(cli(
            tmp_path, command, "run", *include, "--model", "local-chat-completions",
            "--model_args",
            f"model=scripted,base_url={model.chat_url},num_concurrent=1,max_retries=1,"
            "tokenized_requests=False",
            "--tasks", "scimif_chem", "--limit", "3", "--apply_chat_template",
            "--log_samples", "--output_path", str(tmp_path / "out"),
        ))  # fmt: skip
    logged = samples(tmp_path / "out")
    assert len(logged) == 3, out.stderr[-2000:]
    assert {s["resps"][0][0] for s in logged} == {"The answer is 4 \ufffd mol."}
    if command == "lm_eval":
        return  # stock lm_eval writes its results itself (NaN included)
    # sci-lm-eval's results file is strict JSON: `correct` has no judge: null, not NaN
    (results,) = (tmp_path / "out").rglob("results_*.json")
    parsed = json.loads(results.read_text(), parse_constant=_no_constants)
    assert parsed["results"]["scimif_chem"]["correct,none"] is None
    # ... and so are its samples: a sample's `correct` without a judge is null
    (samples_file,) = (tmp_path / "out").rglob("samples_scimif_chem_*.jsonl")
    lines = [json.loads(line, parse_constant=_no_constants) for line in samples_file.open()]
    assert len(lines) == 3 and all(line["correct"] is None for line in lines)


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
