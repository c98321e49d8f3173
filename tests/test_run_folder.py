"""The one run-folder reader (``sci_tasks.run_folder``) and the typed, versioned manifest
(``sci_tasks.manifest.Manifest``) on folders laid out as lm-eval and sci-eval write them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sci_tasks import manifest, run_folder

OLD, NEW = "2026-01-01T10-00-00.000001", "2026-01-02T09-00-00.000002"


def lm_eval_folder(root: Path) -> Path:
    """Two runs of one model (lm-eval's names), a re-score under scores/ and a report."""
    model = root / "model-a"
    for stamp in (OLD, NEW):
        (model).mkdir(parents=True, exist_ok=True)
        (model / f"results_{stamp}.json").write_text(json.dumps({"results": {"scimif_chem": {}}}))
        for task in ("scimif_chem", "scimif_bio"):
            (model / f"samples_{task}_{stamp}.jsonl").write_text("{}\n")
    rescored = root / "scores" / "judge" / "model-a"
    rescored.mkdir(parents=True)
    (rescored / f"results_{NEW}.json").write_text("{}")
    (rescored / f"samples_scimif_chem_{NEW}.jsonl").write_text("{}\n")
    (root / "report").mkdir()
    (root / "report" / f"samples_scimif_chem_{NEW}.jsonl").write_text("{}\n")
    return model


def test_lm_evals_files_are_found_by_lm_evals_names_never_our_outputs(tmp_path: Path) -> None:
    model = lm_eval_folder(tmp_path)
    assert run_folder.results_files(tmp_path) == [
        model / f"results_{OLD}.json", model / f"results_{NEW}.json",
    ]  # fmt: skip
    assert run_folder.newest(run_folder.results_files(tmp_path)) == model / f"results_{NEW}.json"
    assert run_folder.model_folders(tmp_path) == [model]
    assert run_folder.newest_samples(tmp_path) == {
        "scimif_chem": model / f"samples_scimif_chem_{NEW}.jsonl",
        "scimif_bio": model / f"samples_scimif_bio_{NEW}.jsonl",
    }
    assert list(run_folder.newest_samples(tmp_path, "scimif_b")) == ["scimif_bio"]
    assert run_folder.stamp_of(model / f"results_{NEW}.json") == NEW
    assert run_folder.stamp_of(model / f"samples_scimif_bio_{NEW}.jsonl") == NEW
    assert run_folder.samples_file(model, "scimif_bio", OLD).is_file()
    assert run_folder.results_file(model, OLD).is_file()
    # the re-score is read when pointed at
    assert run_folder.results_files(tmp_path / "scores" / "judge") != []
    # two models below one folder: a report must not mix them
    other = tmp_path / "model-b"
    other.mkdir()
    (other / f"samples_scimif_chem_{NEW}.jsonl").write_text("{}\n")
    with pytest.raises(ValueError, match="samples of several runs/models under"):
        run_folder.newest_samples(tmp_path)
    assert set(run_folder.newest_samples(other, recursive=False)) == {"scimif_chem"}


def test_a_relative_root_and_a_task_named_by_its_prefix_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # lm-eval's helpers look for "/results_": a file directly in "." is found all the same
    (tmp_path / f"results_{NEW}.json").write_text('{"results": {}}')
    (tmp_path / f"samples_scigen_rubric_{NEW}.jsonl").write_text("{}\n")
    (tmp_path / f"samples_scigen_verify_instruction_following_{NEW}.jsonl").write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    assert run_folder.results_files(Path(".")) == [Path(f"results_{NEW}.json")]
    # "scigen_rubric_" names the task scigen_rubric itself, not only scigen_rubric_<part>
    assert list(run_folder.newest_samples(Path("."), "scigen_rubric_")) == ["scigen_rubric"]
    assert list(run_folder.newest_samples(Path("."), "scigen_verify_")) == [
        "scigen_verify_instruction_following"
    ]


def test_read_results_says_why_a_file_is_no_results_file(tmp_path: Path) -> None:
    broken, other = tmp_path / "results_a.json", tmp_path / "results_b.json"
    broken.write_text("{")
    other.write_text("[1]")
    with pytest.raises(ValueError, match="Expecting property name"):
        run_folder.read_results(broken)
    with pytest.raises(ValueError, match=r"^not an lm-eval results file$"):
        run_folder.read_results(other)


def test_the_manifest_is_typed_versioned_and_reads_every_version(tmp_path: Path) -> None:
    built = manifest.build(
        {"seed": 3, "model": {"name": "m"}}, ["model=m"], None, {}, "done", data={}
    )
    assert built.version == manifest.MANIFEST_VERSION == 2
    manifest.write(tmp_path, built)
    written = json.loads((tmp_path / manifest.MANIFEST).read_text())
    assert written["version"] == 2 and written["status"] == "done"
    assert "kind" not in written and "run_dir" not in written  # sci-eval's keys only
    assert manifest.read(tmp_path) == built
    # version 1: no version field; sci-score's written files under `results`
    old = {"kind": "sci-score", "status": "done", "overrides": [], "results": ["r.json"],
           "config": {"judge": None}, "run_dir": "/run"}  # fmt: skip
    (tmp_path / manifest.MANIFEST).write_text(json.dumps(old))
    read = manifest.read(tmp_path)
    assert (read.version, read.kind, read.results_files, read.results) == (
        1, "sci-score", ["r.json"], {},
    )  # fmt: skip
    assert set(read.to_json()) >= {"kind", "run_dir", "results_files", "judge"}
    assert "seeds" not in read.to_json()  # sci-score's keys only
    (tmp_path / manifest.MANIFEST).write_text(json.dumps({"version": 9, "status": "done"}))
    with pytest.raises(ValueError, match=r"manifest version 9, newer than this sci-tasks reads"):
        manifest.read(tmp_path)
    (tmp_path / manifest.MANIFEST).write_text("[]")
    with pytest.raises(ValueError, match="is not a sci-eval manifest"):
        manifest.read(tmp_path)
    assert not manifest.finished(tmp_path)
    job = tmp_path / "sweep" / "job"
    (job / "model").mkdir(parents=True)
    manifest.write(job, built)
    assert manifest.nearest(job / "model", tmp_path / "sweep") == job / manifest.MANIFEST
    assert manifest.nearest(tmp_path / "sweep", tmp_path / "sweep") is None
