"""``causalqa bench discovery causenet``: what CauseNet's general knowledge covers and how
well its rule decides, on SemEval-2010 Task 8's *training* pairs (the reserved test file is
never read), and how fast `discover pair` answers with every loaded store.

- coverage: of the Cause-Effect pairs (and of the others), how many have both names linked
  to CauseNet concepts, a direct claim between them, a directed chain of at most two hops;
- the rule (`causalqa.discovery.general`): among pairs placed in CauseNet, the share that
  is Cause-Effect by kind of evidence (a direct claim, by support band; chains only;
  nothing), and how often the larger support gives the annotated direction — the figures
  ``general_rules.json`` ships;
- latency: seconds per `judge_pair` answer without a sentence and without the LLM, the
  first (cold) and the rest (warm), over pairs whose names CauseNet places.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.discovery.corpora import A_CAUSES_B, B_CAUSES_A, NONE, read_semeval
from causalqa.discovery.general import SupportIndex, evidence_in

SEMEVAL_TRAIN = Path("semeval2010-task8") / "TRAIN_FILE.TXT"
BANDS = (20, 5, 1)
"""Support bands of the rule's table, fixed before measuring (round numbers)."""
TUEBINGEN = ("*tuebingen*", "*tubingen*", "*Tuebingen*", "*cause-effect-pairs*")


def semeval_pairs(path: str | Path) -> list[tuple[str, str, int]]:
    """(e1, e2, label) of every sentence of SemEval's training file: A_CAUSES_B is
    e1 → e2, B_CAUSES_A e2 → e1, NONE any other relation."""
    out = []
    for ex in read_semeval(path):
        out.append((ex.text[ex.a[0] : ex.a[1]], ex.text[ex.b[0] : ex.b[1]], ex.label))
    return out


def _rate(k: int, n: int) -> dict[str, Any]:
    """k of n, the raw share and the Laplace-smoothed one ((k + 1) / (n + 2))."""
    return {
        "k": k,
        "n": n,
        "share": round(k / n, 4) if n else None,
        "p_smoothed": round((k + 1) / (n + 2), 4),
    }


def measure_coverage(kg: Any, pairs: Sequence[tuple[str, str, int]]) -> dict[str, Any]:
    """Coverage and the rule's table on `pairs` (see the module docstring)."""
    index = SupportIndex.of(kg)
    counts: dict[str, Counter] = {"cause-effect": Counter(), "other": Counter()}
    classes: dict[str, Counter] = {}
    direction = Counter()
    placed_rows = []
    for a, b, label in pairs:
        group = "other" if label == NONE else "cause-effect"
        c = counts[group]
        c["pairs"] += 1
        ev = evidence_in(kg, a, b)
        linked = [bool(ev.linked[k].get("node")) for k in ("a", "b")]
        c["a or b linked"] += any(linked)
        if not ev.placed:
            continue
        ia, ib = (ev.linked[k]["node"]["id"] for k in ("a", "b"))
        if ia == ib:
            c["same concept"] += 1
            continue
        c["both linked"] += 1
        fwd, bwd = ev.support
        chains = sum(ev.chain_counts.values())
        c["direct claim"] += ev.decisive
        c["path (≤ 2 hops, directed)"] += ev.decisive or chains > 0
        c["chains only"] += (not ev.decisive) and chains > 0
        if ev.decisive:
            band = next(m for m in BANDS if max(fwd, bwd) >= m)
            kind = f"direct, support ≥ {band}"
            if label != NONE:
                gold = "A→B" if label == A_CAUSES_B else "B→A"
                said = "A→B" if fwd > bwd else "B→A" if bwd > fwd else "tie"
                direction["right" if said == gold else "tie" if said == "tie" else "wrong"] += 1
        elif chains:
            kind = "chains only (2 hops)"
        else:
            kind = "no path (≤ 2 hops)"
        classes.setdefault(kind, Counter())[group] += 1
        placed_rows.append((a, b, label, fwd, bwd, chains, index.names[ia], index.names[ib]))
    table = []
    for kind in [f"direct, support ≥ {m}" for m in BANDS] + [
        "chains only (2 hops)",
        "no path (≤ 2 hops)",
    ]:
        got = classes.get(kind, Counter())
        n = got["cause-effect"] + got["other"]
        table.append({"evidence": kind, **_rate(got["cause-effect"], n)})
    direct_all = sum(classes.get(f"direct, support ≥ {m}", Counter()).total() for m in BANDS)
    direct_ce = sum(classes.get(f"direct, support ≥ {m}", Counter())["cause-effect"] for m in BANDS)
    placed = sum(c["both linked"] for c in counts.values())
    placed_ce = counts["cause-effect"]["both linked"]
    return {
        "coverage": {g: dict(c) for g, c in counts.items()},
        "rule_table": table,
        "direct_precision": _rate(direct_ce, direct_all),
        "base_rate_placed": _rate(placed_ce, placed),
        "direction": {**dict(direction), **_rate(direction["right"], direction.total())},
        "examples": [
            {
                "a": a,
                "b": b,
                "label": {NONE: "none", A_CAUSES_B: "A→B", B_CAUSES_A: "B→A"}[y],
                "support": [f, w],
                "chains": n,
                "concepts": [ca, cb],
            }
            for a, b, y, f, w, n, ca, cb in placed_rows[:12]
        ],  # fmt: skip
    }


def rules_from(coverage: dict[str, Any], *, data: str, command: str) -> dict[str, Any]:
    """The ``general_rules.json`` the measurement supports: one band per support band,
    P(causal) its smoothed share of Cause-Effect pairs."""
    bands = []
    for row in coverage["rule_table"]:
        if row["evidence"].startswith("direct, support ≥ "):
            bands.append(
                {
                    "min_support": int(row["evidence"].rsplit(" ", 1)[-1]),
                    "p_causal": row["p_smoothed"],
                    "k": row["k"],
                    "n": row["n"],
                }
            )
    return {
        "rule": "a direct CauseNet claim between A and B says causal, in the direction of the "
        "larger support; P(causal) = (k + 1) / (n + 2) of the pairs with a direct claim in the "
        "same support band that are Cause-Effect; chains alone do not decide",
        "threshold": 0.5,
        "bands": bands,
        "direction_right": coverage["direction"],
        "chains_only": next(
            r for r in coverage["rule_table"] if r["evidence"].startswith("chains only")
        ),
        "base_rate_placed": coverage["base_rate_placed"],
        "measured": {"data": data, "command": command},
    }


def tuebingen_files(data_dir: Path) -> list[str]:
    """Files or folders in the data folder that look like the Tübingen cause-effect pairs."""
    found = set()
    for pattern in TUEBINGEN:
        found.update(str(p.relative_to(data_dir)) for p in data_dir.glob(pattern))
    return sorted(found)


def measure_latency(
    pairs: Sequence[tuple[str, str]],
    *,
    judge: Any,
    kg: Any,
    general: Sequence[Any],
    on_step: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Seconds per `judge_pair` answer without a sentence or the LLM, in one process: the
    first (cold: the graph index, the linkers, CauseNet's support index) and the rest
    (warm). An unknown pair (no evidence decides) or a refused one (a clear error) is
    timed too — it is the answer the user gets — and counted apart."""
    from causalqa.discovery.pair import judge_pair
    from causalqa.errors import CausalQAError

    seconds, refused, unknown, decided_by = [], 0, 0, Counter()
    for i, (a, b) in enumerate(pairs):
        if on_step:
            on_step(f"latency {i + 1}/{len(pairs)}")
        t0 = time.perf_counter()
        try:
            v = judge_pair(a, b, judge=judge, kg=kg, general=general)
            if v.causal is None:
                unknown += 1
            else:
                decided_by[v.variant] += 1
        except CausalQAError:
            refused += 1
        seconds.append(time.perf_counter() - t0)
    warm = np.array(seconds[1:] or seconds)
    return {
        "pairs": len(pairs),
        "refused": refused,
        "unknown": unknown,
        "decided_by": dict(decided_by),
        "first": round(seconds[0], 3),
        "warm_median": round(float(np.median(warm)), 3),
        "warm_p90": round(float(np.quantile(warm, 0.9)), 3),
        "warm_max": round(float(warm.max()), 3),
    }


def sample_placed(
    kg: Any, pairs: Sequence[tuple[str, str, int]], n: int, seed: int = 0
) -> list[tuple[str, str]]:
    """`n` pairs (seeded draw) whose two names CauseNet places as different concepts."""
    placed = []
    for a, b, _ in pairs:
        ev = evidence_in(kg, a, b)
        if ev.placed and ev.linked["a"]["node"]["id"] != ev.linked["b"]["node"]["id"]:
            placed.append((a, b))
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(placed), size=min(n, len(placed)), replace=False)
    return [placed[i] for i in sorted(chosen)]
