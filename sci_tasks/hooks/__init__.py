"""Functions that lm-eval task YAMLs reference with ``!function sci_tasks.hooks.<module>.<fn>``."""
