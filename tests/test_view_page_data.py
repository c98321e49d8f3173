"""``sci-view`` without a browser: the runs, checks, summaries, caveats and page data it
reads from real lm-eval output (view_helpers.py), each value read back to the samples and
results files (the page itself, in Chromium: test_view.py)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from sci_tasks import stats, view

from .view_helpers import HOSTILE, LIMIT, MODELS, TASKS, page_data, samples_of


@pytest.fixture(scope="module")
def run_dir(view_runs: Path) -> Path:
    return view_runs


def test_runs_checks_and_summary_from_real_output(run_dir: Path) -> None:
    runs = view.find_runs(run_dir)
    assert [r.label for r in runs] == list(MODELS)
    for run in runs:
        assert sorted(run.samples) == sorted(TASKS)
        assert all(len(records) == LIMIT for records in run.samples.values())
        geo = {r["doc"]["id"]: r for r in run.samples["scimif_geo"]}
        checks = {c["name"]: c for c in view.checks_of("scimif_geo", geo[1])}
        # the record lists all_lowercase but its question never asks for it: the
        # requirement is absent (issue 28), so unscored; no judge here
        assert checks["general_all_lowercase"]["verdict"] == "unscored"
        assert "requirement is absent" in checks["general_all_lowercase"]["reason"]
        assert checks["general_all_lowercase"]["group"] == "Letter"
        assert checks["general_number_response"]["verdict"] == "unscored"
        assert "judge" in checks["general_number_response"]["reason"]
        assert HOSTILE in geo[1]["resps"][0][0]
        spm = view.checks_of("spm_bench_stm", run.samples["spm_bench_stm"][0])
        assert [c["name"] for c in spm] == ["answer (EM)"] and spm[0]["verdict"] == "fail"
        assert "predicted (none)" in spm[0]["reason"]
        labels = set()
        for record in run.samples[TASKS[2]]:
            names = [c["name"] for c in view.checks_of(TASKS[2], record)]
            label = record["doc"]["label"]
            labels.add(label)
            # the edit (Acc_i) is scored on negative samples only
            assert names == ["judgement (Acc_a)", "explanation (Acc_e)"] + (
                [] if label else ["edit (Acc_i)"]
            )
        assert labels == {True, False}
        # the summary's DRFR is the results file's value, with the bootstrap error beside it
        rows = {name: text for name, text, _ in view.summary_rows(run, "scimif_geo", 200)}
        drfr = run.results["scimif_geo"]["drfr,none"]
        est = stats.metric_estimate("drfr", run.samples["scimif_geo"], iters=200)
        assert est.value == drfr and rows["drfr"] == stats.fmt(est)
        assert " ± " in rows["csr"]


def test_a_sweep_folder_labels_runs_by_model_and_job(run_dir: Path, tmp_path: Path) -> None:
    """Two jobs of model-a on the same tasks are told apart by job; model-b's two jobs on
    different tasks are one model."""
    sweep = tmp_path / "sweep"
    for job in ("model-a__geo__1", "model-a__geo__2"):
        shutil.copytree(run_dir / "model-a", sweep / job / "model-a")
    for job, task in (("model-b__geo__3", "scimif_geo"), ("model-b__spm__4", "spm_bench_stm")):
        (sweep / job / "model-b").mkdir(parents=True)
        for path in (run_dir / "model-b").glob(f"samples_{task}_*.jsonl"):
            shutil.copy(path, sweep / job / "model-b" / path.name)
    for job in sweep.iterdir():
        (job / "manifest.json").write_text("{}")
    runs = view.find_runs(sweep)
    assert [r.label for r in runs] == [
        "model-a (model-a__geo__1/model-a)", "model-a (model-a__geo__2/model-a)",
        "model-b", "model-b",
    ]  # fmt: skip
    assert [sorted(r.samples) for r in runs[2:]] == [["scimif_geo"], ["spm_bench_stm"]]
    page = view.write_view(sweep)
    assert page == sweep / view.OUT_NAME and page.stat().st_size > 10_000
    data = page_data(page)
    assert data["models"] == [r.label for r in runs[:3]]
    assert {s["model"] for s in data["samples"] if s["run"] >= 2} == {2}


def test_page_data_is_compact_and_complete(run_dir: Path, tmp_path: Path) -> None:
    """Each text once (the prompt both models were sent is one string), every sample a row
    that reads back to the samples file's values."""
    runs = view.find_runs(run_dir)
    data = view.page_data(run_dir, runs, [])
    strings = data["strings"]
    assert len(strings) == len(set(strings))
    assert len(data["samples"]) == len(samples_of(run_dir)) == len(MODELS) * len(TASKS) * LIMIT
    assert len(data["docs"]) == len(TASKS) * LIMIT  # both models answered every document
    assert len(data["value_sets"]) < len(data["samples"])  # a sample's values: a shared list
    for doc in data["docs"]:
        assert set(doc) == {"task", "id", "samples"}  # named fields, not positions
        assert [data["samples"][i]["model"] for i in doc["samples"]] == [0, 1]
        prompts = {data["samples"][i]["prompt"] for i in doc["samples"]}
        assert len(prompts) == 1 and data["tasks"][doc["task"]] in TASKS
    in_order = [
        (i, t, rec) for i, r in enumerate(runs) for t, recs in r.samples.items() for rec in recs
    ]
    fields = {"run", "model", "doc", "prompt", "response", "filtered", "target", "scored",
              "images", "image_names", "checks", "values"}  # fmt: skip
    for row, (run_index, task, record) in zip(data["samples"], in_order, strict=True):
        assert set(row) == fields
        run, doc = row["run"], data["docs"][row["doc"]]
        assert run == run_index and data["tasks"][doc["task"]] == task
        assert data["models"][row["model"]] == data["runs"][run]["label"]
        assert strings[doc["id"]] == str(record["doc"]["id"] if "id" in record["doc"]
                                         else record["doc_id"])  # fmt: skip
        assert strings[row["target"]] == view._first(record["target"])
        assert strings[row["response"]] == record["resps"][0][0]
        assert strings[row["prompt"]] == view.prompt_of(record)
        checks = row["checks"]
        assert all(
            set(c) == {"name", "verdict", "score", "group", "reason", "judge"} for c in checks
        )
        assert [[strings[c["name"]], data["verdicts"][c["verdict"]]] for c in checks] == [
            [c["name"], c["verdict"]] for c in view.checks_of(task, record)
        ]
        filtered = row["filtered"]
        assert row["scored"] == 1
        assert filtered == -1 or strings[filtered] != strings[row["response"]]
        assert len(row["images"]) == len(row["image_names"]) == len(view.image_paths(record["doc"]))
        assert data["value_sets"][row["values"]] == view.values_of(record, no_judge=True)
    assert all(url.startswith("data:image/") for url in data["images"])
    paths = [p for _, _, r in samples_of(run_dir) for p in view.image_paths(r["doc"])]
    assert len(data["images"]) == len(set(paths)) == len(paths) // len(MODELS)  # each once


def test_no_judge_reads_n_a_not_null(run_dir: Path, tmp_path: Path) -> None:
    """``correct`` needs the judge: without one it is "n/a (no judge)" in the summary and on
    every sample, never null / NaN; a run whose manifest names a judge says "n/a" only."""
    runs = view.find_runs(run_dir)
    assert not view.has_judge(runs[0])  # stock lm-eval output: no sample names a judge
    rows = {name: text for name, text, _ in view.summary_rows(runs[0], "scimif_geo", 50)}
    logged = runs[0].results["scimif_geo"]["correct,none"]
    assert logged is None or math.isnan(logged)  # NaN (stock lm-eval) or null (sci-eval)
    assert rows["correct"] == "n/a (no judge)"
    record = runs[0].samples["scimif_geo"][0]
    assert dict(view.values_of(record, no_judge=True))["correct"] == "n/a (no judge)"
    assert dict(view.values_of(record))["correct"] == "n/a"
    judged = tmp_path / "judged"
    shutil.copytree(run_dir / "model-a", judged / "model-a")
    manifest = {"config": {"model": {"name": "model-a"}, "judge": {"name": "local_api"}}}
    (judged / "manifest.json").write_text(json.dumps(manifest))
    run = view.find_runs(judged)[0]
    assert run.judge == "local_api" and view.has_judge(run)
    rows = {name: text for name, text, _ in view.summary_rows(run, "scimif_geo", 50)}
    assert rows["correct"] == "n/a"


def test_a_run_is_labelled_by_model_name_from_its_manifest(run_dir: Path, tmp_path: Path) -> None:
    """sci-eval's ``model.name``, not the weights' path lm-eval logs as ``model_name``."""
    run = tmp_path / "run"
    shutil.copytree(run_dir / "model-a", run / "weights")
    for path in (run / "weights").glob("results_*.json"):
        results = json.loads(path.read_text())
        results["model_name"] = "/root/.cache/sci-tasks/models/smollm2-abc123"
        path.write_text(json.dumps(results))
    assert [r.label for r in view.find_runs(run)] == [
        "/root/.cache/sci-tasks/models/smollm2-abc123"
    ]
    manifest = {"config": {"model": {"name": "smollm2-135m"}, "judge": {"name": "none"}}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    (found,) = view.find_runs(run)
    assert found.label == "smollm2-135m" and found.judge == "none"


def test_script_json_cannot_close_its_element() -> None:
    text = str(view.script_json({"r": HOSTILE + "\u2028"}))
    assert "<" not in text and ">" not in text and "\u2028" not in text
    assert json.loads(text) == {"r": HOSTILE + "\u2028"}


def test_no_samples_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        view.main([str(tmp_path)])
    assert exit_info.value.code == 1
    assert (
        capsys.readouterr().err.strip().startswith(f"sci-view: no samples_*.jsonl under {tmp_path}")
    )


def test_responses_of_every_request_type_read_as_text() -> None:
    assert view._first([["generated text"]]) == "generated text"  # generate_until
    assert view._first(["filtered"]) == "filtered"
    # loglikelihood (multiple choice): every choice's value, not the first number alone
    assert view._first([[[-1.5, False]], [[-0.25, True]]]) == "[[[-1.5, false]], [[-0.25, true]]]"
    assert view._first(2) == "2" and view._first(None) == "" and view._first([]) == ""


def test_runs_sharing_no_document_are_said_to(tmp_path: Path) -> None:
    """Two runs of one task with no record in common get a sentence, not an empty pairing."""
    for run, question in (("a", "one"), ("b", "two"), ("c", "one")):
        sample = {"doc_id": 0, "doc": {"q": question}, "doc_hash": f"hash of {question}",
                  "resps": [["x"]], "filtered_resps": ["x"], "target": "y"}  # fmt: skip
        (tmp_path / run).mkdir()
        (tmp_path / run / "samples_demo_2026-01-01T00-00-00.jsonl").write_text(
            json.dumps(sample) + "\n"
        )
    runs = view.find_runs(tmp_path)
    notes = view.unpaired_runs(view.page_data(tmp_path, runs, []))
    assert notes == {
        "demo": [
            f"{x} and {y} share no document of this task (other records, or the same ones "
            "with other contents): no sample of theirs is side by side, and no paired "
            "comparison is possible."
            for x, y in (("a", "b"), ("b", "c"))
        ]
    }
    page = view.build_page(tmp_path, runs, iters=10)
    assert page.count('<p class="note unpaired">') == 2


def test_the_page_says_which_numbers_are_bundled_samples_and_limit_runs(
    run_dir: Path, tmp_path: Path
) -> None:
    """The fixture's runs: lm_eval --limit 2, SPM-Bench and SciGen-Verify on the bundled
    samples, SciMIF on a data folder (issue 31): the header and each task's summary say so."""
    runs = view.find_runs(run_dir)
    page = view.build_page(run_dir, runs, iters=50)
    bundled = "scigen_verify_instruction_following, spm_bench_stm"
    for model in MODELS:
        line = (
            f'<div class="caveat">{model}: bundled samples ({bundled}): not benchmark numbers; '
            f"limit={LIMIT}: NOT a full run</div>"
        )
        assert line in page
    run = runs[0]
    n = {t: run.n_samples[t]["original"] for t in TASKS}
    assert view.caveats(run, "scimif_geo") == [
        f"limit=2 ({LIMIT} of {n['scimif_geo']} samples): NOT a full run"
    ]
    for task in TASKS[1:]:
        assert view.caveats(run, task) == [
            "bundled samples: not benchmark numbers",
            f"limit=2 ({LIMIT} of {n[task]} samples): NOT a full run",
        ]
        said = "; ".join(view.caveats(run, task))
        assert page.count(f'<td class="caveat">{said}</td>') == len(MODELS)
    # a full run on its own data says nothing of the kind
    full = view.Run(run.folder, "full", "full", samples={"scimif_geo": run.samples["scimif_geo"]})
    assert view.caveats(full, "scimif_geo") == [] and view.run_caveats([full]) == []
