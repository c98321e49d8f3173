"""SciMIF data: the location convention, the released layout and its quirks, the bundled samples."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest

from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.data.locate import DataError, DataLocation, locate, samples_dir
from sci_tasks.metrics.constraints import registry

from .helpers import GEO_IMG, GEO_IMG2, GEO_RECORDS, redrawn_sample_images, write_release

pytestmark = pytest.mark.usefixtures("no_data_env")


def test_released_layout_is_read_with_its_quirks(tmp_path: Path) -> None:
    root = write_release(tmp_path / "scimif", {"geography.jsonl": GEO_RECORDS}, [GEO_IMG, GEO_IMG2])
    ds = scimif.load("geo", locate("scimif", {"SCIMIF_DATA_DIR": str(root)}))
    assert ds["id"] == [7, 8]
    first, second = ds[0], ds[1]
    assert first["answer"] == "3.5" and second["answer"] is None
    assert first["choose_instruction"] == ["geography_unit_consistency", "x_y"]
    # absent and null parameters both read as None; names are kept exactly as written
    assert [i["required_parameters"] for i in first["instruction_list"]] == [None, None]
    assert second["instruction_list"][0]["instruction_name"] == "made_up_name"
    assert first["images"] == [str(root / "images" / GEO_IMG)]
    assert second["images"] == [str(root / "images" / GEO_IMG), str(root / "images" / GEO_IMG2)]
    assert first["record"] == "geography.jsonl:1" and not first["bundled_sample"]
    assert first["data_source"].startswith(f"folder {root}")


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"id": 1, "edit_question": "q", "instruction_list": []}', "{not json"],
            ":2: invalid JSON",
        ),
        (['{"id": 1, "edit_question": "q"}'], ":1: missing field(s) instruction_list"),
        (
            ['{"id": "x", "edit_question": "q", "instruction_list": []}'],
            ":1: id must be an integer",
        ),
        (
            ['{"id": 1, "edit_question": "q", "instruction_list": [{"source": "x"}]}'],
            ":1: instruction_list entry",
        ),
        (
            ['{"id": 1, "edit_question": "q", "instruction_list": []}'] * 2,
            ":2: duplicate id 1 (first on line 1)",
        ),
        (
            ['{"id": 1, "edit_question": "q", "instruction_list": [], "image": "n/o.png"}'],
            ":1: image not found",
        ),
        (["[1, 2]"], ":1: expected a JSON object"),
    ],
)
def test_malformed_files_name_the_file_and_line(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    root = write_release(tmp_path, {"life.jsonl": lines})
    with pytest.raises(DataError) as err:
        scimif.load("biology", DataLocation("scimif", "folder", str(root)))
    assert f"{root / 'life.jsonl'}{message}" in str(err.value)


def test_missing_discipline_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"SciMIF file not found: .*physics\.jsonl"):
        scimif.load("physics", DataLocation("scimif", "folder", str(tmp_path)))


def test_location_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "all"
    (root / "scimif").mkdir(parents=True)
    direct = tmp_path / "direct"
    direct.mkdir()
    assert locate("scimif").is_samples
    monkeypatch.setenv("SCI_TASKS_DATA_DIR", str(root))
    assert locate("scimif").where == str(root / "scimif")
    monkeypatch.setenv("SCIMIF_DATA_DIR", str(direct))  # the benchmark's own variable wins
    assert locate("scimif").where == str(direct)
    # per-run settings (lm-eval --metadata, Hydra data.*) win over the environment
    run = locate("scimif", {"SCI_TASKS_DATA_DIR": str(root)})
    assert run.where == str(root / "scimif") and run.set_by == "SCI_TASKS_DATA_DIR (run settings)"
    hub = locate("scimif", {"SCIMIF_DATA_DIR": "someone/scimif@v1"})
    assert (hub.kind, hub.where, hub.subdir) == ("hub", "someone/scimif@v1", "")
    with pytest.raises(DataError, match="no spm_bench/ subfolder"):
        locate("spm_bench", {"SCI_TASKS_DATA_DIR": str(root)})
    with pytest.raises(DataError, match="neither an existing folder nor a hub dataset id"):
        locate("scimif", {"SCIMIF_DATA_DIR": "./does/not/exist"})


def test_hub_dataset_id_loads_through_the_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub id resolves through huggingface_hub's cache (offline here: the snapshot is
    placed in the cache the way a download leaves it)."""
    cache = tmp_path / "hf"
    revision = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / "datasets--someone--scimif-release"
    snapshot = repo / "snapshots" / revision
    write_release(snapshot / "scimif", {"geography.jsonl": GEO_RECORDS}, [GEO_IMG, GEO_IMG2])
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as hub_constants

    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    location = locate("scimif", {"SCI_TASKS_DATA_DIR": "someone/scimif-release"})
    assert (location.kind, location.subdir) == ("hub", "scimif")
    ds = scimif.load("geography", location)
    assert ds["id"] == [7, 8]
    assert Path(ds[0]["images"][0]).is_file()


def test_unreachable_hub_id_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub.constants as hub_constants

    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)  # SCIMIF_DATA_DIR hub ids
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "datasets")
    with pytest.raises(DataError, match="cannot fetch hub dataset 'nobody/nothing'"):
        scimif.load("chemistry", locate("scimif", {"SCIMIF_DATA_DIR": "nobody/nothing"}))


# --- the bundled sample set -------------------------------------------------------------


@pytest.mark.parametrize("discipline", list(scimif.FILES))
def test_bundled_samples_load_for_every_discipline(discipline: str) -> None:
    ds = scimif.load(discipline)
    lines = (samples_dir("scimif") / scimif.FILES[discipline]).read_text("utf-8").splitlines()
    assert len(ds) == sum(bool(line.strip()) for line in lines) >= 6
    assert all(ds["bundled_sample"])
    assert all(s.startswith("bundled scimif samples") for s in ds["data_source"])
    for paths in ds["images"]:
        assert all(Path(p).is_file() for p in paths)
    multimodal = discipline in {"geography", "material", "physics"}
    assert all(bool(p) == multimodal for p in ds["images"])


def test_bundled_samples_cover_every_general_constraint_and_the_release_quirks() -> None:
    names: list[str] = []
    params = []
    for discipline in scimif.FILES:
        for doc in scimif.load(discipline):
            names += [i["instruction_name"] for i in doc["instruction_list"]]
            params += [i["required_parameters"] for i in doc["instruction_list"]]
    general = {c.name for c in registry.CONSTRAINTS.values() if c.domain == "general"}
    assert general <= set(names)
    assert any(n.startswith("life_") for n in names)
    assert any(n.startswith("materials_") for n in names)
    assert "chemistry_analysis_steps_constraint" in names
    assert None in params
    # every name the samples use is known to the registry
    assert all(registry.resolve(n) is not None for n in names)


def test_bundled_sample_images_are_those_the_script_draws(tmp_path: Path) -> None:
    """The committed PNGs are exactly what scripts/make_scimif_sample_images.py draws."""
    _, drawn = redrawn_sample_images("make_scimif_sample_images", tmp_path)
    assert drawn  # every committed PNG was drawn again, byte for byte
