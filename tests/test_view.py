"""``sci-view``: one self-contained HTML page over real lm-eval output, checked in a real
headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by selenium).

The run folders are stock ``lm_eval --log_samples --output_path`` output of two models (two
llm-katan echo servers on loopback) on SciMIF geography (our own two records with images,
one of them hostile: its question holds ``</script>`` and ``<img onerror>``, which the echo
repeats in the response), SPM-Bench STM and SciGen-Verify (bundled samples). The page must
load without a console error, run none of the hostile text, change what it shows when the
filters change (counted against the samples files), and show both models side by side.
The screenshot is kept: ``$SCI_TASKS_TEST_ARTIFACTS`` (default ``test-artifacts/``).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

import sci_tasks
from sci_tasks import stats, view

from .helpers import console_script, write_release
from .servers import KATAN_KEY, katan

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("model-a", "model-b")
TASKS = ("scimif_geo", "spm_bench_stm", "scigen_verify_instruction_following")
LIMIT = 2  # per task: 2 models x 3 tasks x 2 = 12 samples
HOSTILE = (
    '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
    "<b>bold?</b> &amp; {{ jinja }}"
)
IMG_A = "geography/ViewTest/images/map_a.png"
IMG_B = "geography/ViewTest/images/map_b.png"
RECORDS = [
    {
        "id": 1,
        "task": "formated_calculation_task",
        "original_question": "How high is point A?",
        "edit_question": f"How high is point A? {HOSTILE}",
        "answer": "420 m",
        "instruction_list": [
            {"instruction_name": "general_all_lowercase", "source": "added_general"},
            {
                "instruction_name": "general_number_response",
                "source": "added_general",
                "required_parameters": "1",
            },
        ],
        "image": IMG_A,
    },
    {
        "id": 2,
        "task": "formated_scene_option",
        "original_question": "Which landform is shown?",
        "edit_question": "Which landform is shown? ANSWER IN CAPITALS.",
        "answer": "A hill",
        "instruction_list": [
            {"instruction_name": "general_all_uppercase", "source": "added_general"}
        ],
        "image": [IMG_B],
    },
]


def draw(path: Path, colour: str, label: str) -> None:
    image = Image.new("RGB", (640, 400), "white")
    pen = ImageDraw.Draw(image)
    for r in range(180, 0, -30):
        pen.ellipse((320 - r * 1.5, 200 - r, 320 + r * 1.5, 200 + r), outline=colour, width=4)
    pen.text((20, 20), label, fill="black")
    image.save(path)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Stock lm_eval output of both models: ``out/model-a/``, ``out/model-b/``."""
    tmp = tmp_path_factory.mktemp("view")
    data = write_release(tmp / "scimif", {"geography.jsonl": RECORDS}, [IMG_A, IMG_B])
    draw(data / "images" / IMG_A, "#8b5a2b", "map A (contours)")
    draw(data / "images" / IMG_B, "#2e8b57", "map B (hill)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCI_TASKS_JUDGE_")}
    env |= {"OPENAI_API_KEY": KATAN_KEY, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "SCIMIF_DATA_DIR": str(data)}  # fmt: skip
    env.pop("SCI_TASKS_DATA_DIR", None)
    out = tmp / "out"
    with ExitStack() as stack:
        servers = [stack.enter_context(katan(tmp, model=m)) for m in MODELS]
        procs = [
            subprocess.Popen(
                [
                    console_script("lm_eval"),
                    "--model",
                    "local-chat-completions",
                    "--model_args",
                    f"model={s.model},base_url={s.chat_url},max_images=2,"
                    "num_concurrent=2,max_retries=1,tokenized_requests=False",
                    "--apply_chat_template",
                    "--tasks",
                    ",".join(TASKS),
                    "--include_path",
                    sci_tasks.include_path(),
                    "--limit",
                    str(LIMIT),
                    "--log_samples",
                    "--output_path",
                    str(out),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env=env,
                cwd=tmp,
            )
            for s in servers
        ]
        for proc in procs:
            output, _ = proc.communicate(timeout=600)
            assert proc.returncode == 0, f"lm_eval failed:\n{output[-3000:]}"
    assert sorted(p.name for p in out.iterdir()) == list(MODELS)
    return out


def samples_of(run_dir: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(model, task, record) of every logged sample, read straight from the files."""
    out = []
    for path in sorted(run_dir.rglob("samples_*.jsonl")):
        task = path.stem.removeprefix("samples_").rsplit("_", 1)[0]
        for line in path.read_text(encoding="utf-8").splitlines():
            out.append((path.parent.name, task, json.loads(line)))
    return out


# --- without a browser --------------------------------------------------------------------


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


def page_data(page: Path) -> dict[str, Any]:
    return json.loads(
        page.read_text(encoding="utf-8")
        .split('<script type="application/json" id="data">')[1]
        .split("</script>")[0]
    )


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


# --- in Chromium --------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="Debian's chromium / chromium-driver are not installed "
    "(apt-get install -y chromium chromium-driver; .ci/run does it)",
)


@pytest.fixture()
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--no-first-run"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def shown(driver: Any) -> int:
    count = driver.find_element("id", "count")
    visible = driver.execute_script(
        "return Array.from(document.querySelectorAll('.sample'))"
        ".filter(e => e.offsetParent !== null).length"
    )
    assert int(count.get_attribute("data-shown")) == visible
    return int(visible)


def choose(driver: Any, select_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", select_id)).select_by_value(value)


def keep_screenshot(driver: Any, tmp_path: Path, name: str) -> Path:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(int(height) + 120, 5000))
    path = tmp_path / name
    assert driver.save_screenshot(str(path))
    folder = Path(os.environ.get("SCI_TASKS_TEST_ARTIFACTS", ROOT / "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, folder / name)
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size[0] >= 1000
    return path


@needs_chromium
def test_page_in_chromium(run_dir: Path, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    page = view.write_view(run_dir, tmp_path / "view.html", iters=200)
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html)  # no network
    assert HOSTILE not in html  # only ever escaped
    # the CSP allows the page's one inline script by its hash, nothing else
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp and "unsafe-inline" not in csp.group(1).split("script-src")[1]
    script = html.split("<script>", 1)[1].split("</script>", 1)[0]
    assert f"script-src {view.csp_hash(script)}" in csp.group(1).replace("&#39;", "'")
    browser.get(page.as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    assert browser.execute_script("return document.documentElement.dataset.ready") == "1"

    # nothing hostile ran; the text is shown as text
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.execute_script("return document.querySelectorAll('script').length") == 2
    images = browser.execute_script("return Array.from(document.images).map(i => i.src)")
    assert images and all(src.startswith("data:image/") for src in images)
    assert browser.execute_script(
        "return Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
    )
    responses = browser.execute_script(
        "return Array.from(document.querySelectorAll('.sample pre')).map(p => p.textContent)"
    )
    assert sum(HOSTILE in text for text in responses) >= 2  # each model's response
    # the prompt is built when opened, as text too
    prompts = browser.find_elements("css selector", ".sample details:first-of-type > summary")
    for summary in prompts:
        summary.click()
    # the page builds a prompt in the details' toggle event, which the browser fires after
    # the click has returned: wait until every opened prompt is built
    built = "return document.querySelectorAll('.sample details[open] pre').length"
    WebDriverWait(browser, 10).until(lambda b: b.execute_script(built) == len(prompts))
    opened = browser.execute_script(
        "return Array.from(document.querySelectorAll('.sample details[open] pre'))"
        ".map(p => p.textContent)"
    )
    assert len(opened) == len(prompts) and sum(HOSTILE in text for text in opened) == len(MODELS)
    assert browser.execute_script("return window.__pwned === undefined")

    # no judge: `correct` reads "n/a (no judge)" in the summary and on each sample, never null
    summary = browser.execute_script(
        "const t = document.querySelector('table.summary[data-task=scimif_geo]');"
        "const col = Array.from(t.rows[0].cells).findIndex(c => c.textContent === 'correct');"
        "return Array.from(t.rows).slice(1).map(r => r.cells[col].textContent)"
    )
    assert summary == ["n/a (no judge)"] * len(MODELS)
    tables = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.summary')).map(t => t.textContent)"
    )
    assert not any(re.search(r"\b(null|NaN)\b", text) for text in tables)
    ece = browser.execute_script(  # no confidence given: n/a, and not for want of a judge
        "const t = document.querySelector('table.summary[data-task=spm_bench_stm]');"
        "const col = Array.from(t.rows[0].cells).findIndex(c => c.textContent === 'ece');"
        "return Array.from(t.rows).slice(1).map(r => r.cells[col].textContent)"
    )
    assert ece == ["n/a"] * len(MODELS)

    samples = samples_of(run_dir)
    assert shown(browser) == len(samples) == len(MODELS) * len(TASKS) * LIMIT

    choose(browser, "f-task", "scimif_geo")
    assert shown(browser) == len(MODELS) * LIMIT

    def expected(name: str = "", group: str = "", verdict: str = "") -> int:
        count = 0
        for _, task, record in samples:
            if task != "scimif_geo":
                continue
            count += any(
                (not name or c["name"] == name)
                and (not group or c["group"] == group)
                and (not verdict or c["verdict"] == verdict)
                for c in view.checks_of(task, record)
            )
        return count

    browser.execute_script(
        "for (const s of document.querySelectorAll('.sample details > summary'))"
        "  if (s.textContent === 'per-sample values') s.click();"
    )
    every_open_built = (  # the values are built in the toggle event, after the clicks
        "const open = document.querySelectorAll('.sample details[open]');"
        "return open.length > 0 && Array.from(open).every(d => d.dataset.built === '1')"
    )
    WebDriverWait(browser, 10).until(lambda b: b.execute_script(every_open_built))
    values = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.values tr'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent))"
    )
    assert ["correct", "n/a (no judge)"] in values and not any(
        v[1] in ("null", "NaN") for v in values
    )

    choose(browser, "f-check", "general_number_response")
    assert shown(browser) == expected("general_number_response") == len(MODELS)  # doc 1 only
    choose(browser, "f-verdict", "pass")
    assert shown(browser) == 0  # no judge: never pass
    choose(browser, "f-verdict", "unscored")
    assert shown(browser) == len(MODELS)
    choose(browser, "f-check", "")
    choose(browser, "f-verdict", "fail")
    assert shown(browser) == expected(verdict="fail") == len(MODELS)  # one per model
    choose(browser, "f-verdict", "")
    choose(browser, "f-group", "Letter")
    assert shown(browser) == expected(group="Letter")
    choose(browser, "f-group", "")

    # two models side by side on each document; one model unticked leaves one column
    browser.find_element("id", "f-paired").click()
    pairs = browser.execute_script(
        "return Array.from(document.querySelectorAll('.card'))"
        ".filter(c => c.offsetParent !== null)"
        ".map(c => Array.from(c.querySelectorAll('.sample'))"
        ".filter(p => p.offsetParent !== null).map(p => p.querySelector('h3').textContent))"
    )
    assert pairs and all(p == list(MODELS) for p in pairs) and len(pairs) == LIMIT
    widths = browser.execute_script(
        "const c = Array.from(document.querySelectorAll('.card')).find(c => c.offsetParent);"
        "return Array.from(c.querySelectorAll('.sample')).map(p => p.getBoundingClientRect())"
        ".map(r => [Math.round(r.left), Math.round(r.top)])"
    )
    assert widths[0][1] == widths[1][1] and widths[0][0] < widths[1][0]  # beside, not below
    keep_screenshot(browser, tmp_path, "sci-view-side-by-side.png")
    browser.find_element("id", "f-paired").click()
    browser.find_element("css selector", "#f-runs input[data-model='1']").click()
    assert shown(browser) == LIMIT
    choose(browser, "f-task", "")
    assert shown(browser) == len(TASKS) * LIMIT
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    keep_screenshot(browser, tmp_path, "sci-view-one-model.png")


COPIES = 25  # of each geography document: 50 documents, more than a page holds


@pytest.fixture()
def many_documents(run_dir: Path, tmp_path: Path) -> Path:
    """The real output with each SciMIF geography sample copied ``COPIES`` times as other
    documents (doc_id, doc_hash and id changed, nothing else): 2 x 50 geography samples."""
    out = tmp_path / "many"
    for model in MODELS:
        shutil.copytree(run_dir / model, out / model)
        (path,) = (out / model).glob("samples_scimif_geo_*.jsonl")
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for k in range(COPIES):
                copy = json.loads(line)
                copy["doc_id"] = record["doc_id"] + LIMIT * k
                copy["doc_hash"] = f"{record['doc_hash']}-{k}"
                copy["doc"]["id"] = f"{record['doc']['id']}-{k}"
                rows.append(json.dumps(copy))
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return out


@needs_chromium
def test_paging_and_filters_over_the_data(
    many_documents: Path, browser: Any, tmp_path: Path
) -> None:
    """Only the current page's cards are elements; the count and the filters cover every
    sample, whichever page it is on; paging walks all of them."""
    page = view.write_view(many_documents, tmp_path / "view.html", iters=50)
    browser.get(page.as_uri())
    samples = samples_of(many_documents)
    n_docs = LIMIT * COPIES + (len(TASKS) - 1) * LIMIT
    assert len(samples) == len(MODELS) * n_docs

    def state() -> tuple[int, int, int, int, int]:
        return browser.execute_script(
            "const p = document.getElementById('page').dataset;"
            "return [Number(document.getElementById('count').dataset.shown), Number(p.page),"
            " Number(p.pages), document.querySelectorAll('.card').length,"
            " document.querySelectorAll('.sample').length]"
        )

    per_page = view.PAGE_SIZE
    assert state() == [len(samples), 1, -(-n_docs // per_page), per_page, per_page * len(MODELS)]
    seen = []
    for number in range(1, -(-n_docs // per_page) + 1):
        shown, at, _, cards, _ = state()
        assert at == number and shown == len(samples)
        seen += browser.execute_script(
            "return Array.from(document.querySelectorAll('.card > .head')).map(h => h.textContent)"
        )
        if number * per_page < n_docs:
            browser.find_element("id", "p-next").click()
    assert len(seen) == len(set(seen)) == n_docs  # every document once, over the pages
    assert browser.find_element("id", "p-next").get_attribute("disabled")
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")  # at the end
    browser.find_element("id", "p-first").click()  # the pager stays in the sticky filter bar
    assert state()[1] == 1
    card_top, bar_bottom = browser.execute_script(
        "return [document.querySelector('.card').getBoundingClientRect().top,"
        " document.getElementById('filters').getBoundingClientRect().bottom]"
    )
    assert bar_bottom <= card_top < 1000  # the new page from its first card, below the bar

    # a filter over the data: the copies of document 1 (all 50 of them) from every page
    choose(browser, "f-check", "general_number_response")
    choose(browser, "f-verdict", "unscored")
    shown, at, pages, cards, panels = state()
    assert shown == len(MODELS) * COPIES and at == 1 and pages == -(-COPIES // per_page)
    assert cards == per_page and panels == per_page * len(MODELS)
    heads = browser.execute_script(
        "return Array.from(document.querySelectorAll('.card > .head')).map(h => h.textContent)"
    )
    assert all(re.fullmatch(r"scimif_geo · doc 1-\d+", h) for h in heads)
    marked = browser.execute_script(
        "return Array.from(document.querySelectorAll('.checks tr.match'))"
        ".map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent)"
    )
    assert marked == ["general_number_response unscored"] * panels
    choose(browser, "f-page-size", "50")
    assert state() == [len(MODELS) * COPIES, 1, 1, COPIES, len(MODELS) * COPIES]

    # side by side on every page; one model unticked leaves one column
    choose(browser, "f-check", "")
    choose(browser, "f-verdict", "")
    browser.find_element("id", "f-paired").click()
    assert state()[0] == len(samples)
    columns = browser.execute_script(
        "return Array.from(document.querySelectorAll('.card .panels'))"
        ".map(p => Array.from(p.children).map(c => c.querySelector('h3').textContent))"
    )
    assert columns == [list(MODELS)] * 50
    browser.find_element("css selector", "#f-runs input[data-model='1']").click()
    assert state()[0] == 0  # paired: nothing is left with one model
    browser.find_element("id", "f-paired").click()
    assert state()[:1] == [n_docs] and state()[4] == min(50, n_docs)
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


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
