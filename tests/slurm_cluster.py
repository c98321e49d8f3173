"""A real one-node SLURM cluster on this machine, for `nox -s slurm` (tests/test_slurm.py).

Debian's `slurm-wlm` and `munge` are installed when missing (root only). Every file the
daemons use lives in one temporary folder: a `slurm.conf` for this machine (its CPUs and
memory, no cgroups: process tracking by /proc, no task plugin), the state and spool
folders, the logs, munge's socket and key. `munged`, `slurmctld` and `slurmd` run in the
foreground as our children on free ports, so stopping them is `terminate` by PID and
nothing outlives `cluster()`; clients reach this cluster through `SLURM_CONF` only.

Accounting: Slurm 22.05 (Debian 12) keeps job accounting only through `slurmdbd`, which
stores it in MySQL / MariaDB (`accounting_storage/filetxt` is gone; the job completion log
that `sacct --completion` reads is not what submitit polls: it runs plain `sacct` for the
state of its jobs, and would wait forever on a cancelled one without accounting). So a
private `mariadbd` (its own data folder, loopback port, no grant tables) and `slurmdbd` run
too, as our children like the rest. See docs/decisions.md.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ("slurm-wlm", "slurmdbd", "munge", "mariadb-server")
DAEMONS = ("munged", "mariadbd", "slurmdbd", "slurmctld", "slurmd")
PARTITION = "debug"
ACTIVE = {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "REQUEUED", "RESIZING", "SUSPENDED"}


class ClusterError(RuntimeError):
    """The cluster could not be set up; the message says which step and why."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def require_root() -> None:
    if os.geteuid() != 0:
        raise ClusterError(
            "nox -s slurm needs root (it installs slurm-wlm and munge and runs slurmd as root)"
        )


def install_missing() -> None:
    """apt-get install of Debian's packages when a daemon or client is missing."""
    needed = [
        *DAEMONS,
        "sbatch",
        "sacct",
        "sacctmgr",
        "sinfo",
        "scancel",
        "mungekey",
        "mariadb-install-db",
    ]
    if all(shutil.which(name) or Path("/usr/sbin", name).exists() for name in needed):
        return
    require_root()
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]
    for cmd in (["apt-get", "update", "-q"], install):
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise ClusterError(f"{' '.join(cmd)} failed: {out.stderr.strip()[-500:]}")


def memory_mib(meminfo: str = "/proc/meminfo") -> int:
    """MemTotal in MiB, as slurmd measures it (a larger RealMemory would drain the node)."""
    for line in Path(meminfo).read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise ClusterError(f"no MemTotal line in {meminfo}")


@dataclass(frozen=True)
class Ports:
    slurmctld: int
    slurmd: int
    slurmdbd: int
    mariadb: int

    @classmethod
    def free(cls) -> Ports:
        return cls(free_port(), free_port(), free_port(), free_port())


def slurmdbd_conf(root: Path, ports: Ports) -> str:
    return f"""\
AuthType=auth/munge
AuthInfo=socket={root}/munge/munge.socket
DbdAddr=127.0.0.1
DbdHost=localhost
DbdPort={ports.slurmdbd}
SlurmUser=root
PidFile={root}/slurmdbd.pid
LogFile={root}/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={ports.mariadb}
StorageUser=root
StorageLoc=slurm_acct_db
"""


def slurm_conf(root: Path, node: str, cpus: int, memory: int, ports: Ports) -> str:
    """A one-node cluster: controller and compute node on this machine, everything under
    ``root``; no cgroups (this sandbox has none usable), root runs the jobs' steps."""
    return f"""\
ClusterName=scitasks
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ports.slurmctld}
SlurmdPort={ports.slurmd}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={root}/munge/munge.socket
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU={memory // (2 * cpus)}
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={ports.slurmdbd}
AccountingStoragePass={root}/munge/munge.socket
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=3600
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName={PARTITION} Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


@dataclass
class Cluster:
    root: Path
    node: str
    env: dict[str, str]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def run(self, *cmd: str, check: bool = True) -> str:
        out = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=60)
        if check and out.returncode != 0:
            raise ClusterError(f"{' '.join(cmd)} failed: {out.stderr.strip() or out.stdout}")
        return out.stdout

    def node_state(self) -> str:
        return self.run("sinfo", "-h", "-N", "-o", "%T", check=False).strip()

    def accounted(self) -> list[dict[str, str]]:
        """Every job (array tasks one by one, no steps) as `sacct` reports them."""
        fields = ["JobID", "JobName", "Partition", "NodeList", "State", "ExitCode"]
        out = self.run(
            "sacct", "--allusers", "--allocations", "--noheader", "--parsable2",
            "--starttime", "2000-01-01", "--format", ",".join(fields),
        )  # fmt: skip
        return [dict(zip(fields, line.split("|"), strict=False)) for line in out.splitlines()]

    def finished(self, since: set[str], count: int, timeout: float = 120) -> list[dict[str, str]]:
        """The ``count`` jobs not in ``since``, once sacct has every one in a final state
        (the submitting command returns when the results are written; slurmctld records
        the job's end a moment later)."""
        deadline = time.monotonic() + timeout
        while True:
            jobs = [r for r in self.accounted() if r["JobID"] not in since]
            if len(jobs) == count and not any(r["State"] in ACTIVE for r in jobs):
                return jobs
            if time.monotonic() > deadline:
                raise ClusterError(f"jobs still active after {timeout:.0f} s: {jobs}")
            time.sleep(1)

    def queue(self) -> list[dict[str, str]]:
        fields = ["JobID", "JobName", "State"]
        out = self.run("squeue", "-h", "-o", "%i|%j|%T")
        return [dict(zip(fields, line.split("|"), strict=False)) for line in out.splitlines()]

    def logs(self) -> str:
        parts = []
        for log in sorted((self.root / "log").glob("*.log")):
            parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _start(cluster: Cluster, name: str, cmd: list[str]) -> None:
    log = (cluster.root / "log" / f"{name}.out").open("w")
    cluster.procs[name] = subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, env=cluster.env, start_new_session=True
    )
    log.close()


def _wait(what: str, ready, cluster: Cluster, timeout: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, proc in cluster.procs.items():
            if proc.poll() is not None:
                raise ClusterError(f"{name} exited ({proc.returncode}):\n{cluster.logs()}")
        if ready():
            return
        time.sleep(0.5)
    raise ClusterError(f"timed out waiting for {what}:\n{cluster.logs()}")


def stop(cluster: Cluster, timeout: float = 30) -> None:
    """SIGTERM to every daemon we started (newest first), by PID, then SIGKILL to any left.
    slurmd's job steps are its children's sessions: cancel jobs before stopping it."""
    for name in reversed(list(cluster.procs)):
        proc = cluster.procs[name]
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=timeout)


@contextmanager
def cluster(env: Mapping[str, str] | None = None, cpus: int = 2) -> Iterator[Cluster]:
    """Install when missing, configure, start and wait for an idle node; always stop."""
    install_missing()
    require_root()
    root = Path(tempfile.mkdtemp(prefix="sci-slurm-"))
    for sub in ("state", "spool", "log", "munge"):
        (root / sub).mkdir()
    node = socket.gethostname().split(".")[0]
    ports = Ports.free()
    conf = root / "slurm.conf"
    conf.write_text(slurm_conf(root, node, cpus, memory_mib(), ports))
    dbd_conf = root / "slurmdbd.conf"
    dbd_conf.write_text(slurmdbd_conf(root, ports))
    dbd_conf.chmod(0o600)  # slurmdbd refuses a config others can read
    c = Cluster(root, node, {**(env or os.environ), "SLURM_CONF": str(conf)})
    munge = root / "munge"
    key = munge / "munge.key"
    db = root / "mariadb"
    try:
        subprocess.run(["mungekey", "--create", "--keyfile", str(key)], check=True,
                       capture_output=True)  # fmt: skip
        _start(c, "munged", [
            "/usr/sbin/munged", "--foreground", "--force", f"--socket={munge}/munge.socket",
            f"--key-file={key}", f"--pid-file={munge}/munged.pid",
            f"--log-file={root}/log/munged.log", f"--seed-file={munge}/munged.seed",
        ])  # fmt: skip
        _wait("munged's socket", (munge / "munge.socket").exists, c, 20)
        out = subprocess.run(
            ["mariadb-install-db", "--no-defaults", f"--datadir={db}", "--user=root",
             "--skip-test-db", "--auth-root-authentication-method=normal"],
            capture_output=True, text=True,
        )  # fmt: skip
        if out.returncode != 0:
            raise ClusterError(f"mariadb-install-db failed: {out.stderr.strip()[-800:]}")
        _start(c, "mariadbd", [
            "/usr/sbin/mariadbd", "--no-defaults", f"--datadir={db}", "--user=root",
            f"--socket={root}/mariadb.sock", f"--port={ports.mariadb}",
            "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-name-resolve",
            f"--pid-file={root}/mariadbd.pid", f"--log-error={root}/log/mariadbd.log",
        ])  # fmt: skip
        _wait("mariadbd's port", lambda: _accepts(ports.mariadb), c, 60)
        _start(c, "slurmdbd", ["/usr/sbin/slurmdbd", "-D", "-s"])
        _wait("slurmdbd's port", lambda: _accepts(ports.slurmdbd), c, 60)
        c.run("sacctmgr", "-i", "add", "cluster", "scitasks")
        _start(c, "slurmctld", ["slurmctld", "-D", "-i", "-f", str(conf)])
        _wait("slurmctld", lambda: bool(c.run("sinfo", "-h", check=False)), c, 60)
        _start(c, "slurmd", ["slurmd", "-D", "-N", node, "-f", str(conf)])
        _wait("an idle node (sinfo)", lambda: c.node_state() == "idle", c, 90)
        yield c
    finally:
        try:
            if "slurmctld" in c.procs and c.procs["slurmctld"].poll() is None:
                c.run("scancel", "--full", "--partition", PARTITION, check=False)
                time.sleep(1)
        finally:
            stop(c)
    shutil.rmtree(root, ignore_errors=True)  # kept, with the daemons' logs, after a failure
