"""The judge client, and how a run's judge is resolved.

A run's judge is resolved once per task, from its configuration (``resolve``):
``metadata["judge"]`` (lm-eval's ``--metadata '{"judge": {...}}'``; ``sci-eval`` passes its
Hydra ``judge=`` group the same way), else the ``SCI_TASKS_JUDGE_*`` environment. The task
(``sci_tasks.task.SciTask``) holds it in its ``RunSettings`` (``sci_tasks.run_settings``)
and hands it to scoring beside each document; ``sci-score`` builds its tasks with its own
judge in their metadata. Scoring gets a client from ``client_for``: a cache of clients keyed
by settings, not a judge in force. No judge: judge-scored checks are reported unscored.

Judge roles are data: ``metadata["judges"]`` maps a role (``usage.ROLES``) to its settings,
on every path (Hydra's ``+judges.<role>...``, ``--metadata '{"judges": {...}}'``); ``judge``
and ``correctness_judge`` are the shorthands of the two SciMIF roles, and
``SCI_TASKS_JUDGE_*`` / ``SCI_TASKS_CORRECTNESS_JUDGE_*`` their environment. The other
roles are those the benchmarks declare (``Benchmark.judge_roles``: SciGen's
``verification``, ``rubric``), each with ``SCI_TASKS_<ROLE>_JUDGE_*``; a role not given is
answered by the constraint judge. The built-in roles may be juries (``jury.py``): correctness
in its ``CorrectnessJudge``, the others (``JURY_ROLES``: constraints, verification,
rubric) in ``RunSettings.roles``; a plugin role's jury is refused.

SciMIF answer correctness has a judge role of its own: the correctness judge
(``resolve_correctness``: ``metadata["correctness_judge"]``, the same settings as ``judge``
plus ``protocol``, else ``SCI_TASKS_CORRECTNESS_JUDGE_*``), in the same settings
(``RunSettings.grader``). None (Hydra's ``correctness_judge=same``): the constraint judge
grades correctness too, with the project's own prompt. A correctness judge without a
``model`` uses the constraint judge's server with its own protocol.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from sci_tasks.metrics.judge.client import (
    JudgeClient,
    JudgeConfig,
    JudgeReply,
    JudgeRequest,
    parse_strict,
)
from sci_tasks.metrics.judge.config import ENV_PREFIX
from sci_tasks.metrics.judge.jury import Jury, each_juror
from sci_tasks.metrics.judge.usage import ROLES

CORRECTNESS_ENV_PREFIX = "SCI_TASKS_CORRECTNESS_JUDGE_"
T = TypeVar("T")

# How correctness is asked and read (metrics.scimif.grade_correctness):
#   json_grade: the project's prompt (templates/judge/scimif_correctness.jinja), a JSON reply
#   compass_verifier / compass_verifier_cot: CompassVerifier's documented prompt (and its
#   chain-of-thought variant), a free-text reply ending in \boxed{A|B|C}
PROTOCOLS = ("json_grade", "compass_verifier", "compass_verifier_cot")
SAME = "same"  # Hydra's correctness_judge=same: no correctness judge of its own


@dataclass(frozen=True)
class CorrectnessJudge:
    """The correctness role: a protocol and the judge that answers it (None: the constraint
    judge of the run)."""

    protocol: str
    judge: JudgeConfig | None = None
    jury: Jury | None = None  # several judges instead of one (``jury.py``)

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(
                f"protocol must be one of {', '.join(PROTOCOLS)} "
                f"(or {SAME!r}: the constraint judge grades correctness), not {self.protocol!r}"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> CorrectnessJudge | None:
        """``{"protocol": ..., <judge settings>}``; None for protocol ``same``."""
        settings = {k: v for k, v in values.items() if v is not None}
        given = settings.pop("protocol", None)
        if "jury" in settings:
            jury = Jury.from_mapping(settings.pop("jury"), settings.pop("combine", None))
            if settings:
                raise ValueError(
                    f"a jury's settings go in each juror, not beside it: {', '.join(settings)}"
                )
            # by default (or same) each juror grades with the project's prompt
            return cls("json_grade" if given in (None, SAME) else str(given), None, jury)
        protocol = str(given or "compass_verifier")
        if protocol == SAME:
            if settings.get("model"):
                raise ValueError(
                    "protocol 'same' takes no model: the constraint judge "
                    "grades correctness (give a protocol, e.g. compass_verifier, to use "
                    f"{settings['model']!r})"
                )
            return None
        if not settings.get("model"):
            if settings:  # settings for no judge would be silently ignored
                raise ValueError(
                    f"judge settings ({', '.join(sorted(settings))}) need a model; "
                    "without one the constraint judge's server answers"
                )
            return cls(protocol)
        return cls(protocol, JudgeConfig.from_mapping(settings))

    def public(self) -> dict[str, Any]:
        """What may be written to results: the protocol and the judge's settings, no key."""
        out = {"protocol": self.protocol, "judge": self.judge.public() if self.judge else None}
        return {**out, **(self.jury.settings() if self.jury else {})}

    def settings(self) -> dict[str, Any]:
        """The ``--metadata "correctness_judge"`` form (``from_mapping`` reads it back)."""
        if self.jury is not None:
            return {"protocol": self.protocol, **self.jury.settings()}
        return {"protocol": self.protocol, **(self.judge.public() if self.judge else {})}


def role_settings(metadata: Mapping[str, Any] | None, role: str, shorthand: str) -> Any:
    """``metadata["judges"][role]`` when given (the one mapping role -> settings, on every
    path), else the role's shorthand key (``judge``, ``correctness_judge``); ``KeyError``
    when neither is given (then the environment decides)."""
    metadata = metadata or {}
    roles = metadata.get("judges") or {}
    if not isinstance(roles, Mapping):
        raise ValueError('--metadata "judges" must map judge roles to their settings')
    known = known_roles()
    unknown = sorted(set(roles) - set(known))
    if unknown:
        raise ValueError(
            f'--metadata "judges": unknown role(s) {", ".join(unknown)} (roles: {", ".join(known)})'
        )
    if role in roles:
        return roles[role]
    return metadata[shorthand]


def known_roles() -> tuple[str, ...]:
    """The roles the registered benchmarks declare (``Benchmark.judge_roles``)."""
    from sci_tasks import registry

    return tuple(dict.fromkeys((*ROLES, *registry.judge_roles())))


# the roles other than correctness (its jury is in ``CorrectnessJudge``) a jury may answer
JURY_ROLES = ("constraints", "verification", "rubric")


def role_env_prefix(role: str) -> str:
    """A role's environment variables: ``SCI_TASKS_JUDGE_`` for constraints (the judge's),
    ``SCI_TASKS_<ROLE>_JUDGE_`` for every other role."""
    return ENV_PREFIX if role == "constraints" else f"SCI_TASKS_{role.upper()}_JUDGE_"


def resolve_roles(
    metadata: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, JudgeConfig | Jury | None]:
    """The judges of the roles other than ``constraints`` and ``correctness`` that are given
    (``metadata["judges"][role]``, null: no judge; else ``SCI_TASKS_<ROLE>_JUDGE_*``), and
    the jury of any role in ``JURY_ROLES`` that has one (``judges.<role>.jury``, else the
    role's ``..._JURY`` variable as JSON with ``..._COMBINE``: ``SCI_TASKS_JUDGE_JURY`` for
    constraints, ``SCI_TASKS_VERIFICATION_JUDGE_JURY``, ...); a role not given is answered
    by the constraints judge (``RunSettings.judge_of``)."""
    out: dict[str, JudgeConfig | Jury | None] = {}
    for role in JURY_ROLES:
        if (jury := _jury_of(metadata, environ, role)) is not None:
            out[role] = jury
    for role in known_roles():
        if role in ROLES or role in out:
            continue
        try:
            settings = role_settings(metadata, role, "")
        except KeyError:
            if (found := JudgeConfig.from_env(environ, role_env_prefix(role))) is not None:
                out[role] = found
            continue
        if settings and isinstance(settings, Mapping) and "jury" in settings:
            raise ValueError(f"judges.{role}: a jury is not supported for the {role} role yet")
        if settings and not isinstance(settings, Mapping):
            raise ValueError(f'"judges.{role}" must be an object of judge settings')
        out[role] = JudgeConfig.from_mapping(settings) if settings else None
    return out


def _jury_of(
    metadata: Mapping[str, Any] | None, environ: Mapping[str, str] | None, role: str
) -> Jury | None:
    """``role``'s jury (``judges.<role>``, for constraints also ``judge``; else the role's
    ``..._JURY`` / ``..._COMBINE`` variables), None when its judge is a single one."""
    try:
        settings = role_settings(metadata, role, "judge" if role == "constraints" else "")
    except KeyError:
        env = os.environ if environ is None else environ
        prefix = role_env_prefix(role)
        given = env.get(f"{prefix}JURY")
        if not given:
            return None
        try:
            settings = {"jury": json.loads(given), "combine": env.get(f"{prefix}COMBINE")}
        except ValueError as exc:
            raise ValueError(f"{prefix}JURY is not JSON: {exc}") from None
    if not isinstance(settings, Mapping) or "jury" not in settings:
        return None
    beside = sorted(set(settings) - {"jury", "combine"})
    if beside:
        raise ValueError(
            f"judges.{role}: a jury's settings go in each juror, not beside it: {', '.join(beside)}"
        )
    try:
        return Jury.from_mapping(settings["jury"], settings.get("combine"))
    except ValueError as exc:
        raise ValueError(f"judges.{role}: {exc}") from None


def resolve(
    metadata: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> JudgeConfig | None:
    """The constraint judge of a run: ``metadata["judges"]["constraints"]``, else
    ``metadata["judge"]`` when that key is given (null or ``{}``: no judge, whatever the
    environment says), else ``SCI_TASKS_JUDGE_*`` from the environment."""
    try:
        settings = role_settings(metadata, "constraints", "judge")
    except KeyError:
        return JudgeConfig.from_env(environ)
    if not settings:
        return None
    if not isinstance(settings, Mapping):
        raise ValueError('--metadata "judge" must be an object of judge settings')
    if "jury" in settings:  # several judges: ``resolve_roles`` has them
        return None
    return JudgeConfig.from_mapping(settings)


def resolve_correctness(
    metadata: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> CorrectnessJudge | None:
    """The correctness judge of a run: ``metadata["judges"]["correctness"]``, else
    ``metadata["correctness_judge"]`` when that key is given (null, ``{}`` or protocol
    ``same``: none), else ``SCI_TASKS_CORRECTNESS_JUDGE_*`` (``..._PROTOCOL``, ``..._MODEL``,
    ``..._BASE_URL``, ..., ``..._JURY`` as JSON). None: the constraint judge grades
    correctness with the project's prompt."""
    try:
        settings = role_settings(metadata, "correctness", "correctness_judge")
        given = True
    except KeyError:
        given = False
    if given:
        if not settings:
            return None
        if not isinstance(settings, Mapping):
            raise ValueError(
                '--metadata "correctness_judge" must be an object of judge settings plus protocol'
            )
        try:
            return CorrectnessJudge.from_mapping(settings)
        except ValueError as exc:
            raise ValueError(f'--metadata "correctness_judge": {exc}') from None
    env = os.environ if environ is None else environ
    found = {
        key[len(CORRECTNESS_ENV_PREFIX) :].lower(): value
        for key, value in env.items()
        if key.startswith(CORRECTNESS_ENV_PREFIX) and not key.endswith("_KEY")
    }
    if "jury" in found:
        try:
            found["jury"] = json.loads(found["jury"])
        except ValueError as exc:
            raise ValueError(f"{CORRECTNESS_ENV_PREFIX}JURY is not JSON: {exc}") from None
    if not found.get("protocol") and not found.get("model") and not found.get("jury"):
        return None
    return CorrectnessJudge.from_mapping(found)


_clients: dict[JudgeConfig, JudgeClient] = {}
_clients_lock = threading.Lock()


def client_for(config: JudgeConfig | None) -> JudgeClient | None:
    """The client for ``config``, built once per process (its reply memo, call count and
    breaker are shared by every scorer with the same settings); the key is read from the
    variable ``config.api_key_env`` names when the client is built."""
    if config is None:
        return None
    with _clients_lock:
        client = _clients.get(config)
        if client is None:
            client = _clients[config] = JudgeClient(config)
        return client


def ask_jury(
    jury: Jury, work: Callable[[JudgeClient], T], no_verdict: Callable[[str], T]
) -> list[T]:
    """``work(client)`` with each juror's client, the jurors at once (``jury.each_juror``), in
    juror order. A juror that raises (a client that cannot be built, anything its work
    raises) gives ``no_verdict(reason)`` instead: one juror's crash costs its own verdicts,
    not the run."""

    def one(juror: JudgeConfig) -> T:
        try:
            client = client_for(juror)
            assert client is not None
            return work(client)
        except Exception as exc:  # one juror's crash: no verdict from it, the run goes on
            return no_verdict(f"juror {juror.label} raised {type(exc).__name__}: {exc}")

    return each_juror(jury, one)


__all__ = [
    "JURY_ROLES",
    "PROTOCOLS",
    "CorrectnessJudge",
    "JudgeClient",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "Jury",
    "ask_jury",
    "client_for",
    "known_roles",
    "parse_strict",
    "resolve",
    "resolve_correctness",
    "resolve_roles",
]
