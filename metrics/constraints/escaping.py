"""LaTeX escaped inside a JSON string, read back (``read_latex``): ``\\\\times`` and
``\\\\\\\\times`` are ``\\times``, ``\\\\boxed{...}`` is a box, ``\\\\(`` opens math; a JSON
``\\n`` before a capital, a digit or a word that is no LaTeX command is a newline. Every
reader of numbers, units and wrappers sees the text through it
(``number_grammar.find_numbers``, ``answers.last_boxed``, ``unit_grammar.clean_unit_text``,
the letter-case checks).
"""

from __future__ import annotations

import re

# A run of backslashes before the first character of a LaTeX command or delimiter: JSON
# escaping doubled it ("\\\\times" in a JSON string is \\times; "\\\\\\\\times" when a
# model escaped twice). Before a newline or a digit they stay (LaTeX's line break); before
# a space they read as a control space, whitespace to every reader either way.
# (Matched only at a run's start: linear however long the run. Runs of exactly two, the
# common case, are replaced without a Python callback.)
_COMMAND_START = r"(?=[A-Za-z()\[\]{},;:!%$_#&^ ])"
# Each pattern starts with its literal backslash (the regex engine then skips ahead to the
# next backslash) and looks behind after it.
_DOUBLED_COMMAND_RE = re.compile(r"\\\\(?<!\\\\\\)" + _COMMAND_START)
_ESCAPED_COMMAND_RE = re.compile(r"\\(?<!\\\\)\\{2,}" + _COMMAND_START)
# \n, \t, \r: a JSON whitespace escape unless the letters after the backslash are a LaTeX
# command (\nabla, \theta, \rho, \text, \right, ...) or an accent taking braces (\r{A}).
_NTR_COMMANDS = frozenset(
    "nabla ne neq nu neg ni not notin nexists nleq ngeq nless ngtr nmid nsim ncong natural "
    "nearrow nwarrow newline nolimits nonumber noindent normalsize nparallel nsubseteq "
    "times theta tau tan tanh to top tilde tfrac tbinom tiny tt tag therefore "
    "rho rm rangle rceil rfloor rbrace rbrack rvert rtimes rlap raisebox ref".split()
)
_NTR_PREFIXES = ("text", "right", "new", "triangle", "thick", "thin")


def _whitespace_escape_re(letters: str) -> re.Pattern[str]:
    """A backslash and one of ``letters`` that starts no command of the tables above (the
    commands are excluded by a lookahead, so the substitution runs in C, no callback)."""
    parts = []
    for letter in letters:
        names = sorted((c[1:] for c in _NTR_COMMANDS if c[0] == letter), key=len, reverse=True)
        starts = [p[1:] for p in _NTR_PREFIXES if p[0] == letter]
        commands = "|".join(re.escape(n) for n in names if n)
        kept = [f"(?:{commands})(?![a-z])"] if commands else []
        kept += [re.escape(p) for p in starts] + [r"\{"]
        parts.append(f"{letter}(?!{'|'.join(kept)})")
    return re.compile(r"\\(?<!\\\\)(?:" + "|".join(parts) + ")")


_NEWLINE_ESCAPE_RE = _whitespace_escape_re("n")
_TAB_RETURN_ESCAPE_RE = _whitespace_escape_re("tr")


def read_latex(text: str, keep_length: bool = True) -> str:
    """``text`` with the LaTeX that JSON escaping hides read back: a doubled (or
    quadrupled) backslash before a command or delimiter is one backslash (``\\\\times`` ->
    ``\\times``, ``\\\\(`` -> ``\\(``, ``\\\\boxed``), and ``\\n`` / ``\\t`` / ``\\r``
    that start no LaTeX command are whitespace. ``keep_length``: the dropped backslashes
    become spaces before the one kept, so positions in ``text`` stay valid. Every reader of
    numbers, units and wrappers sees the text through this (``find_numbers``,
    ``last_boxed``, ``unit_grammar.clean_unit_text``, the letter-case checks)."""
    if "\\" not in text:
        return text
    if "\\\\" in text:
        pad = (lambda n: " " * (n - 1)) if keep_length else (lambda n: "")
        text = _ESCAPED_COMMAND_RE.sub(lambda m: pad(len(m.group())) + "\\", text)
        text = _DOUBLED_COMMAND_RE.sub(" \\\\" if keep_length else "\\\\", text)
    text = _NEWLINE_ESCAPE_RE.sub(" \n", text)
    return _TAB_RETURN_ESCAPE_RE.sub("  ", text)
