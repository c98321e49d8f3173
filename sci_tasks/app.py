"""``sci-eval``: the Hydra app that composes a model backend with a task set and runs lm-eval.

    sci-eval                                   # embedded default: SmolLM2 on CPU, bundled samples
    sci-eval tasks=scimif_chem limit=3
    sci-eval model=hf model.args.pretrained=Qwen/Qwen2.5-0.5B-Instruct
    sci-eval -m model=smollm2_cpu,local_api tasks=scimif_chem,scimif_bio   # cross product
    sci-eval --replay sci-eval-runs/<run>                                  # same run again

Results land in the run folder exactly as lm-eval's CLI writes them
(``<model>/results_*.json`` and ``samples_<task>_*.jsonl``), next to Hydra's ``.hydra/``
config snapshot and ``manifest.json``, and a results table is printed. A sweep's job
folders are named by their overrides; re-running a sweep skips a finished job only when its
inputs are unchanged (``manifest.place``), and a multirun ends with each job's outcome.

No job error ends a sweep: a failed job's manifest says ``failed`` with the one-line error
(the traceback goes to ``traceback.txt`` in its folder), the other jobs run, and the
command exits non-zero at the end. Hydra's own snapshot writing is off
(``hydra.output_subdir: null``): the job writes ``.hydra/`` itself once it knows its folder,
so a job re-run into a fresh folder never overwrites the snapshot of finished results.

Before any model is loaded, ``preflight`` checks what a run needs and prints a header
(model, backend, data source per benchmark, limit, judge): the config has no missing option,
every selected task's data loads (the task objects are built first and handed to lm-eval,
so every data file and image is read once, before the model), the judge settings are valid,
and the model and judge servers accept connections. A problem ends the run in one line
naming the file, option or URL; ``--verbose`` or ``HYDRA_FULL_ERROR=1`` adds the traceback.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import os
import shutil
import signal
import socket
import sqlite3
import sys
import traceback
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

import sci_tasks
from sci_tasks import manifest
from sci_tasks.metrics.judge import usage as judge_usage
from sci_tasks.resolvers import safe_name
from sci_tasks.score import correctness_judge_config, judge_config
from sci_tasks.text import make_safe_in_place

log = logging.getLogger("sci_tasks.app")


def plain(node: Any) -> dict[str, Any]:
    """A config mapping as a plain dict (an absent node is empty)."""
    if node is None:
        return {}
    data = OmegaConf.to_container(node, resolve=True)
    assert isinstance(data, dict)
    return {str(k): v for k, v in data.items()}


def run_metadata(cfg: DictConfig) -> dict[str, Any]:
    """Per-run data locations for the tasks (lm-eval ``metadata``); unset ones are left out."""
    return {k: v for k, v in plain(cfg.get("data")).items() if v not in (None, "")}


def is_ours(task: str) -> bool:
    """A task, group or tag defined in the sci-tasks task folder."""
    return str(task) in our_task_names()


@functools.cache
def our_task_names() -> frozenset[str]:
    from lm_eval.tasks import TaskManager

    return frozenset(
        TaskManager(include_path=sci_tasks.include_path(), include_defaults=False).all_tasks
    )


def response_cache(cfg: DictConfig) -> str | None:
    """lm-eval's response cache for this model: one path per model and model arguments, so
    models never share answers and a killed run reuses the responses it already has."""
    if not cfg.get("use_cache", False):
        return None
    model = cfg.model
    identity = json.dumps([model.backend, plain(model.args)], sort_keys=True, default=str)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
    folder = Path(str(cfg.cache_dir)).expanduser() / "responses" / safe_name(str(model.name))
    folder.mkdir(parents=True, exist_ok=True)
    for db in folder.glob(f"{digest}_rank*.db"):  # lm-eval's file name: <path>_rank<N>.db
        set_aside_if_corrupt(db)
    return str(folder / digest)


def set_aside_if_corrupt(db: Path) -> Path | None:
    """Move a response cache that sqlite cannot read out of the way (every later run would
    fail on it); the responses are generated again. Returns where it went."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            check = con.execute("PRAGMA quick_check").fetchone()
        if check and check[0] == "ok":
            return None
        problem = str(check[0] if check else "no answer to a check")
    except sqlite3.DatabaseError as exc:
        problem = str(exc)
    aside = db.with_name(f"{db.name}.corrupt-{datetime.now():%Y%m%d-%H%M%S}")
    db.replace(aside)
    log.warning(
        "response cache %s is not a usable sqlite database (%s): moved aside to %s; "
        "its responses are generated again",
        db,
        problem,
        aside.name,
    )
    return aside


def lm_eval_arguments(cfg: DictConfig) -> dict[str, Any]:
    """The keyword arguments of ``lm_eval.simple_evaluate`` this config composes (no task
    manager, tracker or judge: those are live objects)."""
    model = cfg.model
    seed = int(cfg.seed)
    return {
        "model": str(model.backend),
        "model_args": plain(model.args),
        "tasks": [str(t) for t in cfg.tasks.names],
        "batch_size": model.get("batch_size", 1),
        "max_batch_size": model.get("max_batch_size"),  # the bound of batch_size=auto
        "device": run_device(model),
        "limit": cfg.get("limit"),
        "gen_kwargs": plain(model.get("gen_kwargs")) or None,
        "apply_chat_template": bool(model.get("apply_chat_template", False)),
        "log_samples": bool(cfg.log_samples),
        "bootstrap_iters": int(cfg.get("bootstrap_iters", 0)),
        "use_cache": response_cache(cfg),
        "random_seed": seed,
        "numpy_random_seed": seed,
        "torch_random_seed": seed,
        "fewshot_random_seed": seed,
    }


def export_model_env(cfg: DictConfig) -> None:
    model = cfg.model
    for key, value in (model.get("env") or {}).items():
        os.environ.setdefault(str(key), str(value))
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if "torch" in sys.modules and threads.isdigit() and int(threads) > 0:
        # torch read OMP_NUM_THREADS when it was imported (building the tasks imports it):
        # apply the chosen thread count now, or it keeps one thread per core
        sys.modules["torch"].set_num_threads(int(threads))
    key_env = model.get("api_key_env")
    if key_env and key_env != "OPENAI_API_KEY" and key_env in os.environ:
        # lm-eval's API backends read OPENAI_API_KEY; the key itself never enters the config
        os.environ["OPENAI_API_KEY"] = os.environ[key_env]


# --- before the model: validation and the run header -------------------------------------

VERBOSE_ENV = "SCI_EVAL_VERBOSE"  # set by `sci-eval --verbose` (jobs may be other processes)
# lm-eval backends that talk to a server at model.args.base_url
SERVER_HINT = "vllm serve {model}, llama.cpp's llama-server -m MODEL.gguf, or llm-katan"


def verbose() -> bool:
    """Tracebacks on the console too (they always go to the job's traceback.txt)."""
    return os.environ.get("HYDRA_FULL_ERROR") == "1" or os.environ.get(VERBOSE_ENV) == "1"


class ConfigError(ValueError):
    """A config option that cannot be used, named with the config file it comes from."""


class ServerUnreachable(ConnectionError):
    """A model or judge server that does not accept a connection."""


def missing_options(cfg: DictConfig) -> list[str]:
    """Mandatory options left unset (``???``), found without resolving anything (resolving
    would report the first interpolation that uses one, e.g. ``model.name``)."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")
        elif node == "???":
            found.append(path)

    walk(OmegaConf.to_container(cfg, resolve=False, throw_on_missing=False), "")
    return found


def config_file(option: str, choices: dict[str, Any]) -> str:
    """The packaged config file an option comes from, e.g. ``model/local_api.yaml``."""
    group = option.split(".", 1)[0]
    choice = choices.get(group)
    return f"{group}/{choice}.yaml" if choice else "config.yaml"


def resolved_config(cfg: DictConfig, choices: dict[str, Any]) -> dict[str, Any]:
    """The whole config resolved; a missing or unresolvable option is a ConfigError."""
    missing = missing_options(cfg)
    if missing:
        first = missing[0]
        more = f" (also unset: {', '.join(missing[1:])})" if len(missing) > 1 else ""
        raise ConfigError(
            f"{first} is not set (required by {config_file(first, choices)}): "
            f"add {first}=VALUE to the command{more}"
        )
    try:
        return plain(cfg)
    except Exception as exc:  # OmegaConf errors and the errors of our resolvers
        key = getattr(exc, "full_key", None) or "?"
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(
            f"config option {key} ({config_file(key, choices)}): {first_line}"
        ) from exc


def limit_problem(limit: Any) -> str | None:
    """Why ``limit`` cannot be used (lm-eval takes a count >= 1 or a fraction in (0, 1));
    None when it can. lm-eval would fail only after the contexts are built."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit != limit:
        return f"{limit!r} is not a number"
    if limit <= 0:
        return f"{limit!r} is not positive (a sample count >= 1, or a fraction such as 0.1)"
    if isinstance(limit, float) and limit >= 1 and not limit.is_integer():
        return f"{limit!r} is neither a whole sample count nor a fraction below 1"
    return None


def check_limit(config: dict[str, Any]) -> None:
    problem = limit_problem(config.get("limit"))
    if problem:
        raise ConfigError(f"limit={config.get('limit')} (config.yaml): {problem}")


LOCAL_BACKENDS = ("hf", "hf-multimodal")  # lm-eval backends that load weights in-process


def run_device(model: Any) -> str | None:
    """The device the model runs on: ``model.device``, else for an in-process backend cuda
    when a GPU is present and cpu otherwise (lm-eval's hf backend assumes cuda)."""
    device = model.get("device")
    if device is None and str(model.get("backend")) in LOCAL_BACKENDS:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    return None if device is None else str(device)


def check_model_config(config: dict[str, Any], choices: dict[str, Any]) -> None:
    from lm_eval.api.registry import get_model

    model = config["model"]
    backend = str(model.get("backend"))
    where = config_file("model", choices)
    batch = str(model.get("batch_size"))
    if batch.startswith("auto") and run_device(model) == "cpu":
        # lm-eval's search doubles the batch until memory runs out: on a CPU that is all of
        # RAM, and minutes of swapping before the first answer
        raise ConfigError(
            f"model.batch_size={batch} ({where}) on cpu: lm-eval's search for the largest "
            "batch is for GPUs; give a number, e.g. model.batch_size=8"
        )
    try:
        get_model(backend)
    except ValueError:
        raise ConfigError(
            f"model.backend={backend!r} ({where}) is not an lm-eval model backend "
            "(e.g. hf, vllm, vllm-vlm, local-chat-completions, openai-chat-completions)"
        ) from None
    except ImportError as exc:  # lm-eval imports the backend's package on lookup (vllm)
        raise ConfigError(
            f"model.backend={backend!r} ({where}) needs the package {exc.name or exc}: "
            "pip install 'sci-tasks[vllm]' on a GPU machine, or choose another model"
        ) from None
    url = (model.get("args") or {}).get("base_url")
    if url is not None:
        parts = urlsplit(str(url))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"model.args.base_url={url!r} ({where}) is not an http(s) URL")


def shown_url(url: str) -> str:
    """A URL for the console: any user:password part left out."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def reach(url: str, who: str, option: str, served: str, timeout: float = 10.0) -> None:
    """One TCP connection to ``url``'s host and port (what every request needs first)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except TimeoutError:
        why = f"no answer within {timeout:g} s"
    except socket.gaierror:
        why = f"host name {host!r} not found"
    except ConnectionRefusedError:
        why = "connection refused"
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
    raise ServerUnreachable(unreachable(who, url, why, option, served))


def unreachable(who: str, url: str, why: str, option: str, served: str) -> str:
    host = urlsplit(url).hostname or ""
    todo = (
        f"start it ({SERVER_HINT.format(model=served or 'MODEL')}) or set {option}"
        if is_loopback(host)
        else f"check the URL, the network and the service, or set {option}"
    )
    return f"cannot reach the {who} at {shown_url(url)} ({why}): {todo}"


@dataclass
class Preflight:
    """What ``preflight`` checked and built: lm-eval's task objects (data already loaded),
    the task manager that built them, and the data source of each benchmark."""

    tasks: list[Any]
    task_manager: Any
    sources: dict[str, str]
    judge: Any
    correctness: Any = None  # the correctness judge role (None: the judge grades correctness)


def preflight(cfg: DictConfig, config: dict[str, Any], choices: dict[str, Any]) -> Preflight:
    """Everything a run needs, checked before the model is loaded (see the module text)."""
    check_model_config(config, choices)
    try:
        judge = judge_config(cfg)
    except ValueError as exc:
        raise ConfigError(f"judge ({config_file('judge', choices)}): {exc}") from None
    try:
        correctness = correctness_judge_config(cfg)
    except ValueError as exc:
        where = config_file("correctness_judge", choices)
        raise ConfigError(f"correctness_judge ({where}): {exc}") from None
    names = [str(t) for t in cfg.tasks.names]
    manager = sci_tasks.task_manager(
        # the judges reach scoring in the tasks' documents, as --metadata's would
        metadata={
            **run_metadata(cfg),
            "judge": judge.public() if judge else None,
            "correctness_judge": correctness.settings() if correctness else None,
        },
        # indexing lm-eval's own thousands of task files takes seconds: only when needed
        include_defaults=not all(is_ours(t) for t in names),
    )
    try:
        loaded = manager.load(names)  # builds every task: reads its data files and images
    except KeyError as exc:
        raise ConfigError(
            f"tasks.names ({config_file('tasks', choices)}): {exc.args[0] if exc.args else exc}"
        ) from None
    check_images(loaded["tasks"], config, choices)
    children = {c for kids in loaded["group_map"].values() for c in kids}
    top = [
        obj for name, obj in {**loaded["groups"], **loaded["tasks"]}.items() if name not in children
    ]
    return Preflight(top, manager, data_sources(loaded["tasks"], cfg), judge, correctness)


def check_images(tasks: dict[str, Any], config: dict[str, Any], choices: dict[str, Any]) -> None:
    """Image tasks need an image-capable backend: say so now, not after the model loaded
    (lm-eval refuses the pairing only once the model is in memory)."""
    from lm_eval.api.registry import get_model

    backend = str(config["model"].get("backend"))
    image_tasks = sorted(n for n, t in tasks.items() if getattr(t, "MULTIMODAL", False))
    if image_tasks and not getattr(get_model(backend), "MULTIMODAL", False):
        shown = ", ".join(image_tasks[:3]) + (" ..." if len(image_tasks) > 3 else "")
        raise ConfigError(
            f"tasks {shown} ({config_file('tasks', choices)}) need images, but model.backend="
            f"{backend!r} ({config_file('model', choices)}) is text-only: use hf-multimodal, "
            "vllm-vlm or a chat-completions backend with max_images, or a text task set "
            "(tasks=scimif_text)"
        )


def data_sources(tasks: dict[str, Any], cfg: DictConfig) -> dict[str, str]:
    """Per benchmark (or lm-eval task that is not ours): where its data came from."""
    from sci_tasks import benchmarks
    from sci_tasks.data.locate import locate

    sources: dict[str, str] = {}
    others = []
    for name in sorted(tasks):
        benchmark = benchmarks.of_task(name)
        if benchmark is not None:
            sources.setdefault(benchmark.name, locate(benchmark.name, run_metadata(cfg)).describe())
        else:
            others.append(name)
    if others:
        sources[", ".join(others)] = "lm-eval's own task data (dataset_path in its YAML)"
    return sources


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
    if checked.correctness is not None:
        lines.append(f"  correct: {correctness_line(checked.correctness)}")
    return "\n".join(lines)


def correctness_line(correctness: Any) -> str:
    """Who grades SciMIF's ``correct`` when the correctness judge is a role of its own."""
    judge = correctness.judge
    where = f"{judge.model} at {shown_url(judge.base_url)}" if judge else "the judge's server"
    return f"{correctness.protocol} ({where})"


def check_servers(config: dict[str, Any], judge: Any) -> None:
    """The model and judge servers accept connections (before the model is set up)."""
    args = config["model"].get("args") or {}
    if args.get("base_url"):
        reach(str(args["base_url"]), "model server", "model.args.base_url", str(args.get("model")))
    check_judge(judge)


def check_judge(judge: Any) -> None:
    """The judge's pre-flight: a remote server has its key in the variable ``api_key_env``
    names (local servers such as vllm serve take any key), and its server accepts a
    connection. ``sci-eval``, ``sci-score`` and ``sci-lm-eval`` run it before any work."""
    if judge is None:
        return
    host = urlsplit(str(judge.base_url)).hostname or ""
    if not is_loopback(host) and not os.environ.get(judge.api_key_env):
        raise ConfigError(
            f"judge.api_key_env: {judge.api_key_env} is not set (the key for "
            f"{shown_url(str(judge.base_url))}); export it or name another variable"
        )
    reach(str(judge.base_url), "judge server", "judge.base_url (or judge=none)", judge.model)


def judge_preflight(judge: Any, correctness: Any = None) -> None:
    """Every judge a command will ask, checked before any work (``check_judge``, and the
    correctness judge's own role, ``check_correctness_judge``)."""
    check_judge(judge)
    check_correctness_judge(correctness)


def check_correctness_judge(correctness: Any) -> None:
    """The correctness judge's pre-flight (the role of its own, ``correctness_judge=...``):
    its server accepts connections, and a remote one has its key in the variable
    ``api_key_env`` names (local servers such as vllm serve take any key). Nothing to check
    for ``same`` or a correctness judge on the constraint judge's server."""
    judge = correctness.judge if correctness is not None else None
    if judge is None:
        return
    host = urlsplit(judge.base_url).hostname or ""
    if not is_loopback(host) and not os.environ.get(judge.api_key_env):
        raise ConfigError(
            f"correctness_judge.api_key_env: {judge.api_key_env} is not set (the key for "
            f"{shown_url(judge.base_url)}); export it or name another variable"
        )
    reach(
        str(judge.base_url),
        "correctness judge server",
        "correctness_judge.base_url (or correctness_judge=same)",
        judge.model,
    )


def connection_failure(exc: BaseException) -> BaseException | None:
    """The connection error behind ``exc`` (lm-eval's API backends raise aiohttp's)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionError) or type(seen).__name__.startswith("ClientConnector"):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def explain(exc: BaseException, config: dict[str, Any]) -> str:
    """A failed job's one-line error; a lost model server named with its URL."""
    url = (config.get("model", {}).get("args") or {}).get("base_url")
    cause = connection_failure(exc)
    if url and cause is not None and not isinstance(exc, ServerUnreachable):
        served = str(config["model"]["args"].get("model"))
        why = manifest.one_line(cause)
        exc = ServerUnreachable(
            unreachable("model server", str(url), why, "model.args.base_url", served)
        )
    return manifest.one_line(exc)


# --- the run and what it writes ------------------------------------------------------------


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or infinity as None: JSON has no NaN, and strict readers
    reject the ``NaN`` Python's json writes. Other values are kept as they are."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def evaluate(cfg: DictConfig, output_dir: Path, checked: Preflight) -> dict[str, Any]:
    """Run lm-eval on the checked tasks; write results and samples under ``output_dir``
    (results with ``null`` for NaN; the model folder named by ``model.name``)."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    export_model_env(cfg)
    tracker = EvaluationTracker(output_path=str(output_dir))
    with manifest.quiet_git():
        results = simple_evaluate(
            **{**lm_eval_arguments(cfg), "tasks": checked.tasks},  # built already: data read once
            evaluation_tracker=tracker,
            task_manager=checked.task_manager,
        )
    if results is None:  # non-zero ranks in distributed runs
        return {}
    samples = results.pop("samples", None)
    # lm-eval names the folder from `pretrained` / `model` (a converted-weights path for the
    # embedded default): the model's own name instead
    tracker.general_config_tracker.model_name_sanitized = safe_name(str(cfg.model.name))
    results = json_safe(results)
    tracker.save_results_aggregated(results=results, samples=samples)
    if samples:
        for task_name in results["configs"]:
            # the boundary where replies leave for a UTF-8 file: lm-eval would drop every
            # sample from the first one holding a lone surrogate
            changed = make_safe_in_place(samples[task_name])
            if changed:
                log.warning(
                    "%s: %d string(s) in the samples held lone surrogates (not Unicode): "
                    "written with U+FFFD in their place",
                    task_name,
                    changed,
                )
            # strict JSON: a sample's NaN (a metric with no value) is written as null
            tracker.save_results_samples(task_name=task_name, samples=json_safe(samples[task_name]))
    return results


def sample_counts(results: dict[str, Any]) -> dict[str, int]:
    """Samples scored per task, and per group the sum over its tasks."""
    counts = {
        task: int(n.get("effective", n.get("original", 0)))
        for task, n in results.get("n-samples", {}).items()
    }

    def total(name: str) -> int:
        if name in counts:
            return counts[name]
        return sum(total(t) for t in results.get("group_subtasks", {}).get(name, []))

    for group in results.get("group_subtasks", {}):
        counts[group] = total(group)
    return counts


def is_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def results_table(results: dict[str, Any], judged: bool = True) -> str:
    """Markdown table of every numeric metric with each task's sample count; non-numeric
    values listed under it; notes for bundled data and for ``correct`` without a judge."""
    counts = sample_counts(results)
    better = results.get("higher_is_better", {})
    rows: list[list[str]] = []
    other: list[str] = []
    no_correct: list[str] = []
    sections = [("results", results.get("results", {})), ("groups", results.get("groups", {}))]
    for section, tasks in sections:
        for task, values in tasks.items():
            if section == "results" and task in results.get("groups", {}):
                continue  # a group: shown with the groups
            first = True
            for key, value in values.items():
                metric, _, filt = key.partition(",")
                if not filt or "_stderr" in metric:
                    continue
                if not is_number(value):
                    other.append(f"{task} {metric}: {value}")
                    continue
                if metric == "correct" and number(value) == "n/a":
                    no_correct.append(task)
                err = values.get(f"{metric}_stderr,{filt}")
                arrow = {True: "↑", False: "↓"}.get(better.get(task, {}).get(metric), "")
                shown = [str(values.get("alias", task)), str(counts.get(task, ""))]
                rows.append(
                    [*(shown if first else ["", ""]), metric, arrow, number(value),
                     number(err) if is_number(err) else ""]
                )  # fmt: skip
                first = False
    table = markdown(["Task", "n", "Metric", "", "Value", "Stderr"], rows, right={1, 4, 5})
    if other:
        table += "other values (not numbers): " + "; ".join(other) + "\n"
    bundled = [
        name
        for name, metrics in results.get("results", {}).items()
        if (metrics.get("bundled_samples,none") or 0) > 0
    ]
    if bundled:
        table += (
            "\nNOTE: bundled sample data was used for "
            + ", ".join(sorted(bundled))
            + " (no data location set): these are not benchmark numbers.\n"
        )
    if no_correct and not judged:
        table += (
            "NOTE: correct is n/a for "
            + ", ".join(sorted(set(no_correct)))
            + ": grading answers needs a judge and none was configured (judge=none); "
            "run with judge=local_api judge.model=... judge.base_url=..., or re-score this "
            "run with sci-score run_dir=<this run> judge=...\n"
        )
    return table


def markdown(head: list[str], rows: list[list[str]], right: set[int]) -> str:
    """A Markdown table with aligned columns (``right``: right-aligned column numbers)."""
    widths = [max(3, *(len(r[i]) for r in [head, *rows])) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        fitted = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in pairs]
        return "|" + "|".join(fitted) + "|"

    rule = ["-" * (w - 1) + ":" if i in right else "-" * w for i, w in enumerate(widths)]
    return "\n".join([line(head), "|" + "|".join(rule) + "|", *map(line, rows)]) + "\n"


def number(value: Any) -> str:
    if value is None or value != value:
        return "n/a"
    return f"{value:.4f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


OUTCOMES_ENV = "SCI_TASKS_MULTIRUN_ID"  # set by the multirun: where jobs report outcomes
_failed: list[str] = []  # jobs of this process (and, after a multirun, of the sweep) that failed


@hydra.main(config_path="pkg://sci_tasks.conf", config_name="config", version_base="1.3")
def run(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    job_dir = Path(hydra_cfg.runtime.output_dir)
    overrides = list(hydra_cfg.overrides.task)
    choices = {str(k): v for k, v in hydra_cfg.runtime.choices.items()}
    sweep = hydra_cfg.mode == RunMode.MULTIRUN
    try:
        check_limit({"limit": cfg.get("limit")})  # before resolving (a GGUF conversion)
        config = resolved_config(cfg, choices)
    except ConfigError as exc:  # nothing written yet: no folder to record it in
        if verbose():
            traceback.print_exc()
        remove_if_unused(job_dir)
        if not sweep:
            raise SystemExit(f"sci-eval: {exc}") from None
        print(f"FAILED {job_dir}: {exc}", file=sys.stderr)
        _failed.append(f"{job_dir.name}: {exc}")
        report_outcome(job_dir, "failed", str(exc))
        return
    try:  # RefuseSecrets did so already, before Hydra wrote anything
        manifest.refuse_secrets(config, overrides)
    except manifest.SecretInConfig as exc:
        remove_if_unused(job_dir)
        raise SystemExit(f"sci-eval: {exc}") from None  # Hydra would echo the overrides
    metadata = run_metadata(cfg)
    data = manifest.data_fingerprints(metadata)
    where = manifest.place(job_dir, manifest.inputs(config, data))
    folder = where.folder
    if where.why:
        print(where.why)
    if where.skip:
        remove_if_unused(job_dir)
        report_outcome(folder, "skipped", "unchanged since it finished")
        return

    ledger = judge_usage.start()  # what the judges cost in this job (manifest usage.judge)

    def record(status: str, results: Any = None, error: str | None = None) -> None:
        built = manifest.build(config, overrides, results, metadata, status, error, data)
        built["usage"] = {"judge": ledger.summary()}
        manifest.write(folder, built)

    if sweep:  # a sweep keeps a record of every job, a failed pre-flight included
        write_snapshot(cfg, hydra_cfg, folder)
        record("running")
    checked = None
    started = False
    try:
        checked = preflight(cfg, config, choices)  # before any model is loaded
        print(header(config, checked, folder), flush=True)
        check_servers(config, checked.judge)
        check_correctness_judge(checked.correctness)
        if not sweep:  # a single run's folder is written once its pre-flight passed
            write_snapshot(cfg, hydra_cfg, folder)
            record("running")
        started = True
        results = evaluate(cfg, folder, checked)
    except (KeyboardInterrupt, Exception) as exc:
        signal_name = interrupting_signal(exc)
        if signal_name is not None:  # Ctrl-C, or SIGTERM (a time limit): see main()
            kept = cached_responses(cfg)
            if started or sweep:
                record("interrupted", error=f"interrupted by {signal_name}")
            else:
                remove_if_unused(folder)
            report_outcome(folder, "interrupted", f"by {signal_name}")
            line = interrupted_line(signal_name, folder, kept, started or sweep)
            raise Interrupted(line) from None
        # one job's failure is recorded, never lost in a sweep
        error = explain(exc, config)
        if verbose():
            traceback.print_exc()
        if not started and not sweep:  # a failed pre-flight of a single run: nothing left
            remove_if_unused(folder)
            shown = error.removeprefix(f"{ConfigError.__name__}: ")  # the option says it all
            raise SystemExit(f"sci-eval: {shown}") from None
        (folder / "traceback.txt").write_text(traceback.format_exc(), encoding="utf-8")
        record("failed", error=error)
        close_progress_bars()  # the failure's line is not followed by a redrawn bar
        print(f"FAILED {folder}: {error}", file=sys.stderr)
        _failed.append(f"{folder.name}: {error}")
        report_outcome(folder, "failed", error)
        return
    record("done", results)
    report_outcome(folder, "done", "")
    if results:
        print(results_table(results, judged=checked.judge is not None))
        for line in judge_usage.summary_lines(ledger.summary()):
            print(line)
        if cfg.get("limit") is not None:
            print(limit_line(cfg.limit))
        print(f"results, samples and manifest: {folder}")


class Interrupted(SystemExit):
    """A run ended by SIGINT / SIGTERM: its one line, and the shell's exit status for it."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def interrupting_signal(exc: BaseException) -> str | None:
    """The signal behind ``exc`` ("SIGINT" / "SIGTERM"), or None for a real failure.

    The interrupt may arrive wrapped: Python 3.11 turns an exception raised while a class
    is built (a dataclass field's ``__set_name__`` during an import) into a RuntimeError
    whose cause is our KeyboardInterrupt, and libraries re-raise with ``from``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return str(current.args[0]) if current.args else "SIGINT"
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def interrupted_line(signal_name: str, folder: Path, kept: int | None, wrote: bool) -> str:
    cache = f"; {kept} response(s) of this model kept in the response cache" if kept else ""
    where = f" (manifest: interrupted, {folder})" if wrote else ""
    return (
        f"sci-eval: interrupted by {signal_name}{where}{cache}: run the same command again to "
        "finish the rest without regenerating what is kept"
    )


def cached_responses(cfg: DictConfig) -> int | None:
    """Responses in this model's response cache (lm-eval's sqlite file), None without one."""
    path = response_cache(cfg) if cfg.get("use_cache", False) else None
    if path is None:
        return None
    total = 0
    for db in Path(path).parent.glob(f"{Path(path).name}_rank*.db"):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                total += con.execute("SELECT COUNT(*) FROM unnamed").fetchone()[0]
        except sqlite3.Error:
            continue
    return total


RUNS_ROOT = "sci-eval-runs"  # hydra.run.dir's parent (conf/config.yaml)


def remove_if_unused(folder: Path, snapshot: bool = False) -> None:
    """Remove a job folder that holds nothing but what Hydra writes by itself (its job log,
    ``<job name>.log``, and with ``snapshot`` its ``.hydra/``): a run that never started
    leaves no folder behind. Any other content is kept."""
    leftover = {".hydra"} if snapshot else set()
    if not folder.is_dir() or any(
        not p.name.endswith(".log") and p.name not in leftover for p in folder.iterdir()
    ):
        return
    for handler in logging.getLogger().handlers[:]:  # Hydra's file handler holds the log
        if getattr(handler, "baseFilename", "").startswith(str(folder.resolve())):
            handler.close()
            logging.getLogger().removeHandler(handler)
    shutil.rmtree(folder)
    if folder.parent.name in (RUNS_ROOT, "scores") and not any(folder.parent.iterdir()):
        folder.parent.rmdir()  # the runs (re-scores) folder this run created


def write_snapshot(cfg: DictConfig, hydra_cfg: Any, folder: Path) -> None:
    """Hydra's ``.hydra/`` snapshot (config, hydra, overrides), written by the job into the
    folder it decided on (``hydra.output_subdir`` is null, so Hydra writes none)."""
    out = folder / ".hydra"
    out.mkdir(parents=True, exist_ok=True)
    parts = {
        "config.yaml": cfg,
        "hydra.yaml": OmegaConf.create({"hydra": hydra_cfg}),
        "overrides.yaml": hydra_cfg.overrides.task,
    }
    for name, node in parts.items():
        (out / name).write_text(OmegaConf.to_yaml(node), encoding="utf-8")


def report_outcome(folder: Path, outcome: str, detail: str) -> None:
    """Inside a multirun: one small file per job (jobs may be other processes or nodes)."""
    multirun = os.environ.get(OUTCOMES_ENV)
    if not multirun:
        return
    out = folder.parent / ".outcomes" / multirun  # job folders sit in the sweep folder
    out.mkdir(parents=True, exist_ok=True)
    record = {"job": str(folder), "outcome": outcome, "detail": detail}
    (out / f"{folder.name}.json").write_text(json.dumps(record), encoding="utf-8")


class SweepSummary(Callback):
    """Prints each job's outcome when a multirun ends (the jobs' own reports)."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        os.environ[OUTCOMES_ENV] = f"{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        multirun = os.environ.pop(OUTCOMES_ENV, "")
        folder = Path(str(config.hydra.sweep.dir)) / ".outcomes" / multirun
        records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
        _failed.clear()
        print(f"\nsweep {config.hydra.sweep.dir}: {len(records)} job(s)")
        for r in records:
            detail = f": {r['detail']}" if r["detail"] else ""
            print(f"  {r['outcome']:<8} {Path(r['job']).name}{detail}")
            if r["outcome"] == "failed":
                _failed.append(f"{Path(r['job']).name}: {r['detail']}")


USAGE = """\
usage: sci-eval [--verbose] [-m] [overrides]
       sci-eval --replay RUN_DIR_OR_MANIFEST [--verbose] [overrides]

  --replay RUN   run again with the overrides RUN's manifest.json recorded (RUN: a run or
                 sweep-job folder, or the manifest itself); overrides given after it win
  --verbose      print tracebacks on the console (as HYDRA_FULL_ERROR=1 does)
  -m             a sweep: every combination of comma-separated override values
"""


def main(argv: list[str] | None = None) -> None:
    """``sci-eval [--verbose] [overrides]`` or ``sci-eval --replay RUN_DIR_OR_MANIFEST
    [overrides]``: the latter runs again with the overrides and data a manifest recorded
    (later overrides win). Exits non-zero when a job failed; 130 / 143 when SIGINT / SIGTERM
    ended it (one line, the manifest says ``interrupted``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--help" in args or "-h" in args:  # our own flags, then Hydra's help
        print(USAGE)
    if "--verbose" in args:  # tracebacks on the console, as HYDRA_FULL_ERROR=1 gives
        args.remove("--verbose")
        os.environ[VERBOSE_ENV] = "1"
    if args[:1] == ["--replay"]:
        if len(args) < 2:
            raise SystemExit("usage: sci-eval --replay RUN_DIR_OR_MANIFEST [overrides]")
        try:
            args = replay_arguments(Path(args[1]).expanduser(), args[2:])
        except ValueError as exc:
            raise SystemExit(f"sci-eval --replay: {exc}") from None
    sys.argv = [sys.argv[0], *args]
    _failed.clear()
    previous = signal.signal(signal.SIGTERM, _terminated)  # what SLURM sends at a time limit
    try:
        run()
    except Interrupted as exc:
        close_progress_bars()
        print(f"\n{exc.line}", file=sys.stderr)  # below the progress bar the signal cut short
        raise SystemExit(143 if "SIGTERM" in exc.line else 130) from None
    except KeyboardInterrupt as exc:  # before or after a job (Hydra composing, imports)
        name = exc.args[0] if exc.args else "SIGINT"
        print(f"\nsci-eval: interrupted by {name} before a run started", file=sys.stderr)
        raise SystemExit(143 if name == "SIGTERM" else 130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if _failed:
        raise SystemExit(f"sci-eval: {len(_failed)} job(s) failed")


def close_progress_bars() -> None:
    """Close the progress bars a signal cut short now, so that our line is the last one
    (tqdm would redraw them at exit)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return
    for bar in list(getattr(tqdm, "_instances", ())):
        bar.close()


def _terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt("SIGTERM")


def replay_arguments(path: Path, later: list[str]) -> list[str]:
    """The overrides a manifest recorded, with the data it read pinned: every benchmark's
    data location as an override (one that came from the environment included), the
    environment's locations dropped where the run read bundled samples. Refuses (a
    ValueError, one line) when recorded data is gone or no longer matches its
    fingerprint. ``later`` overrides win; a later ``data.*`` override is not checked."""
    from sci_tasks import benchmarks
    from sci_tasks.data.locate import ROOT_KEY
    from sci_tasks.paths import hydra_quoted

    recorded = manifest.read(path)
    data = {b: e for b, e in (recorded.get("data") or {}).items() if "source" in e}
    keys = benchmarks.data_keys()
    given = {o.split("=", 1)[0].lstrip("+~") for o in later if "=" in o}
    replayed = {b: e for b, e in data.items() if f"data.{keys.get(b)}" not in given}
    if data:
        os.environ.pop(ROOT_KEY, None)  # each benchmark is pinned on its own below
    pinned: dict[str, str] = {}
    for benchmark, entry in replayed.items():
        key = keys[benchmark]
        where = recorded_location(entry)
        if where is None:  # bundled samples: the environment must not redirect them
            os.environ.pop(key, None)
        else:
            pinned[key] = where
    now = manifest.data_fingerprints(pinned)
    for benchmark, entry in replayed.items():
        current = now.get(benchmark, {})
        if "error" in current:
            raise ValueError(f"{benchmark} data that {path} read is gone: {current['error']}")
        before = {"location": recorded_location(entry), **entry}
        after = {"location": recorded_location(current), **current}
        for part in ("location", "sha256", "record_files", "images"):
            if before.get(part) != after.get(part):
                raise ValueError(
                    f"{benchmark} data differs from what {path} read ({part}: "
                    f"{before.get(part)} -> {after.get(part)}): a replay would measure other "
                    f"data (give data.{keys[benchmark]}=... to run on it anyway)"
                )
    pins = [f"data.{key}={hydra_quoted(where)}" for key, where in pinned.items()]
    return [*recorded["overrides"], *pins, *later]


def recorded_location(entry: dict[str, Any]) -> str | None:
    """Where a manifest's data entry says a benchmark's data was read (a folder or a hub
    id); None for the bundled samples. Older manifests have only the ``source`` text
    (``folder /x (from ...)``)."""
    if "location" in entry:
        return entry["location"]
    source = str(entry.get("source", ""))
    kind, _, rest = source.partition(" ")
    if kind not in ("folder", "hub"):
        return None
    return rest.rsplit(" (from ", 1)[0].split(" [", 1)[0]


if __name__ == "__main__":
    main()
