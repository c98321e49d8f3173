"""How often a rule-checked SciMIF constraint is left unscored on release-shaped records.

"Unscored" must mean the requirement is genuinely absent, not that the parser does not know
its form. This script scores every rule / RDKit / extraction-checked constraint (no judge)
of the project's own release-shaped records and prints the share left unscored, with every
reason, so a reader can judge each one:

* the bundled samples (``sci_tasks/samples/scimif``), each scored against its compliant
  response where ``tests/cases/bundled_compliant_responses.json`` has one, else against its
  reference answer (whether a requirement can be read does not depend on the response);
* the data-driven release-form cases (``tests/cases/*_release_forms.json[l]``), each with
  its own response.

Target: under 3%.

    python benchmarks/scimif_unscored.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import sci_tasks
from sci_tasks.metrics.constraints.registry import CheckInput, Kind, evaluate, resolve

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
SAMPLES = Path(sci_tasks.__file__).parent / "samples" / "scimif"
RULE_KINDS = (Kind.RULE, Kind.RDKIT, Kind.EXTRACT)


def bundled() -> list[tuple[str, str, CheckInput]]:
    compliant_path = CASES / "bundled_compliant_responses.json"
    compliant = {
        (c["file"], c["id"]): c["response"] for c in json.loads(compliant_path.read_text())
    }
    out = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            doc = json.loads(line)
            response = compliant.get((path.name, doc["id"])) or str(doc.get("answer") or "")
            for item in doc["instruction_list"]:
                inp = CheckInput(response, item.get("required_parameters"), doc["edit_question"])
                out.append((f"bundled {path.name}:{doc['id']}", item["instruction_name"], inp))
    return out


def release_cases() -> list[tuple[str, str, CheckInput]]:
    out = []
    general = CASES / "general_release_forms.json"
    for i, c in enumerate(json.loads(general.read_text()) if general.exists() else []):
        inp = CheckInput(c["response"], c["parameters"], c["question"])
        out.append((f"case {general.name}#{i}", c["constraint"], inp))
    science = CASES / "science_release_forms.jsonl"
    for line in science.read_text().splitlines() if science.exists() else []:
        c = json.loads(line)
        inp = CheckInput(c["response"], c.get("required_parameters"), c["edit_question"])
        out.append((f"case {science.name}:{c['id']}", c["instruction_name"], inp))
    return out


def main() -> None:
    rows = []
    for label, items in (("bundled samples", bundled()), ("release-form cases", release_cases())):
        ruled = [(where, name, inp) for where, name, inp in items
                 if (c := resolve(name)) is not None and c.kind in RULE_KINDS]  # fmt: skip
        unscored = [(where, name, r.reason) for where, name, inp in ruled
                    if (r := evaluate(name, inp)).score is None]  # fmt: skip
        rows.append((label, len(ruled), unscored))
    total = sum(n for _, n, _ in rows)
    left = sum(len(u) for _, _, u in rows)
    print(f"{'set':<20} {'rule-checked':>12} {'unscored':>9} {'share':>7}")
    for label, n, unscored in rows:
        print(f"{label:<20} {n:>12} {len(unscored):>9} {len(unscored) / n:>7.1%}")
    print(f"{'all':<20} {total:>12} {left:>9} {left / total:>7.1%}   (target < 3%)")
    reasons = Counter()
    for _, _, unscored in rows:
        for where, name, reason in unscored:
            print(f"  unscored: {where} {name}: {reason}")
            reasons[name] += 1
    if reasons:
        print("by constraint:", dict(reasons.most_common()))


if __name__ == "__main__":
    main()
