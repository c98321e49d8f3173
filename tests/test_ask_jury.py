"""``ask_jury``, the one place where every jury (SciMIF's constraints, SciGen-Verify's
verification, SciGen-Rubric's rubric) asks its jurors: each juror's work gets that juror's
client, and a juror that raises gives no verdict with the reason while the others stand."""

from __future__ import annotations

from sci_tasks.metrics.judge import JudgeClient, JudgeConfig, Jury, ask_jury, client_for


def test_each_juror_works_with_its_own_client_and_a_crash_is_its_reason() -> None:
    steady, broken = (
        JudgeConfig(model=name, base_url="http://127.0.0.1:9/v1") for name in ("steady", "broken")
    )
    jury = Jury((steady, broken, steady))

    def work(client: JudgeClient) -> str:
        if client.config.model == "broken":
            raise ValueError("reply without a verdict key")
        assert client is client_for(steady)  # the pooled client of that juror's settings
        return f"verdict of {client.config.label}"

    assert ask_jury(jury, work, lambda reason: f"no verdict: {reason}") == [
        "verdict of steady",
        "no verdict: juror broken raised ValueError: reply without a verdict key",
        "verdict of steady",
    ]
