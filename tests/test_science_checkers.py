"""The rule / extract checkers of the scientific SciMIF constraints (``units.py`` and
the discipline modules) on realistic model outputs, plus the unit grammar and the time bound."""

from __future__ import annotations

import functools
import random
import string
from typing import Any

import pytest

from sci_tasks.metrics.constraints import (
    method_requirement,
    quantities,
    registry,
    sequences,
    techniques,
    unit_check,
    unit_grammar,
    unit_requirement,
    units,
)
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.judge import JudgeReply, JudgeRequest

from .checker_cases import read_cases

# (constraint as written in the data, response, parameters, question, score, reason words)
Case = tuple[str, str, str | None, str, float | None, str]

GRADIENT_Q = (
    "The topographic map shows a hill with point A (420 m) and point B (180 m), 1.2 km apart "
    "horizontally. What is the average gradient between A and B? Calculate the gradient as the "
    "vertical rise divided by the horizontal distance and express it as a percentage (%)."
)
BRAGG_Q = (
    "The XRD pattern (Cu Kα, λ = 1.5406 Å) shows the (111) reflection at 2θ = 43.30°. Calculate "
    "the interplanar spacing d(111). Use Bragg's law with first-order diffraction (n = 1). "
    "Express the result in ångströms (Å) and wrap the final answer in \\boxed{}."
)
BRAGG_OK = (
    "Bragg's law gives nλ = 2d sin θ. With n = 1 and θ = 21.65°:\n"
    "d = λ / (2 sin θ) = 1.5406 / (2 × 0.3689) = 2.088 Å\n"
    "$$\\boxed{2.088\\ \\text{Å}}$$"
)
CIRCUIT_Q = (
    "In the circuit shown, what happens to the current through R1 if the resistor R3 is "
    "removed? Explain your reasoning using Ohm's law and Kirchhoff's laws."
)
NACL_Q = (
    "How many grams of sodium chloride (molar mass 58.44 g/mol) are needed to prepare 250 mL of "
    "a 0.20 mol/L NaCl solution? Use the relations n = c × V and m = n × M. Express the final "
    "mass in grams (g)."
)
NACL_OK = (
    "n = c × V = 0.20 mol/L × 0.250 L = 0.050 mol\n"
    "m = n × M = 0.050 mol × 58.44 g/mol = 2.92 g\n"
    "Final answer: 2.92 g"
)
SCENE_Q = (
    "What type of land-use scene is shown in this image? Choose exactly one label from this "
    "list: farmland, dense residential, industrial, forest, harbor, airport. State the label at "
    "the beginning of your response, then justify it in one sentence."
)
SCENES = "farmland, dense residential, industrial, forest, harbor, airport"
ADDRESS_Q = (
    "What is the address of the building marked with a red star on this town map? Write the "
    "address in hierarchical order from the smallest to the largest unit: house number, street, "
    "district, city, separated by commas."
)
INSULIN_Q = (
    "Describe how insulin leads to increased glucose uptake by muscle cells. Express the "
    "relationships as entity-relationship triples in the format (entity1, relation, entity2), "
    "one triple per line, with no other text."
)
INSULIN_OK = (
    "(insulin, binds, insulin receptor)\n"
    "(insulin receptor, activates, PI3K-Akt signalling)\n"
    "(PI3K-Akt signalling, promotes, GLUT4 translocation)\n"
    "(GLUT4 translocation, increases, glucose uptake)"
)
MRNA_Q = (
    "A DNA template strand reads 3'-TACGGATTC-5'. What is the sequence of the mRNA transcribed "
    "from it? Give the mRNA sequence in the 5'→3' direction; it must be exactly 9 nucleotides "
    "long. Enclose the final sequence in double square brackets, like [[SEQUENCE]]."
)
TAUC_Q = (
    "The Tauc plot of a thin oxide film is shown. Estimate its optical band gap and predict "
    "whether the film is a metal, a semiconductor or an insulator. Give the electrical "
    "classification as a discrete label (metal, semiconductor or insulator), and wrap that label "
    "in \\boxed{}."
)
HALL_PETCH_Q = (
    "The micrograph of the iron sample gives a mean grain diameter of 25 µm. Using the Hall-Petch "
    "relation with σ0 = 70 MPa and k = 0.74 MPa·m^1/2, predict its yield strength. Give the yield "
    "strength as a single continuous value in MPa. Format your answer as well-formed XML with "
    "the root tag <prediction>."
)

# The cases are data (tests/cases/checkers/science.jsonl): one JSON object per line with the
# constraint, response, parameters, question, expected score and words the reason must hold.
CASES: list[Case] = [
    (c["constraint"], c["response"], c["parameters"], c["question"], c["expected"], c["reason_has"])
    for c in read_cases("science.jsonl")
]


def _run(case: Case, judge: Any = None) -> registry.ConstraintResult:
    name, response, parameters, question, _, _ = case
    return registry.evaluate(name, CheckInput(response, parameters, question, judge=judge))


MINE = [
    *(
        f"{d}_unit_consistency"
        for d in ("chemistry", "geography", "biology", "material", "physics")
    ),
    *(
        f"{d}_method_constraint"
        for d in ("chemistry", "geography", "biology", "material", "physics")
    ),
    "geography_address_format_validity",
    "geography_scene_option_constraint",
    "biology_entity_relationship_format_validity",
    "biology_sequence_length_constraint",
    "material_characterization_technique_format_constraint",
    "material_property_prediction_constraint",
]


def test_every_constraint_has_a_passing_and_a_failing_case() -> None:
    covered = {(registry.canonical_name(c[0]), c[4]) for c in CASES}
    for name in MINE:
        assert (name, 1.0) in covered and (name, 0.0) in covered, name


def test_checkers_are_registered_with_their_kind() -> None:
    checkers = registry.registered()
    for name in MINE:
        assert callable(checkers[name]), name
        kind = registry.CONSTRAINTS[name].kind
        assert kind is (registry.Kind.EXTRACT if "method" in name else registry.Kind.RULE), name


def test_reasons_are_one_line_and_empty_responses_fail_or_are_unscored() -> None:
    for name, _, params, question, _, _ in CASES:
        result = registry.evaluate(name, CheckInput("", params, question))
        assert result.score in (0.0, None), (name, result.reason)
        assert "\n" not in result.reason


# ------------------------------------------------------------------ unit grammar tables

EQUIVALENT: list[tuple[str, str]] = [
    ("m^2", "m²"),
    ("m^2", "m**2"),
    ("m^2", "square meters"),
    ("m^2", "square metres"),
    ("m^2", "sq m"),
    ("m^2", "\\mathrm{m}^{2}"),
    ("m^2", "\\text{m}^2"),
    ("m^2", "m$^2$"),
    ("m^2", "m2"),
    ("kJ/mol", "kJ mol^-1"),
    ("kJ/mol", "kJ·mol⁻¹"),
    ("kJ/mol", "kJ\\,mol^{-1}"),
    ("kJ/mol", "kJ mol-1"),
    ("kJ/mol", "kilojoules per mole"),
    ("kJ/mol", "KJ/MOL"),
    ("°C", "degC"),
    ("°C", "degrees Celsius"),
    ("°C", "℃"),
    ("°C", "^\\circ C"),
    ("°C", "^{\\circ}\\mathrm{C}"),
    ("μm", "um"),
    ("μm", "µm"),
    ("μm", "micrometre"),
    ("μm", "micron"),
    ("μm", "\\mu m"),
    ("Å", "angstrom"),
    ("Å", "ångströms"),
    ("Å", "\\AA"),
    ("Å", "\u212b"),
    ("eV", "electron volts"),
    ("eV", "electronvolt"),
    ("m/s^2", "m s^-2"),
    ("m/s^2", "m/s²"),
    ("m/s^2", "m·s⁻²"),
    ("m/s^2", "meters per second squared"),
    ("m/s^2", "\\mathrm{m\\,s^{-2}}"),
    ("J/(mol·K)", "J/mol K"),
    ("J/(mol·K)", "J mol^-1 K^-1"),
    ("J/(mol·K)", "J/mol/K"),
    ("J/(mol·K)", "\\frac{J}{mol\\cdot K}"),
    ("MPa", "megapascals"),
    ("MPa", "MPA"),
    ("cells/mL", "cells mL^-1"),
    ("cells/mL", "cells per mL"),
    ("people/km²", "persons per square kilometre"),
    ("km/h", "kilometres per hour"),
    ("%", "percent"),
    ("%", "per cent"),
    ("L", "l"),
    ("L", "litres"),
    ("Ω", "ohm"),
    ("Ω", "\\Omega"),
    ("kΩ", "kiloohms"),
    ("kWh", "kW h"),
    ("N m", "N·m"),
    ("g/cm^3", "g cm^-3"),
    ("g/cm^3", "g/cc"),
    ("s^-1", "1/s"),
    ("kDa", "kilodaltons"),
    ("bp", "base pairs"),
    ("kb", "kbp"),
    ("Ma", "Myr"),
]
DIFFERENT: list[tuple[str, str]] = [
    ("km", "m"),
    ("kJ", "J"),
    ("kJ/mol", "J/mol"),
    ("m/s", "m/s^2"),
    ("K", "°C"),
    ("°C", "°F"),
    ("°", "°C"),
    ("MPa", "mPa"),
    ("MPa", "GPa"),
    ("mm", "mM"),
    ("m", "M"),
    ("M", "mol/L"),
    ("L", "dm^3"),
    ("Å", "A"),
    ("Å", "nm"),
    ("eV", "J"),
    ("m^2", "m"),
    ("m^2", "m^3"),
    ("cells/mL", "cells/L"),
    ("s", "min"),
    ("g", "kg"),
    ("%", "‰"),
]


def _one(text: str) -> units.Unit:
    found = unit_grammar.parse_unit(text)
    assert found, f"{text!r} does not parse as a unit"
    return found[0]


@pytest.mark.parametrize(("required", "written"), EQUIVALENT)
def test_equivalent_spellings_are_the_same_unit(required: str, written: str) -> None:
    assert _one(required) in unit_grammar.parse_unit(written), (
        required,
        written,
        [units.render(u) for u in unit_grammar.parse_unit(written)],
    )


@pytest.mark.parametrize(("required", "written"), DIFFERENT)
def test_different_units_stay_different(required: str, written: str) -> None:
    assert _one(required) not in unit_grammar.parse_unit(written)


@pytest.mark.parametrize(("required", "written"), EQUIVALENT[:20] + DIFFERENT[:8])
def test_unit_checker_agrees_with_the_grammar(required: str, written: str) -> None:
    expected = 1.0 if (required, written) in EQUIVALENT else 0.0
    inp = CheckInput(f"Final answer: 42.0 {written}", required, "Give the answer.")
    assert unit_check.check_units(inp).score == expected


def test_canonical_form_and_dimension() -> None:
    assert units.render(_one("kJ mol^-1")) == "kJ·mol^-1"
    assert units.render(_one("J/(mol K)")) == "J·K^-1·mol^-1"
    assert units.dimension(_one("N")) == units.dimension(_one("kg m s^-2"))
    assert units.dimension(_one("eV")) == units.dimension(_one("kJ"))
    assert units.dimension(_one("°C")) == units.dimension(_one("K"))
    assert units.is_si(_one("kPa")) and not units.is_si(_one("atm"))
    # words that are not units are not read as units
    for word in ("in", "a", "the", "order", "steps", "Markdown", "uppercase"):
        assert unit_grammar.parse_unit(word) == [], word


def test_quantities_read_numbers_and_their_units() -> None:
    text = unit_grammar.clean_unit_text(
        "0-4 s, H2O at 25 °C, 2 mol H2, $3.2 \\times 10^{3}\\,\\mathrm{m}$, 20.0%, 18 kJ mol-1."
    )
    found = [
        (q.number, units.render(q.units[0]) if q.units else "") for q in quantities.quantities(text)
    ]
    assert found == [
        ("0", ""),
        ("4", "s"),
        ("25", "°C"),
        ("2", "mol"),
        ("3.2 \\times 10^{3}", "m"),
        ("20.0", "%"),
        ("18", "kJ·mol^-1"),
    ]


def test_required_unit_from_parameters_or_question() -> None:
    req = unit_requirement.required_units("unit: kJ/mol", "")
    assert req is not None and [units.render(u) for u in req.units] == ["kJ·mol^-1"]
    req = unit_requirement.required_units("", "Express the answer in ångströms (Å), please.")
    assert req is not None and req.source == "question" and units.render(req.units[0]) == "Å"
    req = unit_requirement.required_units("", "Give the time in s and the distance in km.")
    assert req is not None and [units.render(u) for u in req.units] == ["s", "km"]
    assert unit_requirement.required_units("", "Explain in three steps in Markdown.") is None


# ------------------------------------------------------------------ extraction (judge)


class FakeJudge:
    """Answers every extraction request with a fixed span."""

    def __init__(self, span: str, found: bool = True) -> None:
        self.span, self.found, self.requests = span, found, 0

    def ask(self, request: JudgeRequest) -> JudgeReply:
        self.requests += 1
        data = {"found": self.found, "span": self.span}
        return JudgeReply(data, None, "fake-model", request.prompt_version)


# the relation written with a word inside it, which the structure reader does not parse
IDEAL_GAS_WORDS = "At STP one mole occupies 22.4 L, so R = PV/nT here = 8.31 J/(mol·K)."
IDEAL_GAS = (
    "At STP one mole occupies 22.4 L. Rearranging, R = PV/(nT) = (101325 × 0.0224)/(1 × 273) "
    "= 8.31 J/(mol·K)."
)


def test_method_extraction_rechecks_the_span_with_the_rule() -> None:
    # the rearranged law R = PV/(nT) is read by structure (issue 28): no judge is asked
    judge = FakeJudge("R = PV/(nT)")
    direct = _run(
        ("physics_method_constraint", IDEAL_GAS, "ideal gas law", "Find R.", None, ""), judge
    )
    assert direct.score == 1.0 and "applied as" in direct.reason and judge.requests == 0
    # a form the structure reader cannot read (the relation in words) goes to the extractor
    inp = ("physics_method_constraint", IDEAL_GAS_WORDS, "ideal gas law", "Find R.", None, "")
    assert _run(inp).score == 0.0  # the rule alone finds neither the name nor a known form
    judge = FakeJudge("R = PV/nT here")
    result = _run(inp, judge)
    assert result.score == 1.0, result.reason
    assert "extracted span" in result.reason and judge.requests == 1
    # a span that is not in the response is refused by extract_span
    refused = _run(inp, FakeJudge("PV = nRT"))
    assert refused.score == 0.0 and "not in the response" in refused.reason
    # a span in the response that does not hold the law's symbols fails the rule
    wrong = _run(inp, FakeJudge("22.4 L"))
    assert wrong.score == 0.0
    # the judge is not asked when the rule already decides
    judge = FakeJudge("nλ = 2d sin θ")
    assert _run(("material_method_constraint", BRAGG_OK, "Bragg's law", "", None, ""), judge).score
    assert judge.requests == 0


def test_extraction_of_a_descriptive_method() -> None:
    response = "Height gained: 240 m. Horizontal distance: 1200 m. Ratio: 0.2, i.e. 20%."
    case = (
        "geography_method_constraint",
        response,
        "rise over run (vertical interval / horizontal distance)",
        "",
        None,
        "",
    )
    assert _run(case).score == 0.0  # 2 of 4 key words in one sentence: not enough
    result = _run(case, FakeJudge("Horizontal distance: 1200 m. Ratio: 0.2"))
    assert result.score == 1.0, result.reason  # the located span needs half of them


# ------------------------------------------------------------------ helpers and tables


def test_method_requirement_items() -> None:
    items, source = method_requirement.method_items("Bragg's law, n = 1", "")
    assert source == "parameters" and [m.name for m in items[0].methods] == ["Bragg's law"]
    assert len(items) == 1  # "n = 1" is a setting, not a method
    items, _ = method_requirement.method_items("n = c × V, m = n × M", "")
    assert [i.text for i in items] == ["n = c × V", "m = n × M"]
    items, source = method_requirement.method_items("", CIRCUIT_Q)
    assert source == "question" and [i.text for i in items] == ["Ohm's law", "Kirchhoff's laws"]
    items, _ = method_requirement.method_items(
        "", "Determine the gap by the Tauc-plot linear extrapolation method."
    )
    assert [m.name for m in items[0].methods] == ["Tauc plot"]


def test_technique_table_names_and_abbreviations() -> None:
    def names(text: str) -> list[str]:
        return [h.technique.name for h in techniques._tech_hits(text)]

    assert names("FE-SEM and SEM-EDS") == [
        "scanning electron microscopy",
        "energy-dispersive X-ray spectroscopy",
    ]
    assert names("Fourier-transform infrared spectroscopy") == [
        "Fourier-transform infrared spectroscopy"
    ]
    assert names("UV–Vis and BET") == ["UV-Vis spectroscopy", "BET surface area analysis"]
    assert names("we bet the ms is right") == []  # English words and short ones, lower case
    # text with no capital (case forced): a 3+ letter non-word abbreviation still names
    assert names("we bet the sem is right") == ["scanning electron microscopy"]
    assert names("We bet the sem is right") == []  # case chosen freely: exact case
    assert names("bet") == ["BET surface area analysis"]  # alone, it is the answer
    assert names("Raman scattering") == ["Raman spectroscopy"]
    owners: dict[str, str] = {}
    for tech in techniques.TECHNIQUES:  # an abbreviation names one technique only
        for abbr in tech.abbreviations:
            assert owners.setdefault(techniques._abbr_key(abbr), tech.name) == tech.name, abbr
    for tech in techniques.TECHNIQUES:  # every table entry is found by its names
        for phrase in tech.full.split("|"):
            assert tech.name in names(phrase.title()), phrase
        for abbr in tech.abbreviations:
            assert tech.name in names(f"({abbr})"), abbr


def test_sequence_requirements_words_and_comparators() -> None:
    def rule(text: str) -> tuple[int, int | None]:
        found, _ = sequences.length_requirement(text, "")
        assert found is not None, text
        return found.low, found.high

    assert rule("exactly twelve nucleotides") == (12, 12)
    assert rule("at least 20 residues") == (20, None)
    assert rule("no more than twenty-five amino acids") == (0, 25)
    assert rule("fewer than 10 bp") == (0, 9)
    assert rule("a 15-mer") == (15, 15)
    assert rule("30 nucleotides or longer") == (30, None)
    assert rule("9") == (9, 9)
    assert sequences.length_requirement("", "Make it 9 nt long, not 12 nt.")[0] is None


# ------------------------------------------------------------------ time bound

CHECKS: list[tuple[str, str | None, str]] = [
    ("chemistry_unit_consistency", "kJ/mol", "Express the answer in kJ/mol."),
    ("physics_unit_consistency", None, "Express every acceleration in m/s^2."),
    ("physics_unit_consistency", "SI units", "Use SI units throughout."),
    ("physics_method_constraint", "Ohm's law and Kirchhoff's laws", "q"),
    ("geography_method_constraint", "rise over run (vertical interval / horizontal distance)", "q"),
    ("chemistry_method_constraint", "n = c × V, m = n × M", "q"),
    ("geography_address_format_validity", "street, district, city, province, country", "q"),
    ("geography_scene_option_constraint", SCENES, SCENE_Q),
    ("geography_scene_option_constraint", SCENES, "q"),
    ("biology_entity_relationship_format_validity", "(entity1, relation, entity2)", INSULIN_Q),
    ("biology_entity_relationship_format_validity", None, "List the relationships as triples."),
    ("biology_sequence_length_constraint", "at least 20 nucleotides", "DNA primer"),
    ("biology_sequence_length_constraint", "exactly 12 amino acids", "protein"),
    ("material_characterization_technique_format_constraint", "full name (abbreviation)", "q"),
    (
        "material_property_prediction_constraint",
        "discrete label: metal / semiconductor / insulator",
        "q",
    ),
    ("material_property_prediction_constraint", "continuous value", "Predict the band gap in eV."),
]


BIG = ("random", "parens", "digits", "numbers with units", "sequence letters")


@functools.lru_cache(maxsize=1)
def _big_texts() -> dict[str, str]:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + string.punctuation + " " * 10 + "\n"
    return {
        "random": "".join(rng.choice(alphabet) for _ in range(1_000_000)),
        "parens": "(" * 1_000_000,
        "digits": "7" * 1_000_000,
        "numbers with units": "1 m " * 250_000,
        "sequence letters": "".join(rng.choice("ACGTU -'53\n(),>[]") for _ in range(1_000_000)),
    }


@pytest.mark.parametrize("label", BIG)
def test_every_checker_gives_a_verdict_on_a_megabyte(label: str) -> None:
    """Not timed (benchmarks/checker_scaling.py measures the time): a verdict, no crash."""
    text = _big_texts()[label]
    for name, params, question in CHECKS:
        result = registry.evaluate(name, CheckInput(text, params, question))
        assert result.score in (0.0, 1.0, None) and "raised" not in result.reason, result.reason


def test_a_superscript_digit_as_length_parameter_is_no_crash() -> None:
    """``str.isdigit`` is true for "¹" but ``int`` refuses it (found by hypothesis)."""
    result = registry.evaluate(
        "biology_sequence_length_constraint",
        CheckInput("ATGGCC", "¹", "Give a sequence with 3 carbon atoms."),
    )
    assert "raised" not in result.reason and result.score is None
