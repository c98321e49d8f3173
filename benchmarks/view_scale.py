"""sci-view at the full SciMIF size: page size, load time, filter time and memory in Chromium.

Builds, in a temporary folder (or ``--work``):

1. a SciMIF data folder of ``--records`` records (default 2,770, the released size) in the
   authors' layout, made from the bundled release-shaped records: each copy gets a new id,
   its question a " (variant k)" suffix and, for the disciplines with images, its own image
   file (the bundled image with the copy's number drawn on it, so no two are alike);
2. a sweep: ``sci-eval -m model=local_api model.args.model=bench-model-1,...`` (one job per
   model, ``tasks=scimif``: the five disciplines) against a stdlib OpenAI-compatible server
   on 127.0.0.1 whose reply depends on the model id and the prompt (seeded), so every model
   answers differently and the verdicts differ;
3. ``sci-view`` over 3 of those jobs and over all ``--models`` (default 10) of them;

then opens each page in Debian's headless chromium (selenium) and prints: the page's size,
DOMContentLoaded and load (``performance.timing``), CDP Performance metrics (JS heap, nodes),
the time of each filter change (from the change event to the next frame), and the resident
memory of chromium's whole process tree (every descendant of chromedriver, read from /proc),
peak over the run. Targets (issue 21): DOMContentLoaded < 3 s, every filter change < 0.5 s,
process tree < 1.5 GiB, on 3 models x 2,770 records; 10 models must still open.

    python benchmarks/view_scale.py [--records 2770] [--models 10] [--work DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.*
from tests.misbehaving import completion  # noqa: E402  (the one chat-completion body)

BUNDLED = ROOT / "sci_tasks" / "benchmarks" / "scimif" / "samples"
DISCIPLINES = ("chemistry", "geography", "life", "materials", "physics")
KEY = "view-scale-key"  # the stdlib server checks nothing; lm-eval wants a key


# --- the data -------------------------------------------------------------------------------


def make_scimif(folder: Path, total: int) -> int:
    """``total`` records over the five disciplines, in the bundled proportions."""
    bundled = {
        d: [json.loads(line) for line in (BUNDLED / f"{d}.jsonl").read_text().splitlines() if line]
        for d in DISCIPLINES
    }
    n_bundled = sum(len(v) for v in bundled.values())
    written = 0
    next_id = 1
    for i, (discipline, records) in enumerate(bundled.items()):
        share = (
            total - written if i == len(bundled) - 1 else round(total * len(records) / n_bundled)
        )
        lines = []
        for k in range(share):
            record = json.loads(json.dumps(records[k % len(records)]))
            copy = k // len(records)
            record["id"] = next_id
            next_id += 1
            for q in ("original_question", "edit_question"):
                if isinstance(record.get(q), str) and copy:
                    record[q] = f"{record[q]} (variant {copy})"
            if "image" in record:
                images = [record["image"]] if isinstance(record["image"], str) else record["image"]
                record["image"] = [_image_copy(folder, rel, record["id"]) for rel in images]
                if len(record["image"]) == 1:
                    record["image"] = record["image"][0]
            lines.append(json.dumps(record, ensure_ascii=False))
        (folder / f"{discipline}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        written += share
    return written


def _image_copy(folder: Path, rel: str, number: int) -> str:
    """The bundled image with ``number`` drawn on it, under a path of its own."""
    src = BUNDLED / "images" / rel
    stem, suffix = rel.rsplit(".", 1)
    new = f"{stem}_{number:05d}.{suffix}"
    dest = folder / "images" / new
    dest.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(src) as image:
        image = image.convert("RGB")
        pen = ImageDraw.Draw(image)
        pen.rectangle((4, 4, 90, 22), fill="white")
        pen.text((8, 6), f"copy {number}", fill="black")
        image.save(dest)
    return new


# --- the model server -----------------------------------------------------------------------


def reply_for(model: str, prompt: str) -> str:
    """A deterministic reply that differs by model: the question's words in a model-seeded
    order and case, with a number and a unit, so constraints pass for some and fail for
    others."""
    rng = random.Random(hashlib.sha256(f"{model}\n{prompt}".encode()).digest())
    words = prompt.split()
    picked = rng.sample(words, min(len(words), rng.randint(20, 80)))
    text = " ".join(picked)
    style = rng.randrange(4)
    if style == 0:
        text = text.lower()
    elif style == 1:
        text = text.upper()
    value = f"{rng.uniform(0, 100):.{rng.randint(0, 3)}f}"
    unit = rng.choice(["%", "m", "kJ/mol", "N", "eV", ""])
    return f"{text}\n\nThe answer is {value} {unit}.".strip()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # /v1/models
        self._send(
            json.dumps({"object": "list", "data": [{"id": "any", "object": "model"}]}).encode()
        )

    def do_POST(self) -> None:  # /v1/chat/completions
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        texts = []
        for message in body.get("messages") or []:
            content = message.get("content")
            parts = content if isinstance(content, list) else [{"text": content}]
            texts += [str(p.get("text")) for p in parts if isinstance(p, dict) and p.get("text")]
        model = str(body.get("model"))
        self._send(completion(reply_for(model, "\n".join(texts)), model))


def serve() -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"


# --- the sweep ------------------------------------------------------------------------------


def run_sweep(work: Path, data: Path, models: list[str], url: str, tries: int = 3) -> Path:
    """One ``sci-eval -m`` per model into the same sweep folder (a job that fails is tried
    again, its folder removed first); a model whose job is done is not run again."""
    sweep = work / "sweep"
    env = dict(os.environ)
    env |= {
        "SCIMIF_DATA_DIR": str(data),
        "OPENAI_API_KEY": KEY,
        "SCI_TASKS_CACHE": str(work / "cache"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    env.pop("SCI_TASKS_DATA_DIR", None)
    start = time.monotonic()
    for model in models:
        for attempt in range(1, tries + 1):
            if job_of(sweep, model):
                break
            for failed in sweep.glob(f"{model}__*"):
                shutil.rmtree(failed)
            cmd = [
                _script("sci-eval"), "-m", "model=local_api", f"model.args.base_url={url}",
                f"model.args.model={model}", "model.args.num_concurrent=8", "tasks=scimif",
                "use_cache=false", f"hydra.sweep.dir={sweep}",
            ]  # fmt: skip
            print("$ sci-eval", " ".join(cmd[1:]).replace(str(work), "$WORK"), flush=True)
            proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"sci-eval failed (try {attempt} of {tries}):\n{proc.stderr[-1500:]}")
        if not job_of(sweep, model):
            sys.exit(f"sci-eval did not finish {model} in {tries} tries")
    print(f"sci-eval, {len(models)} models: {time.monotonic() - start:.0f} s", flush=True)
    return sweep


def job_of(sweep: Path, model: str) -> Path | None:
    """The model's finished job folder in the sweep (manifest status "done")."""
    for manifest in sweep.glob(f"{model}__*/manifest.json"):
        if json.loads(manifest.read_text()).get("status") == "done":
            return manifest.parent
    return None


def _script(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).with_name(name))
    return found


# --- the page in chromium -------------------------------------------------------------------


def tree_memory(root_pid: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes summed over ``root_pid``'s descendants (chromium's processes under
    chromedriver; chromedriver itself left out). PSS splits shared pages between processes;
    RSS counts them in each, so it is the larger, the figure held against the target."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    rss = pss = 0
    todo = list(children.get(root_pid, []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1]) * 1024
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1]) * 1024
        except OSError:
            continue
    return rss, pss


class PeakMemory(threading.Thread):
    """Samples the process tree's memory every 50 ms until stopped; keeps the peak."""

    def __init__(self, root_pid: int) -> None:
        super().__init__(daemon=True)
        self.root_pid, self.peak_rss, self.peak_pss = root_pid, 0, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            rss, pss = tree_memory(self.root_pid)
            self.peak_rss, self.peak_pss = max(self.peak_rss, rss), max(self.peak_pss, pss)
            self.done.wait(0.05)


# one filter change, timed from the change event to the frame after it (style, layout, paint)
CHANGE = """
const [kind, id, value, done] = arguments;
const node = document.getElementById(id);
const t0 = performance.now();
if (kind === "select") node.value = value; else node.checked = !node.checked;
node.dispatchEvent(new Event(kind === "click" ? "click" : "change"));
requestAnimationFrame(() => setTimeout(() => done([performance.now() - t0,
  Number(document.getElementById("count").dataset.shown),
  document.querySelectorAll(".sample").length]), 0));
"""
PAGE = """
const [id, done] = arguments;
const t0 = performance.now();
document.getElementById(id).click();
requestAnimationFrame(() => setTimeout(() => done([performance.now() - t0,
  Number(document.getElementById("count").dataset.shown),
  document.querySelectorAll(".sample").length]), 0));
"""


def measure(page: Path, label: str) -> dict[str, Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--no-first-run"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    out: dict[str, Any] = {"page": label, "size_mb": page.stat().st_size / 1e6}
    out["load_average"] = os.getloadavg()[0]  # other work on the machine slows every figure
    try:
        driver.set_script_timeout(120)
        driver.set_page_load_timeout(300)
        driver.execute_cdp_cmd("Performance.enable", {})
        memory = PeakMemory(service.process.pid)
        memory.start()
        wall = time.monotonic()
        driver.get(page.as_uri())
        WebDriverWait(driver, 300).until(
            lambda d: d.execute_script("return document.documentElement.dataset.ready === '1'")
        )
        out["get_s"] = time.monotonic() - wall
        timing = driver.execute_script(
            "const t = performance.timing; return [t.domContentLoadedEventEnd - t.navigationStart,"
            " t.loadEventEnd - t.navigationStart]"
        )
        out["dcl_s"], out["load_s"] = timing[0] / 1000, timing[1] / 1000
        metrics = {
            m["name"]: m["value"]
            for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
        }
        out["js_heap_mb"] = metrics["JSHeapUsedSize"] / 2**20
        # the renderer's main thread busy until ready: less bent by other work than wall time
        out["busy_s"] = metrics["TaskDuration"]
        out["script_s"], out["layout_s"] = metrics["ScriptDuration"], metrics["LayoutDuration"]
        out["nodes"] = int(metrics["Nodes"])
        out["samples"] = int(
            driver.execute_script("return Number(document.getElementById('count').dataset.shown)")
        )
        choices = "return Array.from(document.querySelectorAll('#%s option'), o => o.value)"
        tasks, checks, groups = (
            [v for v in driver.execute_script(choices % name) if v]
            for name in ("f-task", "f-check", "f-group")
        )
        steps: list[tuple[str, tuple[Any, ...]]] = [
            (f"task={tasks[0]}", ("select", "f-task", tasks[0])),
            (f"task={tasks[-1]}", ("select", "f-task", tasks[-1])),
            ("task=all", ("select", "f-task", "")),
            (f"constraint={checks[0]}", ("select", "f-check", checks[0])),
            ("verdict=fail", ("select", "f-verdict", "fail")),
            ("constraint=all", ("select", "f-check", "")),
            (f"group={groups[0]}", ("select", "f-group", groups[0])),
            ("verdict=unscored", ("select", "f-verdict", "unscored")),
            ("group=all", ("select", "f-group", "")),
            ("verdict=all", ("select", "f-verdict", "")),
            ("model 2 off", ("check", "f-runs-1", None)),
            ("model 2 on", ("check", "f-runs-1", None)),
            ("only 2+ models on", ("check", "f-paired", None)),
            ("only 2+ models off", ("check", "f-paired", None)),
            ("documents per page=100", ("select", "f-page-size", "100")),
        ]
        changes = []
        for name, (kind, id_, value) in steps:
            if id_ == "f-runs-1":
                driver.execute_script(
                    "document.querySelector(\"#f-runs input[data-model='1']\").id = 'f-runs-1'"
                )
            ms, shown, on_page = driver.execute_async_script(CHANGE, kind, id_, value)
            changes.append((name, ms / 1000, shown, on_page))
        for name in ("p-next", "p-last"):
            ms, shown, on_page = driver.execute_async_script(PAGE, name)
            changes.append((name, ms / 1000, shown, on_page))
        out["changes"] = changes
        memory.done.set()
        memory.join()
        out["peak_rss_gib"], out["peak_pss_gib"] = memory.peak_rss / 2**30, memory.peak_pss / 2**30
        rss, pss = tree_memory(service.process.pid)
        out["rss_gib"], out["pss_gib"] = rss / 2**30, pss / 2**30
        out["errors"] = [
            e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")
        ]
    finally:
        driver.quit()
    return out


def report(m: dict[str, Any]) -> bool:
    worst = max(m["changes"], key=lambda c: c[1])
    ok = m["dcl_s"] < 3 and worst[1] < 0.5 and m["peak_rss_gib"] < 1.5 and not m["errors"]
    load = f"1-minute load average before: {m['load_average']:.1f} on {os.cpu_count()} cores"
    print(f"\n## {m['page']}: {m['samples']} samples, page {m['size_mb']:.1f} MB ({load})")
    print(f"DOMContentLoaded {m['dcl_s']:.2f} s, load {m['load_s']:.2f} s "
          f"(driver.get until ready {m['get_s']:.2f} s)")  # fmt: skip
    print(f"renderer main thread busy until ready {m['busy_s']:.2f} s (script "
          f"{m['script_s']:.2f} s, layout {m['layout_s']:.2f} s)")  # fmt: skip
    print(f"after load: JS heap {m['js_heap_mb']:.0f} MiB, {m['nodes']} DOM nodes")
    print(f"chromium process tree: peak RSS {m['peak_rss_gib']:.2f} GiB (PSS "
          f"{m['peak_pss_gib']:.2f} GiB); at the end RSS {m['rss_gib']:.2f} GiB")  # fmt: skip
    print("filter changes (change event to the next frame):")
    for name, s, shown, on_page in m["changes"]:
        print(
            f"  {name:<48} {s * 1000:7.1f} ms  {shown:6d} samples match, {on_page:4d} on the page"
        )
    print(f"slowest change: {worst[0]} {worst[1] * 1000:.0f} ms")
    if m["errors"]:
        print("console errors:", *m["errors"], sep="\n  ")
    return ok


def view(sweep: Path, out: Path) -> float:
    start = time.monotonic()
    proc = subprocess.run(
        [_script("sci-view"), str(sweep), "--out", str(out)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"sci-view failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--records", type=int, default=2770, help="SciMIF records (2,770)")
    parser.add_argument("--models", type=int, default=10, help="models in the sweep (10)")
    parser.add_argument("--few", type=int, default=3, help="models on the first page (3)")
    parser.add_argument("--work", type=Path, help="keep everything here (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="view-scale-") as tmp:
        work = (args.work or Path(tmp)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        data, sweep = work / "scimif", work / "sweep"
        if not (data / "physics.jsonl").is_file():  # a kept --work folder is reused
            data.mkdir(exist_ok=True)
            print(f"SciMIF folder: {make_scimif(data, args.records)} records", flush=True)
        models = [f"bench-model-{i}" for i in range(1, args.models + 1)]
        server, url = serve()
        try:
            run_sweep(work, data, models, url)
        finally:
            server.shutdown()
        jobs = [job for m in models if (job := job_of(sweep, m))]
        few = work / f"sweep-{args.few}"
        if not few.is_dir():  # the first jobs of the same sweep, as a sweep folder of their own
            for job in jobs[: args.few]:
                shutil.copytree(job, few / job.name)
        ok = True
        for folder, n in ((few, args.few), (sweep, len(jobs))):
            page = work / f"sci-view-{n}-models.html"
            seconds = view(folder, page)
            print(
                f"\nsci-view over {n} models: {seconds:.1f} s, {page.stat().st_size / 1e6:.1f} MB"
            )
            result = measure(page, f"{n} models x {args.records} SciMIF records")
            within = report(result)
            print("within the targets" if within else "NOT within the targets", flush=True)
            ok = ok and (within or n != args.few)  # the larger sweep must open; targets at 3
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
