"""Open reading frames of a DNA sequence, for the ``longest`` / ``shortest`` ORF questions
of ``biology_sequence_length_constraint``.

**ORF definition** (one, used everywhere):

* The sequence is read as DNA: ``U`` counts as ``T``, case is ignored, any other letter
  (``N``) makes a codon that is neither a start nor a stop.
* Reading frames: the three frames of the strand as given (5'->3') and, unless only that
  strand is asked about, the three frames of its reverse complement.
* An ORF starts at the start codon ``ATG`` and ends with the first in-frame stop codon
  ``TAA``, ``TAG`` or ``TGA``; the stop codon is part of the ORF. A start without a stop
  before the end of the sequence is not a (complete) ORF.
* Nested ORFs are not separate ORFs: an ``ATG`` inside an ORF, in its frame, shares its stop
  and is a shorter alternative start, so each stop codon ends at most one ORF, the one from
  the most upstream ``ATG`` after the previous in-frame stop (as NCBI ORFfinder reports).
* A minimum length stated in the question ("a protein greater than 39 amino acids",
  "at least 100 nt") filters the ORFs; without one every ORF counts (``ATGTAA`` is one).
* Lengths: an ORF of ``L`` nucleotides (stop included) is ``L`` nt (= bp), ``L - 3`` nt
  without the stop codon, ``L / 3`` codons (``L / 3 - 1`` without the stop) and encodes a
  protein of ``L / 3 - 1`` amino acids.

One pass per frame: linear in the sequence length.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

STOPS = frozenset({"TAA", "TAG", "TGA"})
START = "ATG"
_COMPLEMENT = str.maketrans("ACGTUN", "TGCAAN")


@dataclass(frozen=True)
class Orf:
    strand: str  # "+" (as given) or "-" (reverse complement)
    frame: int  # 0, 1, 2 on its strand
    start: int  # index of the A of ATG on its strand
    length: int  # nucleotides, stop codon included

    @property
    def amino_acids(self) -> int:
        return self.length // 3 - 1


def dna(sequence: str) -> str:
    """Upper case, U -> T, everything but letters dropped."""
    return "".join(ch for ch in sequence.upper() if ch.isalpha()).replace("U", "T")


def reverse_complement(sequence: str) -> str:
    return sequence.translate(_COMPLEMENT)[::-1]


def _frame_orfs(seq: str, strand: str, frame: int) -> Iterator[Orf]:
    start = -1
    for i in range(frame, len(seq) - 2, 3):
        codon = seq[i : i + 3]
        if codon in STOPS:
            if start >= 0:
                yield Orf(strand, frame, start, i + 3 - start)
            start = -1
        elif start < 0 and codon == START:
            start = i
    # a start still open here has no stop: not a complete ORF


def orfs(sequence: str, both_strands: bool = True) -> list[Orf]:
    """Every ORF of ``sequence`` (module docstring), strand as given first."""
    seq = dna(sequence)
    strands = [("+", seq)] + ([("-", reverse_complement(seq))] if both_strands else [])
    return [
        orf for strand, s in strands for frame in range(3) for orf in _frame_orfs(s, strand, frame)
    ]


def extreme(
    found: list[Orf], which: str, keep: Callable[[Orf], bool] = lambda _: True
) -> Orf | None:
    """The longest (``which="longest"``) or shortest ORF among those ``keep`` accepts."""
    kept = [o for o in found if keep(o)]
    if not kept:
        return None
    pick = max if which == "longest" else min
    return pick(kept, key=lambda o: o.length)


def lengths_in(orf: Orf, unit: str) -> set[int]:
    """The lengths a person may state for ``orf`` in ``unit`` (nt / codon / aa)."""
    n = orf.length
    if unit == "nt":
        return {n, n - 3}
    if unit == "codon":
        return {n // 3, n // 3 - 1}
    return {orf.amino_acids}
