"""SciGen-Verify data: record format, folder / hub / sample locations, categories as tasks,
the rubric records, and the bundled sample images."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

import sci_tasks
from sci_tasks.benchmarks.scigen_verify import hooks
from sci_tasks.benchmarks.scigen_verify import loader as data
from sci_tasks.data.locate import DataError, DataLocation, locate

from .helpers import bundled_lines, offline_hub_snapshot, redrawn_sample_images, split_doc_ids

if TYPE_CHECKING:
    from lm_eval.tasks import TaskManager

TASKS = {
    "scigen_verify_instruction_following": "instruction_following",
    "scigen_verify_multidisciplinary_reasoning": "multidisciplinary_reasoning",
    "scigen_verify_world_knowledge": "world_knowledge",
}


pytestmark = pytest.mark.usefixtures("no_data_env")


def record(id_: Any = "r1", **changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": id_,
        "category": "instruction_following",
        "discipline": "physics",
        "instruction": "Draw a block with two forces.",
        "images": ["img/a.png"],
        "label": False,
        "explanation": "N points down.",
        "edit": "Point N up.",
    }
    return {k: v for k, v in {**base, **changes}.items() if v is not ...}


def write_folder(
    root: Path,
    files: dict[str, list[Any]],
    images: tuple[str, ...] = ("img/a.png", "img/b.png"),
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for rel in images:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 8), "white").save(root / rel)
    return root


def folder(root: Path) -> DataLocation:
    return DataLocation("scigen_verify", "folder", str(root))


@lru_cache(maxsize=1)
def our_tasks() -> TaskManager:
    return sci_tasks.task_manager(include_defaults=False)


# --- the record format ----------------------------------------------------------------------


def test_every_jsonl_of_the_folder_is_read_and_normalised(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "d",
        {
            "b.jsonl": [
                record(7, category="Multidisciplinary Reasoning", discipline="Math"),
                "",
                record("p", label="true", edit=None, explanation="fine", pair_id="x"),
            ],
            "a.jsonl": [
                record(
                    "e", category="IF", discipline="geo", source_images="img/b.png",
                    images="img/a.png", perturbation="Image", pair_id="x",
                )
            ],
            "notes.txt": ["not read"],
        },
    )  # fmt: skip
    rows = data.read_folder(root, "src")
    assert [r["id"] for r in rows] == ["e", "7", "p"]  # files in name order
    e, seven, p = rows
    assert e["category"] == "instruction_following" and e["discipline"] == "geography"
    assert e["task_type"] == "editing" and e["source_images"] == [str(root / "img/b.png")]
    assert e["images"] == [str(root / "img/a.png")] and e["perturbation"] == "image"
    assert seven["category"] == "multidisciplinary_reasoning"
    assert seven["discipline"] == "mathematics" and seven["task_type"] == "generation"
    assert seven["source_images"] == [] and seven["pair_id"] is None
    assert p["label"] is True and p["edit"] is None and p["pair_id"] == "x"
    assert [r["record"] for r in rows] == ["a.jsonl:1", "b.jsonl:1", "b.jsonl:3"]
    assert {r["data_source"] for r in rows} == {"src"} and not any(
        r["bundled_sample"] for r in rows
    )
    ds = data.load(folder(root))
    assert ds.features == data.FEATURES and len(ds) == 3


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"x\.jsonl:1: invalid JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
        (json.dumps(record(instruction=...)), "missing field.s. instruction"),
        (json.dumps(record(category="art")), "unknown SciGen-Verify category 'art'"),
        (json.dumps(record(discipline="astronomy")), "unknown discipline 'astronomy'"),
        (json.dumps(record(label="maybe")), "label must be true or false"),
        (json.dumps(record(label=1)), "label must be true or false"),
        (json.dumps(record(images=[])), "images must be one or more paths"),
        (json.dumps(record(images=["img/missing.png"])), "image not found"),
        (json.dumps(record(images=["../a.png"])), "must be relative to the data folder"),
        (json.dumps(record(source_images=["/abs.png"])), "must be relative to the data folder"),
        (json.dumps(record(edit=None)), "negative record .label false. needs a reference edit"),
        (json.dumps(record(label=True)), "positive record .label true. has no edit"),
        (json.dumps(record(explanation="  ")), "explanation must be non-empty text"),
        (json.dumps(record(perturbation="colour")), "perturbation is for negatives only"),
        (json.dumps(record(label=True, edit=None, perturbation="image")), "negatives only"),
        (json.dumps(record(id_=True)), "id must be a non-empty string or an integer"),
    ],
)
def test_malformed_records_name_the_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    root = write_folder(tmp_path / "d", {"x.jsonl": [line]})
    with pytest.raises(DataError, match=message) as err:
        data.read_folder(root)
    assert f"{root / 'x.jsonl'}:1" in str(err.value)


def test_duplicate_ids_across_files_and_empty_folders(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "d", {"a.jsonl": [record(1)], "b.jsonl": [record("1")]})
    with pytest.raises(DataError, match=r"b\.jsonl:1: duplicate id '1' \(first at a\.jsonl:1\)"):
        data.read_folder(root)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"has no \*\.jsonl files"):
        data.read_folder(tmp_path / "empty")
    write_folder(tmp_path / "blank", {"a.jsonl": [""]})
    with pytest.raises(DataError, match=r"no records in a\.jsonl"):
        data.read_folder(tmp_path / "blank")


def test_a_category_without_records_is_an_error_naming_it(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "d", {"a.jsonl": [record(1)]})
    assert data.load(folder(root), category="instruction following")["id"] == ["1"]
    with pytest.raises(DataError, match="category 'world_knowledge' has no records in folder"):
        data.load(folder(root), category="world_knowledge")
    with pytest.raises(DataError, match="unknown SciGen-Verify category 'poetry'"):
        data.load(folder(root), category="poetry")


def test_locations_env_metadata_and_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = write_folder(tmp_path / "root" / "scigen_verify", {"a.jsonl": [record("env")]})
    monkeypatch.setenv("SCI_TASKS_DATA_DIR", str(tmp_path / "root"))
    assert data.load()["id"] == ["env"]
    other = write_folder(tmp_path / "other", {"a.jsonl": [record("meta")]})
    dd = data.load_for_lm_eval("IF", SCIGEN_VERIFY_DATA_DIR=str(other))
    assert dd["test"]["id"] == ["meta"] and dd["test"][0]["data_source"].startswith("folder")
    assert mine.is_dir()

    # a hub id, resolved through huggingface_hub's cache (offline: the snapshot is placed in
    # the cache the way a download leaves it), under the common root's scigen_verify/
    write_folder(
        offline_hub_snapshot(tmp_path, monkeypatch) / "scigen_verify",
        {"all.jsonl": [record("h1"), record("h2", category="world_knowledge")]},
    )
    location = locate("scigen_verify", {"SCI_TASKS_DATA_DIR": "someone/sci-data"})
    assert (location.kind, location.subdir) == ("hub", "scigen_verify")
    ds = data.load(location, category="world_knowledge")
    assert ds["id"] == ["h2"] and Path(ds[0]["images"][0]).is_file()


# --- rubric records ---------------------------------------------------------------------------


def rubric(id_: Any = "g1", **changes: Any) -> dict[str, Any]:
    base = {"id": id_, "domain": "chemistry", "instruction": "Draw benzene.",
            "gold_rules": ["Six carbons.", "Three double bonds."]}  # fmt: skip
    return {**base, **changes}


def test_rubric_records_live_in_the_rubric_subfolder(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "d",
        {"a.jsonl": [record(1)], "rubric/r.jsonl": [rubric(1, domain="Bio"), rubric(2)]},
    )
    ds = data.load_rubric(folder(root))
    assert ds.features == data.RUBRIC_FEATURES
    assert ds["id"] == ["1", "2"] and ds["domain"] == ["biology", "chemistry"]
    assert ds[0]["gold_rules"] == ["Six carbons.", "Three double bonds."]
    assert ds[0]["record"] == "r.jsonl:1"
    assert data.load(folder(root))["id"] == ["1"]  # rubric/ is not read by the verifier tasks

    bad = write_folder(tmp_path / "bad", {"rubric/r.jsonl": [rubric(gold_rules=[])]})
    with pytest.raises(DataError, match=r"r\.jsonl:1: gold_rules must be a non-empty list"):
        data.load_rubric(folder(bad))
    without = write_folder(tmp_path / "without", {"a.jsonl": [record(1)]})
    with pytest.raises(DataError, match="has no rubric/ subfolder"):
        data.load_rubric(folder(without))


# --- the bundled samples ----------------------------------------------------------------------


def test_bundled_samples_cover_categories_disciplines_pairs_and_perturbations() -> None:
    ds = data.load()
    assert len(ds) == len(bundled_lines("scigen_verify"))
    assert all(ds["bundled_sample"]) and all(
        s.startswith("bundled scigen_verify samples") for s in ds["data_source"]
    )
    assert Counter(ds["category"]) == {
        "instruction_following": 6,
        "multidisciplinary_reasoning": 5,
        "world_knowledge": 5,
    }
    assert set(ds["discipline"]) == set(data.DISCIPLINES)
    assert Counter(ds["label"]) == {True: 7, False: 9}
    assert Counter(p for p in ds["perturbation"] if p) == {"image": 7, "text": 2}
    pairs = Counter(ds["pair_id"])
    assert len(pairs) == 7 and min(pairs.values()) >= 2  # every positive has its negative(s)
    assert ds["task_type"].count("editing") == 2
    for row in ds:
        for path in [*row["images"], *row["source_images"]]:
            with Image.open(path) as im:
                assert im.format == "PNG" and im.size == (256, 256)
            assert Path(path).stat().st_size < 40_000
    rubrics = data.load_rubric()
    assert len(rubrics) == 6 and set(rubrics["domain"]) == set(data.DISCIPLINES)
    assert all(4 <= len(g) <= 5 for g in rubrics["gold_rules"])


def test_bundled_sample_images_are_those_the_script_draws(tmp_path: Path) -> None:
    """The committed PNGs are exactly what scripts/make_scigen_verify_sample_images.py draws,
    and every one of them is used by a record."""
    committed, drawn = redrawn_sample_images("make_scigen_verify_sample_images", tmp_path)
    used = {Path(p) for row in data.load() for p in [*row["images"], *row["source_images"]]}
    assert used == {committed / rel for rel in drawn}


# --- categories as lm-eval tasks ---------------------------------------------------------------


def test_every_category_is_a_task_and_the_group_spans_them() -> None:
    seen = split_doc_ids(our_tasks().load(list(TASKS))["tasks"], TASKS, "category")
    assert len(seen) == len(data.load()) and set(seen.values()) == {1}  # a partition
    loaded = our_tasks().load(["scigen_verify"])
    group = next(g for g in loaded["groups"].values() if g.name == "scigen_verify")
    assert sorted(t.task_name for t in group.get_all_tasks()) == sorted(TASKS)


def test_task_prompt_images_and_target() -> None:
    task = our_tasks().load(["scigen_verify_instruction_following"])["tasks"][
        "scigen_verify_instruction_following"
    ]
    docs = {d["id"]: d for d in task.test_docs()}
    edit = docs["if-math-edit-neg"]
    prompt = task.doc_to_text(edit)
    assert edit["instruction"] in prompt
    assert "The first image is the source (before the edit)" in prompt
    assert "<answer>true or false</answer>" in prompt
    images = hooks.doc_to_image(edit)
    assert len(images) == 2 and all(im.mode == "RGB" and im.size == (256, 256) for im in images)
    assert task.doc_to_target(edit) == (
        "<answer>false</answer><explanation>" + edit["explanation"] + "</explanation><edit>"
        + edit["edit"] + "</edit>"
    )  # fmt: skip
    plain = docs["if-phy-fbd-pos"]
    assert "An image was generated following the instruction below; it is attached." in (
        task.doc_to_text(plain)
    )
    assert len(hooks.doc_to_image(plain)) == 1
    assert "<edit>" not in task.doc_to_target(plain)


def test_metadata_sets_the_data_folder_of_the_tasks(tmp_path: Path) -> None:
    root = write_folder(
        tmp_path / "d",
        {"a.jsonl": [record("m1", category="world_knowledge")], "rubric/r.jsonl": [rubric("m2")]},
    )
    manager = sci_tasks.task_manager(
        include_defaults=False, metadata={"SCIGEN_VERIFY_DATA_DIR": str(root)}
    )
    tasks = manager.load(["scigen_verify_world_knowledge", "scigen_rubric"])["tasks"]
    assert [d["id"] for d in tasks["scigen_verify_world_knowledge"].test_docs()] == ["m1"]
    assert [d["id"] for d in tasks["scigen_rubric"].test_docs()] == ["m2"]
