"""The rule / extract checkers of the scientific SciMIF constraints (``units.py`` and
the discipline modules) on realistic model outputs, plus the unit grammar and the time bound."""

from __future__ import annotations

import functools
import random
import string
import time
from typing import Any

import pytest

from sci_tasks.metrics.constraints import material, methods, registry, sequences, unit_check, units
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.judge import JudgeReply, JudgeRequest

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

CASES: list[Case] = [
    # ------------------------------------------------------------------ unit consistency
    (
        "chemistry_unit_consistency",
        "ΔH = Σ bonds broken − Σ bonds formed = 2253 − 2345.2 kJ\nFinal answer: ΔH = −92.2 kJ "
        "mol⁻¹",
        "kJ/mol",
        "Calculate the reaction enthalpy. Express the answer in kJ/mol.",
        1.0,
        "kJ·mol^-1",
    ),
    (
        "chemistry_unit_consistency",
        "ΔH = −92 200 J for the reaction as written.\nFinal answer: ΔH = −92200 J/mol",
        "kJ/mol",
        "Calculate the reaction enthalpy. Express the answer in kJ/mol.",
        0.0,
        "92200 J/mol",
    ),
    (  # parameters null: the unit comes from the question ("in grams (g)")
        "chemistry_unit_consistency",
        NACL_OK,
        None,
        NACL_Q,
        1.0,
        "from the question",
    ),
    (
        "chemistry_unit_consistency",
        "n = 0.050 mol, so m = 0.050 × 58.44 = 2920 mg\nFinal answer: 2920 mg",
        None,
        NACL_Q,
        0.0,
        "mg",
    ),
    (
        "physics_unit_consistency",
        "a = g(sin 30° − 0.20 cos 30°) = 9.8 × (0.5 − 0.173)\n**Final Answer:** "
        "\\boxed{3.20\\,\\mathrm{m/s^{2}}}",
        "m/s²",
        "What is its acceleration? Express the acceleration in m/s².",
        1.0,
        "m·s^-2",
    ),
    (  # m/s is not m/s^2
        "physics_unit_consistency",
        "The block speeds up at a = 3.20 m/s",
        None,
        "What is its acceleration? Express the acceleration in m/s^2.",
        0.0,
        "3.20 m/s",
    ),
    (  # "every current": whole response; a current in mA anywhere fails
        "physics_unit_consistency",
        "I1 = 12 V / 6 Ω = 2 A; I2 = 667 mA; I3 = 1.33 A",
        "A",
        "Express every current in amperes (A).",
        0.0,
        "667 mA",
    ),
    (
        "physics_unit_consistency",
        "I1 = 12 V / 6 Ω = 2 A\nI2 = 0.67 A\nI3 = 1.33 A",
        "A",
        "Express every current in amperes (A).",
        1.0,
        "3 quantities in the response",
    ),
    (
        "geography_unit_consistency",
        "Real distance = 6.4 cm × 50 000 = 320 000 cm\nFinal answer: 3.2 × 10^3 m",
        "m",
        "Give the result in metres (m).",
        1.0,
        "3.2 × 10^3 m",
    ),
    (
        "geography_unit_consistency",
        "Real distance = 6.4 cm × 50 000 = 320 000 cm\nFinal answer: 3.2 km",
        "m",
        "Give the result in metres (m).",
        0.0,
        "3.2 km",
    ),
    (
        "geography_unit_consistency",
        "Rise = 420 m − 180 m = 240 m over a run of 1200 m, so the gradient is 20.0%.",
        "%",
        GRADIENT_Q,
        1.0,
        "20.0 %",
    ),
    (
        "geography_unit_consistency",
        "Rise = 240 m over a run of 1200 m, so the gradient is 0.2.",
        "%",
        GRADIENT_Q,
        0.0,
        "no quantity in %",
    ),
    (
        "life_unit_consistency",
        "After 3 h there are 9 doublings: 2.0 × 10^3 × 2^9 ≈ 1.024 × 10^6 cells/mL",
        "cells/mL",
        "Express the concentration in cells/mL.",
        1.0,
        "cells·mL^-1",
    ),
    (
        "life_unit_consistency",
        "After 3 h there are 9 doublings, giving 1.024 × 10^9 cells/L",
        "cells/mL",
        "Express the concentration in cells/mL.",
        0.0,
        "cells/L",
    ),
    (
        "material_unit_consistency",
        BRAGG_OK,
        "Å",
        BRAGG_Q,
        1.0,
        "2.088 Å",
    ),
    (  # the unit written after the box on its line counts
        "materials_unit_consistency",
        "d = 1.5406 / (2 sin 21.65°)\nFinal answer: \\boxed{2.088} Å",
        None,
        BRAGG_Q,
        1.0,
        "Å",
    ),
    (
        "materials_unit_consistency",
        "d = 1.5406 / (2 sin 21.65°)\n\\boxed{0.2088\\ \\mathrm{nm}}",
        "Å",
        BRAGG_Q,
        0.0,
        "nm",
    ),
    (  # K and °C are different units
        "chemistry_unit_consistency",
        "T2 = 298 K × 1.2 = 357.6 K\nFinal answer: 357.6 K",
        None,
        "Give the final temperature in degrees Celsius.",
        0.0,
        "357.6 K",
    ),
    (
        "chemistry_unit_consistency",
        "T2 = 357.6 K − 273.15 = 84.45\nFinal answer: 84.5 ^\\circ C",
        None,
        "Give the final temperature in degrees Celsius.",
        1.0,
        "°C",
    ),
    (  # case forced by a letter-case constraint
        "chemistry_unit_consistency",
        "FINAL ANSWER: -92.2 KJ/MOL",
        "kJ/mol",
        "Write your entire answer in uppercase letters.",
        1.0,
        "kJ·mol^-1",
    ),
    (  # MPa vs mPa: both written as symbols, different units
        "material_unit_consistency",
        "Final answer: 218 mPa",
        "MPa",
        "Give the yield strength in MPa.",
        0.0,
        "mPa",
    ),
    (
        "material_unit_consistency",
        "the yield strength is 218 mpa",
        "MPa",
        "Write your answer in lowercase.",
        1.0,
        "218 mpa",
    ),
    (
        "geography_unit_consistency",
        "The lake covers about 12.5 square kilometres.",
        "km^2",
        "",
        1.0,
        "km^2",
    ),
    (
        "physics_unit_consistency",
        "v = 20 m/s and t = 5.0 s, so d = 100 m; the trip took 0.028 h.",
        None,
        "Use SI units throughout.",
        0.0,
        "0.028 h",
    ),
    (
        "physics_unit_consistency",
        "v = 20 m/s and t = 5.0 s, so d = 100 m.",
        "SI units",
        "",
        1.0,
        "SI units",
    ),
    (
        "physics_unit_consistency",
        "The current falls because the total resistance rises.",
        None,
        "Explain what happens to the current.",
        None,
        "required unit not found",
    ),
    # ------------------------------------------------------------------ method constraint
    (
        "material_method_constraint",
        BRAGG_OK,
        "Bragg's law, n = 1",
        BRAGG_Q,
        1.0,
        "Bragg's law named",
    ),
    (  # the formula alone (LaTeX) also shows the law
        "materials_method_constraint",
        "$n\\lambda = 2d\\sin\\theta$, so $d = 1.5406/(2\\times0.3689) = 2.088$ Å",
        None,
        BRAGG_Q,
        1.0,
        "Bragg's law formula",
    ),
    (
        "material_method_constraint",
        "d = 1.5406 / (2 × 0.3689) = 2.088 Å",
        "Bragg's law, n = 1",
        BRAGG_Q,
        0.0,
        "Bragg's law",
    ),
    (
        "physics_method_constraint",
        "By Kirchhoff's voltage law the loop sums to zero, and by Ohm's law I = V/R = 12/10 = 1.2 "
        "A.",
        None,
        CIRCUIT_Q,
        1.0,
        "Kirchhoff",
    ),
    (
        "physics_method_constraint",
        "By Ohm's law I = V/R = 12/10 = 1.2 A, so the current decreases.",
        "Ohm's law and Kirchhoff's laws",
        CIRCUIT_Q,
        0.0,
        "1 of 2 required methods",
    ),
    ("chemistry_method_constraint", NACL_OK, "n = c × V, m = n × M", NACL_Q, 1.0, "formula"),
    (
        "chemistry_method_constraint",
        "moles = 0.2 × 0.25 = 0.05; mass = 0.05 × 58.44 = 2.92 g",
        "n = c × V, m = n × M",
        NACL_Q,
        0.0,
        "n = c × V",
    ),
    (
        "chemistry_method_constraint",
        "# Fischer esterification\n1. H2SO4 protonates the carbonyl oxygen of acetic acid ...",
        "acid catalysis with concentrated H2SO4 (Fischer esterification)",
        "Describe how ethyl acetate is formed.",
        1.0,
        "Fischer esterification named",
    ),
    (
        "chemistry_method_constraint",
        "pH = pK_a + \\log\\frac{[A^-]}{[HA]} = 4.76 + log(0.20/0.10) = 5.06",
        None,
        "Use the Henderson–Hasselbalch equation to find the pH of the buffer.",
        1.0,
        "Henderson-Hasselbalch equation formula",
    ),
    (
        "chemistry_method_constraint",
        "[H+] = Ka × [HA]/[A-] = 8.7 × 10^-6, so pH = −log[H+] = 5.06",
        None,
        "Use the Henderson–Hasselbalch equation to find the pH of the buffer.",
        0.0,
        "Henderson",
    ),
    (
        "geography_method_constraint",
        "Gradient = vertical interval ÷ horizontal distance = 240 m / 1200 m = 0.200 = 20.0%",
        "rise over run (vertical interval / horizontal distance)",
        GRADIENT_Q,
        1.0,
        "formula",
    ),
    (  # descriptive: 3 of its 4 key words in one sentence
        "geography_method_constraint",
        "The gradient is the vertical rise of 240 m divided by the horizontal distance of 1200 m, "
        "i.e. 20.0%.",
        "rise over run (vertical interval / horizontal distance)",
        GRADIENT_Q,
        1.0,
        "key words",
    ),
    (
        "geography_method_constraint",
        "The slope between A and B is 20.0%.",
        "rise over run (vertical interval / horizontal distance)",
        GRADIENT_Q,
        0.0,
        "rise over run",
    ),
    (
        "geography_method_constraint",
        "Using the haversine formula, a = sin²(Δφ/2) + cos φ1 · cos φ2 · sin²(Δλ/2), d = "
        "2R·arcsin(√a) = 343 km.",
        None,
        "Use the haversine formula to compute the great-circle distance.",
        1.0,
        "haversine",
    ),
    (
        "geography_method_constraint",
        "The slope is 20.0%.",
        None,
        "What is the average gradient between A and B?",
        None,
        "required method not found",
    ),
    (
        "life_method_constraint",
        "ΔΔCt = 1.0 − 3.0 = −2.0, so the fold change is $2^{-\\Delta\\Delta C_t} = 4.0$.",
        "comparative Ct (Livak, 2^-ΔΔCt) method",
        "What is the fold change? Use the comparative Ct (Livak) method.",
        1.0,
        "comparative Ct",
    ),
    (
        "biology_method_constraint",
        "Gene X is about 4.0-fold higher in tumour tissue.",
        "comparative Ct (Livak, 2^-ΔΔCt) method",
        "What is the fold change? Use the comparative Ct (Livak) method.",
        0.0,
        "comparative Ct",
    ),
    # ------------------------------------------------------------------ address format
    (
        "geography_address_format_validity",
        "The star marks the town hall.\nFINAL ANSWER: 12, MILL STREET, OLD TOWN, RIVERTON",
        "house number, street, district, city",
        ADDRESS_Q,
        1.0,
        "4 components",
    ),
    (
        "geography_address_format_validity",
        "Final answer: 12 Mill Street, Old Town, Riverton",
        "house number, street, district, city",
        ADDRESS_Q,
        0.0,
        "3 components",
    ),
    (  # reversed order: the house number is not first
        "geography_address_format_validity",
        "Final answer: Riverton, Old Town, Mill Street, 12",
        None,
        ADDRESS_Q,
        0.0,
        "house number",
    ),
    (  # the question asks for commas
        "geography_address_format_validity",
        "Final answer: 12 > Mill Street > Old Town > Riverton",
        None,
        ADDRESS_Q,
        0.0,
        "1 component",
    ),
    (
        "geography_address_format_validity",
        "China > Guangdong > Shenzhen",
        None,
        "Give the location in the format country > province > city.",
        1.0,
        "country > province > city",
    ),
    (
        "geography_address_format_validity",
        "Shenzhen > Guangdong > China",
        None,
        "Give the location in the format country > province > city.",
        0.0,
        "country 'China' in the city position",
    ),
    (
        "geography_address_format_validity",
        "It is on Mill Street.",
        None,
        "Where is the marked building?",
        None,
        "not stated",
    ),
    # ------------------------------------------------------------------ scene option
    (
        "geography_scene_option_constraint",
        "Farmland. The regular rectangular fields and irrigation ditches show cultivated land.",
        SCENES,
        SCENE_Q,
        1.0,
        "farmland",
    ),
    (  # parameters absent: the list comes from the question
        "geography_scene_option_constraint",
        "**Harbor** – ships are moored along the quays and cranes line the docks.",
        None,
        SCENE_Q,
        1.0,
        "harbor",
    ),
    (
        "geography_scene_option_constraint",
        "Dense residential or industrial. The blocks could be either housing or factories.",
        SCENES,
        SCENE_Q,
        0.0,
        "2 scene labels",
    ),
    (
        "geography_scene_option_constraint",
        "Wetland. Standing water covers most of the image.",
        SCENES,
        SCENE_Q,
        0.0,
        "no scene label",
    ),
    (
        "geography_scene_option_constraint",
        "Long runways and taxiways are visible.\nAnswer: airport",
        SCENES,
        "What type of land-use scene is shown?",
        1.0,
        "airport",
    ),
    (
        "geography_scene_option_constraint",
        "It looks like farmland.",
        None,
        "Describe the scene.",
        None,
        "not found",
    ),
    # ------------------------------------------------------------------ ER triples
    (
        "biology_entity_relationship_format_validity",
        INSULIN_OK,
        "(entity1, relation, entity2)",
        INSULIN_Q,
        1.0,
        "4 well-formed triples",
    ),
    (
        "life_entity_relationship_format_validity",
        INSULIN_OK.replace(
            "(insulin receptor, activates, PI3K-Akt signalling)", "(insulin receptor, activates)"
        ),
        None,
        INSULIN_Q,
        0.0,
        "1 malformed triple",
    ),
    (  # "no other text": a prose line is malformed
        "biology_entity_relationship_format_validity",
        "Here are the triples:\n" + INSULIN_OK,
        "(entity1, relation, entity2)",
        INSULIN_Q,
        0.0,
        "malformed",
    ),
    (
        "life_entity_relationship_format_validity",
        "[('allolactose', 'inactivates', 'lac repressor'), ('lac repressor', 'binds', 'operator'), "
        "('operator', 'regulates transcription of', 'lacZ')]",
        "(entity1, relation, entity2)",
        "Return them as a Python list of such tuples, with string elements.",
        1.0,
        "3 well-formed triples",
    ),
    (
        "biology_entity_relationship_format_validity",
        "- insulin → binds → insulin receptor\n- insulin receptor → activates → IRS-1\n",
        "entity1 -> relation -> entity2",
        "List the signalling relationships.",
        1.0,
        "2 well-formed triples",
    ),
    (
        "biology_entity_relationship_format_validity",
        "insulin -> insulin receptor\ninsulin receptor -> activates -> IRS-1",
        "entity1 -> relation -> entity2",
        "List the signalling relationships.",
        0.0,
        "malformed",
    ),
    (
        "biology_entity_relationship_format_validity",
        "[lac repressor] --binds--> [operator]\n[allolactose] --inactivates--> [lac repressor]",
        None,
        "Write each relationship as [A] --relation--> [B].",
        1.0,
        "2 well-formed",
    ),
    (  # "at least three" (a number word)
        "biology_entity_relationship_format_validity",
        "(insulin, binds, insulin receptor)\n(insulin receptor, activates, IRS-1)",
        None,
        "Give at least three triples of the form (entity1, relation, entity2).",
        0.0,
        "at least 3",
    ),
    (
        "biology_entity_relationship_format_validity",
        "Insulin binds its receptor, which activates IRS-1.",
        None,
        "Explain how insulin signals.",
        None,
        "no triple format",
    ),
    # ------------------------------------------------------------------ sequence length
    (
        "biology_sequence_length_constraint",
        "THE TEMPLATE 3'-TACGGATTC-5' IS TRANSCRIBED INTO [[AUGCCUAAG]]",
        "9 nucleotides",
        MRNA_Q,
        1.0,
        "'AUGCCUAAG'",
    ),
    (
        "biology_sequence_length_constraint",
        "THE MRNA IS [[AUGCCUAAGG]]",
        None,
        MRNA_Q,
        0.0,
        "has 10 nucleotides; exactly 9",
    ),
    (
        "biology_sequence_length_constraint",
        "The mRNA is 5'-AUG CCU AAG-3' (complementary to 3'-TAC GGA TTC-5').",
        "9 nucleotides",
        MRNA_Q,
        1.0,
        "5'-3' notation",
    ),
    (
        "life_sequence_length_constraint",
        "['M', 'A', 'W']",
        None,
        "Translate 5'-AUGGCUUGGUAA-3'. The protein must be exactly 3 amino acids long.",
        1.0,
        "3 residues",
    ),
    (
        "life_sequence_length_constraint",
        "['M', 'A', 'W', 'Q']",
        "three amino acids",
        "Translate the mRNA.",
        0.0,
        "4 residues",
    ),
    (
        "biology_sequence_length_constraint",
        "Forward primer: 5'-ATGCGTACGTTAGCATGC-3'",
        None,
        "Design a forward primer at least 18 nucleotides long.",
        1.0,
        "at least 18",
    ),
    (
        "biology_sequence_length_constraint",
        "Forward primer: 5'-ATGCGTACGTTAGCA-3'",
        None,
        "Design a forward primer at least 18 nucleotides long.",
        0.0,
        "15 nucleotides",
    ),
    (
        "biology_sequence_length_constraint",
        "A short antimicrobial peptide: MKTAYIAKQR",
        None,
        "Propose a peptide of no more than twenty residues.",
        1.0,
        "at most 20",
    ),
    (
        "biology_sequence_length_constraint",
        "The peptide is Met-Ala-Trp.",
        "exactly 3 amino acids",
        "",
        1.0,
        "three-letter codes",
    ),
    (
        "biology_sequence_length_constraint",
        "The open reading frame is AUG GCU UGG UAA.",
        None,
        "Write an ORF of exactly 4 codons.",
        1.0,
        "4 codons",
    ),
    (
        "biology_sequence_length_constraint",
        ">seq1 designed linker\nGGGGSGGGGS\nGGGGS",
        "between 10 and 20 residues",
        "Design a flexible protein linker.",
        1.0,
        "15 residues",
    ),
    (
        "biology_sequence_length_constraint",
        "I cannot determine the sequence from the information given.",
        "9 nucleotides",
        MRNA_Q,
        0.0,
        "no sequence found",
    ),
    (
        "biology_sequence_length_constraint",
        "AUGCCUAAG",
        None,
        "What is the mRNA sequence?",
        None,
        "not stated",
    ),
    # ------------------------------------------------------------------ techniques
    (
        "materials_characterization_technique_format_constraint",
        "ELECTRON BACKSCATTER DIFFRACTION (EBSD)",
        "technique name",
        "Which characterization technique would you use to map the orientation of each grain?",
        1.0,
        "electron backscatter diffraction",
    ),
    (
        "material_characterization_technique_format_constraint",
        "I would look at it under a magnifying glass.",
        "technique name",
        "Which characterization technique would you use?",
        0.0,
        "no known characterization technique",
    ),
    (
        "material_characterization_technique_format_constraint",
        "('X-ray diffraction', 'XRD')",
        "technique name",
        "Return only a Python tuple of the form (technique full name, abbreviation).",
        1.0,
        "full name then abbreviation",
    ),
    (
        "material_characterization_technique_format_constraint",
        "('XRD', 'X-ray diffraction')",
        None,
        "Return only a Python tuple of the form (technique full name, abbreviation).",
        0.0,
        "full name then abbreviation",
    ),
    (
        "material_characterization_technique_format_constraint",
        "XRD",
        None,
        "Which technique produced this pattern? Answer with the abbreviation only.",
        1.0,
        "abbreviation only",
    ),
    (
        "material_characterization_technique_format_constraint",
        "X-ray diffraction (XRD)",
        None,
        "Which technique produced this pattern? Answer with the abbreviation only.",
        0.0,
        "abbreviation only",
    ),
    (
        "material_characterization_technique_format_constraint",
        "scanning electron microscopy (sem) would show the grain boundaries.",
        "full name (abbreviation)",
        "",
        0.0,
        "full name (abbreviation)",
    ),
    (
        "material_characterization_technique_format_constraint",
        "x-ray photoelectron spectroscopy (xps) gives the oxidation states.",
        "full name (abbreviation)",
        "",
        1.0,
        "X-ray photoelectron spectroscopy",
    ),
    # ------------------------------------------------------------------ property prediction
    (
        "material_property_prediction_constraint",
        "Extrapolating the linear region gives Eg ≈ 3.2 eV, a wide gap, so the film is "
        "\\boxed{semiconductor}.",
        "discrete label: metal / semiconductor / insulator",
        TAUC_Q,
        1.0,
        "semiconductor",
    ),
    (  # parameters null: labels from the question's "(metal, semiconductor or insulator)"
        "materials_property_prediction_constraint",
        "The band gap is about 3.2 eV.\n\\boxed{3.2\\ \\text{eV}}",
        None,
        TAUC_Q,
        0.0,
        "none of the labels",
    ),
    (
        "material_property_prediction_constraint",
        "It lies between the two classes: \\boxed{semiconductor or insulator}",
        "discrete label: metal / semiconductor / insulator",
        TAUC_Q,
        0.0,
        "2 labels",
    ),
    (
        "material_property_prediction_constraint",
        "<prediction>218 MPa</prediction>",
        "continuous value",
        HALL_PETCH_Q,
        1.0,
        "218 MPa",
    ),
    (
        "material_property_prediction_constraint",
        "<prediction>\n  <value>218</value>\n  <unit>MPa</unit>\n</prediction>",
        None,
        HALL_PETCH_Q,
        1.0,
        "MPa",
    ),
    (
        "material_property_prediction_constraint",
        "<prediction>high strength</prediction>",
        "continuous value",
        HALL_PETCH_Q,
        0.0,
        "no numerical value",
    ),
    (
        "material_property_prediction_constraint",
        "Final answer: 3.2",
        None,
        "Predict the band gap as a continuous value in eV.",
        0.0,
        "lacks the unit eV",
    ),
    (
        "material_property_prediction_constraint",
        "The film is probably a semiconductor.",
        None,
        "Discuss the optical properties of the film.",
        None,
        "not stated",
    ),
]


def _run(case: Case, judge: Any = None) -> registry.ConstraintResult:
    name, response, parameters, question, _, _ = case
    return registry.evaluate(name, CheckInput(response, parameters, question, judge=judge))


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_checker_on_realistic_outputs(case: Case) -> None:
    result = _run(case)
    assert result.score == case[4], result.reason
    assert case[5] in result.reason, result.reason


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
    found = units.parse_unit(text)
    assert found, f"{text!r} does not parse as a unit"
    return found[0]


@pytest.mark.parametrize(("required", "written"), EQUIVALENT)
def test_equivalent_spellings_are_the_same_unit(required: str, written: str) -> None:
    assert _one(required) in units.parse_unit(written), (
        required,
        written,
        [units.render(u) for u in units.parse_unit(written)],
    )


@pytest.mark.parametrize(("required", "written"), DIFFERENT)
def test_different_units_stay_different(required: str, written: str) -> None:
    assert _one(required) not in units.parse_unit(written)


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
        assert units.parse_unit(word) == [], word


def test_quantities_read_numbers_and_their_units() -> None:
    text = units.clean_unit_text(
        "0-4 s, H2O at 25 °C, 2 mol H2, $3.2 \\times 10^{3}\\,\\mathrm{m}$, 20.0%, 18 kJ mol-1."
    )
    found = [
        (q.number, units.render(q.units[0]) if q.units else "") for q in units.quantities(text)
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
    req = unit_check.required_units("unit: kJ/mol", "")
    assert req is not None and [units.render(u) for u in req.units] == ["kJ·mol^-1"]
    req = unit_check.required_units("", "Express the answer in ångströms (Å), please.")
    assert req is not None and req.source == "question" and units.render(req.units[0]) == "Å"
    req = unit_check.required_units("", "Give the time in s and the distance in km.")
    assert req is not None and [units.render(u) for u in req.units] == ["s", "km"]
    assert unit_check.required_units("", "Explain in three steps in Markdown.") is None


# ------------------------------------------------------------------ extraction (judge)


class FakeJudge:
    """Answers every extraction request with a fixed span."""

    def __init__(self, span: str, found: bool = True) -> None:
        self.span, self.found, self.requests = span, found, 0

    def ask(self, request: JudgeRequest) -> JudgeReply:
        self.requests += 1
        data = {"found": self.found, "span": self.span}
        return JudgeReply(data, None, "fake-model", request.prompt_version)


IDEAL_GAS = (
    "At STP one mole occupies 22.4 L. Rearranging, R = PV/(nT) = (101325 × 0.0224)/(1 × 273) "
    "= 8.31 J/(mol·K)."
)


def test_method_extraction_rechecks_the_span_with_the_rule() -> None:
    inp = ("physics_method_constraint", IDEAL_GAS, "ideal gas law", "Find R.", None, "")
    assert _run(inp).score == 0.0  # the rule alone finds neither the name nor a known form
    judge = FakeJudge("R = PV/(nT)")
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
    items, source = methods._method_items("Bragg's law, n = 1", "")
    assert source == "parameters" and [m.name for m in items[0].methods] == ["Bragg's law"]
    assert len(items) == 1  # "n = 1" is a setting, not a method
    items, _ = methods._method_items("n = c × V, m = n × M", "")
    assert [i.text for i in items] == ["n = c × V", "m = n × M"]
    items, source = methods._method_items("", CIRCUIT_Q)
    assert source == "question" and [i.text for i in items] == ["Ohm's law", "Kirchhoff's laws"]
    items, _ = methods._method_items(
        "", "Determine the gap by the Tauc-plot linear extrapolation method."
    )
    assert [m.name for m in items[0].methods] == ["Tauc plot"]


def test_technique_table_names_and_abbreviations() -> None:
    def names(text: str) -> list[str]:
        return [h.technique.name for h in material._tech_hits(text)]

    assert names("FE-SEM and SEM-EDS") == [
        "scanning electron microscopy",
        "energy-dispersive X-ray spectroscopy",
    ]
    assert names("Fourier-transform infrared spectroscopy") == [
        "Fourier-transform infrared spectroscopy"
    ]
    assert names("UV–Vis and BET") == ["UV-Vis spectroscopy", "BET surface area analysis"]
    assert names("we bet the sem is right") == []  # English words, lower case
    assert names("Raman scattering") == ["Raman spectroscopy"]
    owners: dict[str, str] = {}
    for tech in material.TECHNIQUES:  # an abbreviation names one technique only
        for abbr in tech.abbreviations:
            assert owners.setdefault(material._abbr_key(abbr), tech.name) == tech.name, abbr
    for tech in material.TECHNIQUES:  # every table entry is found by its names
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
def test_every_checker_is_fast_on_a_megabyte(label: str) -> None:
    text = _big_texts()[label]
    for name, params, question in CHECKS:
        start = time.perf_counter()
        result = registry.evaluate(name, CheckInput(text, params, question))
        elapsed = time.perf_counter() - start
        assert elapsed < 1.0, (label, name, round(elapsed, 2), result.reason)
        assert "raised" not in result.reason, result.reason


def test_a_superscript_digit_as_length_parameter_is_no_crash() -> None:
    """``str.isdigit`` is true for "¹" but ``int`` refuses it (found by hypothesis)."""
    result = registry.evaluate(
        "biology_sequence_length_constraint",
        CheckInput("ATGGCC", "¹", "Give a sequence with 3 carbon atoms."),
    )
    assert "raised" not in result.reason and result.score is None
