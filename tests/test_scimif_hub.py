"""SciMIF in the authors' hub layout (spec scimif.md, "The hub release"): a folder that
``datasets.load_dataset`` reads (parquet + README naming the ``test`` split) and a hub id
(served by a real loopback hub), against the equivalent per-discipline JSONL release."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import datasets
import pytest
from PIL import Image

from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.benchmarks.scimif import metrics
from sci_tasks.data import forget_read_data
from sci_tasks.data.locate import DataError, DataLocation, locate

from .helpers import offline_hub_snapshot

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def png(color: str, size: tuple[int, int] = (6, 4)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


RIVER, DUSK, GRAIN, SPRING = png("blue"), png("orange"), png("gray", (5, 5)), png("green")
IMAGES = {  # release-relative path -> bytes; the pendulum photo reuses the river bytes
    "geography/TestBench/images/river.png": RIVER,
    "geography/TestBench/images/dusk.png": DUSK,
    "material/TestBench/images/grain.png": GRAIN,
    "physics/TestBench/images/spring.png": SPRING,
    "physics/TestBench/images/pendulum.png": RIVER,
}


def item(name: str, source: str, params: str | None = None) -> dict[str, Any]:
    return {"instruction_name": name, "source": source, "required_parameters": params}


# Our own release-shaped records, per released file, each with the response it is scored on
# and the verdicts a careful reader gives (None: unknown constraint name, unscored).
CASES: dict[str, list[tuple[dict[str, Any], str, list[float | None]]]] = {
    "chemistry.jsonl": [
        (
            {
                "id": 0,
                "task": "Open_Ended",
                "original_question": "What is the molar mass of water in g/mol?",
                "edit_question": "What is the molar mass of water in g/mol? "
                "Give the number with two decimal places.",
                "answer": "18.02",
                "choose_instruction": ["general_decimal_annotation"],
                "instruction_list": [
                    item("general_decimal_annotation", "added_general", "two decimal places")
                ],
            },
            "Water has a molar mass of 18.02 g/mol.",
            [1.0],
        ),
        (
            {
                "id": 1,
                "task": "Entity_Option",
                "original_question": "Is benzene aromatic?",
                "edit_question": "Is benzene aromatic? Reply with Yes or No only, in capitals.",
                "answer": "Yes",
                "instruction_list": [
                    item("general_judge", "added_general"),
                    item("general_all_uppercase", "added_general", None),
                ],
            },
            "Yes",
            [1.0, 0.0],
        ),
    ],
    "life.jsonl": [
        (
            {
                "id": 3,
                "task": "formated_analysis_steps",
                "original_question": "Which organelle makes most of a cell's ATP?",
                "edit_question": "Which organelle makes most of a cell's ATP? "
                "Write the answer in lowercase letters only.",
                "answer": None,
                "instruction_list": [item("general_all_lowercase", "added_general")],
            },
            "the mitochondrion makes most of the atp.",
            [1.0],
        ),
        (
            {
                "id": 4,
                "task": "formated_sequence_qa",
                "original_question": "Which amino acid does the codon AUG encode?",
                "edit_question": "Which amino acid does the codon AUG encode? Answer as a "
                "JSON object with the keys codon and amino_acid.",
                "answer": {"codon": "AUG", "amino_acid": "methionine"},
                "choose_instruction": [{"instruction_name": "general_json_constraint"}],
                "instruction_list": [
                    item("general_json_constraint", "added_general"),
                    item("life_not_a_catalogue_name", "core_task", "whatever"),
                ],
            },
            '{"codon": "AUG", "amino_acid": "methionine"}',
            [1.0, None],
        ),
    ],
    "geography.jsonl": [
        (
            {
                "id": 0,
                "task": "formated_reasoning_steps",
                "original_question": "In which direction does the river in the photo flow?",
                "edit_question": "In which direction does the river in the photo flow? "
                "Answer in capital letters.",
                "answer": "NORTH",
                "instruction_list": [item("general_all_uppercase", "added_general")],
                "image": "geography/TestBench/images/river.png",
            },
            "THE RIVER FLOWS NORTH.",
            [1.0],
        ),
        (
            {
                "id": 1,
                "task": "formated_scene_option",
                "original_question": "What time of day do the two photos show?",
                "edit_question": "What time of day do the two photos show? Use lowercase.",
                "answer": "dusk",
                "instruction_list": [item("general_all_lowercase", "added_general")],
                "image": [
                    "geography/TestBench/images/river.png",
                    "images/geography/TestBench/images/dusk.png",
                ],
            },
            "Both photos show Dusk.",
            [0.0],
        ),
    ],
    "materials.jsonl": [
        (
            {
                "id": 2,
                "task": "formated_characterization_technique",
                "original_question": "Does the micrograph show a single crystal?",
                "edit_question": "Does the micrograph show a single crystal? Yes or No.",
                "answer": "No",
                "instruction_list": [item("general_judge", "added_general")],
                "image": ["material/TestBench/images/grain.png"],
            },
            "No",
            [1.0],
        ),
        (
            {
                "id": 3,
                "task": "formated_property_prediction",
                "original_question": "Estimate the band gap of silicon at room temperature.",
                "edit_question": "Estimate the band gap of silicon at room temperature. "
                "Return a JSON object.",
                "answer": 1.12,
                "instruction_list": [item("general_json_constraint", "added_general")],
            },
            "band gap: 1.1 eV",
            [0.0],
        ),
    ],
    "physics.jsonl": [
        (
            {
                "id": 0,
                "task": "formated_numerical_task",
                "original_question": "A block slides 6 m in 2 s. Find its mean speed.",
                "edit_question": "A block slides 6 m in 2 s. Find its mean speed, every number "
                "with two decimal places, all in lowercase.",
                "answer": "3.00 m/s",
                "instruction_list": [
                    item("general_decimal_annotation", "added_general", "two decimal places"),
                    item("general_all_lowercase", "added_general"),
                ],
                "image": "physics/TestBench/images/spring.png",
            },
            "The speed is 3.00 m/s over 2.5 s.",
            [0.0, 0.0],
        ),
        (
            {
                "id": 1,
                "task": "formated_open_ended",
                "original_question": "Roughly how long is the period of the pendulum shown?",
                "edit_question": "Roughly how long is the period of the pendulum shown? "
                "Use lowercase only.",
                "answer": None,
                "instruction_list": [item("general_all_lowercase", "core_task")],
                "image": ["physics/TestBench/images/pendulum.png"],
            },
            "the period is about two seconds.",
            [1.0],
        ),
    ],
}
# (CSR, ISR, DRFR) per discipline, by hand from the verdicts above.
EXPECTED = {
    "chemistry": (0.75, 0.5, 2 / 3),
    "biology": (1.0, 1.0, 1.0),
    "geography": (0.5, 0.5, 0.5),
    "material": (0.5, 0.5, 0.5),
    "physics": (0.5, 0.5, 1 / 3),
}
DISCIPLINE_OF_FILE = {file: d for d, file in scimif.FILES.items()}
SUBJECT = {  # the hub's subject spellings, varied on purpose
    "chemistry": "chemistry",
    "biology": "life",
    "geography": "Geography",
    "material": "materials",
    "physics": "PHYSICS",
}
RESPONSES = {
    (DISCIPLINE_OF_FILE[f], rec["id"]): reply
    for f, cases in CASES.items()
    for rec, reply, _ in cases
}
SCORED_FIELDS = (
    "id", "discipline", "task", "task_type", "original_question", "edit_question", "answer",
    "choose_instruction", "instruction_list", "image_path",
)  # fmt: skip

HUB_FEATURES = datasets.Features(
    {
        "sample_id": datasets.Value("string"),
        "id": datasets.Value("int64"),
        "subject": datasets.Value("string"),
        "task": datasets.Value("string"),
        "original_question": datasets.Value("string"),
        "edit_question": datasets.Value("string"),
        "answer": datasets.Value("string"),
        "choose_instruction": datasets.List(datasets.Value("string")),
        "instruction_list": datasets.List(
            {
                "instruction_name": datasets.Value("string"),
                "source": datasets.Value("string"),
                "required_parameters": datasets.Value("string"),
            }
        ),
        "image": datasets.List(datasets.Image()),
        "image_path": datasets.List(datasets.Value("string")),
    }
)
CARD = scimif.HUB_CARD + "# SciMIF-shaped test data (written for these tests)\n"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_data_env: None) -> None:
    # each test its own image cache and `datasets` cache: nothing carries over between tests
    monkeypatch.setenv("SCI_TASKS_CACHE", str(tmp_path / "sci-cache"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets")
    forget_read_data()  # again: the cache folders changed


def as_list(value: Any) -> list[Any]:
    return [] if value is None else value if isinstance(value, list) else [value]


def hub_row(record: dict[str, Any], discipline: str) -> dict[str, Any]:
    """A JSONL record as the hub stores it (answer JSON-encoded, images embedded)."""
    paths = as_list(record.get("image"))
    answer = record.get("answer")
    return {
        "sample_id": f"{discipline}_{record['id']}",
        "id": record["id"],
        "subject": SUBJECT[discipline],
        "task": record["task"],
        "original_question": record["original_question"],
        "edit_question": record["edit_question"],
        "answer": answer if answer is None or isinstance(answer, str) else json.dumps(answer),
        "choose_instruction": [
            c if isinstance(c, str) else c["instruction_name"]
            for c in record.get("choose_instruction") or []
        ],
        "instruction_list": record["instruction_list"],
        "image": [
            {"bytes": IMAGES[p.removeprefix("images/")], "path": Path(p).name} for p in paths
        ],
        "image_path": [p if p.startswith("images/") else f"images/{p}" for p in paths],
    }


def hub_rows() -> list[dict[str, Any]]:
    return [
        hub_row(rec, DISCIPLINE_OF_FILE[f]) for f, cases in CASES.items() for rec, _, _ in cases
    ]


def write_hub_folder(
    folder: Path, rows: list[dict[str, Any]], features: datasets.Features | None = None
) -> Path:
    """The hub layout as `datasets` writes it: parquet data files + a card naming the split."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    columns = {key: [row.get(key) for row in rows] for key in rows[0]}
    table = datasets.Dataset.from_dict(columns, features=features or HUB_FEATURES)
    table.to_parquet(str(folder / "data" / "test-00000-of-00001.parquet"))
    (folder / "README.md").write_text(CARD, encoding="utf-8")
    return folder


def write_jsonl_folder(folder: Path) -> Path:
    for name, cases in CASES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(rec) for rec, _, _ in cases]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for rel, data in IMAGES.items():
        (folder / "images" / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / "images" / rel).write_bytes(data)
    return folder


def folder(path: Path) -> DataLocation:
    return locate("scimif", {"SCIMIF_DATA_DIR": str(path)})


def per_discipline_scores(location: DataLocation) -> dict[str, tuple[float, float, float]]:
    out = {}
    for discipline in scimif.FILES:
        logs = [
            metrics.constraint_log(
                doc, metrics.score_sample(doc, RESPONSES[(discipline, doc["id"])])
            )
            for doc in scimif.load(discipline, location)
        ]
        scores = [metrics.scores_of(log) for log in logs]
        out[discipline] = (metrics.csr(scores), metrics.isr(scores), metrics.drfr(scores))
    return out


def image_bytes(doc: dict[str, Any]) -> list[bytes]:
    return [Path(p).read_bytes() for p in doc["images"]]


# --- both layouts, same records, same scores ----------------------------------------------


def test_hub_folder_and_jsonl_release_give_the_same_records_and_scores(tmp_path: Path) -> None:
    hub = folder(write_hub_folder(tmp_path / "hub", hub_rows()))
    jsonl = folder(write_jsonl_folder(tmp_path / "release"))
    assert scimif.folder_layout(Path(hub.where)) == "hub"
    assert scimif.folder_layout(Path(jsonl.where)) == "jsonl"
    for discipline in scimif.FILES:
        from_hub, from_jsonl = scimif.load(discipline, hub), scimif.load(discipline, jsonl)
        assert len(from_hub) == len(from_jsonl) == 2
        for a, b in zip(from_hub, from_jsonl, strict=True):
            assert {k: a[k] for k in SCORED_FIELDS} == {k: b[k] for k in SCORED_FIELDS}
            assert image_bytes(a) == image_bytes(b)  # same pictures, in the same order
        # traced back to the split row and the sample_id
        row = 2 * list(CASES).index(scimif.FILES[discipline])
        assert from_hub[0]["record"] == f"test[{row}] {discipline}_{from_hub[0]['id']}"
    # hand-checked details: JSON-encoded answers, image paths relative to images/
    bio = scimif.load("biology", hub)
    assert bio[1]["answer"] == '{"codon": "AUG", "amino_acid": "methionine"}'
    assert scimif.load("material", hub)[1]["answer"] == "1.12"
    geo = scimif.load("geography", hub)
    assert geo[1]["image_path"] == [
        "geography/TestBench/images/river.png",
        "geography/TestBench/images/dusk.png",
    ]
    assert scimif.load("chemistry", hub)["images"] == [[], []]  # text-only stays in
    scores_hub, scores_jsonl = per_discipline_scores(hub), per_discipline_scores(jsonl)
    assert scores_hub == scores_jsonl
    for discipline, expected in EXPECTED.items():
        assert scores_hub[discipline] == pytest.approx(expected), discipline


def test_hub_images_are_content_addressed_files_in_the_project_cache(tmp_path: Path) -> None:
    hub = folder(write_hub_folder(tmp_path / "hub", hub_rows()))
    docs = [doc for d in scimif.FILES for doc in scimif.load(d, hub)]
    cache = tmp_path / "sci-cache" / "scimif" / "images"
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    # 6 image references, 4 distinct pictures (the pendulum photo repeats the river bytes)
    assert sum(len(doc["images"]) for doc in docs) == 6
    assert [p.name for p in files] == sorted(
        f"{hashlib.sha256(b).hexdigest()}.png" for b in {RIVER, DUSK, GRAIN, SPRING}
    )
    geo = scimif.load("geography", hub)
    phy = scimif.load("physics", hub)
    river = hashlib.sha256(RIVER).hexdigest()
    assert geo[0]["images"] == [str(cache / river[:2] / f"{river}.png")]
    assert phy[1]["images"] == geo[0]["images"]
    # the hooks open them as for the JSONL layout
    from sci_tasks.benchmarks.scimif.hooks import doc_to_image

    pictures = doc_to_image(geo[1])
    assert [p.size for p in pictures] == [(6, 4), (6, 4)]
    assert pictures[1].getpixel((0, 0)) == (255, 165, 0)  # orange: the dusk photo


def test_loading_keeps_no_decoded_image_in_memory(tmp_path: Path) -> None:
    write_hub_folder(tmp_path / "hub", hub_rows())
    table = datasets.load_dataset(str(tmp_path / "hub"), split="test")
    assert table.features["image"] == datasets.List(datasets.Image(decode=True))
    # read as stored: images stay bytes whatever the feature's decode setting
    rows = list(scimif.undecoded_rows(table, batch_size=3))
    values = [v for row in rows for v in row["image"]]
    assert len(values) == 6
    assert all(isinstance(v, dict) and isinstance(v["bytes"], bytes) for v in values)
    # the records hold file paths only, never image data
    geo = scimif.load("geography", folder(tmp_path / "hub"))
    assert geo.features["images"] == datasets.List(datasets.Value("string"))
    assert not any(isinstance(f, datasets.Image) for f in _leaves(geo.features))


def _leaves(feature: Any) -> Iterator[Any]:
    if isinstance(feature, dict):
        for value in feature.values():
            yield from _leaves(value)
    elif isinstance(feature, datasets.List | datasets.Sequence):
        yield from _leaves(feature.feature)
    else:
        yield feature


# --- the forms a hub row may take ---------------------------------------------------------


def test_alternative_column_forms_give_the_same_records(tmp_path: Path) -> None:
    """`image` one Image per row (None when text-only), `instruction_list` and
    `choose_instruction` as JSON strings, a numeric `answer` column, `image_path` one string,
    no `sample_id` column (falls back to the row index)."""
    picks = [("geography.jsonl", 0), ("materials.jsonl", 1), ("physics.jsonl", 1)]
    chosen = [(f, CASES[f][i][0]) for f, i in picks]
    rows = []
    for name, rec in chosen:
        row = hub_row(rec, DISCIPLINE_OF_FILE[name])
        del row["sample_id"]
        row["image"] = row["image"][0] if row["image"] else None
        row["image_path"] = row["image_path"][0] if row["image_path"] else None
        row["instruction_list"] = json.dumps(row["instruction_list"])
        row["choose_instruction"] = json.dumps(row["choose_instruction"])
        row["answer"] = {"geography": None, "material": 1.12, "physics": 2.0}[
            DISCIPLINE_OF_FILE[name]
        ]
        rows.append(row)
    features = datasets.Features(
        {
            **{k: v for k, v in HUB_FEATURES.items() if k != "sample_id"},
            "answer": datasets.Value("float64"),
            "instruction_list": datasets.Value("string"),
            "choose_instruction": datasets.Value("string"),
            "image": datasets.Image(),
            "image_path": datasets.Value("string"),
        }
    )
    hub = folder(write_hub_folder(tmp_path / "hub", rows, features))
    geo, mat, phy = (scimif.load(d, hub)[0] for d in ("geography", "material", "physics"))
    assert geo["record"] == "test[0] 0" and phy["record"] == "test[2] 2"
    assert (geo["answer"], mat["answer"], phy["answer"]) == (None, "1.12", "2.0")
    assert mat["images"] == [] and mat["image_path"] == []
    assert image_bytes(geo) == [RIVER] and phy["image_path"] == [
        "physics/TestBench/images/pendulum.png"
    ]
    for doc, (_, rec) in zip((geo, mat, phy), chosen, strict=True):
        assert doc["instruction_list"] == rec["instruction_list"]
        assert doc["edit_question"] == rec["edit_question"]


@pytest.mark.parametrize(
    ("subject", "discipline"),
    [
        ("chemistry", "chemistry"),
        ("Geography", "geography"),
        ("life", "biology"),
        ("Biology", "biology"),
        ("LIFE", "biology"),
        ("materials", "material"),
        ("Material", "material"),
        (" physics ", "physics"),
    ],
)
def test_subject_spellings(subject: str, discipline: str) -> None:
    row = {**hub_row(CASES["chemistry.jsonl"][0][0], "chemistry"), "subject": subject}
    assert scimif.normalise_hub_row(row, 0, "test data")["discipline"] == discipline


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(4.5, "4.5"), (7, "7"), (["C", "O"], '["C", "O"]'), ("  CCO ", "CCO"), (None, None)],
)
def test_non_string_answers_are_json_encoded(answer: Any, expected: str | None) -> None:
    row = {**hub_row(CASES["chemistry.jsonl"][0][0], "chemistry"), "answer": answer}
    assert scimif.normalise_hub_row(row, 0, "test data")["answer"] == expected


def test_decoded_images_and_bytes_dicts_give_the_same_pictures(tmp_path: Path) -> None:
    rec = CASES["geography.jsonl"][1][0]
    as_bytes = hub_row(rec, "geography")
    decoded = {
        **as_bytes,
        "image": [Image.open(io.BytesIO(v["bytes"])) for v in as_bytes["image"]],
    }
    one_value = {**as_bytes, "image": as_bytes["image"][0], "image_path": as_bytes["image_path"][0]}
    a = scimif.normalise_hub_row(as_bytes, 0, "test data")
    b = scimif.normalise_hub_row(decoded, 0, "test data")
    c = scimif.normalise_hub_row(one_value, 0, "test data")
    assert a["image_path"] == b["image_path"] and c["image_path"] == a["image_path"][:1]
    assert image_bytes(a) == [RIVER, DUSK] and image_bytes(c) == [RIVER]
    pixels = [Image.open(p).convert("RGB").tobytes() for p in b["images"]]
    assert pixels == [Image.open(io.BytesIO(x)).convert("RGB").tobytes() for x in (RIVER, DUSK)]
    # a row from a Dataset read the usual way (decoded PIL images) gives the same record
    write_hub_folder(tmp_path / "hub", [as_bytes])
    table = datasets.load_dataset(str(tmp_path / "hub"), split="test")
    row = table[0]
    assert all(isinstance(v, Image.Image) for v in row["image"])
    d = scimif.normalise_hub_row(row, 0, "test data")
    assert {k: d[k] for k in SCORED_FIELDS} == {k: a[k] for k in SCORED_FIELDS}


def test_an_image_given_by_path_is_found_in_the_folder(tmp_path: Path) -> None:
    rec = CASES["geography.jsonl"][0][0]
    row = hub_row(rec, "geography")
    (tmp_path / "images" / "geography").mkdir(parents=True)
    (tmp_path / "images" / "geography" / "river.png").write_bytes(RIVER)
    row["image"] = [{"bytes": None, "path": "images/geography/river.png"}]
    doc = scimif.normalise_hub_row(row, 0, "test data", base=tmp_path)
    assert doc["images"] == [str(tmp_path / "images" / "geography" / "river.png")]
    with pytest.raises(DataError, match=r"row 0 \(sample_id geography_0\): image 0: no embedded"):
        scimif.normalise_hub_row(row, 0, "test data", base=None)


# --- malformed rows: one line naming the sample and the source ----------------------------


def _bad(change: dict[str, Any]) -> list[dict[str, Any]]:
    rows = hub_rows()
    rows[3] = {**rows[3], **change}  # biology_4, row 3
    return rows


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"edit_question": None}, "missing value(s) for edit_question"),
        ({"subject": "astronomy"}, "unknown subject 'astronomy'"),
        ({"id": None}, "missing value(s) for id"),
        (
            {"image": [{"bytes": b"not an image at all", "path": "x.png"}], "image_path": []},
            "image 0: not a readable image (19 bytes)",
        ),
        ({"image_path": ["images/a.png", "images/b.png"]}, "0 image(s) but 2 image_path value(s)"),
        ({"sample_id": "biology_3"}, "sample_id: duplicate id 'biology_3' (first at row 2)"),
        ({"id": 3}, "duplicate id ('biology', 3) (first at row 2)"),
    ],
)
def test_malformed_hub_rows_name_the_sample(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    hub = folder(write_hub_folder(tmp_path / "hub", _bad(change)))
    with pytest.raises(DataError) as err:
        scimif.load("chemistry", hub)  # any discipline: the split is read as a whole
    text = str(err.value)
    assert "\n" not in text
    assert f"SciMIF folder {tmp_path / 'hub'} split 'test' row 3 (sample_id " in text
    assert message in text


def test_unparseable_instruction_list_json_names_the_sample() -> None:
    row = {**hub_row(CASES["life.jsonl"][0][0], "biology"), "instruction_list": "[{'a': 1"}
    with pytest.raises(DataError) as err:
        scimif.normalise_hub_row(row, 12, "hub dataset 'o/n' split 'test'")
    assert str(err.value).startswith(
        "hub dataset 'o/n' split 'test' row 12 (sample_id biology_3): "
        "instruction_list is not valid JSON"
    )


def test_a_missing_column_or_split_is_named(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k != "subject"} for r in hub_rows()]
    features = datasets.Features({k: v for k, v in HUB_FEATURES.items() if k != "subject"})
    hub = folder(write_hub_folder(tmp_path / "a", rows, features))
    with pytest.raises(DataError, match=r"split 'test': missing column\(s\) subject$"):
        scimif.load("physics", hub)
    other = write_hub_folder(tmp_path / "b", hub_rows())
    (other / "README.md").write_text(CARD.replace("split: test", "split: validation"))
    with pytest.raises(DataError, match=r"cannot load SciMIF folder .* ValueError: .*test"):
        scimif.load("physics", folder(other))


def test_a_discipline_absent_from_the_split_is_an_error(tmp_path: Path) -> None:
    rows = [r for r in hub_rows() if r["subject"] != "PHYSICS"]
    hub = folder(write_hub_folder(tmp_path / "hub", rows))
    assert len(scimif.load("geography", hub)) == 2
    with pytest.raises(DataError, match="no physics records in split 'test'"):
        scimif.load("physics", hub)


def test_a_folder_with_both_layouts_and_no_card_is_refused(tmp_path: Path) -> None:
    both = write_jsonl_folder(write_hub_folder(tmp_path / "both", hub_rows()))
    assert scimif.folder_layout(both) == "hub"  # the card names the data files
    (both / "README.md").unlink()
    with pytest.raises(DataError, match="holds both layouts"):
        scimif.folder_layout(both)


# --- hub ids ------------------------------------------------------------------------------


class LoopbackHub(http.server.ThreadingHTTPServer):
    """A minimal Hugging Face hub on loopback serving one dataset repository from a folder
    at one commit, reachable by the revisions in ``revisions``; it logs every request."""

    def __init__(self, repo: str, root: Path, revisions: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _HubHandler)
        self.repo, self.root, self.revisions = repo, root, revisions
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _HubHandler(http.server.BaseHTTPRequestHandler):
    server: LoopbackHub

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _send(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _entry(self, path: Path) -> dict[str, Any]:
        rel = path.relative_to(self.server.root).as_posix()
        if path.is_dir():
            return {"type": "directory", "path": rel, "oid": "0" * 40}
        data = path.read_bytes()
        oid = hashlib.sha1(data).hexdigest()
        return {"type": "file", "path": rel, "size": len(data), "oid": oid}

    def _json(self, value: Any) -> None:
        self._send(200, json.dumps(value).encode(), {"Content-Type": "application/json"})

    def _serve(self) -> None:
        hub = self.server
        url = urllib.parse.urlparse(self.path)
        parts = urllib.parse.unquote(url.path).strip("/").split("/")
        hub.requests.append(f"{self.command} {url.path}")
        owner_name = hub.repo.split("/")
        if parts[:3] == ["datasets", *owner_name] and parts[3:4] == ["resolve"]:
            commit = hub.revisions.get(parts[4])
            if commit is None:
                return self._send(404, headers={"X-Error-Code": "RevisionNotFound"})
            path = hub.root / "/".join(parts[5:])
            if not path.is_file():
                return self._send(404, headers={"X-Error-Code": "EntryNotFound"})
            data = path.read_bytes()
            etag = f'"{hashlib.sha1(data).hexdigest()}"'
            return self._send(200, data, {"X-Repo-Commit": commit, "ETag": etag})
        if parts[:4] == ["api", "datasets", *owner_name] and len(parts) >= 6:
            kind, commit = parts[4], hub.revisions.get(parts[5])
            if commit is None:
                return self._send(404, headers={"X-Error-Code": "RevisionNotFound"})
            files = sorted(p for p in hub.root.rglob("*") if p.is_file())
            if kind == "revision":
                siblings = [{"rfilename": self._entry(p)["path"]} for p in files]
                return self._json({"id": hub.repo, "sha": commit, "siblings": siblings})
            if kind == "tree":
                base = hub.root.joinpath(*parts[6:])
                recursive = "recursive=true" in url.query.lower()
                kids = sorted(base.rglob("*") if recursive else base.iterdir())
                return self._json([self._entry(p) for p in kids])
        self._send(404, headers={"X-Error-Code": "RepoNotFound"})

    do_GET = do_HEAD = _serve


@pytest.fixture
def loopback_hub(tmp_path: Path) -> Iterator[LoopbackHub]:
    root = write_hub_folder(tmp_path / "repo", hub_rows())
    hub = LoopbackHub("someone/scimif-hub", root, {"v1.0": COMMIT, COMMIT: COMMIT})
    thread = threading.Thread(target=hub.serve_forever, daemon=True)
    thread.start()
    yield hub
    hub.shutdown()
    hub.server_close()


LOAD_SCRIPT = """
import json
from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.data.locate import locate
location = locate("scimif")
docs = [dict(doc) for d in scimif.FILES for doc in scimif.load(d, location)]
print(json.dumps({"where": location.where, "ref": location.hub_ref, "docs": docs}))
"""


def load_through_hub(hub: LoopbackHub, tmp_path: Path, data_dir: str) -> dict[str, Any]:
    """A fresh interpreter pointed at the loopback hub (the hub clients read their endpoint
    at import), with SCIMIF_DATA_DIR set as a user sets it."""
    env = {
        **os.environ,
        "SCIMIF_DATA_DIR": data_dir,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
        "HF_HUB_DISABLE_XET": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_CACHE": str(tmp_path / "hf-home" / "hub"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf-home" / "datasets"),
        "SCI_TASKS_CACHE": str(tmp_path / "sci-cache"),
    }
    env.pop("HF_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_hub_id_with_revision_is_read_with_load_dataset(
    loopback_hub: LoopbackHub, tmp_path: Path
) -> None:
    result = load_through_hub(loopback_hub, tmp_path, "someone/scimif-hub@v1.0")
    assert result["ref"] == ["someone/scimif-hub", "v1.0"]
    # the revision reached the hub: the card was resolved at v1.0, the data at its commit
    assert "GET /datasets/someone/scimif-hub/resolve/v1.0/README.md" in loopback_hub.requests
    assert (
        f"GET /datasets/someone/scimif-hub/resolve/{COMMIT}/data/test-00000-of-00001.parquet"
        in loopback_hub.requests
    )
    docs = result["docs"]
    assert len(docs) == len(hub_rows())
    local = [dict(doc) for d in scimif.FILES for doc in scimif.load(d, folder(loopback_hub.root))]
    assert [{k: d[k] for k in SCORED_FIELDS} for d in docs] == [
        {k: d[k] for k in SCORED_FIELDS} for d in local
    ]
    assert all(d["data_source"].startswith("hub someone/scimif-hub@v1.0 (from SCIMIF_DATA_DIR")
               for d in docs)  # fmt: skip
    images = [Path(p) for d in docs for p in d["images"]]
    assert len(images) == 6
    assert all(p.is_relative_to(tmp_path / "sci-cache" / "scimif" / "images") for p in images)


def test_unknown_revision_is_a_one_line_error(loopback_hub: LoopbackHub, tmp_path: Path) -> None:
    env_result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from sci_tasks.benchmarks.scimif import loader; loader.load('physics')",
        ],
        env={
            **os.environ,
            "SCIMIF_DATA_DIR": "someone/scimif-hub@v9",
            "HF_ENDPOINT": loopback_hub.url,
            "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0",
            "HF_HOME": str(tmp_path / "hf-home"),
            "HF_DATASETS_CACHE": str(tmp_path / "hf-home" / "datasets"),
            "HF_HUB_CACHE": str(tmp_path / "hf-home" / "hub"),
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    last = env_result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "sci_tasks.data.locate.DataError: cannot fetch hub dataset 'someone/scimif-hub@v9' "
        "split 'test' with datasets:"
    )
    assert "v9" in last


def test_hub_root_subfolder_in_the_hub_layout_is_read_from_the_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SCI_TASKS_DATA_DIR=owner/name``: the ``scimif/`` subfolder is fetched (offline here:
    placed in the hub cache as a download leaves it) and its layout detected."""
    write_hub_folder(offline_hub_snapshot(tmp_path, monkeypatch) / "scimif", hub_rows())
    location = locate("scimif", {"SCI_TASKS_DATA_DIR": "someone/sci-data"})
    assert (location.kind, location.subdir) == ("hub", "scimif")
    docs = scimif.load("geography", location)
    assert docs["id"] == [0, 1] and image_bytes(docs[1]) == [RIVER, DUSK]


def test_hub_ref_parsing() -> None:
    assert locate("scimif", {"SCIMIF_DATA_DIR": "Sheryle7436/SciMIF"}).hub_ref == (
        "Sheryle7436/SciMIF",
        None,
    )
    at = locate("scimif", {"SCIMIF_DATA_DIR": "Sheryle7436/SciMIF@refs/pr/3"})
    assert at.hub_ref == ("Sheryle7436/SciMIF", "refs/pr/3")
    with pytest.raises(ValueError, match="not a hub dataset id"):
        _ = locate("scimif").hub_ref
