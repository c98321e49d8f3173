"""SIGINT / SIGTERM end a run in one line (the shell's exit status for the signal), even
when Python or a library wrapped the interrupt in another error."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Interrupted(SystemExit):
    """A run ended by SIGINT / SIGTERM: its one line, and the shell's exit status for it."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def interrupting_signal(exc: BaseException) -> str | None:
    """The signal behind ``exc`` ("SIGINT" / "SIGTERM"), or None for a real failure.

    The interrupt may arrive wrapped: Python 3.11 turns an exception raised while a class
    is built (a dataclass field's ``__set_name__`` during an import) into a RuntimeError
    whose cause is our KeyboardInterrupt, and libraries re-raise with ``from``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return str(current.args[0]) if current.args else "SIGINT"
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def interrupted_line(
    signal_name: str, folder: Path, kept: int | None, wrote: bool, before: int | None = None
) -> str:
    """The interrupt's one line; ``kept`` / ``before``: the model's cached responses now and
    when this run started generating, so the line counts what this run kept."""
    cache = ""
    if kept:
        new = kept - (before or 0)
        cache = f"; {new} response(s) of this run kept in the response cache"
        if before:
            cache += f" ({kept} for this model in all)"
    where = f" (manifest: interrupted, {folder})" if wrote else ""
    return (
        f"sci-eval: interrupted by {signal_name}{where}{cache}: run the same command again to "
        "finish the rest without regenerating what is kept"
    )


def close_progress_bars() -> None:
    """Close the progress bars a signal cut short now, so that our line is the last one
    (tqdm would redraw them at exit)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return
    for bar in list(getattr(tqdm, "_instances", ())):
        bar.close()


def terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt("SIGTERM")
