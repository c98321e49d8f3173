"""A judge's configuration as plain data (``JudgeConfig``; a Hydra ``judge/`` config maps
onto it). The key is never part of it: the config NAMES the environment variable the
client reads at call time (``client.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from sci_tasks.cache import cache_root

ENV_PREFIX = "SCI_TASKS_JUDGE_"  # SCI_TASKS_JUDGE_MODEL, SCI_TASKS_JUDGE_BASE_URL, ...
STRUCTURED_OUTPUTS = ("json_schema", "tool", "json_object", "none")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def default_cache_dir() -> str:
    """``<cache root>/judge`` (``sci_tasks.cache.cache_root``)."""
    return str(cache_root() / "judge")


@dataclass(frozen=True)
class JudgeConfig:
    """Everything about a judge, as plain data (a Hydra ``judge/`` config maps onto it)."""

    model: str
    base_url: str
    api_key_env: str = "OPENAI_API_KEY"  # the NAME of the variable, never the key
    temperature: float = 0.0
    max_tokens: int = 512
    timeout: float = 60.0  # seconds per call
    concurrency: int = 8
    max_attempts: int = 4  # per request, transport failures and unparseable replies alike
    backoff_initial: float = 0.5
    backoff_max: float = 20.0
    # consecutive connection failures / timeouts (any request) after which the judge is
    # treated as down for the rest of the run; 0: never
    unavailable_after: int = 10
    # json_schema: response_format json_schema (OpenAI, vLLM); json_object: response_format
    # json_object with the schema (llama-cpp-python server);
    # tool: a forced function call whose parameters are the schema; none.
    structured_output: str = "json_schema"
    cache: bool = True
    cache_dir: str | None = None  # None: default_cache_dir()
    name: str = ""  # a label for results folders; defaults to the model

    def __post_init__(self) -> None:
        if self.structured_output not in STRUCTURED_OUTPUTS:
            raise ValueError(f"structured_output must be one of {', '.join(STRUCTURED_OUTPUTS)}")
        if self.concurrency < 1 or self.max_attempts < 1:
            raise ValueError("concurrency and max_attempts must be at least 1")
        if self.unavailable_after < 0:
            raise ValueError("unavailable_after must be 0 (never) or more")
        if not ENV_NAME.fullmatch(self.api_key_env):
            # a pasted key instead of a variable name must never reach a results file
            raise ValueError(
                "api_key_env must NAME an environment variable (letters, digits, _), "
                "not hold the key"
            )

    @property
    def label(self) -> str:
        return self.name or self.model

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> JudgeConfig:
        if "api_key" in values:
            raise ValueError("a judge config names the key's environment variable (api_key_env)")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown judge setting(s): {', '.join(unknown)}")
        kinds = {f.name: f.type for f in fields(cls)}
        out: dict[str, Any] = {}
        for key, value in values.items():
            if value is None:
                continue
            kind = str(kinds[key])
            if isinstance(value, str) and kind.startswith(("float", "int")):
                value = float(value) if kind.startswith("float") else int(value)
            elif isinstance(value, str) and kind == "bool":
                value = value.strip().lower() in {"1", "true", "yes", "on"}
            out[key] = value
        return cls(**out)

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, prefix: str = ENV_PREFIX
    ) -> JudgeConfig | None:
        """``SCI_TASKS_JUDGE_MODEL`` + ``SCI_TASKS_JUDGE_BASE_URL`` (+ any other field);
        another role's with its own ``prefix`` (``SCI_TASKS_RUBRIC_JUDGE_``)."""
        env = os.environ if environ is None else environ
        values = {
            f.name: env[prefix + f.name.upper()]
            for f in fields(cls)
            if prefix + f.name.upper() in env
        }
        if not values.get("model"):
            return None
        return cls.from_mapping(values)

    def public(self) -> dict[str, Any]:
        """What may be written to results: the settings, never a key."""
        return asdict(self)
