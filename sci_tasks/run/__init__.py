"""The parts of ``sci-eval`` (``sci_tasks.app``), one job each.

- ``preflight``: every check before a model is loaded (config, data, judges, servers).
- ``header``: the lines printed before and after a run.
- ``evaluate``: lm-eval's arguments, its response cache, and the run that writes results.
- ``stderr``: the ± of every headline metric, from ``sci_tasks.stats``.
- ``results_table``: the printed results table.
- ``jobs``: a job's folder, its ``.hydra/`` snapshot and a sweep's outcomes.
- ``interrupts``: SIGINT / SIGTERM as one line and the shell's exit status.
- ``replay``: ``sci-eval --replay RUN``.
"""
