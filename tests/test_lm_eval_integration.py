"""sci-tasks inside stock lm-eval: discovery, the console scripts, and the task objects."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sci_tasks
from sci_tasks.benchmarks.scimif import SHORT
from sci_tasks.benchmarks.scimif.loader import TASK_TYPES

from .helpers import GEO_IMG, GEO_IMG2, GEO_RECORDS, console_script, write_release

SCIMIF_TYPES = [f"scimif_{SHORT[d]}_{t}" for d, types in TASK_TYPES.items() for t in types]
OUR_TASKS = [
    "scimif", "scimif_all", "scimif_chem", "scimif_geo", "scimif_bio", "scimif_mat",
    "scimif_phy", *SCIMIF_TYPES,
    "spm_bench", "spm_bench_stm", "spm_bench_afm", "spm_bench_sem", "spm_bench_tem",
    "spm_bench_topology", "spm_bench_crystal_structure",
]  # fmt: skip
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script(args[0]), *args[1:]],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=cwd,
        timeout=900,
    )


def listed_names(text: str) -> set[str]:
    return {cell.strip() for line in text.splitlines() for cell in line.split("|")[1:2]}


def test_include_path_is_the_packaged_task_folder() -> None:
    folder = Path(sci_tasks.include_path())
    assert folder.is_dir()
    assert {p.name for p in folder.rglob("*.yaml")} >= {f"{t}.yaml" for t in OUR_TASKS}


def test_stock_lm_eval_lists_our_tasks_next_to_the_standard_ones(tmp_path: Path) -> None:
    out = run("lm_eval", "ls", "tasks", "--include_path", sci_tasks.include_path(), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = listed_names(out.stdout)
    assert set(OUR_TASKS) <= names
    assert "arc_easy" in names


def test_sci_lm_eval_adds_our_tasks_and_refuses_a_second_folder(tmp_path: Path) -> None:
    listed = run("sci-lm-eval", "ls", "tasks", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert set(OUR_TASKS) <= listed_names(listed.stdout)
    valid = run("sci-lm-eval", "validate", "--tasks", "scimif_chem,scimif_phy", cwd=tmp_path)
    assert valid.returncode == 0, valid.stderr
    assert "All tasks found and valid" in valid.stdout + valid.stderr
    # lm-eval's CLI takes one --include_path: a folder of the user's own is refused in one
    # line, before lm-eval starts, naming both folders and the Python way to use both
    own = tmp_path / "own_tasks"
    own.mkdir()
    refused = run("sci-lm-eval", "ls", "tasks", f"--include_path={own}", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("sci-lm-eval: sci-lm-eval adds its own --include_path")
    assert str(own) in line and sci_tasks.include_path() in line
    assert f"sci_tasks.task_manager(include_path=[{str(own)!r}])" in line


def test_task_manager_takes_a_users_task_folder_next_to_ours(tmp_path: Path) -> None:
    own = tmp_path / "own_tasks"
    own.mkdir()
    (own / "my_task.yaml").write_text(
        "task: my_lab_task\ndataset_path: json\ntest_split: train\noutput_type: generate_until\n"
        "doc_to_text: '{{q}}'\ndoc_to_target: '{{a}}'\nmetric_list:\n  - metric: exact_match\n"
    )
    names = set(sci_tasks.task_manager(include_path=str(own), include_defaults=False).all_tasks)
    assert set(OUR_TASKS) <= names and "my_lab_task" in names


def test_task_manager_builds_real_tasks_that_score_with_the_registry() -> None:
    task = sci_tasks.task_manager().load("scimif_chem")["tasks"]["scimif_chem"]
    docs = list(task.test_docs())
    assert len(docs) >= 6
    prompt = task.doc_to_text(docs[0])
    assert prompt == docs[0]["edit_question"]
    # every constraint of every sample gets a verdict with a reason through the task's hook
    values = [task.process_results(doc, ["A short answer."]) for doc in docs]
    for doc, v in zip(docs, values, strict=True):
        verdicts = v["record"]["constraints"]
        assert [x["name"] for x in verdicts] == [
            i["instruction_name"] for i in doc["instruction_list"]
        ]
        assert all(x["reason"] for x in verdicts)
    aggregate = task.aggregation()
    drfr = aggregate["drfr"]([v["drfr"] for v in values])
    satisfied = sum(v["drfr"]["satisfied"] for v in values)
    scored = sum(v["drfr"]["scored"] for v in values)
    assert drfr == pytest.approx(satisfied / scored)
    assert aggregate["unscored"]([v["unscored"] for v in values]) == sum(
        v["unscored"] for v in values
    )
    assert aggregate["bundled_samples"]([v["bundled_samples"] for v in values]) == 1.0


def test_every_task_type_is_a_task_and_the_released_names_map_to_them() -> None:
    assert len(SCIMIF_TYPES) == 22
    tasks = sci_tasks.task_manager().load("scimif_task_types")["tasks"]
    assert sorted(tasks) == sorted(SCIMIF_TYPES)
    docs = {name: list(task.test_docs()) for name, task in tasks.items()}
    assert all(docs.values())  # the bundled samples cover every task type
    bundled = _bundled_scimif_records()
    assert sum(len(d) for d in docs.values()) == bundled  # each sample in exactly one type
    pooled = sci_tasks.task_manager().load("scimif_all")["tasks"]["scimif_all"]
    assert len(list(pooled.test_docs())) == bundled


def _bundled_scimif_records() -> int:
    """Records in the bundled SciMIF files, counted from the files themselves."""
    folder = Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples"
    return sum(len(p.read_text().splitlines()) for p in folder.glob("*.jsonl"))


@pytest.mark.parametrize(
    ("discipline", "released", "paper"),
    [
        ("chemistry", "MolCustom_AtomNum", "molcustom_atomnum"),
        ("chemistry", "Open_Ended", "open_ended"),
        ("geography", "formated_calculation_task", "calculation_task"),
        ("biology", "formated_sequence_qa", "sequence_qa"),
        ("material", "formated_reasoning_process", "reasoning_process"),
        ("physics", "formated_reasoning_process", "formatted_reasoning_process"),
        ("physics", "formated_numerical_task", "formatted_numerical_task"),
        ("physics", "something_else", None),
    ],
)
def test_released_task_values_map_to_paper_task_types(
    discipline: str, released: str, paper: str | None
) -> None:
    from sci_tasks.benchmarks.scimif.loader import task_type

    assert task_type(discipline, released) == paper


def test_multimodal_tasks_hand_images_to_lm_eval() -> None:
    task = sci_tasks.task_manager().load("scimif_geo")["tasks"]["scimif_geo"]
    doc = next(iter(task.test_docs()))
    images = task.doc_to_image(doc)
    assert len(images) == len(doc["images"]) >= 1
    assert images[0].mode == "RGB" and images[0].size[0] > 0


def test_metadata_points_tasks_at_a_data_folder(tmp_path: Path) -> None:
    root = write_release(
        tmp_path / "data" / "scimif", {"geography.jsonl": GEO_RECORDS}, [GEO_IMG, GEO_IMG2]
    )
    manager = sci_tasks.task_manager(metadata={"SCI_TASKS_DATA_DIR": str(root.parent)})
    task = manager.load("scimif_geo")["tasks"]["scimif_geo"]
    docs = list(task.test_docs())
    assert [d["id"] for d in docs] == [7, 8] and not docs[0]["bundled_sample"]
    out = task.process_results(docs[1], ["anything"])
    assert out["unscored"] == 1 and math.isnan(out["csr"])  # no scored constraint
    assert out["unknown_constraints"] == ["made_up_name"]  # the names, in the samples log
    assert task.aggregation()["unknown_constraints"]([out["unknown_constraints"]]) == 1
    assert (
        out["record"]["constraints"][0]["reason"]
        == "unknown constraint 'made_up_name': not in the catalogue"
    )


def test_project_folders_import_under_the_sci_tasks_namespace_only() -> None:
    """metrics/, conf/ and templates/ install as sci_tasks.*: no bare `metrics` module."""
    code = (
        "import importlib.util as u, sys\n"
        "bare = [m for m in ('metrics', 'conf', 'templates') if u.find_spec(m)]\n"
        "ours = [m for m in ('sci_tasks.metrics', 'sci_tasks.conf', 'sci_tasks.templates')"
        " if u.find_spec(m) is None]\n"
        "sys.exit(f'bare: {bare}, missing: {ours}' if bare or ours else 0)"
    )
    out = run(sys.executable, "-c", code, cwd=Path("/"))
    assert out.returncode == 0, out.stderr
