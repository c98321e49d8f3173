"""IUPAC names to structures with OPSIN, the standard name-to-structure parser (the jar that
the ``py2opsin`` package ships, run by the Java runtime: Debian's ``default-jre-headless``).

One OPSIN process serves the whole run: started on the first name, it reads one name per
line on stdin and answers one SMILES line (empty when the name does not parse), so a name
costs milliseconds instead of a JVM start. Answers are cached per name. A missing Java or
jar, or a process that stops answering, makes ``to_smiles`` raise ``OpsinUnavailable`` with
the one-line reason; the checkers turn that into an unscored verdict, never a guess.
"""

from __future__ import annotations

import functools
import importlib.util
import select
import shutil
import subprocess
import threading
from pathlib import Path

ANSWER_TIMEOUT = 30.0  # seconds for one name (the first one includes the JVM start)
MAX_NAME = 500  # characters: OPSIN reads one line per name


class OpsinUnavailable(RuntimeError):
    """OPSIN cannot run here (no Java, no jar, or the process died); the message says why."""


def _jar() -> Path:
    spec = importlib.util.find_spec("py2opsin")  # located, not imported: its import runs java
    if spec is None or not spec.submodule_search_locations:
        raise OpsinUnavailable("IUPAC names need OPSIN: pip install py2opsin")
    folder = Path(next(iter(spec.submodule_search_locations)))
    jars = sorted(folder.glob("opsin*.jar"))
    if not jars:
        raise OpsinUnavailable(f"no OPSIN jar in {folder} (reinstall py2opsin)")
    return jars[-1]


class _Server:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._broken = ""

    def _start(self) -> subprocess.Popen[str]:
        java = shutil.which("java")
        if java is None:
            raise OpsinUnavailable(
                "IUPAC names are checked with OPSIN, which needs a Java runtime "
                "(apt-get install default-jre-headless)"
            )
        return subprocess.Popen(
            [java, "-Xss8m", "-jar", str(_jar()), "-osmi"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def ask(self, name: str) -> str:
        with self._lock:
            if self._broken:
                raise OpsinUnavailable(self._broken)
            if self._process is None or self._process.poll() is not None:
                self._process = self._start()
            process = self._process
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(name + "\n")
                process.stdin.flush()
                ready, _, _ = select.select([process.stdout], [], [], ANSWER_TIMEOUT)
                if not ready:
                    raise TimeoutError(f"no answer within {ANSWER_TIMEOUT:.0f} s")
                line = process.stdout.readline()
                if not line:
                    raise EOFError("the process ended")
            except (OSError, TimeoutError, EOFError) as exc:
                process.kill()
                self._process = None
                self._broken = f"OPSIN stopped answering ({exc})"
                raise OpsinUnavailable(self._broken) from exc
            return line.strip()


_SERVER = _Server()


@functools.lru_cache(maxsize=4096)
def to_smiles(name: str) -> str | None:
    """The SMILES OPSIN gives for ``name``, or None when OPSIN cannot parse it.
    Raises ``OpsinUnavailable`` when OPSIN cannot run here."""
    text = " ".join(name.split())
    if not text or len(text) > MAX_NAME:
        return None
    return _SERVER.ask(text) or None
