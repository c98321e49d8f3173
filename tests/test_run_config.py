"""The typed run configuration (issue 30, ``sci_tasks.run_config``): the packaged YAMLs
compose under their schema, each group option as its kind; and ``task_metadata`` is the one
road from a composed configuration to what a task receives: sci-eval's pre-flight builds its
tasks with it, sci-score its own, and the tasks' settings come from ``RunSettings.of_task``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from sci_tasks import run_config
from sci_tasks.run_config import task_metadata
from sci_tasks.run_judges import RunJudges
from sci_tasks.run_settings import RunSettings

JUDGE = ["judge=local_api", "judge.model=grader", "judge.base_url=http://127.0.0.1:9/v1"]


def composed(config_name: str, *overrides: str) -> Any:
    GlobalHydra.instance().clear()
    with initialize_config_module(config_module="sci_tasks.conf", version_base="1.3"):
        return compose(config_name=config_name, overrides=list(overrides))


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCI_TASKS_CACHE", str(tmp_path / "cache"))
    for role in ("", "CORRECTNESS_", "VERIFICATION_", "RUBRIC_"):  # no judge from outside
        for key in ("MODEL", "BASE_URL", "JURY"):
            monkeypatch.delenv(f"SCI_TASKS_{role}JUDGE_{key}", raising=False)


@pytest.mark.parametrize(
    ("override", "node", "kind"),
    [
        ("model=smollm2_cpu", "model", run_config.GgufModel),
        ("model=tiny_vlm_cpu", "model", run_config.GgufModel),
        ("model=hf", "model", run_config.HfModel),
        ("model=local_api", "model", run_config.ApiModel),
        ("model=openai_chat", "model", run_config.ApiModel),
        ("model=vllm", "model", run_config.ModelConfig),
        ("model=vllm_vlm", "model", run_config.ModelConfig),
        ("judge=none", "judge", run_config.JudgeRole),
        ("judge=openai", "judge", run_config.JudgeServer),
        ("correctness_judge=same", "correctness_judge", run_config.CorrectnessRole),
        ("correctness_judge=compass_verifier", "correctness_judge", run_config.CorrectnessServer),
    ],
)
def test_each_packaged_option_composes_as_its_kind(override: str, node: str, kind: type) -> None:
    cfg = composed("config", override)
    assert OmegaConf.get_type(cfg, node) is kind
    assert OmegaConf.get_type(cfg) is run_config.RunConfig
    assert OmegaConf.get_type(cfg, "tasks") is run_config.TaskSet
    # a value is converted to its field's type where it can be, refused where it cannot
    cfg.seed = "7"
    assert cfg.seed == 7
    with pytest.raises(Exception, match="could not be converted to Integer"):
        cfg.seed = "seven"


def test_the_score_config_is_typed_too() -> None:
    cfg = composed("score", "run_dir=x", *JUDGE)
    assert OmegaConf.get_type(cfg) is run_config.ScoreConfig
    assert OmegaConf.get_type(cfg, "judge") is run_config.JudgeServer
    assert cfg.judge.timeout == 60.0 and isinstance(cfg.judge.timeout, float)
    # a kind's required value stays missing under the schema (named by the pre-flight)
    from sci_tasks.run.preflight import missing_options

    assert missing_options(composed("score", "run_dir=x", "judge=local_api")) == ["judge.model"]
    assert missing_options(composed("config", "model=hf")) == ["model.args.pretrained"]


def test_task_metadata_holds_what_is_set_and_every_judge_role() -> None:
    cfg = composed(
        "config",
        "data.SCIMIF_DATA_DIR=/data/SciMIF",
        "data.max_image_pixels=4096",
        "+cascade.method_constraint=judge_first",
        *JUDGE,
    )
    metadata = task_metadata(cfg)
    judge = {**RunJudges.of_config(cfg).metadata()["judge"]}
    assert metadata == {
        "SCIMIF_DATA_DIR": "/data/SciMIF",
        "max_image_pixels": 4096,
        "cascade": {"method_constraint": "judge_first"},
        "judge": judge,
        "correctness_judge": None,
    }
    assert (judge["model"], judge["base_url"], judge["timeout"]) == (
        "grader",
        "http://127.0.0.1:9/v1",
        60.0,
    )
    settings = RunSettings.of_task(metadata)  # what a task makes of it
    assert settings.judge is not None and settings.judge.model == "grader"
    assert settings.image_budget.max_pixels == 4096
    assert settings.correctness is None and settings.roles == {}
    # judge=none: every role explicitly none, so the environment is not asked either
    assert task_metadata(composed("config")) == {"judge": None, "correctness_judge": None}


def test_sci_eval_and_sci_score_tasks_get_their_settings_by_the_one_road() -> None:
    """sci-eval's pre-flight builds the tasks with ``task_metadata``; sci-score builds its
    own with ``task_metadata`` of its config: the same judge settings reach both tasks'
    ``RunSettings``, and the data location only sci-eval's."""
    from sci_tasks import score
    from sci_tasks.run.preflight import preflight, resolved_config

    cfg = composed("config", "model=hf", "model.args.pretrained=x", "tasks=scimif_chem", *JUDGE)
    choices = {"model": "hf", "tasks": "scimif_chem", "judge": "local_api"}
    checked = preflight(cfg, resolved_config(cfg, choices), choices)
    (task,) = checked.tasks
    expected = task_metadata(cfg, RunJudges(checked.judge, checked.correctness, checked.roles))
    assert {k: task.config.metadata[k] for k in expected} == expected
    assert task.settings == RunSettings.of_task(task.config.metadata)
    assert task.settings.judge == checked.judge and checked.judge.model == "grader"

    score_cfg = composed("score", "run_dir=x", *JUDGE)
    rescoring = score.load_ours(["scimif_chem"], task_metadata(score_cfg))["tasks"]["scimif_chem"]
    assert rescoring.settings.judge == task.settings.judge
    assert rescoring.settings.correctness is None
