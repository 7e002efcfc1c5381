"""``causalqa bench discovery statements``: `discover pair` with a sentence, as a user asks
it, on sentences no training step saw — our SemEval-style held-out split of ``TRAIN_FILE``
(`corpora.semeval_heldout`; the reserved test file is never read) and statement files of
one's own (JSON Lines: ``a``, ``b``, ``context``, ``label`` 1/0, optional ``direction``
``A->B``/``B->A`` and ``kind``).

Every item is judged by `pair.judge_pair` (the shipped evidence model unless another is
given, the stores given, no LLM). Scores: accuracy, macro F1 over causal / non-causal and
ROC AUC of P(causal), with 95% intervals from resampling items; an ``unknown`` verdict
counts as wrong for accuracy and F1 (it is not an answer) and has no P for the AUC; the
direction of causal items said causal; per ``kind`` when the file names kinds. The
held-out split is also scored on balanced draws (all its causal items and as many
non-causal, 20 draws), the mix of the hand-written sets.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.errors import DataFileError

HELDOUT = "semeval-heldout"
DRAWS = 1000


def heldout_items(data_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """The held-out split as items (a, b, context, label, direction)."""
    from causalqa.discovery.corpora import A_CAUSES_B, B_CAUSES_A, semeval_heldout

    items = []
    for ex in semeval_heldout(data_dir):
        direction = {A_CAUSES_B: "A->B", B_CAUSES_A: "B->A"}.get(ex.label)
        items.append({"a": ex.a_text, "b": ex.b_text, "context": ex.text,
                      "label": int(ex.causal), "direction": direction, "kind": None})  # fmt: skip
    return items


def read_statements(path: str | Path) -> list[dict[str, Any]]:
    """Items of a statement file; a `DataFileError` naming the line for anything else."""
    from causalqa.jsonl import read_jsonl

    p = Path(path)
    if not p.is_file():
        raise DataFileError(f"{p}: no such file")
    items = []
    for line, obj in read_jsonl(p):
        where = f"{p}:{line}"
        if not isinstance(obj, dict):
            raise DataFileError(f"{where}: expected a JSON object")
        missing = [k for k in ("a", "b", "context", "label") if k not in obj]
        if missing:
            raise DataFileError(
                f"{where}: missing {', '.join(missing)}",
                hint="each line: a, b, context, label (1 causal, 0 not)",
            )
        if obj["label"] not in (0, 1, True, False):
            raise DataFileError(f"{where}: label must be 1 (causal) or 0, not {obj['label']!r}")
        direction = obj.get("direction")
        if direction not in (None, "A->B", "B->A"):
            raise DataFileError(f"{where}: direction must be A->B or B->A, not {direction!r}")
        items.append({"a": str(obj["a"]), "b": str(obj["b"]), "context": str(obj["context"]),
                      "label": int(obj["label"]), "direction": direction,
                      "kind": obj.get("kind")})  # fmt: skip
    if not items:
        raise DataFileError(f"{p}: no statements")
    return items


def judge_items(
    items: Sequence[dict[str, Any]],
    *,
    judge,
    kg=None,
    general: Sequence[Any] = (),
    on_step: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Each item with the verdict `judge_pair` gives it (or the error it raised)."""
    from causalqa.discovery.pair import judge_pair
    from causalqa.errors import CausalQAError

    out = []
    for i, item in enumerate(items):
        started = time.perf_counter()
        row = dict(item)
        try:
            v = judge_pair(item["a"], item["b"], judge=judge, kg=kg, context=item["context"],
                           general=general).to_dict()  # fmt: skip
            row.update(verdict=v.get("verdict"), causal=v.get("causal"),
                       probability=v.get("probability"), direction=item["direction"],
                       said=v.get("direction"), variant=v.get("variant"),
                       threshold=v.get("threshold"))  # fmt: skip
        except CausalQAError as e:
            row.update(verdict="error", causal=None, probability=None, error=e.message)
        row["seconds"] = round(time.perf_counter() - started, 4)
        out.append(row)
        if on_step:
            on_step(i + 1, len(items))
    return out


def _macro_f1(y: np.ndarray, pred: np.ndarray) -> float:
    from sklearn.metrics import f1_score

    return float(f1_score(y, pred, average="macro", labels=[0, 1], zero_division=0))


def _auc(y: np.ndarray, p: np.ndarray) -> float | None:
    from sklearn.metrics import roc_auc_score

    keep = ~np.isnan(p)
    if len(set(y[keep].tolist())) < 2:
        return None
    return float(roc_auc_score(y[keep], p[keep]))


def score(rows: Sequence[dict[str, Any]], *, seed: int = 0, draws: int = DRAWS) -> dict[str, Any]:
    """Accuracy, macro F1 and ROC AUC with 95% intervals (items resampled); an unknown
    verdict or an error is the wrong answer, whichever the label."""
    y = np.array([r["label"] for r in rows], dtype=int)
    said = np.array([-1 if r.get("causal") is None else int(bool(r["causal"])) for r in rows])
    pred = np.where(said < 0, 1 - y, said)
    p = np.array([np.nan if r.get("probability") is None else r["probability"] for r in rows])
    rng = np.random.default_rng(seed)
    boot: dict[str, list[float]] = {"accuracy": [], "macro_f1": [], "roc_auc": []}
    for _ in range(draws):
        idx = rng.integers(0, len(y), len(y))
        boot["accuracy"].append(float((pred[idx] == y[idx]).mean()))
        boot["macro_f1"].append(_macro_f1(y[idx], pred[idx]))
        auc = _auc(y[idx], p[idx])
        if auc is not None:
            boot["roc_auc"].append(auc)
    point = {"accuracy": float((pred == y).mean()), "macro_f1": _macro_f1(y, pred),
             "roc_auc": _auc(y, p)}  # fmt: skip
    out: dict[str, Any] = {"items": len(rows), "causal": int(y.sum())}
    for k, v in point.items():
        lo, hi = np.percentile(boot[k], [2.5, 97.5]).tolist() if boot[k] else (None, None)
        out[k] = None if v is None else round(v, 4)
        out[f"{k}_ci"] = [
            None if lo is None else round(lo, 4),
            None if hi is None else round(hi, 4),
        ]
    directed = [r for r in rows if r["label"] and r.get("direction") and r.get("causal")]
    out["direction_right"] = sum(
        r.get("said") == r["direction"].replace("->", "→") for r in directed
    )
    out["direction_of"] = len(directed)
    out["unknown"] = int(sum(r.get("verdict") == "unknown" for r in rows))
    out["errors"] = int(sum(r.get("verdict") == "error" for r in rows))
    return out


def balanced(rows: Sequence[dict[str, Any]], *, draws: int = 20, seed: int = 0) -> dict[str, Any]:
    """Macro F1 and accuracy on balanced draws: every causal item and as many non-causal
    ones drawn without replacement; the mean and range over `draws`."""
    pos = [r for r in rows if r["label"]]
    neg = [r for r in rows if not r["label"]]
    rng = np.random.default_rng(seed)
    f1s, accs = [], []
    for _ in range(draws):
        pick = [neg[i] for i in rng.choice(len(neg), size=min(len(pos), len(neg)), replace=False)]
        s = score(pos + pick, draws=0)
        f1s.append(s["macro_f1"])
        accs.append(s["accuracy"])
    return {"draws": draws, "macro_f1": round(float(np.mean(f1s)), 4),
            "macro_f1_range": [round(min(f1s), 4), round(max(f1s), 4)],
            "accuracy": round(float(np.mean(accs)), 4)}  # fmt: skip


def by_kind(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Right / of per kind (``kind`` of the file)."""
    out: dict[str, Counter] = {}
    for r in rows:
        kind = r.get("kind") or "-"
        right = r.get("causal") is not None and bool(r["causal"]) == bool(r["label"])
        out.setdefault(kind, Counter())["right" if right else "wrong"] += 1
    return {k: {"right": c["right"], "of": c["right"] + c["wrong"]} for k, c in sorted(out.items())}


def summarize(name: str, rows: Sequence[dict[str, Any]], *, seed: int = 0) -> dict[str, Any]:
    out = {"set": name, **score(rows, seed=seed), "kinds": by_kind(rows)}
    if name == HELDOUT:
        out["balanced"] = balanced(rows, seed=seed)
    out["verdicts"] = dict(Counter(str(r.get("verdict")) for r in rows))
    return out


def write_predictions(rows: Sequence[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
