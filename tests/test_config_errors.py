"""Every config mistake on a Hydra command (sci-eval, sci-score) is one line: an unknown key
names the closest valid keys, a group typo lists the group's choices, a key added with ``+``
that nothing reads is refused, a value of the wrong type names the option and the schema
field (``sci_tasks.run_config``, issue 30); HYDRA_FULL_ERROR=1 keeps Hydra's full trace
(issue 31).

The commands run as a user runs them (console scripts, a fresh folder); nothing is loaded
or written: Hydra fails while composing, before our job starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from sci_tasks.config_errors import closest_keys, valid_keys

from .helpers import must_fail

MODELS = "hf, local_api, openai_chat, smollm2_cpu, tiny_vlm_cpu, vllm, vllm_vlm"


def fails(tmp_path: Path, *args: str, **env: str) -> str:
    """The command's whole output (stdout + stderr); it must exit non-zero."""
    output = must_fail(tmp_path, list(args), **env)
    assert not (tmp_path / "sci-eval-runs").exists()  # nothing written
    return output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["sci-eval", "batch_size=auto"],
            "sci-eval: unknown config key 'batch_size': did you mean model.batch_size? "
            "(e.g. model.batch_size=auto)",
        ),
        (
            ["sci-eval", "model.batchsize=4"],
            "sci-eval: unknown config key 'model.batchsize': did you mean model.batch_size? "
            "(e.g. model.batch_size=4)",
        ),
        (
            ["sci-eval", "limt=3"],
            "sci-eval: unknown config key 'limt': did you mean limit? (e.g. limit=3)",
        ),
        (
            ["sci-eval", "model=smolm"],
            "sci-eval: model=smolm: no such model config (did you mean model=smollm2_cpu?); "
            f"choices: {MODELS}",
        ),
        (
            ["sci-eval", "-m", "tasks=scimif_chem,scimif_chm"],  # a sweep's second value
            "sci-eval: tasks=scimif_chm: no such tasks config (did you mean tasks=scimif_chem?);"
            " choices: mix_standard, scigen_rubric, scigen_verify, scimif, scimif_all, "
            "scimif_bio, scimif_chem, scimif_geo, scimif_mat, scimif_phy, scimif_text, "
            "spm_bench",
        ),
        (
            ["sci-eval", "hydra/launcher=jobli"],
            "sci-eval: hydra/launcher=jobli: no such hydra/launcher config (did you mean "
            "hydra/launcher=joblib?); choices: basic, joblib, submitit_local, submitit_slurm",
        ),
        (  # Hydra's advice, followed: the key would be added and nothing would read it
            ["sci-eval", "+batch_size=auto"],
            "sci-eval: +batch_size=auto adds a key nothing reads: did you mean "
            "model.batch_size? (e.g. model.batch_size=auto)",
        ),
        (  # lm-eval's model_args take any key: adding it is the right advice
            ["sci-eval", "model.args.trust_remote_code=true"],
            "sci-eval: model.args.trust_remote_code is not set by the config: to pass it on, "
            "add it: +model.args.trust_remote_code=true",
        ),
        (
            ["sci-eval", "model.batch_size=[1"],
            "sci-eval: no viable alternative at input '[1' See "
            "https://hydra.cc/docs/1.2/advanced/override_grammar/basic for details",
        ),
        (  # a value of the wrong type: refused while Hydra composes, by the typed schema
            ["sci-eval", "limit=abc"],
            "sci-eval: limit=abc: Value 'abc' of type 'str' is incompatible with type hint "
            "'Optional[Union[int, float]]' (RunConfig.limit in sci_tasks/run_config.py)",
        ),
        (
            ["sci-eval", "data.max_image_pixels=big"],
            "sci-eval: data.max_image_pixels=big: Value 'big' of type 'str' could not be "
            "converted to Integer (DataLocations.max_image_pixels in sci_tasks/run_config.py)",
        ),
        (
            ["sci-score", "run_dir=.", "judge=local_api", "judge.model=m", "judge.timeout=soon"],
            "sci-score: judge.timeout=soon: Value 'soon' of type 'str' could not be converted "
            "to Float (JudgeServer.timeout in sci_tasks/run_config.py)",
        ),
        (
            ["sci-score", "run_dir=.", "judge=local_ap"],
            "sci-score: judge=local_ap: no such judge config (did you mean judge=local_api?); "
            "choices: local_api, none, openai",
        ),
        (
            ["sci-score", "run_dir=.", "judge.modle=x"],
            "sci-score: unknown config key 'judge.modle': did you mean judge.model? "
            "(e.g. judge.model=x)",
        ),
    ],
)
def test_a_config_mistake_is_one_line(tmp_path: Path, args: list[str], line: str) -> None:
    if args[0] == "sci-score":  # a folder holding lm-eval results, so Hydra composes
        (tmp_path / "results_2026-01-01T00-00-00.json").write_text('{"results": {}}')
    assert fails(tmp_path, *args).strip() == line


def test_hydra_full_error_keeps_the_full_trace(tmp_path: Path) -> None:
    out = fails(tmp_path, "sci-eval", "batch_size=auto", HYDRA_FULL_ERROR="1")
    assert "Traceback (most recent call last)" in out
    # the typed schema names itself (sci_tasks.run_config.RunConfig)
    assert "omegaconf.errors.ConfigAttributeError: Key 'batch_size' not in 'RunConfig'" in out
    assert out.rstrip().endswith(
        "hydra.errors.ConfigCompositionException: Could not override 'batch_size'.\n"
        "To append to your config use +batch_size=auto"
    )


def test_the_closest_keys_are_those_of_the_composed_config() -> None:
    keys = valid_keys("config", ["model=hf"])
    assert {"model.batch_size", "model.max_batch_size", "limit", "judge.name"} <= set(keys)
    assert not any(k.startswith("hydra") for k in keys)
    assert closest_keys("batch_size", keys) == ["model.batch_size", "model.max_batch_size"]
    assert closest_keys("model.devise", keys) == ["model.device"]
    assert closest_keys("nothing_like_it", keys) == []
