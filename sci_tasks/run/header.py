"""The lines sci-eval prints around a run: the header before generation, the limit line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sci_tasks.run.preflight import Preflight, run_device, shown_url


def limit_line(limit: Any) -> str:
    if limit is None:
        return ""
    share = (
        f"{float(limit):.0%} of each task's samples"
        if isinstance(limit, float) and limit < 1
        else f"at most {limit:g} sample(s) per task"
        if isinstance(limit, float)
        else f"at most {limit} sample(s) per task"
    )
    return f"limit={limit}: NOT a full run ({share})"


def judge_line(config: dict[str, Any], judge: Any) -> str:
    if judge is None:
        return (
            "none: judge-scored constraints and `correct` are reported unscored "
            "(judge=local_api judge.model=... judge.base_url=..., or sci-score later)"
        )
    name = config["judge"].get("name") or judge.model
    return f"{name} ({judge.model} at {shown_url(judge.base_url)})"


def header(config: dict[str, Any], checked: Preflight, folder: Path) -> str:
    """The run header printed before generation."""
    model = config["model"]
    args = model.get("args") or {}
    if args.get("base_url"):
        what = f"{args.get('model')} at {shown_url(str(args['base_url']))}"
    else:
        what = f"pretrained={args.get('pretrained')}"
    device = f" on {run_device(model)}" if run_device(model) else ""
    lines = [
        f"sci-eval run -> {folder}",
        f"  model:   {model.get('name')} ({what})",
        f"  backend: {model.get('backend')}{device}",
        f"  tasks:   {config['tasks'].get('name')}: {', '.join(config['tasks']['names'])}",
        *[f"  data:    {who}: {source}" for who, source in checked.sources.items()],
        f"  limit:   {limit_line(config.get('limit')) or 'none (every sample)'}",
        f"  judge:   {judge_line(config, checked.judge)}",
    ]
    jury = checked.roles.get("constraints")  # a constraints jury (judges.constraints.jury)
    if jury is not None:
        jurors = ", ".join(f"{j.model} at {shown_url(j.base_url)}" for j in jury.jurors)
        lines[-1] = f"  judge:   constraints jury ({jury.combine}: {jurors})"
    for role, given in checked.roles.items():  # SciGen's roles' juries (judges.<role>.jury)
        if role != "constraints" and getattr(given, "jurors", None):
            jurors = ", ".join(f"{j.model} at {shown_url(j.base_url)}" for j in given.jurors)
            lines.append(f"  jury:    {role} ({given.combine}: {jurors})")
    if checked.correctness is not None:
        lines.append(f"  correct: {correctness_line(checked.correctness)}")
    return "\n".join(lines)


def correctness_line(correctness: Any) -> str:
    """Who grades SciMIF's ``correct`` when the correctness judge is a role of its own."""
    judge, jury = correctness.judge, correctness.jury
    if jury is not None:
        jurors = ", ".join(f"{j.model} at {shown_url(j.base_url)}" for j in jury.jurors)
        return f"{correctness.protocol} (jury, {jury.combine}: {jurors})"
    where = f"{judge.model} at {shown_url(judge.base_url)}" if judge else "the judge's server"
    return f"{correctness.protocol} ({where})"
