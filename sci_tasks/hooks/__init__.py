"""Functions that lm-eval task YAMLs reference with ``!function sci_tasks.hooks.<module>.<fn>``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import datasets

from sci_tasks.metrics import judge as judges


def with_judge(data: datasets.DatasetDict, metadata: Mapping[str, Any]) -> datasets.DatasetDict:
    """Every document carrying the task's judge, resolved once here from ``--metadata`` /
    the environment (``judges.resolve``): ``custom_dataset`` is the one hook lm-eval hands
    ``--metadata``, and scoring sees only the document. Settings only, never a key."""
    text = judges.settings_text(judges.resolve(metadata))
    return datasets.DatasetDict(
        {split: ds.add_column(judges.JUDGE_FIELD, [text] * len(ds)) for split, ds in data.items()}
    )
