"""The document fields that carry a run's settings to scoring: a task's data hook adds them to
every document (lm-eval hands ``--metadata`` only to ``custom_dataset``), so they are the run's,
not the record's. A light module: the sample key (``sci_tasks.stats``) reads these names
without importing the judge client."""

from __future__ import annotations

JUDGE_FIELD = "judge_settings"  # JSON text of the constraint judge's JudgeConfig.public(), or None
CORRECTNESS_FIELD = "correctness_judge_settings"  # JSON text of CorrectnessJudge.public(), or None
PIXELS_KEY = "max_image_pixels"  # the image budget (sci_tasks.images.ImageBudget)
BYTES_KEY = "max_image_bytes"

FIELDS = frozenset({JUDGE_FIELD, CORRECTNESS_FIELD, PIXELS_KEY, BYTES_KEY})
