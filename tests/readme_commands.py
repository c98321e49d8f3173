"""The README's commands as the README tests (test_readme.py, test_readme_runs.py) read
them: every command of its ```bash blocks, in order, with the `export`s before it, sorted
by the kind of check it gets."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .servers import KATAN_KEY

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# The OpenAI-compatible server the README's sweep talks to: replaced by llm-katan's URL.
README_SERVER = "http://127.0.0.1:11434/v1/chat/completions"


@dataclass(frozen=True)
class Command:
    text: str  # one command as written (one part of an `a && b` line)
    env: dict[str, str] = field(default_factory=dict)  # `export`s earlier in its block

    def __str__(self) -> str:
        return self.text


def readme_commands() -> list[Command]:
    """Every command of the README's ```bash blocks, in order, comments left out."""
    blocks = re.findall(r"^ *```bash\n(.*?)^ *```", README.read_text("utf-8"), re.S | re.M)
    found: list[Command] = []
    for block in blocks:
        env: dict[str, str] = {}
        for line in textwrap.dedent(block).splitlines():
            line = re.split(r"(?:^|\s+)#(?:\s|$)", line, maxsplit=1)[0].strip()
            if line.startswith("export "):
                name, _, value = line.removeprefix("export ").partition("=")
                env[name] = value
            elif line:
                found += [Command(part.strip(), dict(env)) for part in line.split("&&")]
    return found


def argv(command: Command) -> list[str]:
    """The words bash makes of the command (quotes, `$(...)`), without running it."""
    out = subprocess.run(
        ["bash", "-c", f'set -- {command.text}; printf "%s\\0" "$@"'],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return out.stdout.split("\0")[:-1]


def kind(command: Command) -> str:
    words = command.text.split()
    if words[0] in ("pip", "apt-get", "nox"):
        return "setup"
    if words[0] in ("lm_eval", "sci-lm-eval"):
        return "listing" if words[1:3] == ["ls", "tasks"] else "lm_eval"
    if words[0] == "sci-eval" and "-m" in words and README_SERVER in command.text:
        return "sweep"  # run on llm-katan
    if (words[0] == "sci-eval" and "--replay" in words) or words[0] in POST_RUN:
        return "after_sweep"
    if words[0] == "sci-score" and README_SWEEP in command.text:
        return "after_sweep"  # on a job folder of the README's sweep
    if command.text == "sci-eval":
        return "embedded_default"
    if words[0] in ("sci-eval", "sci-score"):
        return "compose"
    if words[0] == "python" and words[1].startswith("benchmarks/"):
        return "benchmark"
    return "unchecked"


POST_RUN = ("sci-report", "sci-leaderboard", "sci-view", "sci-agree")
README_SWEEP = "sci-eval-sweeps/pilot/"  # the README's sweep (sweep_name=pilot)
README_JUDGE = "http://127.0.0.1:11434/v1"  # its judge: the same (Ollama's) server
COMMANDS = readme_commands()


def of_kind(name: str) -> list[Any]:
    return [pytest.param(c, id=c.text[:60]) for c in COMMANDS if kind(c) == name]


EMBEDDED = "sci_tasks.embedded_model()"  # the CPU recipe's one-liner: the converted model


def env_for(tmp: Path, command: Command) -> dict[str, str]:
    return {
        **os.environ,
        **command.env,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OPENAI_API_KEY": KATAN_KEY,
        "SCI_TASKS_CACHE": str(tmp / "cache"),
    }


def sweep_jobs(words: list[str]) -> list[list[str]]:
    """The jobs of a `-m` command (Hydra's own sweep parser), each as plain overrides."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = OverridesParser.create().parse_overrides([w for w in words if w != "-m"])
    jobs: list[list[str]] = [[]]
    for o in overrides:
        values = list(o.sweep_string_iterator()) if o.is_sweep_override() else [o.value()]
        jobs = [[*job, f"{o.get_key_element()}={v}"] for job in jobs for v in values]
    return jobs
