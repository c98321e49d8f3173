"""The scientific constraint checkers on records in the forms the authors' release uses
(``../shared/spec/scimif.md``, "Parameter and question forms seen in the released records").

Each case in ``tests/cases/science_release_forms.jsonl`` is our own record in a released
form: the constraint name as the data writes it, the question, the parameters (often null),
a response and the verdict a careful human gives (1 pass, 0 fail, null unscored), with why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sci_tasks.metrics.constraints import orf, registry
from sci_tasks.metrics.constraints.registry import CheckInput

CASES_FILE = Path(__file__).parent / "cases" / "science_release_forms.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line]
FORMS = {
    "entity_relationship",
    "orf_length",
    "scene_option",
    "bond_count",
    "property_kind",
    "units",
    "method_formula",
}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_release_form_verdict(case: dict) -> None:
    inp = CheckInput(case["response"], case["required_parameters"], case["edit_question"])
    result = registry.evaluate(case["instruction_name"], inp)
    assert result.constraint is not None, result.reason
    assert result.score == case["expected"], f"{case['why']} -- checker said: {result.reason}"
    assert "raised" not in result.reason


def test_every_form_has_passing_and_failing_cases() -> None:
    for form in FORMS:
        verdicts = {c["expected"] for c in CASES if c["form"] == form}
        assert {0, 1} <= verdicts, form


def test_only_genuinely_absent_requirements_are_unscored() -> None:
    unscored = [c for c in CASES if c["expected"] is None]
    assert unscored and all("genuinely absent" in c["why"] for c in unscored)


# ORF definition (orf.py) on hand-built sequences.
def test_orf_definition_by_hand() -> None:
    # frame 0: ATG AAA TAG -> 9 nt; the inner ATG of "ATG ATG CCC TAA" is nested (one ORF, 12 nt)
    seq = "ATGAAATAG" + "ATGATGCCCTAA" + "ATGCCC"  # the last ATG has no stop: not an ORF
    found = orf.orfs(seq, both_strands=False)
    assert sorted(o.length for o in found if o.frame == 0) == [9, 12]
    assert orf.extreme(found, "longest").length == 12
    assert orf.extreme(found, "shortest").length == 9
    assert orf.lengths_in(orf.Orf("+", 0, 0, 12), "nt") == {12, 9}
    assert orf.lengths_in(orf.Orf("+", 0, 0, 12), "codon") == {4, 3}
    assert orf.lengths_in(orf.Orf("+", 0, 0, 12), "aa") == {3}


def test_orf_on_reverse_strand_and_rna_letters() -> None:
    rev = orf.reverse_complement("ATGGCTGCTTGA")  # an ORF only on the reverse strand
    assert rev == "TCAAGCAGCCAT"
    assert [o.length for o in orf.orfs(rev, both_strands=False)] == []
    (one,) = orf.orfs(rev, both_strands=True)
    assert (one.strand, one.length, one.amino_acids) == ("-", 12, 3)
    assert [o.length for o in orf.orfs("AUGAAAUAA", both_strands=False)] == [9]


def test_orf_scan_is_linear_on_a_long_sequence() -> None:
    seq = "ATG" + "GCT" * 100_000 + "TAA"
    found = orf.orfs(seq)
    assert orf.extreme(found, "longest").length == 300_006


def test_the_cases_sequence_has_the_hand_counted_orfs() -> None:
    """The ORF cases use CC + ATG (AAA)x10 TAA + GG + ATG (CCC)x3 TGA + TT followed by the
    reverse complement of ATG (GCT)x15 TAG: ORFs of 36 and 15 nt on the given strand and
    51 nt on the reverse strand, nothing else."""
    question = next(c for c in CASES if c["id"] == "orf_length-1")["edit_question"]
    sequence = question.split("sequence ", 1)[1].split(",", 1)[0]
    fwd = "CC" + "ATG" + "AAA" * 10 + "TAA" + "GG" + "ATG" + "CCC" * 3 + "TGA" + "TT"
    assert sequence == fwd + orf.reverse_complement("ATG" + "GCT" * 15 + "TAG")
    found = sorted((o.strand, o.length) for o in orf.orfs(sequence))
    assert found == [("+", 15), ("+", 36), ("-", 51)]
