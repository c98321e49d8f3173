"""Finding the molecule a response gives, by rules, and parsing it with RDKit.

A response names its molecule in one of three formats: SMILES, SELFIES (``[C][=O]...``,
decoded with the ``selfies`` package, then parsed by RDKit) or an IUPAC name (turned into a
structure by OPSIN, ``opsin.py``; a name found in prose must first have the shape of one,
``iupac_problem``, so ordinary words are not sent).
``molecule_candidates.candidates`` lists every place that may hold one, by rank;
``find_molecule`` picks the answer.

Choice (``find_molecule``): the first valid DECISIVE or STRONG candidate; else, if a
DECISIVE candidate was invalid, that one (the response's stated answer is not a valid
molecule); else the first valid MEDIUM one; else the valid WEAK one that is a structure with
the most heavy atoms (ties: the first; names only when no structure), since an answer
molecule is rarely smaller than the fragments prose mentions; else an invalid STRONG
candidate. Only when this chooses nothing and a judge is in force is the judge asked to copy
the span out (``extraction.extract_span``, verbatim only); the span is then classified and
parsed by the same rules. Without a judge that step is skipped ("no extractor configured").

A SMILES candidate is valid when ``Chem.MolFromSmiles`` (full sanitization) returns a
molecule with at least one atom; a SELFIES candidate when ``selfies.decoder`` accepts every
symbol and the SMILES it gives is valid; an IUPAC candidate when OPSIN parses it to a
structure RDKit accepts (a prose candidate must also pass ``iupac_problem`` first).
RDKit logging is blocked (``rdBase.BlockLogs``, the scoped form of
``RDLogger.DisableLog``) and no RDKit or selfies exception escapes: a failure is an invalid
candidate with a short reason ("unclosed ring bond 1", "bad valence: ...", "cannot
kekulize ...").

Bounds, so that a 1 MB response costs about a second and a normal one milliseconds:
strings longer than ``MAX_SMILES_LEN`` (400) characters (``MAX_SELFIES_LEN``, 1600, for
SELFIES; ``MAX_NAME_LEN``, 200, for names) are not parsed (a long token whose start is
SMILES- or SELFIES-shaped is reported "longer than 400 characters, not parsed"); at most
``MAX_PARSES`` (64) RDKit / selfies parses per search, strongest ranks first; the scan's
own bounds are in ``molecule_candidates.py``. Drug-like SMILES are far below 400
characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sci_tasks.metrics.constraints import opsin
from sci_tasks.metrics.constraints.base import CheckInput
from sci_tasks.metrics.constraints.extraction import extract_span
from sci_tasks.metrics.constraints.molecule_candidates import candidates
from sci_tasks.metrics.constraints.molecule_tokens import (
    FORMAT_WORDS,
    FORMATS,
    Candidate,
    Collector,
    Rank,
    first_token,
)
from sci_tasks.metrics.constraints.notation import (
    decode_selfies,
    iupac_problem,
    parse_smiles,
    selfies_only,
    selfies_shaped,
)
from sci_tasks.metrics.constraints.text import clip

MIN_BARE_ATOMS = 3
MAX_PARSES = 64


# --------------------------------------------------------------------------- checking


def check(candidate: Candidate) -> Candidate:
    """Parse ``candidate`` in place (SMILES / SELFIES with RDKit, names by rule)."""
    if candidate.checked:
        return candidate
    candidate.checked = True
    if candidate.fmt == "smiles":
        if selfies_only(candidate.text) and candidate.rank > Rank.DECISIVE:
            candidate.error = "SELFIES, not SMILES"
            return candidate
        candidate.mol, candidate.error = parse_smiles(candidate.text)
        candidate.smiles = candidate.text if candidate.mol is not None else None
        if candidate.error and selfies_shaped(candidate.text):
            candidate.error += " (it looks like SELFIES)"
    elif candidate.fmt == "selfies":
        if not selfies_shaped(candidate.text):
            candidate.error = "not SELFIES symbols ([C][=O]...)"
            return candidate
        candidate.mol, candidate.smiles, candidate.error = decode_selfies(candidate.text)
    else:
        # a name in prose must look like one first (the shape rule keeps ordinary words
        # out); a stated or labelled name goes straight to OPSIN, which decides
        if candidate.rank > Rank.STRONG:
            candidate.error = iupac_problem(candidate.text)
            if candidate.error:
                return candidate
        smiles = opsin.to_smiles(candidate.text)  # OpsinUnavailable: the check is unscored
        if smiles is None:
            candidate.error = "OPSIN cannot parse this name"
            return candidate
        candidate.mol, error = parse_smiles(smiles)
        candidate.smiles = smiles if candidate.mol is not None else None
        candidate.error = f"OPSIN's structure {smiles!r} does not parse: {error}" if error else ""
    return candidate


@dataclass
class Search:
    """What ``find_molecule`` found: the chosen candidate (or None), and what else."""

    chosen: Candidate | None
    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)

    @property
    def molecule(self) -> Candidate | None:
        """The chosen candidate when it is valid."""
        return self.chosen if self.chosen is not None and self.chosen.valid else None

    def listed(self, most: int = 10) -> list[Candidate]:
        """The valid molecules given alongside the chosen one, as a list of answers gives
        them (the chosen's rank: a JSON list, lines of their own): the chosen first."""
        chosen = self.molecule
        if chosen is None:
            return []
        found, seen = [chosen], {chosen.text}
        for c in self.candidates:
            if len(found) >= most:
                break
            if c.rank == chosen.rank and c.fmt == chosen.fmt and c.text not in seen:
                seen.add(c.text)
                if check(c).valid and c.mol is not None:
                    found.append(c)
        return found

    def why_none(self, formats: Iterable[str]) -> str:
        """A reason for reports when there is no valid molecule."""
        words = "/".join(FORMAT_WORDS[f] for f in FORMATS if f in set(formats))
        if self.chosen is not None:
            text = f"invalid {self.chosen.describe()}: {self.chosen.error}"
        else:
            text = f"no valid molecule in the response (no {words} found)"
        extra = [n for n in self.notes if n]
        return text + (f"; {'; '.join(extra)}" if extra else "")


def _choose(items: list[Candidate], budget: list[int]) -> Candidate | None:
    def parsed(c: Candidate) -> Candidate | None:
        if c.checked:
            return c
        if c.fmt != "iupac":
            if budget[0] <= 0:
                return None
            budget[0] -= 1
        return check(c)

    first_invalid: dict[Rank, Candidate] = {}
    for c in items:
        if c.rank <= Rank.STRONG:
            done = parsed(c)
            if done is None:
                continue
            if done.valid:
                return done
            first_invalid.setdefault(c.rank, done)
    if Rank.DECISIVE in first_invalid:
        return first_invalid[Rank.DECISIVE]
    for c in items:
        if c.rank == Rank.MEDIUM:
            done = parsed(c)
            if done is not None and done.valid:
                return done
    best: Candidate | None = None
    best_size = (False, -1)
    for c in items:
        if c.rank == Rank.WEAK:
            done = parsed(c)
            if done is None or not done.valid:
                continue
            # structures before names, then the most heavy atoms, then the first; a bare
            # two-atom structure is a bond named in prose ("a C=O group"), not an answer
            size = (done.mol is not None, done.mol.GetNumHeavyAtoms() if done.mol else 0)
            if done.mol is not None and size[1] < MIN_BARE_ATOMS:
                continue
            if size > best_size:
                best, best_size = done, size
    if best is not None:
        return best
    return first_invalid.get(Rank.STRONG)


def find_molecule(
    inp: CheckInput,
    formats: Iterable[str] = ("smiles", "selfies"),
    what: str | None = None,
    names_in_prose: bool = True,
) -> Search:
    """The response's molecule in one of ``formats`` (module docstring for the choice).

    When the rules find no candidate at all and ``inp.judge`` is set, the judge is asked to
    copy a ``what`` span ("SMILES string" by default) out of the response; the span is then
    parsed by the same rules. Without a judge this step is skipped."""
    fmts = tuple(f for f in FORMATS if f in set(formats))
    items = candidates(inp.response, fmts, names_in_prose)
    budget = [MAX_PARSES]
    chosen = _choose(items, budget)
    notes: list[str] = []
    long = [c for c in items if c.checked and "not parsed" in c.error]
    if chosen is None and long:
        notes.append(f"{len(long)} candidate(s) too long to parse")
    if budget[0] <= 0 and chosen is None:
        notes.append(f"stopped after {MAX_PARSES} parse attempts")
    if chosen is None:
        if inp.judge is None:
            notes.append("no extractor configured")
        else:
            span, note = extract_span(inp, what or _what(fmts))
            if span is None:
                notes.append(note)
            else:
                extracted = Collector(fmts)
                extracted.value(span, _hint(fmts), f"extracted span, {note}", Rank.EXTRACTED)
                if not extracted.items and fmts != ("iupac",):
                    extracted.add(first_token(span), fmts[0], f"extracted, {note}", Rank.EXTRACTED)
                items = extracted.items
                chosen = check(items[0]) if items else None
                if chosen is None:
                    notes.append(f"extracted span {clip(span)!r} is not a molecule")
    return Search(chosen, items, notes)


def _what(fmts: tuple[str, ...]) -> str:
    if fmts == ("iupac",):
        return "IUPAC name"
    if fmts == ("selfies",):
        return "SELFIES string"
    return "SMILES string"


def _hint(fmts: tuple[str, ...]) -> str | None:
    return fmts[0] if len(fmts) == 1 else None
