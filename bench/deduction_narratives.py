"""Short free narratives, each with its true cause and a similar wrong cause: how many
verdicts `causalqa deduce` gets right, and in how many pairs the true cause gets the
higher P(True) (a tie counts as not first).

    .venv/bin/python bench/deduction_narratives.py FILE.jsonl [--verifier PATH] [--items]

FILE holds deduction examples (report_id, context, statement, label, source), two per
report. The default verifier path is `deduce`'s (the user's own, else the shipped one).
Prints only counts unless --items is given: do not give --items on a held-out set (reading
its items would turn it into a development set).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from causalqa.deduction.dataset import load_jsonl
from causalqa.deduction.deduce import check_pair, deduce_items
from causalqa.deduction.verifier import load_verifier


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("--verifier", type=Path, default=None)
    ap.add_argument("--items", action="store_true", help="print each item's P(True)")
    args = ap.parse_args()
    rows = load_jsonl(args.data)
    v = load_verifier(args.verifier)
    res = deduce_items(
        [check_pair(e.context, e.statement) for e in rows], method="verifier", verifier=v
    )
    right = sum(r.verdict == e.label for r, e in zip(res, rows))
    pairs: dict[str, dict[bool, float]] = {}
    for r, e in zip(res, rows):
        pairs.setdefault(e.report_id, {})[e.label] = r.probability
    full = [p for p in pairs.values() if True in p and False in p]
    first = sum(p[True] > p[False] for p in full)
    out = {
        "items": len(rows),
        "verdicts_right": right,
        "true_accepted": sum(r.verdict for r, e in zip(res, rows) if e.label),
        "false_rejected": sum(not r.verdict for r, e in zip(res, rows) if not e.label),
        "pairs": len(full),
        "true_first": first,
        "verifier": str(args.verifier or "default"),
    }
    print(json.dumps(out))
    if args.items:
        for r, e in zip(res, rows):
            print(f"{e.report_id}\t{e.label}\t{r.probability:.3f}\t{e.statement[:80]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
