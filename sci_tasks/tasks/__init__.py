"""The task YAMLs. lm-eval's task plugins (the ``lm_eval.tasks`` entry point, PR #4015)
resolve this package to its folder and scan it for ``*.yaml``: keep only task files here."""
