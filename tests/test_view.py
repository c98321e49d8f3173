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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from sci_tasks import view

from .view_helpers import HOSTILE, LIMIT, MODELS, ROOT, TASKS, samples_of


@pytest.fixture(scope="module")
def run_dir(view_runs: Path) -> Path:
    return view_runs


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
