"""The SciMIF records shared by the hub-layout tests (test_scimif_hub_*.py): our own
release-shaped records per discipline, with the responses they are scored on and the
verdicts a careful reader gives, written as the authors' hub layout (parquet + card) or as
the per-discipline JSONL release."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import datasets
from PIL import Image

from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.benchmarks.scimif import metrics
from sci_tasks.data.locate import DataLocation, locate


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
