"""Sequences in text, for ``biology_sequence_length_constraint`` (``biology.py``): the
required length and the sequence an answer states. Rule:

* ``biology_sequence_length_constraint``, explicit lengths: required length from the
  parameters, else the question: "[exactly | at least | at most | more than | fewer than]
  N <unit>" or "length of N", N in digits or words, units nucleotides / nt / bases / bp /
  residues / amino acids / aa / codons (x3) / -mer; "N or more / or fewer"; "between N and
  M". The answer holder is the final answer (box / marker), else the last ``[[...]]``,
  else the last code block, else the response. In it the sequence is, in order: a
  5'-...-3' sequence (the last one; 3'-...-5' strands are ignored), a FASTA record, a list
  of one-letter codes ``['M', 'A', 'W']``, three-letter codes (``Met-Ala-Trp``, or a list
  ``['Met', 'Ala', 'Trp']``) for proteins, else the longest run of the alphabet's letters
  (DNA/RNA ACGTUN; protein the 20 amino acids and X; groups of equal length joined by
  single spaces or hyphens, as codons, count as one run). Pass iff its length (letters;
  codons = letters / 3) meets the requirement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sci_tasks.metrics.constraints.answers import code_blocks, final_answer
from sci_tasks.metrics.constraints.text import sentences, words_re

# =========================================================================== sequences

_NUCLEIC = frozenset("ACGTUN")
_PROTEIN = frozenset("ACDEFGHIKLMNPQRSTVWYX")
_THREE_LETTER = (
    "Ala Arg Asn Asp Cys Gln Glu Gly His Ile Leu Lys Met Phe Pro Ser Thr Trp Tyr Val Sec Pyl"
).split()
_UNITS_WORDS = {
    "nucleotide": "nucleic", "nt": "nucleic", "base": "nucleic", "bp": "nucleic",
    "base pair": "nucleic", "codon": "codon", "residue": "", "amino acid": "protein",
    "aa": "protein", "letter": "", "character": "", "mer": "",
}  # fmt: skip
_COUNT_WORD = (
    r"(?:[0-9]+|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[ -](?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"(?:one|a)[ \t]+hundred)"
)
_COMPARATOR = (
    r"(?P<cmp>exactly|precisely|at[ \t]+least|at[ \t]+most|no[ \t]+more[ \t]+than|"
    r"no[ \t]+(?:fewer|less)[ \t]+than|not[ \t]+(?:more|longer)[ \t]+than|"
    r"not[ \t]+(?:fewer|less|shorter)[ \t]+than|minimum[ \t]+of|maximum[ \t]+of|up[ \t]+to|"
    r"more[ \t]+than|longer[ \t]+than|greater[ \t]+than|over|fewer[ \t]+than|less[ \t]+than|"
    r"shorter[ \t]+than|under|≥|>=|≤|<=|>|<)?[ \t]*"
)
_SEQ_UNIT = (
    r"(?P<unit>nucleotides?|nts?\b|bases?\b|base[ \t-]pairs?|bp\b|residues?|amino[ \t-]acids?|"
    r"aa\b|letters?|characters?|codons?|mers?\b)"
)
_LENGTH_RES = (
    re.compile(
        rf"{_COMPARATOR}(?P<n>{_COUNT_WORD})[ \t]*(?:-[ \t]*)?{_SEQ_UNIT}"
        r"(?P<post>[ \t]+(?:long[ \t]+)?or[ \t]+(?:more|longer|greater|fewer|less|shorter))?",
        re.I,
    ),
    re.compile(
        rf"\b(?:length|long)[ \t]*(?:of|:|=|is|should[ \t]+be|must[ \t]+be|equal[ \t]+to)?[ \t]*"
        rf"{_COMPARATOR}(?P<n>{_COUNT_WORD})\b(?![ \t]*(?:%|percent))",
        re.I,
    ),
)
_BETWEEN_RE = re.compile(
    rf"\bbetween[ \t]+(?P<a>{_COUNT_WORD})[ \t]+and[ \t]+(?P<b>{_COUNT_WORD})[ \t]*{_SEQ_UNIT}",
    re.I,
)
_MUST_RE = words_re(
    "must", "should", "exactly", "length", "long", "at least", "at most", "required?"
)
_SMALL = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip


def _count(token: str) -> int | None:
    t = " ".join(token.lower().replace("-", " ").split())
    if t.isascii() and t.isdigit():  # "¹" is a digit to str.isdigit, not to int()
        return int(t)
    if t in ("one hundred", "a hundred"):
        return 100
    if t in _SMALL:
        return _SMALL[t]
    parts = t.split()
    if parts and parts[0] in _TENS:
        return _TENS[parts[0]] + (_SMALL.get(parts[1], 0) if len(parts) > 1 else 0)
    return None


@dataclass(frozen=True)
class LengthRule:
    low: int
    high: int | None  # None: no upper bound
    kind: str  # nucleic / protein / codon / ""
    words: str

    def ok(self, n: int) -> bool:
        return n >= self.low and (self.high is None or n <= self.high)


_AT_LEAST = frozenset(
    "at least|no fewer than|no less than|not fewer than|not less than|not shorter than|"
    "minimum of|≥|>=".split("|")
)
_AT_MOST = frozenset(
    "at most|no more than|not more than|not longer than|maximum of|up to|≤|<=".split("|")
)


def _rule_from(m: re.Match[str]) -> LengthRule | None:
    n = _count(m.group("n"))
    if n is None:
        return None
    cmp = " ".join((m.group("cmp") or "").lower().split())
    post = (m.groupdict().get("post") or "").lower()
    unit = (m.groupdict().get("unit") or "").lower()
    kind = next((v for k, v in _UNITS_WORDS.items() if unit.replace("-", " ").startswith(k)), "")
    if cmp in _AT_LEAST or any(w in post for w in ("more", "longer", "greater")):
        return LengthRule(n, None, kind, f"at least {n}")
    if cmp in _AT_MOST or any(w in post for w in ("fewer", "less", "shorter")):
        return LengthRule(0, n, kind, f"at most {n}")
    if cmp in ("more than", "longer than", "greater than", "over", ">"):
        return LengthRule(n + 1, None, kind, f"more than {n}")
    if cmp in ("fewer than", "less than", "shorter than", "under", "<"):
        return LengthRule(0, n - 1, kind, f"fewer than {n}")
    return LengthRule(n, n, kind, f"exactly {n}")


# Distinct lengths read from one text at most: two already conflict, and a text stating
# more than this many is not a length requirement (the reason lists what was read).
MAX_LENGTH_RULES = 16


def length_rules(text: str) -> list[LengthRule]:
    rules: list[LengthRule] = []
    for m in _BETWEEN_RE.finditer(text):
        a, b = _count(m.group("a")), _count(m.group("b"))
        unit = m.group("unit").lower()
        kind = next(
            (v for k, v in _UNITS_WORDS.items() if unit.replace("-", " ").startswith(k)), ""
        )
        if a is not None and b is not None:
            rules.append(LengthRule(min(a, b), max(a, b), kind, f"between {a} and {b}"))
    if rules:
        return rules
    for pattern in _LENGTH_RES:
        seen: set[LengthRule] = set()  # membership in constant time: linear in the matches
        read: set[str] = set()  # a statement written again states the same rule
        for m in pattern.finditer(text):
            if m.group() in read:
                continue
            read.add(m.group())
            rule = _rule_from(m)
            if rule and rule not in seen:
                seen.add(rule)
                rules.append(rule)
                if len(rules) >= MAX_LENGTH_RULES:
                    return rules
        if rules:
            return rules
    return rules


def length_requirement(params: str, question: str) -> tuple[LengthRule | None, str]:
    if params:
        rules = length_rules(params)
        if not rules:
            n = _count(params.strip().strip("."))
            rules = [LengthRule(n, n, "", f"exactly {n}")] if n is not None else []
        if len(rules) == 1:
            return rules[0], "parameters"
        if len(rules) > 1:
            return None, f"conflicting lengths in the parameters: {[r.words for r in rules]}"
    found: list[LengthRule] = []
    for sentence in sentences(question):
        for rule in length_rules(sentence):
            if rule not in found:
                found.append(rule)
    if len(found) > 1:
        strong = [r for s in sentences(question) if _MUST_RE.search(s) for r in length_rules(s)]
        found = list(dict.fromkeys(strong)) or found
    if len({(r.low, r.high) for r in found}) == 1:
        return found[0], "question"
    if found:
        return None, f"conflicting lengths in the question: {[r.words for r in found]}"
    return None, "required sequence length not stated in parameters or question"


def sequence_kind(rule: LengthRule, question: str) -> str:
    if rule.kind:
        return rule.kind
    q = question.lower()
    if re.search(r"protein|peptide|amino|polypeptide|residue", q):
        return "protein"
    if re.search(r"\b(?:dna|rna|mrna|trna|nucleotide|primer|oligo\w*|gene|codon|strand)\b", q):
        return "nucleic"
    return ""


def sequence_holder(response: str) -> tuple[str, str]:
    span = final_answer(response)
    if span is not None and span.text.strip():
        return span.text, f"the final answer ({span.source})"
    pos = response.rfind("[[")
    if pos >= 0:
        end = response.find("]]", pos)
        if end > pos:
            return response[pos + 2 : end], "[[...]]"
    blocks = [b for b in code_blocks(response) if b.body.strip()]
    if blocks:
        return blocks[-1].body, "the code block"
    return response, "the response"


_PRIME = "'′’ʹ"


def _five_to_three(text: str) -> list[str]:
    """Sequences written 5'-...-3' (manual scan: linear)."""
    out = []
    for m in re.finditer(r"5[ \t]*[" + _PRIME + "]", text):
        i = m.end()
        j = i
        while j < len(text) and j - i < 20000 and (text[j].isalpha() or text[j] in " -–—→\t"):
            j += 1
        if text.startswith("3", j) and text[j + 1 : j + 2] in tuple(_PRIME):
            letters = "".join(ch for ch in text[i:j] if ch.isalpha())
            if letters:
                out.append(letters)
    return out


def _fasta(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    inside = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(">"):
            if current:
                out.append("".join(current))
            current, inside = [], True
        elif inside and s and re.fullmatch(r"[A-Za-z*\- ]+", s):
            current.append("".join(ch for ch in s if ch.isalpha()))
        elif inside and current:
            out.append("".join(current))
            current, inside = [], False
    if current:
        out.append("".join(current))
    return out


_LETTER_LIST_RE = re.compile(
    r"\[[ \t]*[\"']?([A-Za-z])[\"']?(?:[ \t]*,[ \t]*[\"']?[A-Za-z][\"']?)+[ \t]*,?[ \t]*\]"
)
_CODES = "|".join(c for code in _THREE_LETTER for c in (code, code.upper(), code.lower()))
_THREE_RE = re.compile(rf"(?:{_CODES})(?:[ \t]*[-–][ \t]*(?:{_CODES}))+")
# a list of three-letter codes: ['Met', 'Ala', 'Trp']
_THREE_LIST_RE = re.compile(
    rf"\[[ \t]*[\"']?(?:{_CODES})[\"']?(?:[ \t]*,[ \t]*[\"']?(?:{_CODES})[\"']?)+[ \t]*,?[ \t]*\]"
)
# Runs of sequence letters (one case), groups joined by single spaces or hyphens. The
# regexes start with a character class (fast scanning); word boundaries are checked after.
_RUN_RES = {
    alphabet: (
        re.compile(rf"[{letters}]{{2,}}(?:[ -][{letters}]+)*"),
        re.compile(rf"[{letters.lower()}]{{2,}}(?:[ -][{letters.lower()}]+)*"),
    )
    for alphabet, letters in ((_NUCLEIC, "ACGTUN"), (_PROTEIN, "ACDEFGHIKLMNPQRSTVWYX"))
}


def _longest_run(text: str, alphabet: frozenset[str]) -> str:
    """The longest run of the alphabet's letters that is a whole word (all upper or all
    lower case); groups of equal length (at least 3, the last may be shorter) joined by
    single spaces or hyphens (codons, FASTA blocks) count as one run."""
    best = ""
    for regex in _RUN_RES[alphabet]:
        for m in regex.finditer(text):
            groups = m.group().replace("-", " ").split(" ")
            a, b = m.span()
            first_glued = a > 0 and text[a - 1].isalpha()
            last_glued = b < len(text) and text[b].isalpha()
            size = len(groups[0])
            if not (first_glued or last_glued) and size >= 3 and len(groups[-1]) <= size:
                if all(len(g) == size for g in groups[:-1]):
                    joined = "".join(groups)
                    best = joined if len(joined) > len(best) else best
                    continue
            whole = groups[1 if first_glued else 0 : len(groups) - (1 if last_glued else 0)]
            longest = max(whole, key=len, default="")
            if len(longest) > len(best):
                best = longest
    return best


def find_sequence(text: str, kind: str) -> tuple[str, str] | None:
    primed = _five_to_three(text)
    if primed:
        return primed[-1], "5'-3' notation"
    fasta = _fasta(text)
    if fasta:
        return max(fasta, key=len), "FASTA"
    lists = list(_LETTER_LIST_RE.finditer(text))
    if lists:
        letters = re.findall(r"[A-Za-z]", lists[-1].group())
        return "".join(letters), "list of one-letter codes"
    if kind != "nucleic":
        three = list(_THREE_RE.finditer(text)) or list(_THREE_LIST_RE.finditer(text))
        if three:
            codes = re.findall(r"[A-Za-z]{3}", three[-1].group())
            return "-".join(codes), "three-letter codes"
    alphabet = _NUCLEIC if kind in ("nucleic", "codon") else _PROTEIN
    run = _longest_run(text, alphabet)
    if len(run) >= 2:
        return run, "longest run of sequence letters"
    return None
