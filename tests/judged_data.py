"""Data folders whose scoring asks a judge a known number of distinct questions, answered by
an echo model (llm-katan echo repeats the prompt, so each reply carries what the record
says): for the judge-concurrency tests and ``benchmarks/judge_throughput.py``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sci_tasks.data.locate import samples_dir

SCIMIF_PER_RECORD = 3  # reaction steps, number of responses, correctness
VERIFY_PER_RECORD = 2  # explanation, edit (every record is a correctly judged negative)
RUBRIC_PER_RECORD = 1  # the match matrix


def scimif_release(root: Path, records: int) -> Path:
    """``chemistry.jsonl`` in the authors' layout: two judged constraints and a reference
    answer per record."""
    rows = []
    for i in range(1, records + 1):
        question = f"Outline a synthesis of target compound number {i} from simple reagents."
        rows.append(
            {
                "id": i,
                "task": "Open_Ended",
                "original_question": question,
                "edit_question": question + " Use three steps and give two yields.",
                "answer": f"Reference synthesis {i}: protect, couple, deprotect.",
                "instruction_list": [
                    {
                        "instruction_name": "chemistry_reaction_steps_constraint",
                        "source": "core_task",
                        "required_parameters": "3 steps: protect; couple; deprotect",
                    },
                    {
                        "instruction_name": "general_number_response",
                        "source": "added_general",
                        "required_parameters": "2",
                    },
                ],
            }
        )
    root.mkdir(parents=True, exist_ok=True)
    (root / "chemistry.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def scigen_folder(root: Path, verify_records: int, rubric_records: int) -> Path:
    """SciGen-Verify instruction-following negatives whose instruction ends with a verifier
    answer (judgement right, explanation and edit given: both go to the judge), and rubric
    records whose instruction carries a generated rubric (one match request each)."""
    image = samples_dir("scigen_verify") / "images" / "physics" / "fbd_normal_down.png"
    (root / "img").mkdir(parents=True, exist_ok=True)
    shutil.copy(image, root / "img" / image.name)
    verify = [
        {
            "id": f"v{i}",
            "category": "instruction_following",
            "discipline": "physics",
            "instruction": f"Draw free-body diagram {i}. <answer>false</answer>"
            f"<explanation>In figure {i} N points down.</explanation>"
            f"<edit>Point N of figure {i} up.</edit>",
            "images": [f"img/{image.name}"],
            "label": False,
            "explanation": f"reference explanation {i}",
            "edit": f"reference edit {i}",
        }
        for i in range(1, verify_records + 1)
    ]
    (root / "verify.jsonl").write_text("".join(json.dumps(r) + "\n" for r in verify))
    rubrics = []
    for i in range(1, rubric_records + 1):
        rubric = {
            "criteria": [
                {"criterion": "Ring", "weight": 6, "checking_points": [f"Hexagon {i}?"]},
                {"criterion": "Style", "weight": 4, "checking_points": [f"Skeletal {i}?"]},
            ]
        }
        rubrics.append(
            {
                "id": f"r{i}",
                "domain": "chemistry" if i % 2 else "biology",
                "instruction": f"Draw figure {i}. " + json.dumps(rubric),
                "gold_rules": ["Six carbons in a hexagon.", "Three double bonds."],
            }
        )
    (root / "rubric").mkdir(exist_ok=True)
    (root / "rubric" / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rubrics))
    return root
