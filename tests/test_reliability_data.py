"""Data files that cannot be read give one error naming the file and line, through the real
loaders (jsonl.py is the one reader for every loader)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from sci_tasks.benchmarks.scigen_verify import loader as scigen_verify
from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.benchmarks.spm_bench import loader as spm_bench
from sci_tasks.data.jsonl import read_logged
from sci_tasks.data.locate import DataError, locate

GOOD = json.dumps({"id": 1, "edit_question": "q", "instruction_list": []})


pytestmark = pytest.mark.usefixtures("no_data_env")


def load_chemistry(tmp_path: Path, second_line: bytes) -> None:
    root = tmp_path / "scimif"
    root.mkdir(parents=True)
    (root / "chemistry.jsonl").write_bytes(GOOD.encode() + b"\n" + second_line + b"\n")
    scimif.load("chem", locate("scimif", {"SCIMIF_DATA_DIR": str(root)}))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"id": 2, "edit_question": "caf\xe9"}', "not UTF-8 (byte 0xe9 at byte 32 of the line)"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply to read"),
        (b'{"id": 2, "edit_question": "bad \\ud800 text", "instruction_list": []}',
         "a string holds a lone surrogate escape (such as \\ud800), which is not Unicode text"),
    ],
)  # fmt: skip
def test_unreadable_text_names_file_and_line(tmp_path: Path, line: bytes, message: str) -> None:
    with pytest.raises(DataError) as info:
        load_chemistry(tmp_path, line)
    assert str(info.value) == f"{tmp_path / 'scimif' / 'chemistry.jsonl'}:2: {message}"


def test_the_column_of_a_json_error_is_the_column_in_the_line(tmp_path: Path) -> None:
    # a record cut off after 732 characters: the parser stops at column 733
    record = json.dumps({"id": 2, "edit_question": "x" * 679, "instruction_list": []})
    cut = record[:-1]
    assert len(cut) == 732
    with pytest.raises(
        DataError, match=re.escape(":2: invalid JSON: Expecting ',' delimiter")
    ) as e:
        load_chemistry(tmp_path, cut.encode())
    assert str(e.value).endswith("(column 733)")
    # an error inside the line is reported where it is
    with pytest.raises(DataError) as inside:
        load_chemistry(tmp_path / "b", b'{"id": 2, "edit_question": oops}')
    assert str(inside.value).endswith("invalid JSON: Expecting value (column 28)")


@pytest.mark.parametrize(
    "read_folder",
    [spm_bench.read_folder, scigen_verify.read_folder, scigen_verify.read_rubric_folder],
)
def test_every_loader_reads_through_the_one_reader(
    tmp_path: Path, read_folder: Callable[[Path], object]
) -> None:
    (tmp_path / "d.jsonl").write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(DataError) as info:
        read_folder(tmp_path)
    assert f"{tmp_path / 'd.jsonl'}:1: not UTF-8 (byte 0xff" in str(info.value)


def test_a_logged_reply_with_a_lone_surrogate_is_kept_and_made_safe(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text(
        json.dumps({"doc_id": 0, "resps": [["ok"]]}) + "\n"
        + json.dumps({"doc_id": 1, "resps": [["bad \ud800 reply"]]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    records, changed = read_logged(path)
    assert [r["resps"] for r in records] == [[["ok"]], [["bad \ufffd reply"]]]
    assert changed == 1
