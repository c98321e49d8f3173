"""Counts real checker calls in every Python process of a test's command (``lm_eval``,
``sci-eval``, ``sci-score``): ``tests/test_checker_calls.py`` puts this folder first on
``PYTHONPATH`` and names a file in ``SCI_TASKS_TEST_CHECKER_CALLS``. Each registered checker
(a rule checker, or a judged check's ``build``) is wrapped: it runs as registered, and one
JSON line per call (constraint, parameters, response) is appended to that file."""

from __future__ import annotations

import os

CALLS = os.environ.get("SCI_TASKS_TEST_CHECKER_CALLS")

if CALLS:
    import json
    import threading
    from dataclasses import replace
    from typing import Any

    from sci_tasks.metrics.constraints import base
    from sci_tasks.metrics.constraints.registry import registered

    lock = threading.Lock()

    def counted(name: str, fn: Any) -> Any:
        def checker(inp: base.CheckInput) -> Any:
            line = {"constraint": name, "parameters": inp.parameters, "response": inp.response}
            with lock, open(CALLS, "a", encoding="utf-8") as out:
                out.write(json.dumps(line, default=str) + "\n")
            return fn(inp)

        return checker

    registered()  # every checker module imported: the registry is complete
    for name, fn in list(base.CHECKERS.items()):
        base.CHECKERS[name] = counted(name, fn)
    for name, check in list(base.JUDGED.items()):
        base.JUDGED[name] = replace(check, build=counted(name, check.build))
