"""Checkers of the biology constraints of the SciMIF catalogue (released files spell them
``life_*``: aliases in ``catalogue.csv``). Units and methods share one implementation
with the other disciplines; analysis steps are judged. Decision rules:

* ``biology_sequence_length_constraint``, longest / shortest ORF: when the parameters say
  "longest" / "shortest" (about an ORF in them or the question), or, without parameters, the
  question asks for the longest / shortest ORF. Value independence (issue 19): the
  constraint asks that the response STATE the ORF's length in the requested form, not that
  the length be right (correctness grades that). The stated lengths: numbers with a unit
  (nt, bp, codons, aa, residues) in the final answer, else the last sentence about the ORF
  holding a number (a bare number counts there and in the final answer), else the last
  line with a number and a unit. Pass iff a length is stated in a unit the question asks
  for (bare numbers are read in it; without a unit named, nt / codons / aa are all fine),
  or the response says there is no ORF; a written-out ORF (ATG...stop) answers only a
  question that does not ask for a length. The extreme ORF computed by ``orf.py`` (the
  question's longest DNA run, or the response's primer) is shown in the reason, for the
  reader, never scored.
* ``biology_sequence_length_constraint``, explicit lengths: see ``sequences.py``.
* ``biology_entity_relationship_format_validity``: see ``relation_triples.py``.
"""

from __future__ import annotations

import re

from sci_tasks.metrics.constraints.answers import final_answer
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.judged import STEPS
from sci_tasks.metrics.constraints.methods import check_method
from sci_tasks.metrics.constraints.orf import STOPS, Orf, dna, extreme, orfs
from sci_tasks.metrics.constraints.sequences import (
    LengthRule,
    find_sequence,
    length_requirement,
    length_rules,
    sequence_holder,
    sequence_kind,
)
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    non_empty_lines,
    phrases,
    sentences,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.verdict import Verdict

# ------------------------------------------------------- longest / shortest ORF (orf.py)

_EXTREME_RE = re.compile(r"\b(longest|shortest)\b", re.I)
_ORF_RE = re.compile(
    r"\bORFs?\b|\bopen[ \t-]+reading[ \t-]+frames?\b|\breading[ \t]+frames?\b", re.I
)
_EXTREME_ORF_RE = re.compile(
    r"\b(longest|shortest)\b[^.?!\n]{0,60}?(?:\bORFs?\b|open[ \t-]+reading[ \t-]+frame)", re.I
)
_ONE_STRAND_RE = re.compile(
    phrases(
        r"\b(?:forward|given|sense|top|plus|coding|this|same) strand\b",
        r"\b(?:only|just) (?:the )?(?:three )?(?:forward|given) (?:reading )?frames\b",
        r"\bwithout (?:the )?reverse complement",
    ),
    re.I,
)
_BOTH_STRANDS_RE = re.compile(
    phrases(r"\bboth strands\b", r"\breverse complement\b", r"\bsix (?:reading )?frames\b"), re.I
)
# The ORF lies in a primer the RESPONSE designs: a sentence about the ORF that names the
# forward / reverse primer ("the longest ORF in the forward primer", "for the forward
# primer you provide, identify ... its longest ORF").
_PRIMER_RE = re.compile(r"\b(forward|reverse)[ \t]+primer", re.I)
_DNA_RUN_RE = re.compile(r"(?<![A-Za-z])(?:[ACGTU]{15,}|[acgtu]{15,})(?![A-Za-z])")
MIN_QUESTION_SEQUENCE = 30  # nt; shorter runs of ACGT in a question are words, not templates
_LENGTH_CLAIM_RE = re.compile(
    # 1,234 / 51; not 12.5, nor the 5' / 3' ends of a strand
    r"(?<![\w.,])([0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,7})(?![\w.,]?[0-9])(?![ \t]?['′’])"
    r"(?:[ \t]*(?:-[ \t]*)?(nucleotides?|nts?|base[ \t-]?pairs?|bp|bases?|"
    r"codons?|amino[ \t-]acids?|aa|residues?)(?![A-Za-z]))?",
    re.I,
)
_NO_ORF_RE = re.compile(
    r"\b(?:no|zero|none|not[ \t]+any)\b[^.\n]{0,30}\b(?:ORFs?|open[ \t-]+reading)", re.I
)
_UNIT_KIND = (("nucleotide", "nt"), ("nt", "nt"), ("base", "nt"), ("bp", "nt"), ("codon", "codon"),
              ("amino", "aa"), ("aa", "aa"), ("residue", "aa"))  # fmt: skip


def _claim_unit(word: str) -> str:
    w = word.lower()
    return next((kind for prefix, kind in _UNIT_KIND if w.startswith(prefix)), "")


def _orf_mode(params: str, question: str) -> str:
    """ "longest" / "shortest" when the requirement is the extreme ORF, else ""."""
    if params:
        m = _EXTREME_RE.search(params)
        if m and (_ORF_RE.search(params) or _ORF_RE.search(question)):
            return m.group(1).lower()
        return ""
    m = _EXTREME_ORF_RE.search(question)
    return m.group(1).lower() if m else ""


def _orf_minimum(question: str) -> LengthRule | None:
    """A lower bound the question puts on the ORFs ("greater than 39 amino acids")."""
    for sentence in sentences(question):
        if not (_ORF_RE.search(sentence) or re.search(r"\bprotein|encod", sentence, re.I)):
            continue
        for rule in length_rules(sentence):
            if rule.low > 0 and rule.high is None:
                return rule
    return None


def _passes_minimum(orf: Orf, rule: LengthRule | None) -> bool:
    if rule is None:
        return True
    n = {"protein": orf.amino_acids, "codon": orf.length // 3}.get(rule.kind, orf.length)
    return rule.ok(n)


def _orf_target(question: str, response: str) -> tuple[str, str] | None:
    """The sequence whose ORFs are asked about, and where it was found."""
    primer = next(
        (m for s in sentences(question) if _ORF_RE.search(s) for m in [_PRIMER_RE.search(s)] if m),
        None,
    )
    if primer:
        label = re.compile(rf"\b{primer.group(1)}[ \t]+primer", re.I)
        for m in label.finditer(response):
            run = _DNA_RUN_RE.search(response, m.end(), m.end() + 200)
            if run:
                return run.group(), f"the {primer.group(1).lower()} primer of the response"
        return None
    runs = [m.group() for m in _DNA_RUN_RE.finditer(question)]
    runs = [r for r in runs if len(r) >= MIN_QUESTION_SEQUENCE]
    if not runs:
        return None
    return max(runs, key=len), "the question"


def _orf_claims(response: str) -> tuple[list[tuple[int, str]], str]:
    """The ORF lengths the response states: (number, unit or ""), and where. A bare number
    counts in the final answer or in a sentence about the ORF; elsewhere only a number
    with a length unit does (a line "37 °C" is no ORF length)."""
    span = final_answer(response)
    regions: list[tuple[str, str, bool]] = []
    if span is not None and re.search(r"[0-9]", span.text):
        regions.append((span.text, f"the final answer ({span.source})", True))
    said = [s for s in sentences(response) if (_ORF_RE.search(s) or _EXTREME_RE.search(s))]
    with_number = [s for s in said if _claims_in(s)]
    if with_number:
        regions.append((with_number[-1], "the last sentence about the ORF with a number", True))
    lines = [ln for ln in non_empty_lines(response) if re.search(r"[0-9]", ln.text)]
    if lines:
        regions.append((lines[-1].text, "the last line with a number", False))
    for text, where, bare_ok in regions:
        claims = _claims_in(text)
        if not bare_ok and _BARE_NUMBER_LINE_RE.fullmatch(text):
            bare_ok = True  # a line that is the number alone ("```\n51\n```") states it
        if not bare_ok:
            claims = [c for c in claims if c[1]]
        if claims:
            return claims, where
    return [], "the response"


# A number that places something ("position 1", "frame +2", "starts at 12") is no length.
_PLACE_BEFORE_RE = re.compile(
    r"(?:\b(?:positions?|pos|frames?|index|sites?|strand|at|from|to|through)|[+#])[ \t.]*$", re.I
)


_BARE_NUMBER_LINE_RE = re.compile(r"[ \t*`$_{}]*(?:\\boxed\{)?[ \t]*[0-9][0-9,]*[ \t*`$_{}.]*")


def _claims_in(text: str) -> list[tuple[int, str]]:
    found = [
        (int(m.group(1).replace(",", "")), _claim_unit(m.group(2) or ""))
        for m in _LENGTH_CLAIM_RE.finditer(text)
        if m.group(2) or not _PLACE_BEFORE_RE.search(text[max(0, m.start() - 20) : m.start()])
    ]
    with_unit = [c for c in found if c[1]]
    return with_unit or found


def _question_units(question: str) -> set[str]:
    units = {_claim_unit(m.group(2)) for m in _LENGTH_CLAIM_RE.finditer(question) if m.group(2)}
    for word in re.findall(
        r"\b(?:nucleotides?|nt|base[ \t-]?pairs?|bp|codons?|amino[ \t-]acids?|aa)\b", question, re.I
    ):
        units.add(_claim_unit(word))
    return units - {""} or {"nt", "codon", "aa"}


def _is_orf_text(run: str) -> bool:
    seq = dna(run)
    return len(seq) % 3 == 0 and seq.startswith("ATG") and seq[-3:] in STOPS


# The question asks for a LENGTH (not for the ORF itself): a written-out ORF is then no answer.
_LENGTH_ASKED_RE = re.compile(
    r"\blength|\bhow[ \t]+long\b|\bhow[ \t]+many\b|\bsize\b|\bnumber[ \t]+of[ \t]+"
    r"(?:nucleotides|bases|base[ \t]+pairs|codons|amino[ \t]+acids|residues)",
    re.I,
)
_UNIT_WORDS = {"nt": "nucleotides", "codon": "codons", "aa": "amino acids"}


def _orf_verdict(inp: CheckInput, which: str, params: str) -> Verdict:
    """Value independence (docs/decisions.md, issue 19): the constraint asks that the
    response STATE the length of the longest / shortest ORF in the requested form; whether
    the length is right is the business of answer correctness (``correct``)."""
    question = inp.question or ""
    response = inp.response
    claims, where = _orf_claims(response)
    reference = _orf_reference(question, response, which)
    if not claims and _NO_ORF_RE.search(response):
        return Verdict.passed(f"the response states that there is no {which} ORF{reference}")
    written = [m.group() for m in _DNA_RUN_RE.finditer(response) if _is_orf_text(m.group())]
    if written and not _LENGTH_ASKED_RE.search(question):
        # the ORF itself is asked for: a length stated beside it, in any unit, is extra
        return Verdict.passed(
            f"the {which} ORF is written out ({clip(written[-1], 24)}){reference}"
        )
    protein = _asked_protein(question, response)
    if protein and not _LENGTH_ASKED_RE.search(question):
        # the protein of the ORF is asked for: the answer is that sequence, not a length
        return Verdict.passed(
            f"the protein of the {which} ORF is the final answer ({clip(protein, 24)}){reference}"
        )
    if not claims:
        if written:
            return Verdict.failed(
                f"the question asks for the length of the {which} ORF; the response writes an "
                f"ORF out ({clip(written[-1], 24)}) but states no length{reference}"
            )
        return Verdict.failed(f"no length of the {which} ORF stated in the response{reference}")
    units = _question_units(question)
    shown = ", ".join(f"{n} {u}".strip() for n, u in claims[:3])
    if any(not unit or unit in units for _, unit in claims):
        return Verdict.passed(
            f"the {which} ORF length is stated in {where} ({shown}); its value is not part of "
            f"this constraint (correctness grades it){reference}"
        )
    asked = " or ".join(_UNIT_WORDS[u] for u in ("nt", "codon", "aa") if u in units)
    return Verdict.failed(
        f"{where} states the {which} ORF length as {shown}, not in the requested unit "
        f"({asked}){reference}"
    )


_PROTEIN_ASKED_RE = re.compile(
    r"\b(?:protein|peptide|polypeptide|amino[ \t-]acid[ \t]+sequence)\b[^.?!\n]{0,60}"
    r"\b(?:encoded|translated|coded)\b|\btranslat\w*\b[^.?!\n]{0,40}\bORF\b",
    re.I,
)
_PROTEIN_RE = re.compile(r"(?:[ACDEFGHIKLMNPQRSTVWY]{2,}|(?:[A-Z][a-z]{2}[-–])+[A-Z][a-z]{2})\*?")


def _asked_protein(question: str, response: str) -> str:
    """Where the question asks for the protein an ORF encodes, the protein sequence that is
    the reply's final answer (one-letter "MWHELGLKR" or three-letter "Met-Trp-..."), or ""."""
    if not _PROTEIN_ASKED_RE.search(question):
        return ""
    span = final_answer(response)
    wrapped = _DOUBLE_BRACKETS_RE.findall(response)  # "[[MWHELGLKR]]", the wrapper asked for
    answer = span.text if span is not None else (wrapped[-1] if wrapped else "")
    text = re.sub(r"[\s*_`\[\]{}()$]|\\boxed|\\text", "", answer)
    return text if _PROTEIN_RE.fullmatch(text) else ""


_DOUBLE_BRACKETS_RE = re.compile(r"\[\[([^\[\]\n]{1,400})\]\]")


def _orf_reference(question: str, response: str, which: str) -> str:
    """For a reader of the reason only: the extreme ORF computed from the sequence (``orf.py``),
    or "" without one. Never part of the verdict."""
    target = _orf_target(question, response)
    if target is None:
        return ""
    sequence, found_in = target
    minimum = _orf_minimum(question)
    both = not (_ONE_STRAND_RE.search(question) and not _BOTH_STRANDS_RE.search(question))
    pick = extreme(orfs(sequence, both), which, lambda o: _passes_minimum(o, minimum))
    strands = "both strands" if both else "the given strand"
    about = f"{len(dna(sequence))}-nt sequence in {found_in}"
    if pick is None:
        return f" [for reference, not scored: the {about} has no ORF on {strands}]"
    return (
        f" [for reference, not scored: the {which} ORF on {strands} of the {about} is "
        f"{pick.length} nt ({pick.amino_acids} aa)]"
    )


@register("biology_sequence_length_constraint")
def sequence_length_constraint(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    question = inp.question or ""
    which = _orf_mode(params, question)
    if which:
        return _orf_verdict(inp, which, params)
    rule, source = length_requirement(params, question)
    if rule is None:
        return Verdict.unscored(source)
    kind = sequence_kind(rule, question)
    text, where = sequence_holder(inp.response)
    found = find_sequence(text, kind)
    if found is None:
        return Verdict.failed(f"no sequence found in {where} ({rule.words} required)")
    seq, how = found
    if how == "three-letter codes":
        length, unit = seq.count("-") + 1, "residues"
    elif rule.kind == "codon":
        length, unit = len(seq) // 3, "codons"
    else:
        length = len(seq)
        unit = "residues" if kind == "protein" else ("nucleotides" if kind else "letters")
    shown = clip(seq, 30)
    msg = f"sequence {shown!r} ({how}, {where}) has {length} {unit}; {rule.words} required"
    return Verdict.of(rule.ok(length), msg + f" (from the {source})")


register("biology_unit_consistency")(check_units)
register("biology_method_constraint")(check_method)
register_judged(STEPS, "biology_analysis_steps_constraint")
