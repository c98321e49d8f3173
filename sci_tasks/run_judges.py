"""The judges a Hydra run configuration names, role by role: ``judges.<role>`` (the one
mapping role -> settings, as ``--metadata '{"judges": ...}'``), else the shorthand groups
``judge`` and ``correctness_judge``. sci-eval's pre-flight (``sci_tasks.run.preflight``)
and sci-score (``sci_tasks.score``) both read them here, and pass them on to the tasks as
metadata (``role_metadata``).
"""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig, OmegaConf

from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge import CorrectnessJudge, JudgeConfig, Jury

# the judges of roles beyond SciMIF's two, where given, and a constraints jury
Roles = dict[str, JudgeConfig | Jury | None]


def role_node(cfg: DictConfig, role: str, shorthand: str) -> dict[str, Any] | None:
    """A judge role's settings in a Hydra config: ``judges.<role>`` when given (the one
    mapping role -> settings, as ``--metadata '{"judges": ...}'``), else its shorthand group
    (``judge``, ``correctness_judge``)."""
    from sci_tasks.metrics.judge import role_settings

    roles = cfg.get("judges")
    metadata = {
        "judges": OmegaConf.to_container(roles, resolve=True) if roles else {},
        shorthand: OmegaConf.to_container(node, resolve=True)
        if (node := cfg.get(shorthand))
        else None,
    }
    settings = role_settings(metadata, role, shorthand)
    return {str(k): v for k, v in settings.items()} if isinstance(settings, dict) else None


def other_roles(cfg: DictConfig) -> Roles:
    """The Hydra config's judges of the roles beyond the two SciMIF roles (``judges.rubric``,
    ...); a role not given is left to the constraint judge, or its environment."""
    roles = cfg.get("judges")
    given = OmegaConf.to_container(roles, resolve=True) if roles else {}
    return judges.resolve_roles({"judges": given}, environ={})


def role_metadata(
    judge: JudgeConfig | None, correctness: CorrectnessJudge | None, roles: Roles | None
) -> dict[str, Any]:
    """Every role's settings as task metadata (``--metadata``'s form; keys by name only)."""
    return {
        "judge": judge.public() if judge else None,
        "correctness_judge": correctness.settings() if correctness else None,
        **({"judges": {r: j.public() if j else None for r, j in roles.items()}} if roles else {}),
    }


def correctness_judge_config(cfg: DictConfig) -> CorrectnessJudge | None:
    """The correctness role (None: ``same``, the constraint judge grades)."""
    settings = role_node(cfg, "correctness", "correctness_judge")
    return CorrectnessJudge.from_mapping(settings) if settings else None


def judge_config(cfg: DictConfig) -> JudgeConfig | None:
    """The constraint role (``judges.constraints``, else the ``judge`` group)."""
    settings = role_node(cfg, "constraints", "judge")
    if not settings or not settings.get("model"):
        return None
    return JudgeConfig.from_mapping(settings)
