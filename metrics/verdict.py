"""The one result type of every check: a score in [0, 1], or unscored, plus a reason."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """Outcome of one check.

    ``score`` is in [0, 1] (1 = satisfied; a judge may give a fraction) or ``None`` when the
    check could not be decided. ``reason`` is one line a person can read in the samples log.
    """

    score: float | None
    reason: str

    def __post_init__(self) -> None:
        if self.score is not None and not 0.0 <= self.score <= 1.0:
            raise ValueError(f"score must be in [0, 1] or None, got {self.score!r}")
        # Reasons land in one-line log fields; keep them on one line.
        object.__setattr__(self, "reason", " ".join(str(self.reason).split()))

    @property
    def scored(self) -> bool:
        return self.score is not None

    @classmethod
    def passed(cls, reason: str) -> Verdict:
        return cls(1.0, reason)

    @classmethod
    def failed(cls, reason: str) -> Verdict:
        return cls(0.0, reason)

    @classmethod
    def of(cls, ok: bool, reason: str) -> Verdict:
        return cls(1.0 if ok else 0.0, reason)

    @classmethod
    def unscored(cls, reason: str) -> Verdict:
        return cls(None, reason)
