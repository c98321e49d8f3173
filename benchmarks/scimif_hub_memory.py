"""SciMIF hub-layout loading: memory and time for 2,527 records (the benchmark's size, in its
discipline proportions; geography, material and physics samples carry one photo-sized JPEG
each, chemistry and biology are text only), read from a local folder in the hub layout.

Builds the folder (parquet + README naming the ``test`` split) in a temporary directory,
then loads every discipline in a fresh interpreter and prints its peak resident memory
next to what holding every decoded image at once would take. The image cache goes to the
temporary directory too.

    python benchmarks/scimif_hub_memory.py [--size 1024x768]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COUNTS = {"chemistry": 518, "geography": 523, "biology": 493, "material": 497, "physics": 496}
MULTIMODAL = {"geography", "material", "physics"}


def build(folder: Path, width: int, height: int) -> int:
    """Write the folder in parquet shards of 200 rows; returns the number of images."""
    import datasets
    import numpy as np
    from PIL import Image

    features = datasets.Features(
        {
            "sample_id": datasets.Value("string"),
            "id": datasets.Value("int64"),
            "subject": datasets.Value("string"),
            "task": datasets.Value("string"),
            "edit_question": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "instruction_list": datasets.List(
                {"instruction_name": datasets.Value("string"), "source": datasets.Value("string")}
            ),
            "image": datasets.List(datasets.Image()),
            "image_path": datasets.List(datasets.Value("string")),
        }
    )
    datasets.disable_progress_bars()
    rng = np.random.default_rng(0)
    gradient = np.linspace(0, 255, width, dtype=np.float32)[None, :, None]
    rows = [(d, i) for d, n in COUNTS.items() for i in range(n)]
    (folder / "data").mkdir(parents=True)
    n_images = 0
    for shard, start in enumerate(range(0, len(rows), 200)):
        batch: dict[str, list[object]] = {key: [] for key in features}
        for discipline, i in rows[start : start + 200]:
            images, paths = [], []
            if discipline in MULTIMODAL:  # a distinct photo-like picture per sample
                noise = rng.normal(0, 12, (height, width, 3)).astype(np.float32)
                pixels = np.clip(gradient + noise + i % 50, 0, 255).astype(np.uint8)
                buffer = io.BytesIO()
                Image.fromarray(pixels, "RGB").save(buffer, format="JPEG", quality=85)
                images = [{"bytes": buffer.getvalue(), "path": f"{i}.jpg"}]
                paths = [f"images/{discipline}/Bench/images/{i}.jpg"]
                n_images += 1
            batch["sample_id"].append(f"{discipline}_{i}")
            batch["id"].append(i)
            batch["subject"].append(
                {"biology": "life", "material": "materials"}.get(discipline, discipline)
            )
            batch["task"].append("formated_reasoning_steps")
            batch["edit_question"].append(f"Question {i}? Answer in lowercase.")
            batch["answer"].append(None)
            batch["instruction_list"].append(
                [{"instruction_name": "general_all_lowercase", "source": "added_general"}]
            )
            batch["image"].append(images)
            batch["image_path"].append(paths)
        datasets.Dataset.from_dict(batch, features=features).to_parquet(
            str(folder / "data" / f"test-{shard:05d}-of-99999.parquet")
        )
    from sci_tasks.benchmarks.scimif.loader import HUB_CARD

    (folder / "README.md").write_text(HUB_CARD, encoding="utf-8")
    return n_images


def load(folder: Path) -> None:
    """Child: load every discipline, print JSON figures."""
    import datasets

    datasets.disable_progress_bars()
    from sci_tasks.benchmarks.scimif import loader as scimif
    from sci_tasks.data.locate import locate

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    location = locate("scimif", {"SCIMIF_DATA_DIR": str(folder)})
    n = sum(len(scimif.load(d, location)) for d in scimif.FILES)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {"records": n, "seconds": seconds, "rss_before_kib": before, "rss_peak_kib": peak}
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="1024x768", help="image size WxH (default 1024x768)")
    parser.add_argument("--child-load", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_load:
        load(Path(args.child_load))
        return
    width, height = (int(v) for v in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "hub"
        n_images = build(folder, width, height)
        on_disk = sum(p.stat().st_size for p in (folder / "data").iterdir())
        env = {**os.environ, "SCI_TASKS_CACHE": str(Path(tmp) / "cache"),
               "HF_DATASETS_CACHE": str(Path(tmp) / "hf")}  # fmt: skip
        done = subprocess.run(
            [sys.executable, __file__, "--child-load", str(folder)],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        cached = sum(p.stat().st_size for p in (Path(tmp) / "cache").rglob("*") if p.is_file())
    decoded_all = n_images * width * height * 3
    mib = 1024 * 1024
    print(f"records loaded          {figures['records']} ({n_images} images of {width}x{height})")
    print(f"parquet on disk         {on_disk / mib:.0f} MiB")
    print(f"image cache written     {cached / mib:.0f} MiB")
    print(f"load time               {figures['seconds']:.1f} s (first load, cold caches)")
    print(
        f"peak RSS of the loader  {figures['rss_peak_kib'] / 1024:.0f} MiB "
        f"({figures['rss_before_kib'] / 1024:.0f} MiB after imports)"
    )
    print(f"all images decoded      {decoded_all / mib:.0f} MiB (RGB), never held at once")


if __name__ == "__main__":
    main()
