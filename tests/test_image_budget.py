"""The image budget (``sci_tasks.images``): settings, the fitting rule, and that the model
hooks of SciGen-Verify and SPM-Bench and the SciGen-Verify edit judge get the same pixels,
with the budget a setting of the task (``sci_tasks.task.SciTask``), recorded in the results'
task configs and every score record, never in a document."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import pytest
from PIL import Image

import sci_tasks
from sci_tasks.benchmarks.scigen_verify import hooks as verify_hooks
from sci_tasks.benchmarks.scigen_verify import loader as scigen_verify
from sci_tasks.benchmarks.scigen_verify import metrics as verify
from sci_tasks.benchmarks.scigen_verify.parse import parse_verification
from sci_tasks.benchmarks.spm_bench import metrics as spm
from sci_tasks.images import ImageBudget, fit, judge_file, png_bytes
from sci_tasks.run_settings import LEGACY_FIELDS, RunSettings, doc_hash

from .helpers import console_script
from .servers import KATAN_KEY, katan


@pytest.fixture(autouse=True)
def _bundled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in ("SCI_TASKS_DATA_DIR", "SCIGEN_VERIFY_DATA_DIR", "SPM_BENCH_DATA_DIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SCI_TASKS_CACHE", str(tmp_path / "cache"))


def noise(size: tuple[int, int]) -> Image.Image:
    """Incompressible pixels: PNG needs about 3 bytes per pixel."""
    return Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))


@pytest.mark.parametrize(
    ("settings", "budget"),
    [
        ({}, ImageBudget()),
        ({"max_image_pixels": None, "max_image_bytes": ""}, ImageBudget()),
        ({"max_image_pixels": 0, "max_image_bytes": 0}, ImageBudget()),  # 0: no limit
        ({"max_image_pixels": 200704, "max_image_bytes": 10485760}, ImageBudget(200704, 10485760)),
        ({"max_image_pixels": "200704", "max_image_bytes": 2048.0}, ImageBudget(200704, 2048)),
    ],
)
def test_settings(settings: dict[str, object], budget: ImageBudget) -> None:
    assert ImageBudget.from_settings(settings) == budget
    assert ImageBudget.from_settings(settings).active is (budget != ImageBudget())


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_image_pixels": -5}, "max_image_pixels must be at least 1"),
        ({"max_image_pixels": "lots"}, "max_image_pixels must be a whole number or null"),
        ({"max_image_pixels": 1.5}, "max_image_pixels must be a whole number or null"),
        ({"max_image_pixels": True}, "max_image_pixels must be a whole number or null"),
        ({"max_image_bytes": 500}, "max_image_bytes must be at least 1024"),
    ],
)
def test_bad_settings_name_the_option(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ImageBudget.from_settings(settings)
    with pytest.raises(ValueError, match=message):
        RunSettings.of_task(settings, environ={})


def test_a_bad_budget_fails_building_the_task_naming_it() -> None:
    manager = sci_tasks.task_manager(metadata={"max_image_bytes": 500}, include_defaults=False)
    with pytest.raises(ValueError, match="task spm_bench_stm metadata: max_image_bytes must be"):
        manager.load(["spm_bench_stm"])


def tasks_with(names: list[str], **metadata: object) -> dict[str, object]:
    """lm-eval's task objects for ``names`` with ``metadata`` as the run's ``--metadata``."""
    manager = sci_tasks.task_manager(metadata=metadata or None, include_defaults=False)
    return manager.load(names)["tasks"]


def test_pixels_scale_down_keeping_the_aspect_ratio() -> None:
    image = Image.new("RGB", (1000, 500), "white")
    # s = sqrt(200704 / 500000) = 0.63357; floor(633.57) x floor(316.78)
    fitted = fit(image, ImageBudget(max_pixels=200704))
    assert fitted.size == (633, 316) and 633 * 316 <= 200704
    small = Image.new("RGB", (448, 448), "white")  # exactly 200704 pixels: untouched
    assert fit(small, ImageBudget(max_pixels=200704)) is small
    assert fit(image, ImageBudget()) is image


def test_bytes_are_measured_on_the_png_that_is_sent() -> None:
    image = noise((300, 200))
    assert len(png_bytes(image)) > 150_000
    fitted = fit(image, ImageBudget(max_bytes=50_000))
    assert len(png_bytes(fitted)) <= 50_000
    w, h = fitted.size
    assert w < 300 and h < 200 and abs(w / h - 1.5) < 0.05
    # both limits: the pixel limit first, then the bytes
    both = fit(image, ImageBudget(max_pixels=10_000, max_bytes=50_000))
    assert both.size == (122, 81)  # s = sqrt(10000 / 60000): floor(122.47) x floor(81.65)
    tiny = fit(image, ImageBudget(max_bytes=1024))
    assert len(png_bytes(tiny)) <= 1024


def test_the_judge_gets_a_file_of_the_same_pixels(tmp_path: Path) -> None:
    source = tmp_path / "figure.png"
    noise((400, 300)).save(source)
    budget = ImageBudget(max_pixels=30_000, max_bytes=60_000)
    sent = judge_file(str(source), budget, tmp_path / "copies")
    assert sent != str(source) and Path(sent).parent == tmp_path / "copies"
    with Image.open(sent) as judge_img, Image.open(source) as original:
        model_img = fit(original.convert("RGB"), budget)
        assert judge_img.size == model_img.size and judge_img.tobytes() == model_img.tobytes()
    assert Path(sent).stat().st_size <= 60_000
    assert judge_file(str(source), budget, tmp_path / "copies") == sent  # written once
    assert judge_file(str(source), ImageBudget(), tmp_path / "copies") == str(source)  # off
    # an image already within the budget is sent as it is
    assert judge_file(str(source), ImageBudget(max_pixels=120_000)) == str(source)


def test_scigen_verify_model_and_edit_judge_share_the_budget() -> None:
    task = tasks_with(["scigen_verify_instruction_following"], max_image_pixels=16384)[
        "scigen_verify_instruction_following"
    ]
    doc = next(d for d in task.test_docs() if d["id"] == "if-math-edit-neg")  # 2 x 256 x 256
    assert LEGACY_FIELDS.isdisjoint(doc)  # the budget is the task's, not the document's
    budget = task.settings.image_budget
    assert budget == ImageBudget(max_pixels=16384)
    model_images = task.doc_to_image(doc)
    assert [i.size for i in model_images] == [(128, 128), (128, 128)]
    reply = "<answer>false</answer><explanation>Unchanged.</explanation><edit>Swap.</edit>"
    request = verify.edit_request(doc, parse_verification(reply), budget)
    assert len(request.images) == 2
    for path, model_image in zip(request.images, model_images, strict=True):
        with Image.open(path) as judge_image:
            assert judge_image.convert("RGB").tobytes() == model_image.tobytes()
    record = task.process_results(doc, [reply])["record"]
    assert record["image_budget"] == {"max_image_pixels": 16384, "max_image_bytes": None}
    # without a budget: full resolution, the original files
    plain = next(d for d in scigen_verify.load(category="instruction_following")
                 if d["id"] == "if-math-edit-neg")  # fmt: skip
    assert [i.size for i in verify_hooks.doc_to_image(plain)] == [(256, 256), (256, 256)]
    assert list(verify.edit_request(plain, parse_verification(reply)).images) == [
        *plain["source_images"], *plain["images"]
    ]  # fmt: skip


def test_spm_bench_images_and_record_carry_the_budget() -> None:
    task = tasks_with(["spm_bench_afm"], max_image_bytes=20_000)["spm_bench_afm"]
    doc = task.test_docs()[0]
    images = task.doc_to_image(doc)
    originals = [Image.open(p).size for p in doc["images"]]
    assert all(len(png_bytes(i)) <= 20_000 for i in images)
    assert any(i.size[0] < o[0] for i, o in zip(images, originals, strict=True))
    record = spm.score(doc, "Answer: A", task.settings)
    assert record["image_budget"] == {"max_image_pixels": None, "max_image_bytes": 20_000}
    assert spm.score(doc, "Answer: A")["image_budget"] == ImageBudget().fields()  # no settings


def test_task_yaml_metadata_and_run_settings_reach_the_task_not_the_documents() -> None:
    """Off in the task YAML; ``--metadata`` (the TaskManager's metadata) turns it on; the
    documents, and so lm-eval's ``doc_hash``, are the same either way."""
    names = ["scigen_verify_world_knowledge", "spm_bench_stm"]
    tasks = tasks_with(names)
    managed = tasks_with(names, max_image_pixels=4096)
    for name in names:
        assert tasks[name].settings.image_budget == ImageBudget()
        task = managed[name]
        assert task.settings.image_budget == ImageBudget(max_pixels=4096)
        docs, plain_docs = list(task.test_docs()), list(tasks[name].test_docs())
        assert [doc_hash(d) for d in docs] == [doc_hash(d) for d in plain_docs]
        assert all(LEGACY_FIELDS.isdisjoint(d) for d in docs)
        sizes = [i.size for i in task.doc_to_image(docs[0])]
        assert sizes and all(w * h <= 4096 for w, h in sizes)
        assert all(math.isclose(w, h, rel_tol=0.15) for w, h in sizes)  # near-square figures
        full = [i.size for i in tasks[name].doc_to_image(plain_docs[0])]
        assert all(w * h > 4096 for w, h in full)


def test_stock_lm_eval_records_the_budget_in_the_samples_log(tmp_path: Path) -> None:
    """Stock ``lm_eval`` against a real llm-katan echo server: ``--metadata`` sets the
    budget; the results' task config and every score record carry it, no document does."""
    env = {**os.environ, "OPENAI_API_KEY": KATAN_KEY, "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "SCI_TASKS_CACHE": str(tmp_path / "cache")}  # fmt: skip
    for key in ("SCI_TASKS_DATA_DIR", "SPM_BENCH_DATA_DIR"):
        env.pop(key, None)
    out = tmp_path / "run"
    metadata = json.dumps({"max_image_pixels": 4096, "max_image_bytes": 8192})
    with katan(tmp_path, model="vlm") as model:
        done = subprocess.run(
            [console_script("lm_eval"), "--model", "local-chat-completions",
             "--model_args", f"model={model.model},base_url={model.chat_url},max_images=2,"
             "num_concurrent=1,max_retries=1",
             "--apply_chat_template", "--tasks", "spm_bench_stm", "--include_path",
             sci_tasks.include_path(), "--metadata", metadata, "--log_samples",
             "--output_path", str(out)],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        assert model.requests_received() == 4
    (path,) = out.rglob("samples_spm_bench_stm_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == 4
    (results,) = out.rglob("results_*.json")
    config = json.loads(results.read_text())["configs"]["spm_bench_stm"]
    assert config["class"] == "sci_tasks.task.SciTask"
    assert (config["metadata"]["max_image_pixels"], config["metadata"]["max_image_bytes"]) == (
        4096, 8192,
    )  # fmt: skip
    for row in rows:
        assert LEGACY_FIELDS.isdisjoint(row["doc"])
        assert row["doc_hash"] == doc_hash(row["doc"])  # lm-eval's hash, of the record only
        assert row["record"]["image_budget"] == {"max_image_pixels": 4096, "max_image_bytes": 8192}
        assert row["resps"][0][0].count("[image:image/png]") == len(row["doc"]["images"])
