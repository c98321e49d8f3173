"""``sci-eval --replay RUN``: the overrides a manifest recorded, with the data it read pinned."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sci_tasks import manifest


def replay_arguments(path: Path, later: list[str]) -> list[str]:
    """The overrides a manifest recorded, with the data it read pinned: every benchmark's
    data location as an override (one that came from the environment included), the
    environment's locations dropped where the run read bundled samples. Refuses (a
    ValueError, one line) when recorded data is gone or no longer matches its
    fingerprint. ``later`` overrides win; a later ``data.*`` override is not checked."""
    from sci_tasks import registry
    from sci_tasks.data.locate import ROOT_KEY
    from sci_tasks.paths import hydra_quoted

    recorded = manifest.read(path)
    data = {b: e for b, e in recorded.data.items() if "source" in e}
    keys = registry.data_keys()
    given = {o.split("=", 1)[0].lstrip("+~") for o in later if "=" in o}
    replayed = {b: e for b, e in data.items() if f"data.{keys.get(b)}" not in given}
    if data:
        os.environ.pop(ROOT_KEY, None)  # each benchmark is pinned on its own below
    pinned: dict[str, str] = {}
    for benchmark, entry in replayed.items():
        key = keys[benchmark]
        where = recorded_location(entry)
        if where is None:  # bundled samples: the environment must not redirect them
            os.environ.pop(key, None)
        else:
            pinned[key] = where
    now = manifest.data_fingerprints(pinned)
    for benchmark, entry in replayed.items():
        current = now.get(benchmark, {})
        if "error" in current:
            raise ValueError(f"{benchmark} data that {path} read is gone: {current['error']}")
        before = {"location": recorded_location(entry), **entry}
        after = {"location": recorded_location(current), **current}
        for part in ("location", "sha256", "record_files", "images"):
            if before.get(part) != after.get(part):
                raise ValueError(
                    f"{benchmark} data differs from what {path} read ({part}: "
                    f"{before.get(part)} -> {after.get(part)}): a replay would measure other "
                    f"data (give data.{keys[benchmark]}=... to run on it anyway)"
                )
    pins = [f"data.{key}={hydra_quoted(where)}" for key, where in pinned.items()]
    return [*recorded.overrides, *pins, *later]


def recorded_location(entry: dict[str, Any]) -> str | None:
    """Where a manifest's data entry says a benchmark's data was read (a folder or a hub
    id); None for the bundled samples. Older manifests have only the ``source`` text
    (``folder /x (from ...)``)."""
    if "location" in entry:
        return entry["location"]
    source = str(entry.get("source", ""))
    kind, _, rest = source.partition(" ")
    if kind not in ("folder", "hub"):
        return None
    return rest.rsplit(" (from ", 1)[0].split(" [", 1)[0]
