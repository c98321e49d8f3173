"""Sweep job folder names (``sci_tasks.resolvers.job_name``): readable, unique, stable."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sci_tasks.leaderboard import _model_from_folder
from sci_tasks.resolvers import job_name, overrides_label


def digest(overrides: str) -> str:
    return hashlib.sha256(overrides.encode()).hexdigest()[:8]


def test_generation_settings_are_readable_in_the_name() -> None:
    overrides = "model.gen_kwargs.max_gen_toks=64,model=smollm2_cpu,tasks=scimif_text"
    name = job_name("smollm2-135m", "scimif_text", overrides)
    assert (
        name == f"smollm2-135m__scimif_text__max_gen_toks=64,model=smollm2_cpu--{digest(overrides)}"
    )
    # the hash is the one of the whole override list, as before: a re-run finds the job
    assert job_name("smollm2-135m", "scimif_text", overrides) == name


def test_what_a_name_leaves_out() -> None:
    # as Hydra writes override_dirname for the leaderboard's two-model sweep: the model id is
    # the model name, the URL an interpolation; a literal URL and a path are left out too
    overrides = (
        "model.args.base_url='${oc.env:KATAN_URL_${model.args.model}}',model.args.max_retries=1,"
        "model.args.model=model-a,model=local_api,tasks=spm_bench"
    )
    assert overrides_label(overrides, "model-a") == "max_retries=1,model=local_api"
    assert (
        overrides_label(
            "data.SCIMIF_DATA_DIR=/data/scimif,judge.base_url=http://h:8000/v1,seed=7", "m"
        )
        == "seed=7"
    )
    # no readable override: '<model>__<task set>__<hash>' as before
    assert (
        job_name("Qwen/Qwen2.5-7B", "spm_bench", "") == f"Qwen__Qwen2.5-7B__spm_bench__{digest('')}"
    )


def test_values_with_commas_odd_characters_and_length() -> None:
    overrides = "+model.args.dtype=bfloat16,model.gen_kwargs.until=[a__b,'</s>'],seed=3"
    label = overrides_label(overrides, "m")
    assert label == "dtype=bfloat16,until=-a_b,-s-,seed=3"  # list value kept whole
    assert "__" not in label and "--" not in label
    long = ",".join(f"model.gen_kwargs.setting_{i}=value_{i}" for i in range(20))
    name = job_name("m", "t", long)
    label = name.split("__", 2)[2].rsplit("--", 1)[0]
    assert len(label) <= 48 and label.startswith("setting_0=value_0,setting_1=value_1")
    assert len(job_name("m" * 200, "t" * 200, long)) < 255  # one path component


def test_the_leaderboard_reads_the_model_back_from_a_name() -> None:
    name = job_name("Org/model", "scimif_text", "model.gen_kwargs.max_gen_toks=8,tasks=x")
    assert _model_from_folder(Path(name)) == "Org__model"
    assert _model_from_folder(Path(job_name("m", "t", ""))) == "m"
