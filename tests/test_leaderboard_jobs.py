"""The sweep leaderboard (``sci_tasks.leaderboard``) on hand-built job folders: a task
given by two jobs (the newer wins, and the Markdown says so), the fallback to the technique
tasks, standard tasks' headline metrics and missing values left blank, SciMIF from samples,
rows per generation settings, and a benchmark registered as a plugin getting its columns
with ± (the real sweeps: test_leaderboard.py).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from sci_tasks import leaderboard

from .leaderboard_helpers import make_job, read_csv, run_leaderboard, task_values


def test_merge_newer_wins_fallbacks_and_headlines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = tmp_path / "sweep"
    old = "2026-01-01T10-00-00.000000"
    new = "2026-01-02T10-00-00.000000"
    # model x: SPM-Bench technique tasks only (no group), twice: the newer job wins
    make_job(sweep, "x__spm__1", "x", old, {
        "spm_bench_stm": task_values(2, em=0.0, spc=0.0, sip_f1=0.0, delta=0.0),
    })  # fmt: skip
    make_job(sweep, "x__spm__2", "x", new, {
        "spm_bench_stm": task_values(2, em=1.0, spc=0.5, sip_f1=0.25, delta=0.25),
        "spm_bench_afm": task_values(6, em=0.0, spc=0.5, sip_f1=0.75, delta=0.25),
    })  # fmt: skip
    # model x also ran standard tasks: a headline table entry, a group with subtasks, an
    # unknown task (first numeric metric) and SciGen-Verify's group
    gsm8k = {"alias": "gsm8k", "exact_match,strict-match": 0.25, "sample_len": 4,
             "exact_match_stderr,strict-match": 0.1,
             "exact_match,flexible-extract": 0.5}  # fmt: skip
    make_job(
        sweep, "x__std__3", "x", old,
        {
            "arc_easy": task_values(4, acc=0.5, acc_norm=0.75),
            "gsm8k": gsm8k,
            "mmlu": task_values(8, acc=0.375),
            "mmlu_anatomy": task_values(4, acc=0.5),
            "my_task": {"alias": "m", "sample_len": 3, "score_stderr,none": 0.1,
                        "flag": True, "score,none": 0.125, "other,none": 0.5},
            "scigen_verify": task_values(6, acc_a=0.5, acc_e=math.nan, acc_i=0.25),
        },
        subtasks={"mmlu": ["mmlu_anatomy"]},
    )  # fmt: skip
    # model y: only a finished SciGen-Verify category task, and a job that crashed early
    make_job(sweep, "y__verify__4", "y", old, {
        "scigen_verify_world_knowledge": task_values(4, acc_a=1.0, acc_e=0.5, acc_i=0.125),
    })  # fmt: skip
    crashed = sweep / "z__spm__5"
    (crashed / ".hydra").mkdir(parents=True)
    broken = make_job(sweep, "Org__w__spm__6", "Org/w", old, {})  # results file cut short
    next(broken.rglob("results_*.json")).write_text('{"results": {')

    markdown, stdout = run_leaderboard(sweep, capsys)
    rows = {r["model"]: r for r in read_csv(sweep / "leaderboard" / "leaderboard.csv")}
    assert sorted(rows) == ["x", "y"]
    x, y = rows["x"], rows["y"]
    # newer stm (2 questions) + afm (6), size-weighted: EM (1*2 + 0*6) / 8
    assert float(x["SPM-Bench EM"]) == 0.25
    assert float(x["SPM-Bench SIP-F1"]) == (0.25 * 2 + 0.75 * 6) / 8
    assert x["SPM-Bench questions"] == "8"
    assert "`x`: `spm_bench_stm` in both `x__spm__1`" in markdown
    assert "the newer, `x__spm__2`, is used" in markdown
    assert "size-weighted means over `spm_bench_stm`, `spm_bench_afm`" in markdown
    used = {r["job"]: r["in leaderboard"] for r in read_csv(sweep / "leaderboard" / "jobs.csv")}
    assert used["x__spm__1"] == "no (superseded)" and used["x__spm__2"] == "yes"
    assert x["jobs"] == "x__std__3; x__spm__2"
    # headline metrics: table entries, the group (not its subtask), the first numeric metric
    assert float(x["arc_easy acc_norm"]) == 0.75
    assert float(x["gsm8k exact_match [strict-match]"]) == 0.25
    assert float(x["mmlu acc"]) == 0.375 and not any(c.startswith("mmlu_") for c in x)
    assert float(x["my_task score"]) == 0.125
    # SciGen-Verify: the group for x, the category task for y; NaN stays blank
    assert (x["SciGen-Verify Acc_a"], x["SciGen-Verify Acc_e"]) == ("0.5", "")
    assert float(y["SciGen-Verify Acc_e"]) == 0.5
    # missing values: blank in the CSV, n/a in the Markdown, never 0
    assert y["SPM-Bench EM"] == "" and y["arc_easy acc_norm"] == ""
    assert not any(c.startswith("SciMIF") for c in x)  # no SciMIF anywhere: no SciMIF columns
    y_lines = [line for line in markdown.splitlines() if line.startswith("| y ")]
    assert any("n/a" in line for line in y_lines)  # SPM-Bench and standard tasks for y
    assert not any("0.0000" in line for line in y_lines)
    # the crashed job is listed, not dropped
    assert "unfinished: z__spm__5 (no manifest)" in stdout
    assert "- `z__spm__5` (z, ?): no manifest" in markdown
    assert "- `Org__w__spm__6` (Org/w, spm): done; unreadable results file" in markdown
    # only the SPM plot has data here
    pngs = sorted(p.name for p in (sweep / "leaderboard").glob("*.png"))
    assert pngs == ["spm_bench_spc_vs_sip_f1.png"]


def test_no_jobs_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        leaderboard.main([str(tmp_path)])
    assert exc.value.code == 1


NOT_GRADED = {"score": None, "reason": "no LLM judge is configured"}


def verdict(group: str, score: float | None) -> dict[str, Any]:
    return {"name": "c", "constraint": "c", "group": group, "domain": "general",
            "score": score, "reason": "hand-made", "judge": None}  # fmt: skip


def test_scimif_from_samples_without_a_discipline_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run of ``scimif_all`` only: per-discipline values from the samples (the report's
    own tables); a model with discipline results but no samples has no DRFR per group."""
    sweep = tmp_path / "sweep"
    stamp = "2026-01-01T10-00-00.000000"
    pooled = make_job(sweep, "p__all__1", "p", stamp, {"scimif_all": task_values(3, isr=0.5)})
    lines = [
        {"doc": {"discipline": "chemistry", "id": 1},
         "record": {"constraints": [verdict("Format", 1.0), verdict("Number", 0.0)],
                    "correctness": NOT_GRADED}},
        {"doc": {"discipline": "chemistry", "id": 2},
         "record": {"constraints": [verdict("Format", 1.0)], "correctness": NOT_GRADED}},
        {"doc": {"discipline": "biology", "id": 1},
         "record": {"constraints": [verdict("Unit", 1.0), verdict("Letter", None)],
                    "correctness": NOT_GRADED}},
    ]  # fmt: skip
    samples = pooled / "p" / f"samples_scimif_all_{stamp}.jsonl"
    samples.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    make_job(sweep, "q__chem__2", "q", stamp, {"scimif_chem": task_values(2, csr=0.5, isr=0.0)})

    markdown, _ = run_leaderboard(sweep, capsys)
    rows = {r["model"]: r for r in read_csv(sweep / "leaderboard" / "leaderboard.csv")}
    p, q = rows["p"], rows["q"]
    # chemistry: CSR (0.5 + 1) / 2, ISR 1/2, DRFR 2/3; biology: all 1
    assert float(p["SciMIF chemistry CSR"]) == 0.75 and float(p["SciMIF chemistry ISR"]) == 0.5
    assert float(p["SciMIF chemistry DRFR"]) == 2 / 3 and float(p["SciMIF biology ISR"]) == 1.0
    assert float(p["SciMIF Overall"]) == 0.75 and p["SciMIF Overall disciplines"] == "2"
    assert float(p["SciMIF DRFR Format"]) == 1.0 and float(p["SciMIF DRFR Number"]) == 0.0
    assert p["SciMIF DRFR Letter"] == "" and p["SciMIF DRFR Precision"] == ""  # unscored / none
    assert "computed from the samples of `p__all__1`" in markdown
    # q: results only; DRFR is blank (no samples) and its drfr metric was never reported
    assert float(q["SciMIF chemistry CSR"]) == 0.5 and q["SciMIF chemistry DRFR"] == ""
    assert q["SciMIF DRFR Format"] == "" and q["SciMIF biology ISR"] == ""
    assert "`q`: no SciMIF samples for chemistry" in markdown


def test_jobs_differing_in_generation_settings_keep_a_row_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One model swept over max_gen_toks and two task sets: a row per max_gen_toks value,
    each labelled by it, each merging its two task sets; settings that do not change the
    numbers (server concurrency, cache folder) never split a row."""
    sweep = tmp_path / "sweep"
    stamp = "2026-01-01T10-00-00.000000"

    def config(max_gen_toks: int | None, concurrent: int) -> dict[str, Any]:
        gen = {} if max_gen_toks is None else {"max_gen_toks": max_gen_toks}
        model = {"backend": "hf", "gen_kwargs": gen, "args": {"num_concurrent": concurrent}}
        return {"model": model, "limit": 2, "cache_dir": f"/cache/{concurrent}"}

    spm = {"spm_bench": task_values(4, em=0.25, spc=0.5, sip_f1=0.5, delta=0.0)}
    spm_long = {"spm_bench": task_values(4, em=0.75, spc=1.0, sip_f1=0.875, delta=0.125)}
    arc, arc_long = (
        {"arc_easy": task_values(4, acc_norm=0.5)},
        {"arc_easy": task_values(4, acc_norm=1.0)},
    )
    make_job(sweep, "smollm2__spm__1", "smollm2", stamp, spm, config=config(None, 1))
    make_job(sweep, "smollm2__std__2", "smollm2", stamp, arc, config=config(None, 4))
    make_job(sweep, "smollm2__spm__3", "smollm2", stamp, spm_long, config=config(64, 1))
    make_job(sweep, "smollm2__std__4", "smollm2", stamp, arc_long, config=config(64, 2))
    make_job(sweep, "other__spm__5", "other", stamp, spm, config=config(64, 1))

    markdown, _ = run_leaderboard(sweep, capsys)
    rows = {r["model"]: r for r in read_csv(sweep / "leaderboard" / "leaderboard.csv")}
    short, long = "smollm2 (gen_kwargs.max_gen_toks=unset)", "smollm2 (gen_kwargs.max_gen_toks=64)"
    assert list(rows) == ["other", long, short]  # a model with one configuration: its name
    assert rows[short]["jobs"] == "smollm2__spm__1; smollm2__std__2"
    assert rows[long]["jobs"] == "smollm2__spm__3; smollm2__std__4"
    assert (float(rows[short]["SPM-Bench EM"]), float(rows[short]["arc_easy acc_norm"])) == (
        0.25,
        0.5,
    )
    assert (float(rows[long]["SPM-Bench EM"]), float(rows[long]["arc_easy acc_norm"])) == (
        0.75,
        1.0,
    )
    assert float(rows[long]["SPM-Bench Delta"]) == 0.125
    assert f"| {long} " in markdown and f"| {short} " in markdown
    assert "3 row(s). One row per model configuration" in markdown
    assert "in both" not in markdown  # nothing superseded: the two rows never mixed


# --- a benchmark registered as a plugin: its columns with ±, no edit to the leaderboard ----

QUIZ_GROUP = """group: quiz
task:
  - quiz_easy
  - quiz_hard
aggregate_metric_list:
  - metric: acc
    weight_by_size: true
  - metric: score
    weight_by_size: false
"""
QUIZ_PLUGIN = """from sci_tasks.benchmarks import Benchmark, MetricSpec

def write_report(run_dir, out_dir):
    return []  # no tables of its own: the leaderboard's columns are what it shows

BENCHMARK = Benchmark(
    name="quiz", title="Quiz", data_key="QUIZ_DATA_DIR", group="quiz",
    splits=("quiz_easy", "quiz_hard"), columns=(("Acc", "acc,none"), ("Score", "score,none")),
    report={module!r}, count_column="questions", tasks_dir={tasks!r},
    metrics=(MetricSpec("acc", True, "mean", label="Acc", parts="mean"),
             MetricSpec("score", True, "mean", label="Score", parts="mean")),
)
"""


def register_quiz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, group: str) -> None:
    """The quiz benchmark registered as a plugin ``module`` (a name of its own per test:
    Python keeps an imported module), its group YAML ``group``."""
    tasks = tmp_path / "quiz_tasks"
    tasks.mkdir()
    (tasks / "quiz.yaml").write_text(group)
    (tmp_path / f"{module}.py").write_text(QUIZ_PLUGIN.format(tasks=str(tasks), module=module))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("SCI_TASKS_BENCHMARKS", module)


def _quiz_job(sweep: Path, model: str, tasks: dict[str, list[tuple[float, float]]]) -> None:
    """A finished job of ``model`` with one results entry and samples file per quiz task:
    (acc, score) per document; a document's hash is its task and index."""
    stamp = "2026-01-01T10-00-00.000000"
    results = {
        task: task_values(len(docs), acc=sum(a for a, _ in docs) / len(docs),
                          score=sum(s for _, s in docs) / len(docs))
        for task, docs in tasks.items()
    }  # fmt: skip
    folder = make_job(sweep, f"{model}__quiz__1", model, stamp, results)
    for task, docs in tasks.items():
        lines = [
            {"doc_id": i, "doc_hash": f"{task}-{i}", "doc": {"id": i}, "acc": a, "score": s}
            for i, (a, s) in enumerate(docs)
        ]
        path = folder / model / f"samples_{task}_{stamp}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_registered_benchmark_gets_its_columns_with_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A benchmark the leaderboard was not written for (registered by SCI_TASKS_BENCHMARKS,
    no leaderboard hook) gets its declared columns: without its group, lm-eval's group
    aggregation over the splits present, as its group YAML weights each metric (Acc by
    size, Score unweighted), with the ± that goes with it; paired differences for the
    pooled column."""
    from sci_tasks.stats import bootstrap

    register_quiz(tmp_path, monkeypatch, "lb_quiz_plugin", QUIZ_GROUP)
    sweep = tmp_path / "sweep"
    easy = [(1.0, 0.5), (1.0, 0.5)]
    hard_m = [(1.0, 0.0), (0.0, 0.5), (1.0, 0.5), (0.0, 0.0), (0.0, 0.5), (1.0, 0.0)]
    hard_n = [(0.0, 1.0), (0.0, 1.0), (1.0, 1.0), (0.0, 1.0), (0.0, 1.0), (1.0, 1.0)]
    _quiz_job(sweep, "m", {"quiz_easy": easy, "quiz_hard": hard_m})
    _quiz_job(sweep, "n", {"quiz_hard": hard_n})

    board = leaderboard.build(sweep)
    m, n = board.rows
    # Acc by size: (1.0 * 2 + 0.5 * 6) / 8; Score unweighted: (0.5 + 0.25) / 2
    assert (m.values["Quiz Acc"], m.values["Quiz Score"]) == (0.625, 0.375)
    assert m.values["Quiz questions"] == 8.0
    assert (n.values["Quiz Acc"], n.values["Quiz Score"]) == (2 / 6, 1.0)
    # Acc's ±: the pooled samples; Score's: the two tasks' errors combined (easy's is 0)
    pooled = bootstrap([(a, 1.0) for a, _ in easy + hard_m]).stderr
    assert m.stderr["Quiz Acc"] == pooled > 0
    hard_se = bootstrap([(s, 1.0) for _, s in hard_m]).stderr
    assert m.stderr["Quiz Score"] == pytest.approx(hard_se / 2) and hard_se > 0
    # paired: Acc on the six hard documents both answered (3/6 - 2/6); Score is no pooled
    # mean, so it has no paired difference
    (pair,) = leaderboard.pairwise(board)
    assert (pair.column, pair.difference.n) == ("Quiz Acc", 6)
    assert pair.difference.diff == pytest.approx(1 / 6)

    leaderboard.write(board, tmp_path / "out")
    markdown = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "## Quiz\n\n| model | questions | Acc | Score |" in markdown
    assert f"| m | 8 | 0.6250 ± {pooled:.4f} | 0.3750 ± {hard_se / 2:.4f} |" in markdown
    assert (
        "`m`: no `quiz` group results; Quiz values are the means (weighted as the group's "
        "aggregate_metric_list says) over `quiz_easy`, `quiz_hard`." in markdown
    )
    assert "- `Quiz Acc / Score`: the `quiz` group's values; without the group" in markdown
    rows = {r["model"]: r for r in read_csv(tmp_path / "out" / "leaderboard.csv")}
    assert (rows["m"]["Quiz Acc"], rows["n"]["Quiz questions"]) == ("0.625", "6")


def test_a_broken_group_yaml_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Splits without their group need the group YAML's rules: a YAML lm-eval could not
    read either is a one-line error naming the file, not a traceback."""
    broken = QUIZ_GROUP.replace("weight_by_size: false", "weight_by_size: false\n    scale: 2")
    register_quiz(tmp_path, monkeypatch, "lb_quiz_broken", broken)
    _quiz_job(tmp_path / "sweep", "m", {"quiz_hard": [(1.0, 1.0)]})
    with pytest.raises(SystemExit) as exc:
        leaderboard.main([str(tmp_path / "sweep")])
    assert exc.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("sci-leaderboard: error: group 'quiz': ")
    assert str(tmp_path / "quiz_tasks" / "quiz.yaml") in line and "scale" in line
