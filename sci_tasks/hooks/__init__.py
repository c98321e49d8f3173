"""Functions that lm-eval task YAMLs reference with ``!function sci_tasks.hooks.<module>.<fn>``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import datasets

from sci_tasks.metrics import judge as judges


def with_judge(data: datasets.DatasetDict, metadata: Mapping[str, Any]) -> datasets.DatasetDict:
    """Every document carrying the task's judges (the constraint judge and the correctness
    judge), resolved once here from ``--metadata`` / the environment
    (``judges.document_fields``): ``custom_dataset`` is the one hook lm-eval hands
    ``--metadata``, and scoring sees only the document. Settings only, never a key."""
    fields = judges.document_fields(metadata)
    out = {}
    for split, ds in data.items():
        for name, text in fields.items():
            ds = ds.add_column(name, [text] * len(ds))
        out[split] = ds
    return datasets.DatasetDict(out)
