"""sci-eval's pre-flight: everything a run needs, checked before any model is loaded.

The config has no missing option, every selected task's data loads (the task objects are
built here and handed to lm-eval, so every data file and image is read once, before the
model), the judge settings are valid, and the model and judge servers accept connections.
A problem is a ``ConfigError`` or ``ServerUnreachable`` whose one line names the file,
option or URL. ``sci-score`` and ``sci-lm-eval`` run the judge checks (``judge_preflight``).
"""

from __future__ import annotations

import functools
import os
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from omegaconf import DictConfig, OmegaConf

import sci_tasks
from sci_tasks import manifest
from sci_tasks.run_config import data_metadata, plain, task_metadata
from sci_tasks.run_judges import RoleError, RunJudges


def is_ours(task: str) -> bool:
    """A task, group or tag defined in the sci-tasks task folder."""
    return str(task) in our_task_names()


@functools.cache
def our_task_names() -> frozenset[str]:
    # the one seam where sci-eval's task folders are chosen: sci_tasks.task_manager, as
    # for preflight's tasks below and for library users
    return frozenset(sci_tasks.task_manager(include_defaults=False).all_tasks)


# --- before the model: validation -----------------------------------------------------------

VERBOSE_ENV = "SCI_EVAL_VERBOSE"  # set by `sci-eval --verbose` (jobs may be other processes)
# lm-eval backends that talk to a server at model.args.base_url
SERVER_HINT = "vllm serve {model}, llama.cpp's llama-server -m MODEL.gguf, or llm-katan"


def verbose() -> bool:
    """Tracebacks on the console too (they always go to the job's traceback.txt)."""
    from sci_tasks.config_errors import user_full_error

    return user_full_error() or os.environ.get(VERBOSE_ENV) == "1"


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
    problem = backend_problem(backend)
    if problem:
        raise ConfigError(f"model.backend={backend!r} ({where}) {problem}, or choose another model")
    url = (model.get("args") or {}).get("base_url")
    if url is not None:
        parts = urlsplit(str(url))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"model.args.base_url={url!r} ({where}) is not an http(s) URL")


def backend_problem(backend: str) -> str | None:
    """Why lm-eval cannot use the model backend ``backend`` here; None when it can."""
    from lm_eval.api.registry import get_model

    try:
        get_model(backend)
    except ValueError:
        return (
            "is not an lm-eval model backend (e.g. hf, vllm, vllm-vlm, "
            "local-chat-completions, openai-chat-completions)"
        )
    except ImportError as exc:  # lm-eval imports the backend's package on lookup (vllm)
        package = exc.name or exc
        return f"needs the package {package}: pip install 'sci-tasks[vllm]' on a GPU machine"
    return None


def hub_endpoint() -> str:
    from huggingface_hub import constants

    return str(constants.ENDPOINT)


def data_locations(names: list[str], metadata: dict[str, Any]) -> list[Any]:
    """The data locations of the benchmarks whose tasks or groups ``names`` selects."""
    from sci_tasks import registry
    from sci_tasks.data.locate import locate

    selected = {b.name: b for b in map(registry.of_task, names) if b is not None}
    return [locate(name, metadata) for name in sorted(selected)]


def check_data_locations(cfg: DictConfig) -> None:
    """Each selected benchmark's data location exists (a folder, or a hub id whose hub is
    reachable), checked from the ``tasks`` and ``data`` nodes alone: before the rest of the
    config is resolved, whose model path may convert a GGUF model (26 s on a first run). A
    bad location is a ConfigError naming it; what is inside is read by ``preflight``."""
    from sci_tasks.data.locate import DataError

    try:
        names = [str(t) for t in cfg.tasks.names]
        check_hub(data_locations(names, data_metadata(cfg)))
    except DataError as exc:
        raise ConfigError(manifest.one_line(exc)) from None  # as preflight's errors read
    except ServerUnreachable as exc:
        raise ConfigError(str(exc)) from None


def check_hub(locations: list[Any]) -> None:
    """A data location that is a hub id needs the Hugging Face Hub: one connection to it
    before the data is fetched (``datasets`` and ``huggingface_hub`` retry an unreachable
    host for minutes, a warning per attempt). Offline (``HF_HUB_OFFLINE`` /
    ``HF_DATASETS_OFFLINE``), the HF cache answers instead."""
    offline = any(os.environ.get(v, "").strip() in ("1", "true", "TRUE", "True", "yes")
                  for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))  # fmt: skip
    for location in locations:
        if location.kind == "hub" and not offline:
            todo = f"check the network, or set {location.set_by} to a local folder"
            reach(hub_endpoint(), "Hugging Face Hub", "", "", todo=todo)
            return


def shown_url(url: str) -> str:
    """A URL for the console: any user:password part left out."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def is_loopback(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def reach(
    url: str, who: str, option: str, served: str, timeout: float = 10.0, todo: str = ""
) -> None:
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
    raise ServerUnreachable(unreachable(who, url, why, option, served, todo))


def unreachable(who: str, url: str, why: str, option: str, served: str, todo: str = "") -> str:
    host = urlsplit(url).hostname or ""
    todo = todo or (
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
    groups: dict[str, Any] = field(default_factory=dict)  # lm-eval's group objects, by name
    roles: dict[str, Any] = field(default_factory=dict)  # other roles' judges, where given


def preflight(cfg: DictConfig, config: dict[str, Any], choices: dict[str, Any]) -> Preflight:
    """Everything a run needs, checked before the model is loaded (see the module text)."""
    check_model_config(config, choices)
    judges = run_judges(cfg, choices)
    names = [str(t) for t in cfg.tasks.names]
    manager = sci_tasks.task_manager(
        # what every task receives, as --metadata's would: the one conversion
        metadata=task_metadata(cfg, judges),
        # indexing lm-eval's own thousands of task files takes seconds: only when needed
        include_defaults=not all(is_ours(t) for t in names),
    )
    check_hub(data_locations(names, data_metadata(cfg)))
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
    sources = data_sources(loaded["tasks"], cfg)
    return Preflight(
        top,
        manager,
        sources,
        judges.judge,
        judges.correctness,
        dict(loaded["groups"]),
        judges.roles,
    )


def run_judges(cfg: DictConfig, choices: dict[str, Any]) -> RunJudges:
    """The judges ``cfg`` names, each role's settings checked; a bad one is a ConfigError
    naming the option and the config file it comes from."""
    try:
        return RunJudges.of_config(cfg)
    except RoleError as exc:
        where = "" if exc.option == "judges" else f" ({config_file(exc.option, choices)})"
        raise ConfigError(f"{exc.option}{where}: {exc}") from None


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
    from sci_tasks import registry
    from sci_tasks.data.locate import locate

    sources: dict[str, str] = {}
    others = []
    for name in sorted(tasks):
        benchmark = registry.of_task(name)
        if benchmark is not None:
            location = locate(benchmark.name, data_metadata(cfg))
            sources.setdefault(benchmark.name, location.describe())
        else:
            others.append(name)
    if others:
        sources[", ".join(others)] = "lm-eval's own task data (dataset_path in its YAML)"
    return sources


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
    for juror in getattr(judge, "jurors", ()):  # a jury (judges.constraints.jury): each juror
        check_judge(juror)
    if getattr(judge, "jurors", None):
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
    jury = correctness.jury if correctness is not None else None
    for judge in jury.jurors if jury is not None else ():
        _check_correctness_server(judge)
    judge = correctness.judge if correctness is not None else None
    if judge is not None:
        _check_correctness_server(judge)


def _check_correctness_server(judge: Any) -> None:
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
