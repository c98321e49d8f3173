"""SPM-Bench data: record format, folder / hub / sample locations, splits as lm-eval tasks."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

import sci_tasks
from sci_tasks.benchmarks.spm_bench import loader as spm_bench
from sci_tasks.data.locate import DataError, DataLocation, locate

from .helpers import bundled_lines, offline_hub_snapshot, redrawn_sample_images, split_doc_ids

if TYPE_CHECKING:
    from lm_eval.tasks import TaskManager

TECHNIQUE_TASKS = {
    "spm_bench_stm": "STM",
    "spm_bench_afm": "AFM",
    "spm_bench_sem": "SEM",
    "spm_bench_tem": "TEM",
}
FIELD_TASKS = {
    "spm_bench_crystal_structure": "Crystal Structure",
    "spm_bench_defect_engineering": "Defect Engineering",
    "spm_bench_topology": "Topology",
    "spm_bench_morphology": "Morphology",
    "spm_bench_magnetic_materials": "Magnetic Materials",
    "spm_bench_energy_materials": "Energy Materials",
}


pytestmark = pytest.mark.usefixtures("no_data_env")


def record(id_: Any = "q1", **changes: Any) -> dict[str, Any]:
    base = {
        "id": id_,
        "question": "Which statements hold?",
        "options": ["square lattice", "hexagonal lattice", "a vacancy"],
        "answer": ["A", "C"],
        "images": ["img/a.png"],
        "technique": "STM",
        "field": "Defect Engineering",
        "bloom_level": 2,
    }
    return {**base, **changes}


def write_folder(
    root: Path, files: dict[str, list[Any]], images: tuple[str, ...] = ("img/a.png", "img/b.png")
) -> Path:
    """A user's data folder: the given JSONL files and small images."""
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
        (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for rel in images:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 8), "white").save(root / rel)
    return root


@lru_cache(maxsize=1)
def our_tasks() -> TaskManager:
    """Only the sci-tasks folder is indexed (lm-eval's thousands of tasks take ~15 s)."""
    return sci_tasks.task_manager(include_defaults=False)


def folder_location(root: Path) -> DataLocation:
    return DataLocation("spm_bench", "folder", str(root))


# --- the record format ------------------------------------------------------------------------


def test_every_jsonl_of_the_folder_is_read_and_normalised(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "spm",
        {
            "b_afm.jsonl": [
                record(
                    7,
                    technique="afm",
                    field="morphology",
                    options={"a": "flat", "B": "rough"},
                    answer="a",
                    images="img/b.png",
                ),
            ],
            "a_stm.jsonl": [
                record("x-1", images=["img/a.png", "img/b.png"]),
                "",
                record("x-2", field="Catalysis"),
            ],
            "notes.txt": ["not data"],
        },
    )
    ds = spm_bench.load(folder_location(root))
    assert ds["id"] == ["x-1", "x-2", "7"]  # files in name order, blank line skipped
    first, _, third = ds[0], ds[1], ds[2]
    assert first["labels"] == ["A", "B", "C"] and first["options"][1] == "hexagonal lattice"
    assert first["answer"] == ["A", "C"] and first["images"] == [
        str(root / "img/a.png"),
        str(root / "img/b.png"),
    ]
    assert first["record"] == "a_stm.jsonl:1" and ds[1]["record"] == "a_stm.jsonl:3"
    assert (
        first["field"] == "Defect Engineering" and ds[1]["field"] == "Catalysis"
    )  # kept as written
    assert (third["technique"], third["field"], third["labels"], third["answer"]) == (
        "AFM",
        "Morphology",
        ["A", "B"],
        ["A"],
    )
    assert first["bloom_level"] == 2 and "sip_lambda" not in first  # a setting, not a field
    assert not first["bundled_sample"] and first["data_source"].startswith(f"folder {root}")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", ":1: invalid JSON"),
        ("[1, 2]", ":1: expected a JSON object"),
        (
            json.dumps({k: v for k, v in record().items() if k not in ("answer", "field")}),
            ":1: missing field(s) answer, field",
        ),
        (json.dumps(record(id_=True)), ":1: id must be a non-empty string or an integer"),
        (json.dumps(record(question="  ")), ":1: question must be non-empty text"),
        (json.dumps(record(options="A or B")), ":1: options must be a list or a label->text map"),
        (
            json.dumps(record(options=["only one"], answer=["A"])),
            ":1: a question needs at least two options",
        ),
        (
            json.dumps(record(options={"A": "x", "BB": "y"}, answer=["A"])),
            ":1: option labels must be single letters",
        ),
        (
            json.dumps(record(options={"A": "x", "a": "y"}, answer=["A"])),
            ":1: option labels repeat",
        ),
        (json.dumps(record(options=["x", ""])), ":1: every option must be non-empty text"),
        (json.dumps(record(answer=[])), ":1: answer must be a non-empty list"),
        (
            json.dumps(record(answer=["A", "D"])),
            ":1: answer label(s) D not among the options A, B, C",
        ),
        (json.dumps(record(answer=["A", "a"])), ":1: answer repeats a label"),
        (json.dumps(record(images=[])), ":1: images must be one or more paths"),
        (json.dumps(record(images=["img/none.png"])), ":1: image not found"),
        (json.dumps(record(images=["../a.png"])), ":1: image path '../a.png' must be relative"),
        (json.dumps(record(technique="XPS")), ":1: technique must be one of STM, AFM, SEM, TEM"),
        (json.dumps(record(field="")), ":1: field must be non-empty text"),
        (json.dumps(record(bloom_level=7)), ":1: bloom_level must be an integer 1-6"),
    ],
)
def test_malformed_records_name_the_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    root = write_folder(tmp_path, {"data.jsonl": [line]})
    with pytest.raises(DataError) as err:
        spm_bench.load(folder_location(root))
    assert f"{root / 'data.jsonl'}{message}" in str(err.value)


def test_duplicate_ids_across_files_and_empty_folders(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "dup", {"a.jsonl": [record(5)], "b.jsonl": [record("q"), record("5")]}
    )
    with pytest.raises(DataError, match=r"b\.jsonl:2: duplicate id '5' \(first at a\.jsonl:1\)"):
        spm_bench.load(folder_location(root))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match=r"has no \*\.jsonl files"):
        spm_bench.load(folder_location(empty))


def test_a_split_without_records_is_an_error_naming_it(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path, {"a.jsonl": [record(1), record(2, technique="SEM", field="Morphology")]}
    )
    loc = folder_location(root)
    assert spm_bench.load(loc, technique="sem")["id"] == ["2"]
    assert spm_bench.load(loc, field="defect_engineering")["id"] == ["1"]  # spelling-insensitive
    with pytest.raises(
        DataError,
        match=r"split technique='TEM' has no records in folder .*techniques present: SEM, STM",
    ):
        spm_bench.load(loc, technique="TEM")
    with pytest.raises(
        DataError,
        match=r"split field='Topology' has no .*fields present: Defect Engineering, Morphology",
    ):
        spm_bench.load(loc, field="Topology")
    with pytest.raises(DataError, match="unknown SPM-Bench technique 'XRD'"):
        spm_bench.load(loc, technique="XRD")


@pytest.mark.parametrize(
    ("lam", "gamma", "message"),
    [
        (0.0, 6, "sip_lambda must be in"),
        (1.5, 6, "sip_lambda must be in"),
        (0.6, 0.5, "sip_gamma must be >= 1"),
        ("x", 6, "must be numbers"),
        (float("nan"), 6, "sip_lambda must be in"),
    ],
)
def test_sip_parameters_are_validated(lam: Any, gamma: Any, message: str) -> None:
    with pytest.raises(DataError, match=message):
        spm_bench.sip_parameters(lam, gamma)
    with pytest.raises(DataError, match=message):  # checked when the task loads its data
        spm_bench.load_for_lm_eval(technique="STM", sip_lambda=lam, sip_gamma=gamma)


def test_hub_dataset_id_loads_through_the_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub id resolves through huggingface_hub's cache (offline: the snapshot is placed in
    the cache the way a download leaves it), under the common root's spm_bench/ subfolder."""
    write_folder(
        offline_hub_snapshot(tmp_path, monkeypatch) / "spm_bench",
        {"all.jsonl": [record(1), record(2, technique="TEM")]},
    )
    location = locate("spm_bench", {"SCI_TASKS_DATA_DIR": "someone/sci-data"})
    assert (location.kind, location.subdir) == ("hub", "spm_bench")
    ds = spm_bench.load(location, technique="TEM")
    assert ds["id"] == ["2"] and Path(ds[0]["images"][0]).is_file()


# --- the bundled samples ----------------------------------------------------------------------


def test_bundled_samples_cover_every_technique_and_spec_field() -> None:
    ds = spm_bench.load()
    assert len(ds) == len(bundled_lines("spm_bench")) >= 12
    assert all(ds["bundled_sample"]) and all(
        s.startswith("bundled spm_bench samples") for s in ds["data_source"]
    )
    assert Counter(ds["technique"]) == {"STM": 4, "AFM": 4, "SEM": 4, "TEM": 4}
    fields = Counter(ds["field"])
    assert set(fields) == set(spm_bench.FIELDS) and min(fields.values()) >= 2
    assert sum(len(p) > 1 for p in ds["images"]) >= 4  # multi-image questions
    assert {len(a) for a in ds["answer"]} >= {1, 2, 3}  # single and multiple correct options
    for paths in ds["images"]:
        for path in paths:
            with Image.open(path) as im:
                assert im.format == "PNG" and im.width <= 400 and Path(path).stat().st_size < 60_000
    assert {r.split(":")[0] for r in ds["record"]} == {
        "scanning_probe.jsonl",
        "electron_microscopy.jsonl",
    }


def test_bundled_sample_images_are_those_the_script_draws(tmp_path: Path) -> None:
    """The committed PNGs are exactly what scripts/make_spm_sample_images.py produces."""
    redrawn_sample_images("make_spm_sample_images", tmp_path)


# --- splits as lm-eval tasks ------------------------------------------------------------------


def test_every_split_is_an_lm_eval_task_over_the_right_records() -> None:
    tasks = our_tasks().load([*TECHNIQUE_TASKS, *FIELD_TASKS])["tasks"]
    seen = split_doc_ids(tasks, TECHNIQUE_TASKS, "technique")
    assert len(seen) == len(spm_bench.load()) and set(seen.values()) == {1}  # a partition
    split_doc_ids(tasks, FIELD_TASKS, "field")  # each field task holds its own questions


def test_group_spans_the_four_technique_tasks() -> None:
    loaded = our_tasks().load(["spm_bench"])
    assert loaded["group_map"] == {"spm_bench": list(TECHNIQUE_TASKS)}  # each question counts once
    assert our_tasks().match_tasks(["spm_bench*"]) == sorted(
        ["spm_bench", *TECHNIQUE_TASKS, *FIELD_TASKS]
    )


def test_task_prompt_images_target_and_scoring() -> None:
    task = our_tasks().load(["spm_bench_stm"])["tasks"]["spm_bench_stm"]
    docs = {d["id"]: d for d in task.test_docs()}
    doc = docs["spm-stm-003"]  # two images
    prompt = task.doc_to_text(doc)
    assert "The 2 images are from STM" in prompt
    assert f"Question: {doc['question']}" in prompt
    for label, text in zip(doc["labels"], doc["options"], strict=True):
        assert f"\n{label}. {text}\n" in prompt
    assert prompt.rstrip().splitlines()[-2].startswith("Answer: <")
    assert prompt.rstrip().splitlines()[-1].startswith("Confidence: <")
    images = task.doc_to_image(doc)
    assert len(images) == 2 and all(im.mode == "RGB" and im.size == (300, 278) for im in images)
    assert task.doc_to_target(doc) == "A, B, C"
    out = task.process_results(doc, ["Answer: A, B\nConfidence: 0.5"])
    # gold {A,B,C}, pred {A,B}: SPC 2/3, SIP-F1 0.6 * 0.8 = 0.48
    assert out["spc"] == pytest.approx(2 / 3) and out["sip_f1"] == pytest.approx(0.48)
    assert task.aggregation()["delta"]([out["delta"]]) == pytest.approx(2 / 3 - 0.48)
    assert "The image is from STM" in task.doc_to_text(docs["spm-stm-001"])


def test_metadata_sets_the_data_folder_and_the_sip_parameters(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "data" / "spm_bench", {"x.jsonl": [record(1, technique="AFM", field="Topology")]}
    )
    manager = sci_tasks.task_manager(
        metadata={"SCI_TASKS_DATA_DIR": str(root.parent), "sip_lambda": 0.5, "sip_gamma": 2},
        include_defaults=False,
    )
    task = manager.load(["spm_bench_topology"])["tasks"]["spm_bench_topology"]
    (doc,) = task.test_docs()
    assert (doc["id"], doc["bundled_sample"]) == ("1", False)
    assert (task.settings.options["sip_lambda"], task.settings.options["sip_gamma"]) == (0.5, 2)
    # gold {A,C}, pred {A,B,C}: P' = 2/(2 + 2*1) = 0.5, R = 1 -> F = 2/3, * 0.5 = 1/3
    assert task.process_results(doc, ["Answer: A, B, C"])["sip_f1"] == pytest.approx(1 / 3)
    with pytest.raises(DataError, match="split technique='STM' has no records"):
        manager.load(["spm_bench_stm"])
