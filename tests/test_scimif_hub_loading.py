"""SciMIF in the authors' hub layout (spec scimif.md, "The hub release"): a folder that
``datasets.load_dataset`` reads (parquet + README naming the ``test`` split) gives the same
records and scores as the equivalent per-discipline JSONL release, whatever form its columns
take; a malformed row is one line naming the sample and the source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
import pytest

from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.data.locate import DataError

from . import scimif_release as release

# each test its own image cache and `datasets` cache: nothing carries over between tests
pytestmark = pytest.mark.usefixtures("own_data_caches")


# --- both layouts, same records, same scores ----------------------------------------------


def test_hub_folder_and_jsonl_release_give_the_same_records_and_scores(tmp_path: Path) -> None:
    hub = release.folder(release.write_hub_folder(tmp_path / "hub", release.hub_rows()))
    jsonl = release.folder(release.write_jsonl_folder(tmp_path / "release"))
    assert scimif.folder_layout(Path(hub.where)) == "hub"
    assert scimif.folder_layout(Path(jsonl.where)) == "jsonl"
    for discipline in scimif.FILES:
        from_hub, from_jsonl = scimif.load(discipline, hub), scimif.load(discipline, jsonl)
        assert len(from_hub) == len(from_jsonl) == 2
        for a, b in zip(from_hub, from_jsonl, strict=True):
            assert {k: a[k] for k in release.SCORED_FIELDS} == {
                k: b[k] for k in release.SCORED_FIELDS
            }
            # same pictures, in the same order
            assert release.image_bytes(a) == release.image_bytes(b)
        # traced back to the split row and the sample_id
        row = 2 * list(release.CASES).index(scimif.FILES[discipline])
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
    scores_hub, scores_jsonl = (
        release.per_discipline_scores(hub),
        release.per_discipline_scores(jsonl),
    )
    assert scores_hub == scores_jsonl
    for discipline, expected in release.EXPECTED.items():
        assert scores_hub[discipline] == pytest.approx(expected), discipline


# --- the forms a hub row may take ---------------------------------------------------------


def test_alternative_column_forms_give_the_same_records(tmp_path: Path) -> None:
    """`image` one Image per row (None when text-only), `instruction_list` and
    `choose_instruction` as JSON strings, a numeric `answer` column, `image_path` one string,
    no `sample_id` column (falls back to the row index)."""
    picks = [("geography.jsonl", 0), ("materials.jsonl", 1), ("physics.jsonl", 1)]
    chosen = [(f, release.CASES[f][i][0]) for f, i in picks]
    rows = []
    for name, rec in chosen:
        row = release.hub_row(rec, release.DISCIPLINE_OF_FILE[name])
        del row["sample_id"]
        row["image"] = row["image"][0] if row["image"] else None
        row["image_path"] = row["image_path"][0] if row["image_path"] else None
        row["instruction_list"] = json.dumps(row["instruction_list"])
        row["choose_instruction"] = json.dumps(row["choose_instruction"])
        row["answer"] = {"geography": None, "material": 1.12, "physics": 2.0}[
            release.DISCIPLINE_OF_FILE[name]
        ]
        rows.append(row)
    features = datasets.Features(
        {
            **{k: v for k, v in release.HUB_FEATURES.items() if k != "sample_id"},
            "answer": datasets.Value("float64"),
            "instruction_list": datasets.Value("string"),
            "choose_instruction": datasets.Value("string"),
            "image": datasets.Image(),
            "image_path": datasets.Value("string"),
        }
    )
    hub = release.folder(release.write_hub_folder(tmp_path / "hub", rows, features))
    geo, mat, phy = (scimif.load(d, hub)[0] for d in ("geography", "material", "physics"))
    assert geo["record"] == "test[0] 0" and phy["record"] == "test[2] 2"
    assert (geo["answer"], mat["answer"], phy["answer"]) == (None, "1.12", "2.0")
    assert mat["images"] == [] and mat["image_path"] == []
    assert release.image_bytes(geo) == [release.RIVER] and phy["image_path"] == [
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
    row = {
        **release.hub_row(release.CASES["chemistry.jsonl"][0][0], "chemistry"),
        "subject": subject,
    }
    assert scimif.normalise_hub_row(row, 0, "test data")["discipline"] == discipline


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(4.5, "4.5"), (7, "7"), (["C", "O"], '["C", "O"]'), ("  CCO ", "CCO"), (None, None)],
)
def test_non_string_answers_are_json_encoded(answer: Any, expected: str | None) -> None:
    row = {**release.hub_row(release.CASES["chemistry.jsonl"][0][0], "chemistry"), "answer": answer}
    assert scimif.normalise_hub_row(row, 0, "test data")["answer"] == expected


# --- malformed rows: one line naming the sample and the source ----------------------------


def _bad(change: dict[str, Any]) -> list[dict[str, Any]]:
    rows = release.hub_rows()
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
    hub = release.folder(release.write_hub_folder(tmp_path / "hub", _bad(change)))
    with pytest.raises(DataError) as err:
        scimif.load("chemistry", hub)  # any discipline: the split is read as a whole
    text = str(err.value)
    assert "\n" not in text
    assert f"SciMIF folder {tmp_path / 'hub'} split 'test' row 3 (sample_id " in text
    assert message in text


def test_unparseable_instruction_list_json_names_the_sample() -> None:
    row = {
        **release.hub_row(release.CASES["life.jsonl"][0][0], "biology"),
        "instruction_list": "[{'a': 1",
    }
    with pytest.raises(DataError) as err:
        scimif.normalise_hub_row(row, 12, "hub dataset 'o/n' split 'test'")
    assert str(err.value).startswith(
        "hub dataset 'o/n' split 'test' row 12 (sample_id biology_3): "
        "instruction_list is not valid JSON"
    )


def test_a_missing_column_or_split_is_named(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k != "subject"} for r in release.hub_rows()]
    features = datasets.Features({k: v for k, v in release.HUB_FEATURES.items() if k != "subject"})
    hub = release.folder(release.write_hub_folder(tmp_path / "a", rows, features))
    with pytest.raises(DataError, match=r"split 'test': missing column\(s\) subject$"):
        scimif.load("physics", hub)
    other = release.write_hub_folder(tmp_path / "b", release.hub_rows())
    (other / "README.md").write_text(release.CARD.replace("split: test", "split: validation"))
    with pytest.raises(DataError, match=r"cannot load SciMIF folder .* ValueError: .*test"):
        scimif.load("physics", release.folder(other))


def test_a_discipline_absent_from_the_split_is_an_error(tmp_path: Path) -> None:
    rows = [r for r in release.hub_rows() if r["subject"] != "PHYSICS"]
    hub = release.folder(release.write_hub_folder(tmp_path / "hub", rows))
    assert len(scimif.load("geography", hub)) == 2
    with pytest.raises(DataError, match="no physics records in split 'test'"):
        scimif.load("physics", hub)


def test_a_folder_with_both_layouts_and_no_card_is_refused(tmp_path: Path) -> None:
    both = release.write_jsonl_folder(
        release.write_hub_folder(tmp_path / "both", release.hub_rows())
    )
    assert scimif.folder_layout(both) == "hub"  # the card names the data files
    (both / "README.md").unlink()
    with pytest.raises(DataError, match="holds both layouts"):
        scimif.folder_layout(both)
