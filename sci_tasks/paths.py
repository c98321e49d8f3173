"""Folder paths on the command line, as the user has them.

A sweep job folder is named by its overrides (``..._scimif_text__max_gen_toks=64--2004d636``),
so its path holds ``=``; a path may hold spaces too. Hydra parses every argument as an
override, and ``run_dir=<path with =>`` fails in its grammar (``mismatched input '='``).
The commands that take a folder read it before Hydra sees the arguments: ``path_override``
turns ``run_dir=<anything>`` or a bare positional path into an override Hydra reads as one
quoted string. The argparse commands (``sci-report``, ``sci-view``, ``sci-leaderboard``)
take the folder as a positional argument, which argparse never splits.
"""

from __future__ import annotations

import re
from pathlib import Path


def hydra_quoted(value: str) -> str:
    """``value`` as a Hydra quoted string: read back verbatim, ``=``, spaces, commas and
    brackets included. In Hydra's grammar only a quote, and backslashes right before a
    quote, need escaping; ``${`` would still interpolate, so it is escaped too."""
    escaped = re.sub(r"(\\*)'", lambda m: m.group(1) * 2 + "\\'", value)
    escaped = re.sub(r"(\\*)$", lambda m: m.group(1) * 2, escaped)
    return "'" + escaped.replace("${", "\\${") + "'"


def is_path(arg: str) -> bool:
    """A command-line argument that names a path: one that exists, or one that cannot be an
    override (no ``=``)."""
    return "=" not in arg or Path(arg).expanduser().exists()


def path_override(argv: list[str], key: str) -> tuple[list[str], str | None]:
    """``argv`` with the folder given as ``key=<path>`` or as the first argument that is an
    path (``is_path``: an override such as ``judge=x`` is none) rewritten to ``key='<path>'``
    (Hydra-quoted); returns the new argv and the raw path (None when there is none). A
    value the user quoted for Hydra already is left alone."""
    out: list[str] = []
    found: str | None = None
    for arg in argv:
        if found is None and arg.startswith(f"{key}="):
            value = arg[len(key) + 1 :]
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                out.append(arg)  # quoted for Hydra: Hydra reads it as the user meant
                found = value[1:-1]
                continue
            found = value
            out.append(f"{key}={hydra_quoted(value)}")
        elif found is None and not arg.startswith("-") and is_path(arg):
            found = arg
            out.append(f"{key}={hydra_quoted(arg)}")
        else:
            out.append(arg)
    return out, found
