"""How often the checkers and answer readers agree with careful human readers on replies
written the way strong chat models really answer.

The corpus (``benchmarks/realistic/``, how it was built: its README) holds:

* SciMIF: release-shaped questions, replies written blind to the checkers by helper sessions
  imitating several strong chat models (some replies with the slips real models make), and
  a label for every (reply, constraint) pair, given blind from ``docs/labelling.md`` by two
  labellers (disagreements settled by a third). Four held-out sets: ``heldout1`` (a third
  of the first 95 questions, read at the end of round one), ``heldout2`` (fresh questions
  written after that, read at the end of round two), ``heldout3`` (two thirds of round
  three's fresh questions and replies, by the SHA-1 of ``qid``, read at its end; the other
  third, ``dev3``, was worked on), ``heldout4`` (round four the same way, with ``dev4``;
  read at its end), ``heldout5`` (round five the same way, with ``dev5``; read once, at
  the end of the session that built it) and ``heldout6`` (round six the same way, with
  ``dev6``).
* SPM-Bench and SciGen-Verify: replies written blind with the meaning each is meant to
  carry (the selected options and confidence; the judgement).

For SciMIF it prints, per constraint and overall, on the development part and on each
held-out set: agreement with the labels (a checker's unscored counts as wrong, except
where the label is unscored too), false passes (checker 1, label 0), false fails (checker 0,
label 1) and unscored. Judge-decided constraints (procedure steps, number of responses) are
decided with the judge given by ``--judge-url`` / ``--judge-model`` (any OpenAI-compatible
server; the key from ``--judge-key-env``); without one they are unscored and the figures
are also printed for the rule-decided constraints alone.

    python benchmarks/realistic_verdicts.py                 # everything
    python benchmarks/realistic_verdicts.py --errors dev    # also list the dev part's errors
    python benchmarks/realistic_verdicts.py --only heldout2  # one part
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sci_tasks
from sci_tasks.benchmarks.scigen_verify.parse import parse_verification
from sci_tasks.benchmarks.scimif import metrics as scimif
from sci_tasks.benchmarks.spm_bench.parse import parse_response
from sci_tasks.metrics.constraints.catalogue import Kind
from sci_tasks.metrics.constraints.registry import canonical_name, resolve
from sci_tasks.metrics.reply import normalise_reply

CORPUS = Path(__file__).resolve().parent / "realistic"
SCIMIF_PARTS = (
    ("dev", "development part"),
    ("heldout1", "first held-out third (read at the end of round one, then developed on)"),
    (
        "heldout2",
        "second held-out set (fresh questions, read at the end of round two, then developed on)",
    ),
    ("dev3", "round three's development half (fresh questions and replies, worked on)"),
    (
        "heldout3",
        "round three's held-out part (read at its end, then developed on)",
    ),
    ("dev4", "round four's development third (fresh questions and replies, worked on)"),
    (
        "heldout4",
        "round four's held-out part (fresh questions and replies, read at its end, then "
        "developed on)",
    ),
    ("dev5", "round five's development third (fresh questions and replies, worked on)"),
    (
        "heldout5",
        "round five's held-out part (fresh questions and replies, read once at its end, then "
        "developed on)",
    ),
    ("dev6", "round six's development third (fresh questions and replies, worked on)"),
    (
        "heldout6",
        "round six's held-out part (fresh questions and replies, read once at the end)",
    ),
)
UNSCORED = "unscored"


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SystemExit(f"{path}:{number}: not JSON ({exc.msg})") from exc


@dataclass(frozen=True)
class Item:
    """One labelled (reply, constraint) pair and the checker's verdict on it."""

    split: str  # "dev" or a held-out set (SCIMIF_PARTS)
    constraint: str  # canonical name
    judged: bool  # decided by a judge in the catalogue
    label: float | str  # 1.0, 0.0 or "unscored"
    score: float | None
    reason: str
    reply_id: str

    @property
    def outcome(self) -> str:
        if self.label == UNSCORED:
            return "agree" if self.score is None else "scored_absent"
        if self.score is None:
            return "unscored"
        passed = self.score == 1.0
        if passed == (self.label == 1.0):
            return "agree"
        return "false_pass" if passed else "false_fail"


def scimif_items(judge: Any = None) -> list[Item]:
    root = CORPUS / "scimif"
    questions = {q["qid"]: q for q in read_jsonl(root / "questions.jsonl")}
    replies = {r["reply_id"]: r for r in read_jsonl(root / "replies.jsonl")}
    items = []
    for label in read_jsonl(root / "labels.jsonl"):
        reply = replies[label["reply_id"]]
        doc = questions[reply["qid"]]
        entry = doc["instruction_list"][label["index"]]
        if entry["instruction_name"] != label["constraint"]:
            raise SystemExit(
                f"labels.jsonl: {label['reply_id']} index {label['index']} names "
                f"{label['constraint']!r}, the record {entry['instruction_name']!r}"
            )
        one = {**doc, "instruction_list": [entry]}
        (result,) = scimif.score_sample(one, normalise_reply(reply["reply"]), judge)
        name = canonical_name(label["constraint"]) or label["constraint"]
        constraint = resolve(name)
        items.append(
            Item(
                doc["split"],
                name,
                constraint is not None and constraint.kind is Kind.JUDGE,
                label["label"],
                result.score,
                result.reason,
                label["reply_id"],
            )
        )
    return items


def table(items: Iterable[Item], title: str) -> None:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for item in items:
        rows[item.constraint][item.outcome] += 1
        rows["all"][item.outcome] += 1
    if not rows:
        return
    print(f"\n{title}")
    head = f"{'constraint':56} {'n':>4} {'agree':>7} {'f.pass':>6} {'f.fail':>6} {'unsc.':>5}"
    print(head + f" {'abs.':>4}")
    for name in [*sorted(set(rows) - {"all"}), "all"]:
        c = rows[name]
        n = sum(c.values())
        print(
            f"{name:56} {n:4} {c['agree'] / n:7.1%} {c['false_pass']:6} {c['false_fail']:6} "
            f"{c['unscored']:5} {c['scored_absent']:4}"
        )
    c = rows["all"]
    n = sum(c.values())
    print(
        f"{'':56} agreement {c['agree']}/{n} = {c['agree'] / n:.1%}; "
        f"false passes {c['false_pass'] / n:.1%}; false fails {c['false_fail'] / n:.1%}; "
        f"unscored {c['unscored'] / n:.1%}"
    )


def errors(items: Iterable[Item], split: str) -> None:
    print(f"\nerrors on {split}:")
    for item in items:
        if item.split == split and item.outcome != "agree":
            print(
                f"  {item.reply_id} {item.constraint}: label {item.label}, checker "
                f"{item.score} ({item.reason[:200]})"
            )


def _spm_option_texts() -> dict[str, list[str]]:
    """The option texts of the bundled SPM-Bench samples the replies answer, by record id."""
    from sci_tasks.benchmarks.spm_bench.loader import read_folder  # the benchmark's own reader

    folder = Path(sci_tasks.__file__).parent / "benchmarks" / "spm_bench" / "samples"
    return {doc["id"]: doc["options"] for doc in read_folder(folder, bundled=True)}


def spm_corpus(split: str | None = None) -> tuple[int, int, int, list[str]]:
    """(replies, labels read as meant, labels and confidence read as meant, misreadings),
    over one part (``split``) or all."""
    n = labels_ok = both_ok = 0
    wrong = []
    for row in read_jsonl(CORPUS / "spm_bench_replies.jsonl"):
        if split and row["split"] != split:
            continue
        texts = _spm_option_texts().get(row["record_id"], ())
        parsed = parse_response(normalise_reply(row["reply"]), row["options"], texts)
        meant = row["meaning"]
        n += 1
        same_labels = sorted(parsed.labels) == sorted(meant["labels"])
        same_conf = (parsed.confidence is None) == (meant["confidence"] is None) and (
            parsed.confidence is None or abs(parsed.confidence - meant["confidence"]) < 1e-6
        )
        labels_ok += same_labels
        both_ok += same_labels and same_conf
        if not (same_labels and same_conf):
            wrong.append(
                f"  {row['id']}: meant {meant}, read {list(parsed.labels)} "
                f"conf {parsed.confidence} ({parsed.note}; {parsed.confidence_note})"
            )
    return n, labels_ok, both_ok, wrong


def scigen_corpus(split: str | None = None) -> tuple[int, int, list[str]]:
    """(replies, judgements read as meant, misreadings), over one part (``split``) or all."""
    n = ok = 0
    wrong = []
    for row in read_jsonl(CORPUS / "scigen_verify_replies.jsonl"):
        if split and row["split"] != split:
            continue
        parsed = parse_verification(normalise_reply(row["reply"]))
        n += 1
        if parsed.judgement == row["meaning"]["judgement"]:
            ok += 1
        else:
            wrong.append(
                f"  {row['id']}: meant {row['meaning']['judgement']}, read "
                f"{parsed.judgement} ({parsed.note})"
            )
    return n, ok, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = tuple(name for name, _ in SCIMIF_PARTS)
    parser.add_argument("--errors", choices=parts, action="append", default=[])
    parser.add_argument("--only", choices=parts, help="one part's tables (the others not shown)")
    parser.add_argument("--judge-url", help="OpenAI-compatible base URL of a judge")
    parser.add_argument("--judge-model")
    parser.add_argument("--judge-key-env", default="OPENAI_API_KEY")
    args = parser.parse_args(argv)
    judge = None
    if args.judge_url:
        from sci_tasks.metrics.judge import JudgeConfig, client_for

        judge = client_for(
            JudgeConfig(
                model=args.judge_model, base_url=args.judge_url, api_key_env=args.judge_key_env
            )
        )
    items = scimif_items(judge)
    replies = {i.reply_id for i in items}
    per_constraint = Counter(i.constraint for i in items)
    print(
        f"SciMIF corpus: {len(replies)} replies, {len(items)} labelled verdicts, "
        f"{len(per_constraint)} constraints (fewest verdicts: {min(per_constraint.values())})"
    )
    for split, title in SCIMIF_PARTS:
        if args.only and split != args.only:
            continue
        part = [i for i in items if i.split == split]
        table(part, f"SciMIF, {title}: every labelled verdict")
        if judge is None:
            table(
                [i for i in part if not i.judged],
                f"SciMIF, {title}: rule-decided constraints (no judge given)",
            )
    for split in args.errors:
        errors(items, split)

    other_parts = ("dev", "heldout", "dev4", "heldout4", "dev5", "heldout5", "dev6", "heldout6")
    splits = [args.only] if args.only in other_parts else [*other_parts, None]
    for split in splits:
        title = {
            "dev": "development part",
            "heldout": "held-out third",
            "dev4": "round four's development third",
            "heldout4": "round four's held-out part",
            "dev5": "round five's development third",
            "heldout5": "round five's held-out part",
            "dev6": "round six (SPM-Bench: every reply, worked on)",
            "heldout6": "round six's held-out part",
            None: "all",
        }[split]
        n, labels_ok, both_ok, spm_wrong = spm_corpus(split)
        if not n:
            continue  # round six's SPM-Bench replies are all in its development part
        print(
            f"\nSPM-Bench replies ({title}): {n}; options read as meant {labels_ok}/{n} = "
            f"{labels_ok / n:.1%}; options and confidence {both_ok}/{n} = {both_ok / n:.1%}"
        )
        if split in args.errors:
            print("\n".join(spm_wrong))
        n, ok, sgv_wrong = scigen_corpus(split)
        if not n:
            continue  # rounds five and six wrote no SciGen-Verify replies
        print(
            f"SciGen-Verify replies ({title}): {n}; judgement read as meant {ok}/{n} = {ok / n:.1%}"
        )
        if split in args.errors:
            print("\n".join(sgv_wrong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
