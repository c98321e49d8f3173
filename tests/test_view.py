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
        # the echo repeats "User: ..." and the question: not all lowercase; no judge here
        assert checks["general_all_lowercase"]["verdict"] == "fail"
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
    data = json.loads(
        page.read_text(encoding="utf-8")
        .split('<script type="application/json" id="data">')[1]
        .split("</script>")[0]
    )
    assert data["models"] == [r.label for r in runs[:3]]
    assert {s["model"] for s in data["samples"] if s["run"] >= 2} == {2}


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
    page = view.write_view(run_dir, tmp_path / "view.html", iters=200)
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:|//)""", html)  # no network
    assert HOSTILE not in html  # only ever escaped
    browser.get(page.as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []

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
    assert sum(HOSTILE in text for text in responses) >= 2  # each model's response (+ prompt)

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

    choose(browser, "f-check", "general_number_response")
    assert shown(browser) == expected("general_number_response") == len(MODELS)  # doc 1 only
    choose(browser, "f-verdict", "pass")
    assert shown(browser) == 0  # no judge: never pass
    choose(browser, "f-verdict", "unscored")
    assert shown(browser) == len(MODELS)
    choose(browser, "f-check", "")
    choose(browser, "f-verdict", "fail")
    assert shown(browser) == expected(verdict="fail") == len(MODELS) * LIMIT
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


def test_responses_of_every_request_type_read_as_text() -> None:
    assert view._first([["generated text"]]) == "generated text"  # generate_until
    assert view._first(["filtered"]) == "filtered"
    # loglikelihood (multiple choice): every choice's value, not the first number alone
    assert view._first([[[-1.5, False]], [[-0.25, True]]]) == "[[[-1.5, false]], [[-0.25, true]]]"
    assert view._first(2) == "2" and view._first(None) == "" and view._first([]) == ""
