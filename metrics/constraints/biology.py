"""Checkers of the biology constraints of the SciMIF catalogue (released files spell them
``life_*``: aliases in ``catalogue.csv``). Units and methods share one implementation
with the other disciplines; analysis steps are judged. Decision rules:

* ``biology_entity_relationship_format_validity``: the template from the parameters or
  question (three placeholders such as entity1 / relation / entity2, head / tail, subject
  / predicate / object, A / B, with the literal delimiters between them: "(e1, r, e2)",
  "e1 -> r -> e2", "[A] --relation--> [B]"). Without a template but with "triple(s)" in the
  question, the templates "(e1, r, e2)", "e1 -> r -> e2", "e1 | r | e2" are tried and the
  best fitting one is used. A template that names its own fields in brackets,
  "(chemical substance, corresponding disease)" (two to five fields of one to four words; in
  the question after a cue such as format / form / tuple / as), is read when no
  placeholder template is: every bracketed group on lines that start with the bracket (else
  every group holding a comma) must split on commas (quotes respected) into exactly that
  many non-empty fields; neither -> unscored. Candidates: bracketed groups of the
  template's bracket (Python tuples inside a list included) or the lines that hold the
  template's first separator; each must split into exactly three non-empty fields with
  the template's delimiters (quotes stripped). When the question says one per line / no
  other text, every non-empty line is a candidate. Pass iff there is no malformed
  candidate and at least one well-formed triple (or the required number: "at least 3",
  "exactly four"). At most ``MAX_TRIPLES`` candidates are examined.
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
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from sci_tasks.metrics.constraints.answers import code_blocks, final_answer
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
    parse_int,
    phrases,
    plural,
    sentences,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.verdict import Verdict

# =========================================================================== triples


@dataclass(frozen=True)
class _Template:
    opener: str
    sep1: str
    sep2: str
    closer: str

    def show(self) -> str:
        return f"{self.opener}e1{self.sep1}r{self.sep2}e2{self.closer}"

    @property
    def bracketed(self) -> bool:
        """The brackets enclose the whole triple ("(e1, r, e2)"), not each entity
        ("[A] --r--> [B]")."""
        if not (self.opener and self.closer and self.opener[-1] in "([{<"):
            return False
        return not any(ch in self.sep1 + self.sep2 for ch in self.opener + self.closer)


_PLACEHOLDER_RE = re.compile(
    r"(?:entity|head|tail|subject|object|source|target|node|gene|protein|molecule|"
    r"relation(?:ship)?|rel|predicate|interaction|edge|verb|type)"
    r"(?:[ _-]?(?:[0-9]|one|two|[ab]|type|name|entity))*"
    r"|\b(?:e[12]|[ABXYR]|r)\b",
    re.I,
)
_CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">", "“": "”", '"': '"', "'": "'"}
_ARROWS = str.maketrans({"→": "->", "⟶": "->", "⇒": "=>", "—": "--", "–": "-"})
_DEFAULT_TEMPLATES = (
    _Template("(", ", ", ", ", ")"),
    _Template("", " -> ", " -> ", ""),
    _Template("", " | ", " | ", ""),
)
_TRIPLE_WORD_RE = re.compile(r"\btriples?\b|\btriplets?\b", re.I)
_TRIPLE_COMPARATORS = phrases(
    "exactly", "at least", "at most", "no more than", "no fewer than", "minimum of", "maximum of"
)
_TRIPLE_COUNT_RE = re.compile(
    rf"\b({_TRIPLE_COMPARATORS})?[ \t]*([0-9]+|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve)[ \t]+(?:[\w-]+[ \t]+)?"
    r"(?:triples?|triplets?|relationships?|relations?|tuples?|pairs?)\b",
    re.I,
)
_ONE_PER_LINE_RE = re.compile(
    phrases(
        "one (?:triple |relationship )?per line",
        "no other text",
        "nothing else",
        "only the triples",
    ),
    re.I,
)


def _template_in(text: str) -> _Template | None:
    t = text.translate(_ARROWS)
    marks = list(_PLACEHOLDER_RE.finditer(t[:2000]))
    for k in range(len(marks) - 2):
        a, b, c = marks[k : k + 3]
        sep1, sep2 = t[a.end() : b.start()], t[b.end() : c.start()]
        if not (0 < len(sep1.strip() or sep1) <= 8 and 0 < len(sep2.strip() or sep2) <= 8):
            continue
        if any(ch.isalnum() for ch in sep1 + sep2) or not (sep1.strip() and sep2.strip()):
            continue
        before = t[max(0, a.start() - 3) : a.start()]
        opener = ""
        for ch in reversed(before):
            if ch in _CLOSERS or ch in "[(<{":
                opener = ch + opener
            else:
                break
        after = t[c.end() : c.end() + 3]
        closer = ""
        for ch in after:
            if ch in ")]}>”\"'":
                closer += ch
            else:
                break
        if opener and not closer:
            opener = ""
        return _Template(opener, sep1, sep2, closer)
    return None


def _fields(body: str, template: _Template) -> list[str] | None:
    """Split ``body`` with the template's separators; None when malformed."""
    s1, s2 = template.sep1.strip(), template.sep2.strip()
    if s1 == s2 == ",":
        quoted = "'" in body or '"' in body
        parts = _split_quoted(body, ",") if quoted else body.split(",")
    else:
        i = body.find(s1)
        if i < 0:
            return None
        j = body.find(s2, i + len(s1))
        if j < 0:
            return None
        parts = [body[:i], body[i + len(s1) : j], body[j + len(s2) :]]
        if s2 in parts[2] or (s1 != s2 and s1 in parts[2]):
            return None
    fields = [p.strip().strip("\"'`“”‘’").strip() for p in parts]
    if len(fields) != 3 or not all(fields):
        return None
    return fields


def _split_quoted(text: str, sep: str) -> list[str]:
    parts, current, quote = [], [], ""
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


_BULLET_RE = re.compile(r"^[ \t]*(?:[-*•+]|[0-9]{1,3}[.)])[ \t]+")


MAX_TRIPLES = 5_000  # candidates examined; more: the verdict is on the first ones


def _candidates(text: str, template: _Template, every_line: bool) -> Iterator[str]:
    """The pieces of ``text`` that are meant as triples (module docstring)."""
    t = text.translate(_ARROWS) if not text.isascii() else text
    for line in t.splitlines():
        body = _BULLET_RE.sub("", line).strip().strip("*").strip().rstrip(".;")
        if not body or body.startswith("```"):
            continue
        if template.bracketed:
            opener, closer = template.opener[-1], template.closer[0]
            pos, groups = 0, []
            while True:
                a = body.find(opener, pos)
                if a < 0:
                    break
                b = body.find(closer, a + 1)
                if b < 0:
                    groups.append(body[a:])
                    break
                groups.append(body[a : b + 1])
                pos = b + 1
            starts_group = body.lstrip("[").lstrip().startswith(opener)
            if groups and (starts_group or every_line):
                yield from groups
            elif every_line:
                yield body
        elif template.sep1.strip() in body or every_line:
            yield body


def _well_formed(candidate: str, template: _Template) -> bool:
    body = candidate.strip().strip(",")
    if template.opener:
        if not body.startswith(template.opener.strip()):
            return False
        body = body[len(template.opener.strip()) :]
    if template.closer:
        if not body.endswith(template.closer.strip()):
            return False
        body = body[: len(body) - len(template.closer.strip())]
    return _fields(body, template) is not None


def _required_triples(params: str, question: str) -> tuple[str, int]:
    for text in (params, question):
        m = _TRIPLE_COUNT_RE.search(text or "")
        if m:
            n = parse_int(m.group(2))
            if n:
                word = (m.group(1) or "").lower()
                kind = (
                    "ge"
                    if "least" in word or "fewer" in word or "minimum" in word
                    else (
                        "le"
                        if "most" in word or "more" in word or "maximum" in word
                        else ("eq" if word else "ge")
                    )
                )
                return kind, n
    return "ge", 1


# A tuple template that names its fields: "(chemical substance, corresponding disease)",
# "[gene, disease, relation]". In the question it must follow a format cue.
_NAMED_TUPLE_RE = re.compile(
    r"([(\[])([A-Za-z][A-Za-z /'-]{0,40}(?:,[ \t]*[A-Za-z][A-Za-z /'-]{0,40}){1,4})([)\]])"
)
_TUPLE_CUE_RE = re.compile(
    r"\b(?:format|form|template|tuples?|pairs?|triples?|triplets?|structure|shape|pattern|"
    r"as|like|following)\b[^.()\[\]\n]{0,40}$",
    re.I,
)


@dataclass(frozen=True)
class _NamedTuple:
    opener: str
    closer: str
    fields: tuple[str, ...]

    def show(self) -> str:
        return f"{self.opener}{', '.join(self.fields)}{self.closer}"


def _named_tuple_in(text: str, need_cue: bool) -> _NamedTuple | None:
    for m in _NAMED_TUPLE_RE.finditer(text[:5000]):
        opener, body, closer = m.groups()
        if (opener == "(") != (closer == ")"):
            continue
        if need_cue and not _TUPLE_CUE_RE.search(text[max(0, m.start() - 60) : m.start()]):
            continue
        fields = tuple(f.strip() for f in body.split(","))
        if all(0 < len(f.split()) <= 4 for f in fields):
            return _NamedTuple(opener, closer, fields)
    return None


def _tuple_groups(text: str, opener: str, closer: str) -> list[str]:
    """The bracketed groups meant as tuples: those on lines that start with the bracket
    (after a bullet) if there are any, else every group holding a comma."""
    leading: list[str] = []
    anywhere: list[str] = []
    for line in text.splitlines():
        body = _BULLET_RE.sub("", line).strip().strip("*").strip()
        pos = 0
        starts = (
            body.lstrip("[").lstrip().startswith(opener)
            if opener == "("
            else (body.startswith(opener))
        )
        while len(leading) + len(anywhere) < MAX_TRIPLES:
            a = body.find(opener, pos)
            if a < 0:
                break
            b = body.find(closer, a + 1)
            if b < 0:
                break
            group = body[a + 1 : b]
            if opener == "[" and group.lstrip().startswith("("):
                break  # a Python list of tuples: read with "(" instead
            (leading if starts else anywhere).append(group)
            pos = b + 1
    return leading or [g for g in anywhere if "," in g]


def _named_tuple_verdict(inp: CheckInput, tpl: _NamedTuple, params: str, source: str) -> Verdict:
    span = final_answer(inp.response, to_end=True)
    text = span.text if span is not None and span.text.strip() else inp.response
    blocks = code_blocks(text)
    if blocks:
        text = blocks[-1].body
    opener = tpl.opener
    groups = _tuple_groups(text, opener, tpl.closer)
    if not groups and opener == "[":
        groups = _tuple_groups(text, "(", ")")
    n = len(tpl.fields)
    good: list[str] = []
    bad: list[str] = []
    for group in groups:
        quoted = "'" in group or '"' in group
        parts = _split_quoted(group, ",") if quoted else group.split(",")
        fields = [p.strip().strip("\"'`“”‘’").strip() for p in parts]
        (good if len(fields) == n and all(fields) else bad).append(group)
    fmt = f"{tpl.show()!r} (from the {source})"
    if bad:
        return Verdict.failed(
            f"{plural(len(bad), 'malformed tuple')} for {fmt} ({n} fields each), e.g. "
            f"{clip(bad[0])!r} ({len(good)} well formed)"
        )
    kind, count = _required_triples(params, inp.question or "")
    ok = {"ge": len(good) >= count, "le": 1 <= len(good) <= count, "eq": len(good) == count}
    if not ok[kind]:
        need = {"ge": "at least", "le": "at most", "eq": "exactly"}[kind]
        return Verdict.failed(f"{plural(len(good), 'well-formed tuple')} in {fmt}; {need} {count}")
    return Verdict.passed(
        f"{plural(len(good), 'well-formed tuple')} of {n} fields in {fmt}, e.g. {clip(good[0])!r}"
    )


@register("biology_entity_relationship_format_validity")
def entity_relationship_format_validity(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    question = inp.question or ""
    template = _template_in(params) if params else None
    source = "parameters"
    if template is None:
        template, source = _template_in(question), "question"
    if template is None:  # a template that names its own fields, two as often as three
        named = _named_tuple_in(params, need_cue=False) if params else None
        if named is not None:
            return _named_tuple_verdict(inp, named, params, "parameters")
        named = _named_tuple_in(question, need_cue=True)
        if named is not None:
            return _named_tuple_verdict(inp, named, params, "question")
    templates = [template] if template else []
    if not templates:
        if not (_TRIPLE_WORD_RE.search(question) or _TRIPLE_WORD_RE.search(params)):
            return Verdict.unscored("no triple format stated in parameters or question")
        templates, source = list(_DEFAULT_TEMPLATES), "defaults"
    every_line = bool(_ONE_PER_LINE_RE.search(question) or _ONE_PER_LINE_RE.search(params))
    span = final_answer(inp.response, to_end=True)
    text = span.text if span is not None and span.text.strip() else inp.response
    blocks = code_blocks(text)
    if blocks:
        text = blocks[-1].body
    best: tuple[int, int, _Template, list[str], list[str]] | None = None
    for tpl in templates:
        good: list[str] = []
        bad: list[str] = []
        for cand in islice(_candidates(text, tpl, every_line), MAX_TRIPLES):
            (good if _well_formed(cand, tpl) else bad).append(cand)
        key = (len(good), -len(bad))
        if best is None or key > best[:2]:
            best = (len(good), -len(bad), tpl, good, bad)
    assert best is not None
    _, _, tpl, good, bad = best
    fmt = f"{tpl.show()!r} (from the {source})"
    if bad:
        return Verdict.failed(
            f"{plural(len(bad), 'malformed triple')} for {fmt}, e.g. {clip(bad[0])!r}"
            f" ({len(good)} well formed)"
        )
    kind, n = _required_triples(params, question)
    ok = {"ge": len(good) >= n, "le": 1 <= len(good) <= n, "eq": len(good) == n}[kind]
    need = {"ge": "at least", "le": "at most", "eq": "exactly"}[kind]
    if not ok:
        return Verdict.failed(
            f"{plural(len(good), 'well-formed triple')} in {fmt}; {need} {n} required"
        )
    return Verdict.passed(
        f"{plural(len(good), 'well-formed triple')} in {fmt}, e.g. {clip(good[0])!r}"
    )


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
    if not claims:
        written = [m.group() for m in _DNA_RUN_RE.finditer(response) if _is_orf_text(m.group())]
        if written and not _LENGTH_ASKED_RE.search(question):
            return Verdict.passed(
                f"the {which} ORF is written out ({clip(written[-1], 24)}){reference}"
            )
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
