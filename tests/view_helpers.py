"""The real lm-eval output the ``sci-view`` tests read (test_view.py in Chromium,
test_view_page_data.py without a browser): two models (two llm-katan echo servers on
loopback) on SciMIF geography (our own two records with images, one of them hostile: its
question holds ``</script>`` and ``<img onerror>``, which the echo repeats in the
response), SPM-Bench STM and SciGen-Verify (bundled samples)."""

from __future__ import annotations

import json
import os
import subprocess
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

import sci_tasks

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


def write_view_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
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


def page_data(page: Path) -> dict[str, Any]:
    return json.loads(
        page.read_text(encoding="utf-8")
        .split('<script type="application/json" id="data">')[1]
        .split("</script>")[0]
    )
