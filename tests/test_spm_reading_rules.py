"""SPM-Bench reading rules taken from round six's replies (issue 28), each a reply read as
meant and a near twin that must not be read so."""

from __future__ import annotations

import pytest

from sci_tasks.benchmarks.spm_bench.parse import parse_response
from sci_tasks.metrics.reply import normalise_reply

ABCDE = ["A", "B", "C", "D", "E"]
FRINGES = (
    "Image 1 shows two sets of lattice fringes crossing at 90 degrees.",
    "The fringe spacing in image 1 is about 0.2 nm.",
    "The diffraction spots form a square grid, consistent with image 1.",
    "Image 2 consists of continuous rings, so the area is polycrystalline.",
    "The fringe spacing in image 1 is about 0.5 nm.",
)
GRAINS = (
    "The film is polycrystalline, with grains roughly 100-300 nm across.",
    "The film is a single crystal without grain boundaries.",
    "Pinholes that could short-circuit a device are visible.",
    "Typical grains are larger than 1 um.",
)


@pytest.mark.parametrize(
    ("reply", "options", "texts", "labels"),
    [
        # a choice verb of speech: "going with", "settle on"
        ("So I'm going with A and B, and I'm fairly confident.", ABCDE, (), ("A", "B")),
        ("After all that, I'll settle on C.", ABCDE, (), ("C",)),
        ("I'm not sure; it could be anything.", ABCDE, (), ()),
        # an answer line with its confidence after a comma
        ("**Final Answer: A, B, D**, with a confidence of about 0.8.", ABCDE, (), ("A", "B", "D")),
        ("**Final Answer: A, B, D**, which is odd.", ABCDE, (), ()),
        # option texts restated without the panel number ("image 1")
        (
            "So the supported statements are: the two sets of fringes crossing at 90 degrees, "
            "the fringe spacing of about 0.2 nm, and the square grid of diffraction spots.",
            ABCDE,
            FRINGES,
            ("A", "B", "C"),
        ),
        (
            "So the supported statement is the fringe spacing of about 0.3 nm.",
            ABCDE,
            FRINGES,
            (),
        ),
        # "my pick is" names the selection
        (
            "So my pick is just the polycrystalline-with-100-300 nm-grains statement.",
            ["A", "B", "C", "D"],
            GRAINS,
            ("A",),
        ),
        (
            "So my pick is the single-crystal-with-100-300 nm-grains statement.",
            ["A", "B", "C", "D"],
            GRAINS,
            (),
        ),
    ],
)
def test_reading_rules(
    reply: str, options: list[str], texts: tuple[str, ...], labels: tuple[str, ...]
) -> None:
    assert parse_response(normalise_reply(reply), options, texts).labels == labels
