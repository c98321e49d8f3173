"""What a researcher sees from a real ``sci-eval`` run (subprocesses against loopback
servers): the header before generation, the table's sample counts, the limit line, strict
JSON results, and one-line errors (bad data, unset options, refused servers) that come
before any model request."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

import sci_tasks
from sci_tasks import stats
from sci_tasks.outputs import json_safe
from sci_tasks.run.header import limit_line
from sci_tasks.run.preflight import explain
from sci_tasks.run.results_table import results_table

from .helpers import console_script, loopback_env, scripted_model_args
from .misbehaving import completion, refused_url, scripted_server

NO_JUDGE = (
    "none: judge-scored constraints and `correct` are reported unscored "
    "(judge=local_api judge.model=... judge.base_url=..., or sci-score later)"
)
SERVER_HINT = "vllm serve scripted, llama.cpp's llama-server -m MODEL.gguf, or llm-katan"


def sci_eval(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script("sci-eval"), *args], capture_output=True, text=True, cwd=tmp_path,
        env=loopback_env(tmp_path, **env), timeout=900,
    )  # fmt: skip


def model_args(url: str) -> list[str]:
    return scripted_model_args(url, "model.args.max_retries=1", "use_cache=false")


def reject(constant: str) -> Any:
    raise ValueError(f"not JSON: {constant}")


def strict_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=reject)


def table_rows(stdout: str) -> dict[str, list[list[str]]]:
    """The printed results tables (lm-eval's ``make_table``: Tasks or Groups, Version,
    Filter, n-shot, Metric, arrow, Value, ±, Stderr): task label -> its rows' cells (the
    label only on the first row of a task)."""
    rows: dict[str, list[list[str]]] = {}
    task = ""
    for line in stdout.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("Tasks", "Groups") or set("".join(cells)) <= set("-:"):
            continue  # the header and the rule under it
        task = cells[0] or task
        rows.setdefault(task, []).append(cells)
    return rows


def sample_count_note(stdout: str) -> dict[str, str]:
    """The note under the table: task (or group) -> samples scored."""
    (line,) = [line for line in stdout.splitlines() if line.startswith("n (samples scored): ")]
    entries = line.removeprefix("n (samples scored): ").split(", ")
    return dict(entry.rsplit(" ", 1) for entry in entries)


def test_a_limited_run_says_so_before_and_after_and_writes_strict_json(tmp_path: Path) -> None:
    with scripted_server(lambda _: (200, "application/json", completion("Final answer: 4"))) as m:
        out = sci_eval(
            tmp_path, *model_args(m.chat_url), "model.name=lab-server-7b", "tasks=scimif_text",
            "limit=2", "hydra.run.dir=run",
        )  # fmt: skip
        asked = len(m.requests)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    said = out.stdout.splitlines()
    run = tmp_path / "run"
    header = [
        f"sci-eval run -> {run}",
        f"  model:   lab-server-7b (scripted at {m.chat_url})",
        "  backend: local-chat-completions",
        "  tasks:   scimif_text: scimif_chem, scimif_bio",
        "  data:    scimif: bundled scimif samples (no data location set)",
        "  limit:   limit=2: NOT a full run (at most 2 sample(s) per task)",
        f"  judge:   {NO_JUDGE}",
    ]
    start = said.index(header[0])
    assert said[start : start + len(header)] == header
    # printed before generation: before lm-eval's first generation log line
    generating = next(i for i, line in enumerate(said) if "Running generate_until" in line)
    assert start < generating
    assert asked == 4  # 2 samples x 2 tasks

    rows = table_rows(out.stdout)
    assert set(rows) == {"SciMIF chemistry", "SciMIF biology"}
    assert sample_count_note(out.stdout) == {"scimif_chem": "2", "scimif_bio": "2"}
    for task_rows in rows.values():
        metrics = {r[4]: r[6] for r in task_rows}
        assert float(metrics["unknown_constraints"]) == 0  # names outside the catalogue
        assert metrics["correct"] == "n/a"  # no judge: nothing graded
        # bookkeeping is no metric row (the bundled data has its NOTE below)
        assert "record" not in metrics and "bundled_samples" not in metrics
        assert all(value == "n/a" or float(value) >= 0 for value in metrics.values())
        errors = {r[4]: (r[7], r[8]) for r in task_rows}
        # every headline metric with a value carries its bootstrap ±; others have none
        assert all(errors[m][0] == "±" and float(errors[m][1]) >= 0 for m in ("csr", "isr"))
        assert errors["unknown_constraints"] == ("", "")
    assert not [line for line in said if "not numbers" in line]  # results are numbers only
    hint = "NOTE: correct is n/a for scimif_bio, scimif_chem: grading answers needs a judge"
    assert any(line.startswith(f"{hint} and none was configured (judge=none)") for line in said)
    assert said[-2:] == [
        "limit=2: NOT a full run (at most 2 sample(s) per task)",
        f"results, samples and manifest: {run}",
    ]

    # the model folder is named by the model, not by what lm-eval was given
    (results_file,) = run.glob("*/results_*.json")
    assert results_file.parent.name == "lab-server-7b"
    results = strict_json(results_file)  # no NaN anywhere
    assert results["results"]["scimif_chem"]["correct,none"] is None
    # the ± in the results JSON is the statistics module's over the samples file
    (samples_file,) = run.glob("*/samples_scimif_chem_*.jsonl")
    logged = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    chem = results["results"]["scimif_chem"]
    assert chem["csr_stderr,none"] == stats.metric_estimate("csr", logged).stderr
    assert chem["correct_stderr,none"] == "N/A"  # no value, no error
    assert results["n-samples"]["scimif_chem"] == {"original": 16, "effective": 2}
    assert results["model_name_sanitized"] == "lab-server-7b"
    manifest = strict_json(run / "manifest.json")
    assert manifest["status"] == "done"
    assert manifest["results"]["scimif_bio"]["correct,none"] is None


def test_a_bad_data_location_ends_in_one_line_before_any_model_request(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    broken = tmp_path / "broken"
    shutil.copytree(Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples", broken)
    lines = (broken / "chemistry.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:-5]  # line 2 cut short
    (broken / "chemistry.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    no_image = tmp_path / "no-image"
    shutil.copytree(Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples", no_image)
    image = no_image / "images" / "physics" / "SamplePhys" / "images" / "incline_01.png"
    image.unlink()
    cases = [
        ("scimif_chem", missing, f"SCIMIF_DATA_DIR (environment) is {str(missing)!r}: "
         "neither an existing folder nor a hub dataset id"),
        ("scimif_chem", broken, f"{broken}/chemistry.jsonl:2: invalid JSON: "
         "Unterminated string starting at"),
        ("scimif_phy", no_image, f"{no_image}/physics.jsonl:1: image not found: {image}"),
    ]  # fmt: skip
    with scripted_server(lambda _: (200, "application/json", completion("4"))) as m:
        for task, data, error in cases:
            run = tmp_path / f"run-{data.name}"
            out = sci_eval(
                tmp_path, *model_args(m.chat_url), f"tasks={task}", f"hydra.run.dir={run}",
                SCIMIF_DATA_DIR=str(data),
            )  # fmt: skip
            assert out.returncode != 0
            (failed,) = out.stderr.strip().splitlines()  # one line
            assert failed.startswith(f"sci-eval: DataError: {error}"), failed
            assert "Traceback" not in out.stdout + out.stderr
            assert "sci-eval run ->" not in out.stdout  # stopped before the header
            assert not run.exists()  # a failed pre-flight leaves no run folder behind
        assert m.requests == []  # no model request was ever made
        # --verbose shows the traceback too
        out = sci_eval(
            tmp_path, "--verbose", *model_args(m.chat_url), "tasks=scimif_chem",
            "hydra.run.dir=verbose", SCIMIF_DATA_DIR=str(missing),
        )  # fmt: skip
        assert out.returncode != 0 and "Traceback (most recent call last)" in out.stderr
        assert m.requests == []


def test_a_refused_server_or_an_unset_option_ends_in_one_line_naming_it(tmp_path: Path) -> None:
    url = f"{refused_url()}/chat/completions"
    out = sci_eval(tmp_path, *model_args(url), "tasks=scimif_chem", "hydra.run.dir=refused")
    assert out.returncode != 0
    (failed,) = out.stderr.strip().splitlines()
    assert failed == (
        "sci-eval: ServerUnreachable: cannot reach the model server at "
        f"{url} (connection refused): start it ({SERVER_HINT}) or set model.args.base_url"
    )
    assert not (tmp_path / "refused").exists()  # a failed pre-flight leaves no folder
    assert "Traceback" not in out.stdout + out.stderr
    assert "Running generate_until" not in out.stdout  # lm-eval never started generating
    assert len(out.stdout.splitlines()) < 20, out.stdout  # was about 120 lines with retries

    judge = refused_url()
    with scripted_server(lambda _: (200, "application/json", completion("4"))) as m:
        out = sci_eval(
            tmp_path, *model_args(m.chat_url), "tasks=scimif_chem", "hydra.run.dir=judge",
            "judge=local_api", "judge.model=grader", f"judge.base_url={judge}",
        )  # fmt: skip
        assert m.requests == []
    assert out.returncode != 0
    assert out.stderr.strip().splitlines()[0] == (
        "sci-eval: ServerUnreachable: cannot reach the judge server at "
        f"{judge} (connection refused): start it (vllm serve grader, llama.cpp's llama-server "
        "-m MODEL.gguf, or llm-katan) or set judge.base_url (or judge=none)"
    )

    # an unset option: one line naming it and its config file; nothing written
    out = sci_eval(tmp_path, "model=local_api", "tasks=scimif_chem", "hydra.run.dir=unset")
    assert out.returncode != 0
    assert out.stderr.strip() == (
        "sci-eval: model.args.model is not set (required by model/local_api.yaml): "
        "add model.args.model=VALUE to the command"
    )
    assert not (tmp_path / "unset").exists()  # not even Hydra's app.log
    # an invalid judge setting: one line naming the judge config
    out = sci_eval(
        tmp_path, *model_args(refused_url()), "tasks=scimif_chem", "hydra.run.dir=badjudge",
        "judge=local_api", "judge.model=grader", "judge.structured_output=yaml",
    )  # fmt: skip
    assert out.returncode != 0
    assert out.stderr.strip().splitlines()[0] == (
        "sci-eval: judge (judge/local_api.yaml): "
        "structured_output must be one of json_schema, tool, json_object, none"
    )


def test_a_server_lost_during_generation_is_named_with_its_url() -> None:
    url = refused_url()
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    try:
        socket.create_connection((host, int(port)), timeout=5)
    except ConnectionRefusedError as refused:
        lost = RuntimeError("generation failed")
        lost.__cause__ = refused  # as lm-eval re-raises its client's error
        config = {"model": {"args": {"base_url": f"{url}/chat/completions", "model": "scripted"}}}
        assert explain(lost, config) == (
            f"ServerUnreachable: cannot reach the model server at {url}/chat/completions "
            f"(ConnectionRefusedError: [Errno 111] Connection refused): start it "
            f"({SERVER_HINT}) or set model.args.base_url"
        )
        assert explain(lost, {"model": {"args": {}}}) == "RuntimeError: generation failed"
    else:
        raise AssertionError(f"{url} accepted a connection")


def test_limit_lines_nan_to_null_and_a_group_row_counting_its_tasks() -> None:
    assert limit_line(None) == ""
    assert limit_line(3) == "limit=3: NOT a full run (at most 3 sample(s) per task)"
    assert limit_line(0.25) == "limit=0.25: NOT a full run (25% of each task's samples)"
    assert json_safe({"a": [float("nan"), 1.5, float("inf")], "b": "NaN"}) == {
        "a": [None, 1.5, None],
        "b": "NaN",
    }
    results = {
        "results": {
            "g": {"alias": "group g", "csr,none": 0.5, "csr_stderr,none": 0.1},
            "t1": {
                "alias": "t1",
                "csr,none": 1.0,
                "csr_stderr,none": "N/A",
                "record,none": 3.0,
                "bundled_samples,none": 0.0,
            },
            "t2": {"alias": "t2", "csr,none": 0.0, "csr_stderr,none": "N/A", "note,none": "x"},
        },
        "groups": {"g": {"alias": "group g", "csr,none": 0.5, "csr_stderr,none": 0.1}},
        "group_subtasks": {"g": ["t1", "t2"]},
        "n-samples": {"t1": {"original": 9, "effective": 3}, "t2": {"original": 4, "effective": 4}},
        "higher_is_better": {"g": {"csr": True}, "t1": {"csr": True}, "t2": {"csr": True}},
        "versions": {"t1": 1.0, "t2": 1.0},
    }
    table = results_table(results)
    rows = table_rows(table)
    # lm-eval's make_table: subtasks indented under their group, no record row, no ± where
    # there is no standard error
    assert rows["- t1"] == [["- t1", "1", "none", "", "csr", "↑", "1", "", ""]]
    assert rows["- t2"] == [["- t2", "1", "none", "", "csr", "↑", "0", "", ""]]
    assert rows["group g"] == [["group g", "N/A", "none", "", "csr", "↑", "0.5", "±", "0.1"]]
    assert [line.split("|")[1].strip() for line in table.splitlines()[:1]] == ["Tasks"]
    assert sample_count_note(table) == {"t1": "3", "t2": "4", "g": "7"}  # a group: 3 + 4
    assert "other values (not numbers): t2 note: x" in table.splitlines()


def test_a_text_only_backend_on_image_tasks_is_refused_before_the_model_loads(
    tmp_path: Path,
) -> None:
    # the path does not exist: loading the model would fail, so the check came first
    out = sci_eval(
        tmp_path, "model=hf", "model.args.pretrained=/nonexistent/model", "tasks=spm_bench",
        "hydra.run.dir=textonly",
    )  # fmt: skip
    assert out.returncode != 0
    assert out.stderr.strip().splitlines()[0] == (
        "sci-eval: tasks spm_bench_afm, spm_bench_sem, "
        "spm_bench_stm ... (tasks/spm_bench.yaml) need images, but model.backend='hf' "
        "(model/hf.yaml) is text-only: use hf-multimodal, vllm-vlm or a chat-completions "
        "backend with max_images, or a text task set (tasks=scimif_text)"
    )
    assert "Traceback" not in out.stdout + out.stderr


def test_outside_a_git_checkout_nothing_about_git_is_printed(
    tmp_path: Path, monkeypatch: Any, capfd: Any
) -> None:
    """lm-eval's own lookup runs `git describe` in the working folder, which prints `fatal:
    not a git repository` outside a checkout; inside sci-eval's run that call's stderr goes
    to the null device (lm-eval's function runs, its value is recorded: none outside a
    checkout, as stock lm_eval records), and the manifest of a package outside a checkout
    says `git: none`."""
    import sys

    import lm_eval.evaluator

    from sci_tasks import manifest
    from sci_tasks.quiet import quiet_git_lookup

    lookup = lm_eval.evaluator.get_git_commit_hash
    monkeypatch.chdir(tmp_path)  # no .git here or above (/tmp)
    monkeypatch.delenv("GIT_DIR", raising=False)
    assert lookup() is None
    assert "not a git repository" in capfd.readouterr().err  # what lm-eval alone prints
    with quiet_git_lookup():
        recorded = lm_eval.evaluator.get_git_commit_hash()
        print("after the lookup", file=sys.stderr)  # stderr itself stays open
    assert recorded is None
    assert capfd.readouterr().err == "after the lookup\n"  # at the file descriptor: git's own
    assert lm_eval.evaluator.get_git_commit_hash is lookup  # for the run only
    package = tmp_path / "site-packages" / "sci_tasks"
    package.mkdir(parents=True)
    monkeypatch.setattr(manifest, "__file__", str(package / "manifest.py"))
    assert manifest.git_revision() == "none"


def independent_bootstrap_sd(num: list[float], den: list[float], iters: int, seed: int) -> float:
    """The standard deviation of sum(num) / sum(den) over resamples of whole samples, drawn
    here with numpy alone (another seed and many more draws than the statistics module)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n, nums, dens = len(num), np.array(num), np.array(den)
    draws = rng.integers(0, n, size=(iters, n))
    ratios = nums[draws].sum(axis=1) / dens[draws].sum(axis=1)
    return float(ratios.std(ddof=1))


def test_the_stderr_of_a_headline_metric_is_a_bootstrap_over_the_samples() -> None:
    """sci-eval fills the errors lm-eval leaves "N/A": a mean (CSR) and a ratio of sums
    (DRFR) over the logged samples, checked against a numpy bootstrap of its own; a metric
    without per-sample parts and an error lm-eval computed itself are left as they are."""
    from sci_tasks.run.stderr import add_stderrs

    csr = [1.0, 0.5, 0.0, 1.0, 0.25, 0.75, 0.0, 1.0]
    satisfied, scored = [3, 1, 0, 2, 1, 2, 0, 4], [3, 2, 2, 2, 4, 3, 1, 4]
    samples = {"t": [
        {"filter": "none", "csr": c, "drfr": {"satisfied": s, "scored": d}, "unscored": 0}
        for c, s, d in zip(csr, satisfied, scored, strict=True)
    ]}  # fmt: skip
    entry = {
        "csr,none": sum(csr) / 8, "csr_stderr,none": "N/A",
        "drfr,none": sum(satisfied) / sum(scored), "drfr_stderr,none": "N/A",
        "unscored,none": 0.0, "unscored_stderr,none": "N/A",
        "isr,none": 0.5, "isr_stderr,none": 0.125,  # lm-eval's own: kept
    }  # fmt: skip
    results = {"results": {"t": entry}}
    add_stderrs(results, samples, groups={})
    want_csr = independent_bootstrap_sd(csr, [1.0] * 8, 40_000, seed=7)
    want_drfr = independent_bootstrap_sd(satisfied, scored, 40_000, seed=7)
    # 1,000 seeded draws against 40,000: the estimate of a standard deviation agrees to a
    # few per cent (its relative error is about 1/sqrt(2 x 1000) = 2.2 %)
    assert abs(entry["csr_stderr,none"] / want_csr - 1) < 0.08
    assert abs(entry["drfr_stderr,none"] / want_drfr - 1) < 0.08
    assert entry["csr_stderr,none"] == stats.metric_estimate("csr", samples["t"]).stderr
    assert entry["unscored_stderr,none"] == "N/A"  # no per-sample parts: no ±
    assert entry["isr_stderr,none"] == 0.125


def test_a_groups_stderr_comes_from_its_tasks_by_lm_evals_group_arithmetic() -> None:
    """SciMIF's group is the unweighted mean over its five disciplines: its error is
    sqrt(sum of the tasks' squared errors) / 5, lm-eval's own ``unweighted_mean_stderr``."""
    from sci_tasks.run.stderr import add_stderrs

    loaded = sci_tasks.task_manager(include_defaults=False).load(["scimif"])
    tasks = ["scimif_chem", "scimif_geo", "scimif_bio", "scimif_mat", "scimif_phy"]
    errors = [0.1, 0.2, 0.0, 0.3, 0.4]
    entries: dict[str, Any] = {
        t: {"sample_len": 4, "csr,none": 0.5, "csr_stderr,none": e}
        for t, e in zip(tasks, errors, strict=True)
    }
    group = {"alias": "SciMIF", "csr,none": 0.5, "csr_stderr,none": "N/A"}
    results = {"results": {**entries, "scimif": dict(group)}, "groups": {"scimif": group}}
    add_stderrs(results, {}, loaded["groups"])
    want = (0.01 + 0.04 + 0.0 + 0.09 + 0.16) ** 0.5 / 5  # = sqrt(0.30) / 5 = 0.10954
    assert abs(group["csr_stderr,none"] - want) < 1e-12
    assert abs(results["results"]["scimif"]["csr_stderr,none"] - want) < 1e-12


def test_a_size_weighted_groups_stderr_is_pooled_and_unknown_with_one_sample_per_task() -> None:
    """SPM-Bench's group weights its techniques by size: lm-eval's pooled error,
    sqrt(sum((n - 1) * se^2 * n) / (N - k) / N). With one question per technique that
    divides by zero in lm-eval (a limit=1 sweep): the ± stays "N/A", the job goes on."""
    from sci_tasks.run.stderr import add_stderrs

    loaded = sci_tasks.task_manager(include_defaults=False).load(["spm_bench"])
    tasks = ["spm_bench_stm", "spm_bench_afm", "spm_bench_sem", "spm_bench_tem"]
    for n, errors, want in ((4, [0.1, 0.2, 0.3, 0.4], (3 * 4 * 0.30 / 12 / 16) ** 0.5),
                            (1, [0.0, 0.0, 0.0, 0.0], "N/A")):  # fmt: skip
        entries: dict[str, Any] = {
            t: {"sample_len": n, "em,none": 0.5, "em_stderr,none": e}
            for t, e in zip(tasks, errors, strict=True)
        }
        group = {"alias": "SPM-Bench", "em,none": 0.5, "em_stderr,none": "N/A"}
        results = {"results": {**entries, "spm_bench": dict(group)}, "groups": {"spm_bench": group}}
        add_stderrs(results, {}, loaded["groups"])
        if want == "N/A":
            assert group["em_stderr,none"] == "N/A"
        else:  # sqrt(0.30 / 16) = 0.13693
            assert abs(group["em_stderr,none"] - want) < 1e-12


def test_a_failing_stderr_computation_keeps_the_results(caplog: pytest.LogCaptureFixture) -> None:
    """The ± is extra: a group whose arithmetic raises leaves "N/A" and a warning, and the
    run keeps its results (the values are untouched)."""
    from sci_tasks.run.stderr import fill_stderrs

    class Broken:  # a group object whose aggregation fails, as lm-eval's can
        def aggregate(self, entries: Any) -> Any:
            raise ValueError("no sizes")

    group = {"alias": "G", "em,none": 0.5, "em_stderr,none": "N/A"}
    results = {"results": {"g": dict(group)}, "groups": {"g": group}}
    with caplog.at_level("WARNING"):
        assert fill_stderrs(results, {}, {"g": Broken()}) is False
    assert group == {"alias": "G", "em,none": 0.5, "em_stderr,none": "N/A"}
    assert "the bootstrap ± was not computed (ValueError: no sizes)" in caplog.text


def test_a_missing_data_folder_is_said_before_the_model_is_converted(tmp_path: Path) -> None:
    """A first-ever run (an empty cache) of the embedded default with a wrong data folder:
    the one line comes before the GGUF conversion (issue 31), which would write the
    converted model into the cache's models/ folder."""
    missing = tmp_path / "no-such-folder"
    out = sci_eval(tmp_path, "tasks=scimif_chem", f"data.SCIMIF_DATA_DIR={missing}")
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f"sci-eval: DataError: SCIMIF_DATA_DIR (run settings) is {str(missing)!r}: neither "
        "an existing folder nor a hub dataset id"
    )
    assert not (tmp_path / "cache" / "models").exists()  # nothing converted
    assert not (tmp_path / "sci-eval-runs").exists()


def test_a_sweep_job_with_a_missing_data_folder_fails_without_converting_the_model(
    tmp_path: Path,
) -> None:
    """The same in a sweep: the job's manifest records the one-line error (a sweep keeps a
    record of every job) and the cache's models/ folder stays empty."""
    missing = tmp_path / "no-such-folder"
    out = sci_eval(
        tmp_path, "-m", "tasks=scimif_chem", f"data.SCIMIF_DATA_DIR={missing}", "sweep_name=s"
    )
    assert out.returncode == 1, out.stderr
    (job,) = [p for p in (tmp_path / "sci-eval-sweeps" / "s").iterdir() if p.is_dir()
              and not p.name.startswith(".")]  # fmt: skip
    from sci_tasks import manifest

    recorded = manifest.read(job)
    assert recorded.status == "failed"
    assert recorded.error == (
        f"DataError: SCIMIF_DATA_DIR (run settings) is {str(missing)!r}: neither "
        "an existing folder nor a hub dataset id"
    )
    assert recorded.config["model"]["args"]["pretrained"].startswith(str(tmp_path / "cache"))
    assert not (tmp_path / "cache" / "models").exists()  # the path recorded, nothing converted
