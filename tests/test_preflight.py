"""One pre-flight for every command: sci-lm-eval checks ``--limit`` and the judge it will
ask (key, server) before lm-eval starts, in one line, as sci-eval does."""

from __future__ import annotations

import json

import pytest

from sci_tasks.cli import UsageError, preflight
from sci_tasks.run.preflight import limit_problem

from .misbehaving import refused_url

RUN = ["run", "--model", "hf", "--model_args", "pretrained=x", "--tasks", "scimif_chem"]


@pytest.mark.parametrize(
    ("limit", "problem"),
    [
        (None, None), (3, None), (0.5, None), (1.0, None),
        (0, "0 is not positive (a sample count >= 1, or a fraction such as 0.1)"),
        (-1, "-1 is not positive (a sample count >= 1, or a fraction such as 0.1)"),
        ("abc", "'abc' is not a number"), (True, "True is not a number"),
        (1.5, "1.5 is neither a whole sample count nor a fraction below 1"),
    ],
)  # fmt: skip
def test_limit_problem(limit: object, problem: str | None) -> None:
    assert limit_problem(limit) == problem


def test_sci_lm_eval_refuses_a_bad_limit_and_an_unusable_judge_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in ("SCI_TASKS_JUDGE_MODEL", "SCI_TASKS_JUDGE_BASE_URL", "NOPE_KEY"):
        monkeypatch.delenv(key, raising=False)
    preflight([*RUN, "--limit", "2"])  # no judge: nothing else to check
    with pytest.raises(UsageError, match=r"^--limit -1: -1 is not positive"):
        preflight([*RUN, "--limit", "-1"])
    with pytest.raises(UsageError, match=r"^--limit x: 'x' is not a number$"):
        preflight([*RUN, "--limit", "x"])
    remote = {
        "model": "gpt-4.1",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "NOPE_KEY",
    }
    with pytest.raises(UsageError) as refused:
        preflight([*RUN, "--metadata", json.dumps({"judge": remote})])
    assert str(refused.value) == (
        "judge.api_key_env: NOPE_KEY is not set (the key for https://api.openai.com/v1); "
        "export it or name another variable"
    )
    url = refused_url()
    monkeypatch.setenv("SCI_TASKS_JUDGE_MODEL", "grader")
    monkeypatch.setenv("SCI_TASKS_JUDGE_BASE_URL", url)
    with pytest.raises(
        UsageError, match=rf"^cannot reach the judge server at {url} \(connection refused\)"
    ):
        preflight(RUN)
    preflight([*RUN, "--predict_only"])  # nothing is scored: the judge is never asked
    preflight(["ls", "tasks"])
