"""SciMIF hub images: embedded pictures become content-addressed files in the project cache,
no decoded image stays in memory, and bytes dicts, decoded images and paths into the
folder give the same pictures."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import datasets
import pytest
from PIL import Image

from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.data.locate import DataError

from . import scimif_release as release

# each test its own image cache and `datasets` cache: nothing carries over between tests
pytestmark = pytest.mark.usefixtures("own_data_caches")


def test_hub_images_are_content_addressed_files_in_the_project_cache(tmp_path: Path) -> None:
    hub = release.folder(release.write_hub_folder(tmp_path / "hub", release.hub_rows()))
    docs = [doc for d in scimif.FILES for doc in scimif.load(d, hub)]
    cache = tmp_path / "sci-cache" / "scimif" / "images"
    files = sorted(p for p in cache.rglob("*") if p.is_file())
    # 6 image references, 4 distinct pictures (the pendulum photo repeats the river bytes)
    assert sum(len(doc["images"]) for doc in docs) == 6
    assert [p.name for p in files] == sorted(
        f"{hashlib.sha256(b).hexdigest()}.png"
        for b in {release.RIVER, release.DUSK, release.GRAIN, release.SPRING}
    )
    geo = scimif.load("geography", hub)
    phy = scimif.load("physics", hub)
    river = hashlib.sha256(release.RIVER).hexdigest()
    assert geo[0]["images"] == [str(cache / river[:2] / f"{river}.png")]
    assert phy[1]["images"] == geo[0]["images"]
    # the hooks open them as for the JSONL layout
    from sci_tasks.benchmarks.scimif.hooks import doc_to_image

    pictures = doc_to_image(geo[1])
    assert [p.size for p in pictures] == [(6, 4), (6, 4)]
    assert pictures[1].getpixel((0, 0)) == (255, 165, 0)  # orange: the dusk photo


def test_loading_keeps_no_decoded_image_in_memory(tmp_path: Path) -> None:
    release.write_hub_folder(tmp_path / "hub", release.hub_rows())
    table = datasets.load_dataset(str(tmp_path / "hub"), split="test")
    assert table.features["image"] == datasets.List(datasets.Image(decode=True))
    # read as stored: images stay bytes whatever the feature's decode setting
    rows = list(scimif.undecoded_rows(table, batch_size=3))
    values = [v for row in rows for v in row["image"]]
    assert len(values) == 6
    assert all(isinstance(v, dict) and isinstance(v["bytes"], bytes) for v in values)
    # the records hold file paths only, never image data
    geo = scimif.load("geography", release.folder(tmp_path / "hub"))
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


def test_decoded_images_and_bytes_dicts_give_the_same_pictures(tmp_path: Path) -> None:
    rec = release.CASES["geography.jsonl"][1][0]
    as_bytes = release.hub_row(rec, "geography")
    decoded = {
        **as_bytes,
        "image": [Image.open(io.BytesIO(v["bytes"])) for v in as_bytes["image"]],
    }
    one_value = {**as_bytes, "image": as_bytes["image"][0], "image_path": as_bytes["image_path"][0]}
    a = scimif.normalise_hub_row(as_bytes, 0, "test data")
    b = scimif.normalise_hub_row(decoded, 0, "test data")
    c = scimif.normalise_hub_row(one_value, 0, "test data")
    assert a["image_path"] == b["image_path"] and c["image_path"] == a["image_path"][:1]
    assert release.image_bytes(a) == [release.RIVER, release.DUSK] and release.image_bytes(c) == [
        release.RIVER
    ]
    pixels = [Image.open(p).convert("RGB").tobytes() for p in b["images"]]
    assert pixels == [
        Image.open(io.BytesIO(x)).convert("RGB").tobytes() for x in (release.RIVER, release.DUSK)
    ]
    # a row from a Dataset read the usual way (decoded PIL images) gives the same record
    release.write_hub_folder(tmp_path / "hub", [as_bytes])
    table = datasets.load_dataset(str(tmp_path / "hub"), split="test")
    row = table[0]
    assert all(isinstance(v, Image.Image) for v in row["image"])
    d = scimif.normalise_hub_row(row, 0, "test data")
    assert {k: d[k] for k in release.SCORED_FIELDS} == {k: a[k] for k in release.SCORED_FIELDS}


def test_an_image_given_by_path_is_found_in_the_folder(tmp_path: Path) -> None:
    rec = release.CASES["geography.jsonl"][0][0]
    row = release.hub_row(rec, "geography")
    (tmp_path / "images" / "geography").mkdir(parents=True)
    (tmp_path / "images" / "geography" / "river.png").write_bytes(release.RIVER)
    row["image"] = [{"bytes": None, "path": "images/geography/river.png"}]
    doc = scimif.normalise_hub_row(row, 0, "test data", base=tmp_path)
    assert doc["images"] == [str(tmp_path / "images" / "geography" / "river.png")]
    with pytest.raises(DataError, match=r"row 0 \(sample_id geography_0\): image 0: no embedded"):
        scimif.normalise_hub_row(row, 0, "test data", base=None)
