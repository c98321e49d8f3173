"""Every JSON file the project writes parses with a strict parser (issue 20's "Must show").

One real small sweep against a scripted loopback model (two models, two samples each, no
judge: ``correct`` and the judged checks have no value, which Python's
json would write as ``NaN``), then every command that writes files on it: sci-score,
sci-report, sci-leaderboard, sci-view, and sci-lm-eval's own run. Every ``*.json`` and
``*.jsonl`` under the test's folder is then parsed with ``parse_constant`` refusing
``NaN`` / ``Infinity``."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from .helpers import console_script, loopback_env, ok
from .misbehaving import completion, scripted_server


def command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script(args[0]), *args[1:]], capture_output=True, text=True, cwd=tmp_path,
        env=loopback_env(tmp_path), timeout=900,
    )  # fmt: skip


def refuse(constant: str) -> Any:
    raise ValueError(f"not strict JSON: {constant}")


def strict_documents(path: Path) -> list[Any]:
    """The JSON values of a file (one per line for JSON Lines), parsed strictly."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line, parse_constant=refuse) for line in text.splitlines() if line]
    return [json.loads(text, parse_constant=refuse)]


def nulls(value: Any) -> int:
    if value is None:
        return 1
    if isinstance(value, dict):
        return sum(nulls(v) for v in value.values())
    if isinstance(value, list):
        return sum(nulls(v) for v in value)
    return 0


def test_every_json_file_the_commands_write_parses_strictly(tmp_path: Path) -> None:
    with scripted_server(lambda _: (200, "application/json", completion("Final answer: 4"))) as m:
        ok(command(
            tmp_path, "sci-eval", "-m", "model=local_api", "model.args.model=scripted",
            f"model.args.base_url={m.chat_url}", "model.args.num_concurrent=1",
            "model.args.max_retries=1", "use_cache=false", "model.name=alpha,beta",
            "tasks=scimif_chem", "limit=2", "sweep_name=s",
        ))  # fmt: skip
        ok(command(
            tmp_path, "sci-lm-eval", "run", "--model", "local-chat-completions",
            "--model_args", f"model=scripted,base_url={m.chat_url},num_concurrent=1,max_retries=1",
            "--tasks", "scimif_chem", "--limit", "2", "--apply_chat_template",
            "--log_samples", "--output_path", str(tmp_path / "lm-eval-out"),
        ))  # fmt: skip
    sweep = tmp_path / "sci-eval-sweeps" / "s"
    jobs = sorted(p for p in sweep.iterdir() if (p / "manifest.json").is_file())
    assert len(jobs) == 2
    ok(command(tmp_path, "sci-score", str(jobs[0])))
    ok(command(tmp_path, "sci-report", str(jobs[0])))
    ok(command(tmp_path, "sci-leaderboard", str(sweep)))
    ok(command(tmp_path, "sci-view", str(sweep)))

    written = sorted(p for p in tmp_path.rglob("*") if p.suffix in (".json", ".jsonl"))
    kinds: Counter[str] = Counter()
    nulls_seen = 0
    for path in written:
        documents = strict_documents(path)  # raises on NaN / Infinity, naming the constant
        nulls_seen += sum(nulls(d) for d in documents)
        rel = path.relative_to(tmp_path).parts
        kind = next((part for part in ("scores", "report", "leaderboard") if part in rel), "")
        kinds[kind or ("lm-eval-out" if rel[0] == "lm-eval-out" else path.name.split("_")[0])] += 1
    # each command's JSON was there to check: sci-eval's results, samples and manifests,
    # sci-score's re-scored results and samples, sci-lm-eval's run (the reports, the
    # leaderboard and sci-view write Markdown, CSV, PNG and HTML today: any JSON they
    # write is in the walk)
    assert kinds["results"] == 2 and kinds["samples"] == 2 and kinds["manifest.json"] == 2
    assert kinds["scores"] >= 2 and kinds["lm-eval-out"] >= 2
    for folder in (jobs[0] / "scores", tmp_path / "lm-eval-out"):
        assert next(folder.rglob("results_*.json")) and next(folder.rglob("samples_*.jsonl"))
    assert any((jobs[0] / "report").iterdir()) and (sweep / "leaderboard").is_dir()
    assert nulls_seen > 0  # the values without a number were there, written as null
