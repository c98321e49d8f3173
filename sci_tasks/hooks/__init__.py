"""Functions that lm-eval task YAMLs reference with ``!function sci_tasks.hooks.<module>.<fn>``,
and each benchmark's ``judge_work`` (what its scoring asks the judge, which
``metrics.judge.prefetch`` sends ahead). Run settings never enter a document: the task
(``sci_tasks.task.SciTask``) passes them beside it."""
