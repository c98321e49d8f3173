"""Write the 22 SciMIF task-type configs (``sci_tasks/benchmarks/scimif/tasks/task_types/*.yaml``).

One config per (discipline, task type) of the loader's declared list
(``sci_tasks.benchmarks.scimif.loader.TASK_TYPES``,
task names from its ``SHORT`` codes), each including
``../_scimif_template_yaml`` (and the image hook for the multimodal disciplines), as
upstream lm-eval's ``_generate_configs.py`` scripts do.
A test checks that the committed files are exactly what this script writes.

Run from the repository root::

    python scripts/generate_scimif_task_types.py          # (re)write the files
    python scripts/generate_scimif_task_types.py --check  # exit 1 if any file differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sci_tasks.benchmarks.scimif import SHORT
from sci_tasks.benchmarks.scimif.loader import TASK_TYPES

# The disciplines whose samples carry images (the SciMIF paper's task table): their
# configs hand the images to the model.
MULTIMODAL = ("geography", "material", "physics")
FOLDER = (
    Path(__file__).resolve().parents[1]
    / "sci_tasks"
    / "benchmarks"
    / "scimif"
    / "tasks"
    / "task_types"
)


def task_name(discipline: str, task_type: str) -> str:
    return f"scimif_{SHORT[discipline]}_{task_type}"


def render(discipline: str, task_type: str) -> str:
    return (
        f"task: {task_name(discipline, task_type)}\n"
        f"task_alias: SciMIF {discipline} / {task_type}\n"
        "tag: scimif_task_types\n"
        "include: ../_scimif_template_yaml\n"
        "dataset_kwargs:\n"
        f"  discipline: {discipline}\n"
        f"  task_type: {task_type}\n"
    ) + (
        "doc_to_image: !function sci_tasks.benchmarks.scimif.hooks.doc_to_image\n"
        if discipline in MULTIMODAL
        else ""
    )


def configs() -> dict[str, str]:
    """File name -> content, for every declared task type."""
    return {
        f"{task_name(d, t)}.yaml": render(d, t) for d, types in TASK_TYPES.items() for t in types
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)
    wanted = configs()
    stale = sorted(p.name for p in FOLDER.glob("*.yaml") if p.name not in wanted)
    differ = [n for n, text in wanted.items() if not (FOLDER / n).is_file()
              or (FOLDER / n).read_text(encoding="utf-8") != text]  # fmt: skip
    if args.check:
        for name in differ + stale:
            print(f"{FOLDER / name}: differs from what {Path(__file__).name} writes")
        return 1 if differ or stale else 0
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name in stale:
        (FOLDER / name).unlink()
    for name in differ:
        (FOLDER / name).write_text(wanted[name], encoding="utf-8")
    print(f"{len(wanted)} task-type configs in {FOLDER} ({len(differ)} written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
