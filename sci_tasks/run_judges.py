"""The judges a Hydra run configuration names, role by role: ``judges.<role>`` (the one
mapping role -> settings, as ``--metadata '{"judges": ...}'``), else the shorthand groups
``judge`` and ``correctness_judge``. ``RunJudges.of_config`` resolves them once (each
setting checked: a bad one is a ``RoleError`` naming the option); ``metadata`` is their part
of what every task receives (``sci_tasks.run_config.task_metadata``, the one conversion of a
run configuration to task metadata, for sci-eval, its pre-flight and sci-score).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import DictConfig, OmegaConf

from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge import CorrectnessJudge, JudgeConfig, Jury

# the judges of roles beyond SciMIF's two, where given, and a constraints jury
Roles = dict[str, JudgeConfig | Jury | None]


class RoleError(ValueError):
    """A judge role's settings that cannot be used; ``option`` is the config option
    (``judge``, ``correctness_judge``, ``judges``)."""

    def __init__(self, option: str, problem: str) -> None:
        super().__init__(problem)
        self.option = option


@dataclass(frozen=True)
class RunJudges:
    """Every judge role of a run: the constraint judge (None: judge-scored checks are
    unscored), the correctness judge (None: ``same``, the constraint judge grades), and the
    other roles' judges or juries where given (SciGen's ``verification``, ``rubric``)."""

    judge: JudgeConfig | None = None
    correctness: CorrectnessJudge | None = None
    roles: Roles = field(default_factory=dict)

    @classmethod
    def of_config(cls, cfg: DictConfig) -> RunJudges:
        """The judges ``cfg`` names (a Hydra run or score configuration)."""
        try:
            judge = judge_config(cfg)
        except ValueError as exc:
            raise RoleError("judge", str(exc)) from None
        try:
            correctness = correctness_judge_config(cfg)
        except ValueError as exc:
            raise RoleError("correctness_judge", str(exc)) from None
        try:
            roles = other_roles(cfg)
        except ValueError as exc:
            raise RoleError("judges", str(exc)) from None
        return cls(judge, correctness, roles)

    def metadata(self) -> dict[str, Any]:
        """Every role's settings as task metadata (``--metadata``'s form; keys by name
        only), read back by ``RunSettings.of_task``."""
        roles = self.roles
        return {
            "judge": self.judge.public() if self.judge else None,
            "correctness_judge": self.correctness.settings() if self.correctness else None,
            **(
                {"judges": {r: j.public() if j else None for r, j in roles.items()}}
                if roles
                else {}
            ),
        }


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
