"""OmegaConf resolvers used by the packaged configs; registered on import."""

from __future__ import annotations

import hashlib
import os
import re
import time
from typing import Any

from omegaconf import OmegaConf

from sci_tasks.models import gguf_model, package_dir


def safe_name(label: str, limit: int = 120) -> str:
    """One path component for a label: hub ids ('Qwen/Qwen2.5-7B') and override lists
    ('model=hf,tasks=x') become 'Qwen__Qwen2.5-7B' and 'model=hf,tasks=x'; long labels are
    shortened with a hash so different labels never collide."""
    name = re.sub(r"[^A-Za-z0-9._=,+-]+", "__", str(label)).strip("_.") or "default"
    if len(name) > limit:
        name = f"{name[: limit - 13]}-{hashlib.sha256(label.encode()).hexdigest()[:12]}"
    return name


def job_name(model: str, tasks: str, overrides: str) -> str:
    """A sweep job's folder: '<model>__<task set>__<overrides, readable>--<hash of all its
    overrides>' (e.g. 'smollm2__scimif_text__max_gen_toks=64--1a2b3c4d'), unique within the
    sweep through the hash and the same on every re-run (so finished jobs are found). Without
    a readable override the label and its '--' are left out."""
    digest = hashlib.sha256(str(overrides).encode()).hexdigest()[:8]
    label = overrides_label(str(overrides), str(model))
    tail = f"{label}--{digest}" if label else digest
    return f"{safe_name(model, 80)}__{safe_name(tasks, 60)}__{tail}"


# an override list as Hydra's ``override_dirname`` writes it: key=value items joined by ","
# (a value may hold commas too: a new item starts only where a key and "=" follow)
_ITEM = re.compile(r",(?=[+~]?[A-Za-z_][\w.@/-]*=)")


def overrides_label(overrides: str, model: str, limit: int = 48) -> str:
    """A short readable form of a job's overrides for its folder name: each key by its last
    part ('model.gen_kwargs.max_gen_toks=64' -> 'max_gen_toks=64'); the task set (named
    already), values equal to the model name, URLs, interpolations and absolute paths
    (unreadable in a name; the hash still tells such jobs apart) left out; never two
    underscores in a row, so the '__' between the parts of the name stays unambiguous."""
    parts = []
    for item in _ITEM.split(overrides) if overrides else []:
        key, sep, value = item.partition("=")
        value = value.strip("'\"")
        if not sep or key.lstrip("+~") == "tasks" or value == model:
            continue
        if "://" in value or "${" in value or value.startswith(("/", "~")):
            continue
        parts.append(f"{key.lstrip('+~').rsplit('.', 1)[-1]}={value}")
    label = re.sub(r"[^A-Za-z0-9_.=,+-]+", "-", ",".join(parts))
    label = re.sub(r"_{2,}", "_", re.sub(r"-{2,}", "-", label)).strip("-_.,")
    return label[:limit].rstrip("-_.,")


def busy_cores(window: float = 0.5) -> float:
    """How many cores other processes keep busy now: the non-idle share of all CPU time in
    /proc/stat over ``window`` seconds, times the number of CPUs. The 1-minute load average
    lags by up to a minute in both directions (a job started a second ago shows as ~0; one
    that just ended still counts), so it is only the fallback where /proc/stat is missing."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(v) for v in fh.readline().split()[1:9]]
        return fields[3] + fields[4], sum(fields)  # (idle + iowait, total) in clock ticks

    try:
        idle_0, total_0 = sample()
        time.sleep(window)
        idle_1, total_1 = sample()
    except (OSError, ValueError, IndexError):
        return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if total_1 <= total_0:
        return 0.0
    return (1 - (idle_1 - idle_0) / (total_1 - total_0)) * (os.cpu_count() or 1)


def free_cores() -> str:
    """Torch threads for a CPU run: the cores this process may use minus the ones other
    processes keep busy right now (``busy_cores``), at least 1.

    Measured on 2 cores (README): with a second process busy, two threads ran SmolLM2's
    generation about 10x slower than one (each of the thousands of parallel regions per
    token waits for the descheduled thread), while on idle cores two threads are the
    fastest. A user's own OMP_NUM_THREADS wins (the model config's env is a default)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    return str(max(1, min(cores, round(cores - busy_cores()))))


def name_or_unset(key: str, *, _root_: Any) -> str:
    """The config value at ``key`` (``model.name``, ``judge.name``) for a run or sweep
    folder name, ``unset`` while an option it is made of is missing (``model=local_api``
    without ``model.args.model``): Hydra resolves the folder before the job starts, and the
    job then names the missing option in one line."""
    from omegaconf.errors import InterpolationResolutionError, MissingMandatoryValue

    try:
        value = OmegaConf.select(_root_, key, throw_on_missing=True)
    except (MissingMandatoryValue, InterpolationResolutionError):
        return "unset"
    return "" if value is None else str(value)


OmegaConf.register_new_resolver("sci_pkg_dir", package_dir, replace=True)
OmegaConf.register_new_resolver("sci_name_or_unset", name_or_unset, replace=True)
OmegaConf.register_new_resolver("sci_job_name", job_name, replace=True)
OmegaConf.register_new_resolver("sci_safe_name", safe_name, replace=True)
OmegaConf.register_new_resolver("sci_gguf_model", gguf_model, replace=True, use_cache=True)
OmegaConf.register_new_resolver("sci_free_cores", free_cores, replace=True, use_cache=True)


def tiny_vlm(package: str, gguf_file: str, cache_root: str) -> str:
    """``model=tiny_vlm_cpu``'s folder, built once (``sci_tasks.tiny_vlm``; torch on demand)."""
    from sci_tasks.tiny_vlm import tiny_vlm as build

    return build(package, gguf_file, cache_root)


OmegaConf.register_new_resolver("sci_tiny_vlm", tiny_vlm, replace=True, use_cache=True)
