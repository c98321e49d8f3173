"""A job's identity is what decides its results, and a replay replays: real sci-eval runs
against a loopback model server.

- a sweep finished with one core busy is skipped whole when re-run on an idle machine (the
  thread count derived from idle cores is recorded, not part of the identity); the derived
  count is forced in the subprocess through the function that measures busy cores;
- ``--replay`` of a run that read ``SCIMIF_DATA_DIR`` reads the same data again, or refuses
  in one line when that data is gone or changed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import sci_tasks
from sci_tasks import manifest

from .helpers import loopback_env, ok, scripted_model_args
from .misbehaving import completion, scripted_server

# sci-eval with sci_tasks.resolvers.busy_cores answering BUSY (the resolver of
# ${sci_free_cores:} calls it): what /proc/stat would say with BUSY cores kept busy
FORCED_BUSY = (
    "import sys, sci_tasks.resolvers as r; busy = float(sys.argv.pop(1)); "
    "r.busy_cores = lambda window=0.5: busy; from sci_tasks.app import main; main()"
)


def sci_eval(
    tmp_path: Path, *args: str, busy: float | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", FORCED_BUSY, str(busy)] if busy is not None else None
    from .helpers import console_script

    return subprocess.run(
        [*(command or [console_script("sci-eval")]), *args], capture_output=True, text=True,
        cwd=tmp_path, env=loopback_env(tmp_path, **env), timeout=600,
    )  # fmt: skip


def model_args(url: str) -> list[str]:
    return scripted_model_args(url)


def test_a_sweep_finished_with_one_core_busy_is_skipped_whole_when_rerun_idle(
    tmp_path: Path,
) -> None:
    asked: list[object] = []

    def answer(payload: dict[str, object]) -> tuple[int, str, bytes]:
        asked.append(payload)
        return 200, "application/json", completion("4")

    with scripted_server(answer) as model:
        sweep = [
            "-m", *model_args(model.chat_url), "tasks=scimif_chem,scimif_bio", "limit=1",
            "+model.env.OMP_NUM_THREADS=${sci_free_cores:}", "sweep_name=s", "use_cache=false",
        ]  # fmt: skip
        busy = ok(sci_eval(tmp_path, *sweep, busy=1.0))  # 2 cores, 1 busy -> 1 thread
        jobs = sorted(
            p.parent for p in (tmp_path / "sci-eval-sweeps" / "s").glob("*/manifest.json")
        )
        assert len(jobs) == 2 and len(asked) == 2
        cores = len(os.sched_getaffinity(0))
        for job in jobs:
            recorded = manifest.read(job)
            assert recorded.status == "done"
            assert recorded.config["model"]["env"]["OMP_NUM_THREADS"] == str(max(1, cores - 1))
        idle = ok(sci_eval(tmp_path, *sweep, busy=0.0))  # idle -> one thread per core
        assert len(asked) == 2  # no job ran again
        for job in jobs:
            assert f"  skipped  {job.name}: unchanged since it finished\n" in idle.stdout
        assert not list(jobs[0].parent.glob("*__rerun-*"))
        assert "finished with other inputs" not in idle.stdout
        # a changed input that changes results still runs again
        changed = ok(sci_eval(tmp_path, *sweep[:-3], "limit=2", *sweep[-3:], busy=0.0))
        said = [line for line in changed.stdout.splitlines() if "other inputs" in line]
        assert len(said) == 2 and all("(config limit: 1 -> 2)" in line for line in said), said
        assert len(asked) == 2 + 4
    assert busy.returncode == 0


def test_a_replay_reads_the_data_of_the_run_or_refuses(tmp_path: Path) -> None:
    data = tmp_path / "scimif data"
    shutil.copytree(Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples", data)
    with scripted_server(lambda _: (200, "application/json", completion("4"))) as model:
        args = [*model_args(model.chat_url), "tasks=scimif_chem", "limit=1"]
        ok(sci_eval(tmp_path, *args, "hydra.run.dir=first", SCIMIF_DATA_DIR=str(data)))
        first = manifest.read(tmp_path / "first")
        assert first.data["scimif"]["location"] == str(data.resolve())
        # replayed without the variable: the recorded location is read again
        ok(sci_eval(tmp_path, "--replay", str(tmp_path / "first"), "hydra.run.dir=again"))
        again = manifest.read(tmp_path / "again")
        assert again.data["scimif"]["location"] == str(data.resolve())
        assert again.data["scimif"]["sha256"] == first.data["scimif"]["sha256"]
        assert again.results["scimif_chem"]["bundled_samples,none"] == 0
        # a variable pointing elsewhere does not redirect the replay either
        elsewhere = tmp_path / "other"
        shutil.copytree(data, elsewhere)
        ok(sci_eval(
            tmp_path, "--replay", str(tmp_path / "first"), "hydra.run.dir=third",
            SCIMIF_DATA_DIR=str(elsewhere),
        ))  # fmt: skip
        assert manifest.read(tmp_path / "third").data["scimif"]["location"] == str(data.resolve())
        # a run on the bundled samples replays on them, whatever the environment says
        ok(sci_eval(tmp_path, *args, "hydra.run.dir=bundled"))
        ok(sci_eval(
            tmp_path, "--replay", str(tmp_path / "bundled"), "hydra.run.dir=bundled2",
            SCIMIF_DATA_DIR=str(elsewhere),
        ))  # fmt: skip
        assert manifest.read(tmp_path / "bundled2").data["scimif"]["location"] is None

        # changed data: refused in one line, nothing run
        chemistry = data / "chemistry.jsonl"
        chemistry.write_text(chemistry.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        out = sci_eval(tmp_path, "--replay", str(tmp_path / "first"), "hydra.run.dir=changed")
        assert out.returncode == 1
        (line,) = out.stderr.strip().splitlines()
        assert line.startswith(
            f"sci-eval --replay: scimif data differs from what {tmp_path / 'first'} read (sha256: "
        ), line
        assert not (tmp_path / "changed").exists()
        # gone: refused in one line
        shutil.rmtree(data)
        out = sci_eval(tmp_path, "--replay", str(tmp_path / "first"), "hydra.run.dir=gone")
        assert out.returncode == 1
        (line,) = out.stderr.strip().splitlines()
        assert line == (
            f"sci-eval --replay: scimif data that {tmp_path / 'first'} read is gone: "
            f"SCIMIF_DATA_DIR (run settings) is {str(data.resolve())!r}: neither an existing "
            "folder nor a hub dataset id"
        )
        assert not (tmp_path / "gone").exists()
