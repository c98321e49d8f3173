"""Functions that lm-eval task YAMLs reference with ``!function sci_tasks.hooks.<module>.<fn>``.
Run settings never enter a document: the task (``sci_tasks.task.SciTask``) passes them
beside it."""
