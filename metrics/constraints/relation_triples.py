"""``biology_entity_relationship_format_validity`` (released files spell it ``life_*``:
aliases in ``catalogue.csv``): relation triples written in the template the requirement
gives. Decision rule:

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
)
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    parse_int,
    phrases,
    plural,
)
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
        parts = _split_quoted(body, ",")
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
    """``text`` split at ``sep`` outside quotes and never between two digits: a locant list
    ("fructose 1,6-bisphosphate", "2,4-dinitrophenol") is one field."""
    parts, current, quote = [], [], ""
    for i, ch in enumerate(text):
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'" and not (current and current[-1].isalnum()):  # not "5'-end"
            quote = ch
            current.append(ch)
        elif ch == sep and not (
            0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        ):
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
        fields = tuple(f.strip() for f in _split_quoted(body, ","))
        if all(0 < len(f.split()) <= 4 for f in fields):
            return _NamedTuple(opener, closer, fields)
    return None


def _closing(body: str, a: int, opener: str, closer: str) -> int:
    """Index of the ``closer`` that closes the ``opener`` at ``a`` (brackets nest), or -1."""
    depth = 0
    for k in range(a, len(body)):
        if body[k] == opener:
            depth += 1
        elif body[k] == closer:
            depth -= 1
            if depth == 0:
                return k
    return -1


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
            b = _closing(body, a, opener, closer)  # "(metformin, ampk (amp kinase), ...)"
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
    n = len(tpl.fields)
    rows = _csv_rows(text, blocks[-1].lang if blocks else "", n)
    if rows is not None:
        shown = f"{tpl.show()!r} (from the {source})"
        return _rows_verdict(rows, n, shown, params, inp.question or "")
    opener = tpl.opener
    groups = _tuple_groups(text, opener, tpl.closer)
    if not groups and opener == "[":
        groups = _tuple_groups(text, "(", ")")
    n = len(tpl.fields)
    good: list[str] = []
    bad: list[str] = []
    for group in groups:
        parts = _split_quoted(group, ",")
        fields = [p.strip().strip("\"'`“”‘’").strip() for p in parts]
        (good if len(fields) == n and all(fields) else bad).append(group)
    fmt = f"{tpl.show()!r} (from the {source})"
    if bad:
        return Verdict.failed(
            f"{plural(len(bad), 'malformed tuple')} for {fmt} ({n} fields each), e.g. "
            f"{clip(bad[0])!r} ({len(good)} well formed)"
        )
    need = _count_shortfall(len(good), params, inp.question or "")
    if need:
        return Verdict.failed(f"{plural(len(good), 'well-formed tuple')} in {fmt}; {need}")
    return Verdict.passed(
        f"{plural(len(good), 'well-formed tuple')} of {n} fields in {fmt}, e.g. {clip(good[0])!r}"
    )


def _count_shortfall(found: int, params: str, question: str) -> str:
    """The required count ("at least 3") when ``found`` tuples miss it, else ""."""
    kind, count = _required_triples(params, question)
    ok = {"ge": found >= count, "le": 1 <= found <= count, "eq": found == count}[kind]
    return "" if ok else f"{ {'ge': 'at least', 'le': 'at most', 'eq': 'exactly'}[kind] } {count}"


def _csv_rows(text: str, lang: str, n: int) -> list[list[str]] | None:
    """The data rows of a CSV answer (a ```csv block, or every line holding n - 1 commas, at
    least a header and one row): one tuple per row, its header left out; None when the
    answer is no CSV."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    rows = [[f.strip().strip("\"'") for f in _split_quoted(ln, ",")] for ln in lines]
    if lang != "csv" and not all(len(r) == n for r in rows):
        return None
    if lang != "csv" and any(ln.startswith(("(", "[", "-", "*")) for ln in lines):
        return None  # tuples or a list, not CSV
    return rows[1:]


def _rows_verdict(rows: list[list[str]], n: int, fmt: str, params: str, question: str) -> Verdict:
    bad = [r for r in rows if len(r) != n or not all(r)]
    if not rows or bad:
        shown = f", e.g. {clip(', '.join(bad[0]))!r}" if bad else ""
        return Verdict.failed(f"CSV rows for {fmt}: {len(bad)} malformed of {len(rows)}{shown}")
    need = _count_shortfall(len(rows), params, question)
    if need:
        return Verdict.failed(f"{plural(len(rows), 'CSV row')} for {fmt}; {need}")
    return Verdict.passed(
        f"{plural(len(rows), 'CSV row')} of {n} fields for {fmt}, e.g. {clip(', '.join(rows[0]))!r}"
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
    rows = _csv_rows(text, blocks[-1].lang if blocks else "", 3)
    if rows is not None and templates:
        shown = f"{templates[0].show()!r} (from the {source})"
        return _rows_verdict(rows, 3, shown, params, question)
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
    need = _count_shortfall(len(good), params, question)
    if need:
        return Verdict.failed(
            f"{plural(len(good), 'well-formed triple')} in {fmt}; {need} required"
        )
    return Verdict.passed(
        f"{plural(len(good), 'well-formed triple')} in {fmt}, e.g. {clip(good[0])!r}"
    )
