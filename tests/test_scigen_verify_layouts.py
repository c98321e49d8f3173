"""SciGen-Verify's two record layouts: the project's documented one and the chat-message one
of the authors' training data (as the unofficial lmms-eval port reads it). The same five
records are written in each layout (own records, small PIL images); both folders give the
same samples, the same prompts and images, the same judge requests (a real loopback judge:
the second layout's requests are all answered from the first one's cache) and the same
Acc_a / Acc_e / Acc_i. Chat-record problems are errors naming file and line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from sci_tasks.benchmarks.scigen_verify import hooks
from sci_tasks.benchmarks.scigen_verify import loader as data
from sci_tasks.benchmarks.scigen_verify import metrics as verify
from sci_tasks.data import forget_read_data
from sci_tasks.data.locate import DataError, DataLocation
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig

from .servers import KATAN_KEY, katan

IMAGES = {"img/fbd.png": (64, 48), "img/cell.png": (40, 40), "img/plot_src.png": (50, 30),
          "img/plot_new.png": (50, 30), "img/map.png": (30, 60)}  # fmt: skip

# (id, category, discipline, instruction, source images, candidate images, label,
#  explanation, edit, extra fields)
RECORDS: list[tuple[str, str, str, str, list[str], list[str], bool, str, str | None]] = [
    ("fbd-pos", "instruction_following", "physics",
     "Draw a block on a table with its weight and the normal force.", [], ["img/fbd.png"],
     True, "Both forces are drawn with the right directions.", None),
    ("fbd-neg", "instruction_following", "physics",
     "Draw a block on a table with the normal force pointing up.", [], ["img/fbd.png"],
     False, "The normal force points down.", "Point the normal force up."),
    ("cell-neg", "multidisciplinary_reasoning", "biology",
     "Draw an animal cell with mitochondria.", [], ["img/cell.png"],
     False, "No mitochondria are drawn.", "Add mitochondria to the cytoplasm."),
    ("plot-edit-neg", "instruction_following", "mathematics",
     "Swap the axis labels of the source plot.", ["img/plot_src.png"], ["img/plot_new.png"],
     False, "The labels are unchanged.", "Swap the two axis labels."),
    ("map-pos", "world_knowledge", "geography",
     "Draw a map with Cairo on the Nile.", [], ["img/map.png"],
     True, "Cairo is on the Nile.", None),
]  # fmt: skip


def documented(rec: tuple[Any, ...]) -> dict[str, Any]:
    id_, cat, disc, instr, src, cand, label, expl, edit = rec
    row = {"id": id_, "category": cat, "discipline": disc, "instruction": instr,
           "images": cand, "label": label, "explanation": expl}  # fmt: skip
    if src:
        row["source_images"] = src
    if edit is not None:
        row["edit"] = edit
    return row


def chat(rec: tuple[Any, ...], style: int) -> dict[str, Any]:
    """The same record as chat messages; ``style`` varies how (all forms the port reads)."""
    id_, cat, disc, instr, src, cand, label, expl, edit = rec
    images = [*src, *cand]
    word = "true" if label else "false"
    user: Any
    if style == 0:  # placeholders first, string content, short-tag reference answer
        user = "<image>" * len(images) + "\n" + instr
        answer: Any = f"<think>Check.</think><a>{word}</a><ex>{expl}</ex>"
    elif style == 1:  # placeholder after the text, list content, JSON reference answer
        user = [{"type": "text", "text": instr + "\n"}] + [{"type": "image"} for _ in images]
        answer = json.dumps({"answer": label, "explanation": expl, "edit": edit})
    else:  # a full prompt in the user turn, the instruction in "question", paper tags
        user = "You verify images.\n" + "<image>" * len(images) + f"\nInstruction: {instr}"
        answer = [{"type": "text", "text": f"<answer>{word}</answer>"}]
    row: dict[str, Any] = {
        "id": id_, "category": cat, "discipline": disc,
        "messages": [{"role": "system", "content": "You are a verifier."},
                     {"role": "user", "content": user},
                     {"role": "assistant", "content": answer}],
        "images": images,
        "explanation_edit_generation": {"explanation": expl, "edit": edit},
    }  # fmt: skip
    if style == 2:
        row["question"] = instr
    if src:
        row["source_images"] = src
    return row


def write(root: Path, rows: list[dict[str, Any]], name: str = "verify.jsonl") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, size in IMAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        colour = (len(rel) * 7 % 256, size[0] * 3 % 256, size[1] * 5 % 256)
        Image.new("RGB", size, colour).save(root / rel)
    (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def load(root: Path) -> list[dict[str, Any]]:
    forget_read_data()
    return list(data.load(DataLocation("scigen_verify", "folder", str(root))))


def relative(doc: dict[str, Any], root: Path) -> dict[str, Any]:
    """A sample with its folder-specific parts (paths, provenance) made comparable."""
    out = {k: v for k, v in doc.items() if k not in ("data_source", "record")}
    for key in ("images", "source_images"):
        out[key] = [str(Path(p).relative_to(root)) for p in doc[key]]
    return out


@pytest.fixture()
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a = write(tmp_path / "documented", [documented(r) for r in RECORDS])
    b = write(tmp_path / "chat", [chat(r, i % 3) for i, r in enumerate(RECORDS)])
    return a, b


def test_both_layouts_give_the_same_samples_prompts_and_images(
    folders: tuple[Path, Path],
) -> None:
    a, b = folders
    docs_a, docs_b = load(a), load(b)
    assert [relative(d, a) for d in docs_a] == [relative(d, b) for d in docs_b]
    edit_doc = {d["id"]: d for d in docs_b}["plot-edit-neg"]
    assert edit_doc["task_type"] == "editing"
    assert [Path(p).name for p in edit_doc["source_images"]] == ["plot_src.png"]
    assert [d["label"] for d in docs_b] == [True, False, False, False, True]
    assert {d["id"]: d["instruction"] for d in docs_b}["map-pos"] == (
        "Draw a map with Cairo on the Nile."  # from "question", not the full user prompt
    )
    for da, db in zip(docs_a, docs_b, strict=True):
        assert hooks.doc_to_text(da) == hooks.doc_to_text(db)
        ia, ib = hooks.doc_to_image(da), hooks.doc_to_image(db)
        assert [i.size for i in ia] == [i.size for i in ib]
        assert [i.tobytes() for i in ia] == [i.tobytes() for i in ib]


def test_one_folder_may_mix_the_layouts_record_by_record(
    tmp_path: Path, folders: tuple[Path, Path]
) -> None:
    a, _ = folders
    rows = [documented(r) if i % 2 else chat(r, i % 3) for i, r in enumerate(RECORDS)]
    mixed = write(tmp_path / "mixed", rows)
    assert [relative(d, mixed) for d in load(mixed)] == [relative(d, a) for d in load(a)]


# Replies to the five records, and by hand with a judge that says yes to every question:
#   fbd-pos   T->T (short tags)       a1 e1 (judged)
#   fbd-neg   F->F (JSON, with edit)  a1 e1 i1 (judged)
#   cell-neg  F->F, no edit           a1 e1 (judged) i0 (rule: a missing edit is invalid)
#   plot-edit F->T                    a0 e0 i0 (rule)
#   map-pos   both forms              a0 e0 (rule: no judgement)
REPLIES = {
    "fbd-pos": "<a>true</a><ex>Weight down, normal force up.</ex>",
    "fbd-neg": '{"answer": false, "explanation": "N points down.", "edit": "Point N up."}',
    "cell-neg": "<answer>false</answer><explanation>No mitochondria.</explanation>",
    "plot-edit-neg": "<answer>true</answer><explanation>Swapped.</explanation>",
    "map-pos": '<a>true</a> {"answer": true}',
}
ACC_A, ACC_E, ACC_I = 3 / 5, 3 / 5, 1 / 3  # negatives: fbd-neg, cell-neg, plot-edit-neg
JUDGE_CALLS = 3 + 1  # explanations of fbd-pos, fbd-neg, cell-neg; the edit of fbd-neg


def scores(docs: list[dict[str, Any]], judge: JudgeClient | None) -> dict[str, float]:
    rows = [verify.score_sample(d, REPLIES[d["id"]], judge) for d in docs]
    return {
        "acc_a": verify.acc_a((r["label"], r["judgement"]) for r in rows),
        "acc_e": verify.acc_e(r["acc_e"] for r in rows),
        "acc_i": verify.acc_i((r["label"], r["acc_i"]) for r in rows),
    }


def test_both_layouts_score_the_same_with_a_real_judge(
    tmp_path: Path, folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = folders
    docs_a, docs_b = load(a), load(b)
    unjudged = scores(docs_b, None)
    assert unjudged["acc_a"] == pytest.approx(ACC_A)
    assert math.isnan(unjudged["acc_e"]) and math.isnan(unjudged["acc_i"])
    monkeypatch.setenv("SCI_TASKS_TEST_JUDGE_KEY", KATAN_KEY)
    with katan(tmp_path, model="judge-model") as server:
        judge = JudgeClient(
            JudgeConfig(
                model=server.model, base_url=server.base_url,
                api_key_env="SCI_TASKS_TEST_JUDGE_KEY", structured_output="tool",
                max_attempts=2, backoff_initial=0.01, timeout=10,
                cache_dir=str(tmp_path / "judge-cache"),
            )
        )  # fmt: skip
        first = scores(docs_a, judge)
        assert judge.calls == JUDGE_CALLS == server.requests_received()
        second = scores(docs_b, judge)
        # identical judge requests (prompts and image bytes): all from the cache
        assert judge.calls == JUDGE_CALLS == server.requests_received()
    assert first == second
    assert first == pytest.approx({"acc_a": ACC_A, "acc_e": ACC_E, "acc_i": ACC_I})


# --- chat-record problems: one-line errors naming file and line ---------------------------------


def broken(**changes: Any) -> dict[str, Any]:
    row = chat(RECORDS[1], 0)
    for key, value in changes.items():
        if value is ...:
            row.pop(key)
        else:
            row[key] = value
    return row


def turns(user: Any, *answers: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": user}] + [
        {"role": "assistant", "content": a} for a in answers
    ]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (broken(explanation_edit_generation=...),
         "missing field.s. explanation_edit_generation .chat-message layout"),
        (broken(label=False),
         "a chat-message record .messages. cannot also have label: use one record layout"),
        (broken(messages="hi"), "messages must be a list of .role, content. objects"),
        (broken(messages=turns("<image>x", "<a>false</a>") + turns("<image>y")),
         "a chat-message record has one user turn, found 2"),
        (broken(messages=turns("<image>Draw it.")), "no assistant turn after the user turn"),
        (broken(messages=turns("<image>Draw it.", "Looks fine, maybe.")),
         "the last assistant turn gives no true / false label"),
        (broken(messages=turns("<image>Draw it.", "<a>true</a>", "<a>true|false</a>")),
         "the last assistant turn gives no true / false label"),
        (broken(messages=turns("<image><image>Draw it.", "<a>false</a>")),
         "the user turn has 2 <image> placeholder.s. for 1 image.s."),
        (broken(messages=turns("Draw it.", "<a>false</a>")),
         "the user turn has 0 <image> placeholder.s. for 1 image.s."),
        (broken(messages=turns([{"type": "audio"}], "<a>false</a>")),
         "the user turn content part .* is neither text nor image"),
        (broken(explanation_edit_generation="N down"),
         "explanation_edit_generation must be an object"),
        (broken(explanation_edit_generation={"explanation": "N down", "edit": None}),
         "a negative record .label false. needs a reference edit"),
        (broken(explanation_edit_generation={"explanation": "", "edit": "Fix."}),
         "explanation must be non-empty text"),
        (broken(source_images=["img/cell.png"]), "source_images must be the first entries"),
        (broken(source_images=["img/fbd.png"]), "every image is a source image"),
        (broken(images=["img/missing.png"]), "image not found"),
        (broken(category="art"), "unknown SciGen-Verify category 'art'"),
    ],
)  # fmt: skip
def test_chat_record_errors_name_file_and_line(
    tmp_path: Path, row: dict[str, Any], message: str
) -> None:
    ok = documented(RECORDS[0])
    root = write(tmp_path / "d", [ok, row])
    with pytest.raises(DataError, match=rf"^{re.escape(str(root / 'verify.jsonl'))}:2: {message}"):
        load(root)
