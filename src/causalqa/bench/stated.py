"""``causalqa bench stated``: causal models stated in words, on the CLadder generator
outputs and on reworded stories.

Every item's story is its model's ``background`` plus its ``given_info``; the question is
asked with `answer_story` (rules only unless an LLM is given). The item's ``meta``,
``reasoning`` and the model's parameters are read here for scoring only: accuracy per
query type, rung, story kind (commonsense / anti-commonsense / nonsense / deterministic)
and graph, refusals and their reasons, seconds per question (in process, and in a cold
process), and the answers whose computed value disagrees with the generator's ground
truth. Reworded stories (JSON Lines with ``story``, ``question``, ``answer``) are scored
the same way. The published anchors were measured on CLadder's official release, not on
these generator outputs.

    python -m causalqa.bench.stated --data ../shared/data/cladder --out bench/results/stated
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from causalqa.bench.report import document, environment, write_report
from causalqa.errors import DataFileError

KINDS = ("easy", "hard", "anti", "non", "det")
STORY_KIND = {
    "easy": "commonsense",
    "hard": "commonsense",
    "anti": "anti-commonsense",
    "non": "nonsense",
    "det": "deterministic",
}
# Published accuracies on CLadder's official release (not on the generator outputs).
ANCHORS = [
    ("GPT-4 (Jin et al., NeurIPS 2023)", 62.0),
    ("GPT-4 + CausalCoT (Jin et al., NeurIPS 2023)", 70.4),
    ("o1-class reasoning models (reported 86-88%)", 87.0),
]
# Query types whose ground truth is a signed number the answer is decided from.
NUMERIC = ("ate", "ett", "nde", "nie", "correlation", "marginal", "exp_away")


def load_cladder(data_dir: Path) -> list[dict[str, Any]]:
    """The generator's items with their story (background + given_info); scoring fields
    stay in `meta`."""
    meta_path = data_dir / "test-model-meta.json"
    if not meta_path.is_file():
        raise DataFileError(
            f"{meta_path} is missing",
            hint="point --data at the cladder folder",
            path=str(meta_path),
        )
    models = {m["model_id"]: m for m in json.loads(meta_path.read_text())}
    items = []
    for kind in KINDS:
        path = data_dir / f"test-generate-{kind}.json"
        if not path.is_file():
            raise DataFileError(f"{path} is missing", path=str(path))
        for d in json.loads(path.read_text()):
            model = models[d["meta"]["model_id"]]
            items.append(
                {
                    "id": f"{kind}-{d['question_id']}",
                    "story": f"{model['background']} {d['given_info']}",
                    "question": d["question"],
                    "answer": d["answer"],
                    "kind": kind,
                    "story_kind": STORY_KIND[kind],
                    "query_type": d["meta"]["query_type"],
                    "rung": d["meta"]["rung"],
                    "graph": d["meta"]["graph_id"],
                    "truth_value": d["meta"].get("groundtruth")
                    if d["meta"]["query_type"] in NUMERIC
                    else None,
                    "given_info_formal": d["meta"].get("given_info"),
                    "variable_mapping": model.get("variable_mapping"),
                    "structure": model.get("structure"),
                }
            )
    return items


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise DataFileError(
                    f"{path}:{i}: not JSON ({e.msg})", path=str(path), line=i
                ) from None
    return rows


def formal_quantities(given_info: Any) -> dict[tuple, float]:
    """The generator's own statement of what each stated number is (``meta.given_info``:
    'p(Y | X, V2)' nested over the parents' values, 'P(X=1)', 'P(Y=1, X=0)', ...), as
    {(event, given): P(event | given)} over its letters."""
    import itertools
    import re

    out: dict[tuple, float] = {}
    if not isinstance(given_info, dict):
        return out
    for key, val in given_info.items():
        k = key.replace(" ", "")
        m = re.fullmatch(r"[pP]\((\w+)\)", k)
        if m:
            v = val[0] if isinstance(val, list) else val
            out[(frozenset({(m.group(1), 1)}), frozenset())] = float(v)
            continue
        m = re.fullmatch(r"[pP]\((\w+)\|([\w,]+)\)", k)
        if m:
            parents = m.group(2).split(",")
            for combo in itertools.product((0, 1), repeat=len(parents)):
                t = val
                for c in combo:
                    t = t[c]
                out[(frozenset({(m.group(1), 1)}), frozenset(zip(parents, combo)))] = float(t)
            continue
        m = re.fullmatch(r"P\((\w+)=(\d)\)", k)
        if m:
            out[(frozenset({(m.group(1), int(m.group(2)))}), frozenset())] = float(val)
            continue
        m = re.fullmatch(r"P\((\w+)=(\d),(\w+)=(\d)\)", k)
        if m:
            ev = frozenset({(m.group(1), int(m.group(2))), (m.group(3), int(m.group(4)))})
            out[(ev, frozenset())] = float(val)
    return out


def graph_symmetries(structure: str | None) -> list[dict[str, str]]:
    """The automorphisms of the generator's graph ("X->V2,X->Y,V2->Y"), each a map
    letter -> letter, the identity first. Two variables with the same place in the graph
    (both root causes of one effect, say) can trade names without changing any quantity
    the graph defines."""
    import networkx as nx
    from networkx.algorithms.isomorphism import DiGraphMatcher

    if not structure:
        return [{}]
    g = nx.DiGraph(tuple(e.split("->")) for e in structure.split(",") if "->" in e)
    identity = {v: v for v in g}
    others = [m for m in DiGraphMatcher(g, g).isomorphisms_iter() if m != identity]
    return [identity, *others]


def misread_statements(
    model: dict[str, Any], item: dict[str, Any], *, up_to_symmetry: bool = True
) -> int | None:
    """How many stated probabilities the reader mapped to another quantity than the one
    the generator says the number is (or with a value beyond its rounding), under the
    best labelling of values (which value the reader calls 1 is its own choice) and, with
    `up_to_symmetry`, of the variables the graph cannot tell apart (its automorphisms:
    a reading that gives the candle the phrase the generator gives the man, when both are
    root causes of the room, reads every number as the same quantity of the same graph).
    None when the check cannot be made (no numbers, a variable named otherwise)."""
    import itertools

    from causalqa.stated.resolve import name_key

    probs = model.get("probabilities") or []
    formal = formal_quantities(item.get("given_info_formal"))
    if not probs or not formal:
        return None
    vm = item.get("variable_mapping") or {}
    named = {name_key(vm[k]): k[: -len("name")] for k in vm if k.endswith("name")}
    used = sorted({v for p in probs for v in [*p["event"], *p["given"]]})
    if any(v not in named for v in used):
        return None
    symmetries = graph_symmetries(item.get("structure")) if up_to_symmetry else [{}]
    best = None
    for symmetry, flips in itertools.product(
        symmetries, itertools.product((0, 1), repeat=len(used))
    ):
        flip = dict(zip(used, flips))
        letter = {v: symmetry.get(x, x) for v, x in named.items()}

        def conv(a: dict[str, int], flip: dict[str, int] = flip, letter=letter) -> frozenset:
            return frozenset((letter[v], x ^ flip[v]) for v, x in a.items())

        bad = 0
        for p in probs:
            ev, gv = conv(p["event"]), conv(p["given"])
            true = formal.get((ev, gv))
            if true is None and len(ev) == 1:
                ((var, val),) = ev
                comp = formal.get((frozenset({(var, 1 - val)}), gv))
                true = None if comp is None else 1 - comp
            if true is None or abs(true - p["value"]) > 0.0051:
                bad += 1
        best = bad if best is None else min(best, bad)
        if best == 0:
            break
    return best


REFUSAL_KINDS = (
    ("too close to call", ("too close to call",)),
    (
        "not identified by the stated numbers",
        ("do not identify", "does not state", "needs P(", "not identified", "do not fix"),
    ),
    (
        "the story contradicts itself",
        ("stated twice", "contradicts", "do not add up", "observed at both values"),
    ),
    ("reading not certain", ("the words", "readings", "which variable", "which value")),
)


def refusal_kind(reason: str | None) -> str:
    """The kind of a refusal, from its reason: too close to call at the stated
    precision, not identified, a self-contradictory story, an uncertain reading, other."""
    text = reason or ""
    for kind, marks in REFUSAL_KINDS:
        if any(m in text for m in marks):
            return kind
    return "other"


def decided_by_the_stated_numbers(row: dict[str, Any]) -> bool:
    """Whether the story's own numbers decide the question: not a close call (the sign
    holds within their rounding), not refused as not identified or self-contradictory.
    Whether the answer follows the story and not world knowledge shows on these: what
    is left wrong among them is a misreading or a label that contradicts the story."""
    return not row.get("close_call") and row.get("refusal_kind") not in (
        "not identified by the stated numbers",
        "the story contradicts itself",
        "too close to call",
    )


def point_answer(a) -> str | None:
    """The answer the stated numbers' own values give, for a refusal that computed one
    but found its sign not fixed by the numbers' precision (for the report only)."""
    q, v = a.query or {}, a.value
    if v is None or not q.get("direction"):
        return None
    if q.get("kind") == "marginal":
        yes = v > 0.5 if q["direction"] == "up" else v < 0.5
    elif q["direction"] in ("up", "down"):
        yes = v > 1e-12 if q["direction"] == "up" else v < -1e-12
    else:
        return None
    return "yes" if yes else "no"


def _score(
    items: list[dict[str, Any]], llm=None, precision: str = "as-stated"
) -> list[dict[str, Any]]:
    from causalqa.stated.answer import answer_story

    rows = []
    for it in items:
        start = time.perf_counter()
        a = answer_story(it["story"], it["question"], llm=llm, precision=precision)
        seconds = time.perf_counter() - start
        if it["answer"] is None:  # a story that must be refused: right only when it is
            result = "right" if a.answer is None else "wrong"
        else:
            result = (
                "refused"
                if a.answer is None
                else ("right" if a.answer == it["answer"] else "wrong")
            )
        row = {
            k: it.get(k)
            for k in ("id", "kind", "story_kind", "query_type", "rung", "graph", "truth_value")
        }
        row.update(
            result=result,
            answer=a.answer,
            expected=it["answer"],
            value=a.value,
            estimand=a.estimand,
            reason=a.reason,
            route=a.route,
            close_call=a.note is not None,
            seconds=round(seconds, 5),
        )
        if a.answer is None:
            row["refusal_kind"] = refusal_kind(a.reason)
            if row["refusal_kind"] == "too close to call":
                row["point_answer"] = point_answer(a)
        if it.get("given_info_formal") is not None and a.answer is not None:
            row["misread_statements"] = misread_statements(a.model, it)
            if row["misread_statements"] == 0:
                literal = misread_statements(a.model, it, up_to_symmetry=False)
                row["symmetric_relabelling"] = bool(literal)
        tv = it.get("truth_value")
        if (
            a.answer is not None
            and tv is not None
            and a.value is not None
            and "sign" not in (a.estimand or "")
        ):
            # the value the answer came from, against the generator's unrounded ground truth
            # (a misread number shows here as a large gap; rounding as a small one)
            row["value_gap"] = round(abs(abs(a.value) - abs(tv)), 4)
        rows.append(row)
    return rows


def _table(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    out = {}
    for k in sorted(groups, key=str):
        g = groups[k]
        c = Counter(r["result"] for r in g)
        out[str(k)] = {
            "n": len(g),
            "right": c["right"],
            "wrong": c["wrong"],
            "refused": c["refused"],
            "accuracy": round(100 * c["right"] / len(g), 2),
            "accuracy_answered": round(100 * c["right"] / max(1, c["right"] + c["wrong"]), 2),
        }
    return out


def cold_seconds(items: list[dict[str, Any]], n: int = 5, seed: int = 0) -> list[float]:
    """Wall seconds of a fresh Python process that imports causalqa and answers one
    question (the cost a one-shot CLI call pays)."""
    rng = random.Random(seed)
    sample = rng.sample(items, min(n, len(items)))
    code = (
        "import json,sys\n"
        "from causalqa.stated.answer import answer_story\n"
        "d=json.loads(sys.stdin.read())\n"
        "answer_story(d['story'], d['question'])\n"
    )
    out = []
    for it in sample:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps({"story": it["story"], "question": it["question"]}),
            text=True,
            check=True,
            capture_output=True,
            timeout=120,
        )
        out.append(round(time.perf_counter() - start, 3))
    return out


def run_stated_bench(
    data_dir: Path,
    out_dir: Path,
    *,
    rewordings: list[Path] | None = None,
    limit: int | None = None,
    seed: int = 0,
    llm=None,
    cold: int = 5,
    plot: bool = True,
    query_types: list[str] | None = None,
    kinds: list[str] | None = None,
    precision: str = "as-stated",
    reading_llm=None,
) -> dict[str, Any]:
    """Run the benchmark and write ``stated-<date>.json/.md`` (and ``-latest``), and a PNG
    of accuracy per query type and story kind, under `out_dir`. Returns the report.
    `query_types` / `kinds` keep only those items (a quick run on one part). `precision`
    as in `answer_story`: "as-stated" answers close calls (counted apart), "interval"
    refuses them. With `reading_llm`, the plain-wording sets (``plain*.jsonl``) are also
    answered with that LLM reading the stories and questions the rules cannot, and
    settling tied readings (counted apart, with its seconds)."""
    items = load_cladder(Path(data_dir))
    if query_types:
        items = [it for it in items if it["query_type"] in query_types]
    if kinds:
        items = [it for it in items if it["kind"] in kinds]
    if not items:
        raise DataFileError("no item is left after the query-type / kind filters")
    if limit:
        items = random.Random(seed).sample(items, min(limit, len(items)))
    t0 = time.perf_counter()
    rows = _score(items, llm=llm, precision=precision)
    total_seconds = time.perf_counter() - t0
    c = Counter(r["result"] for r in rows)
    secs = [r["seconds"] for r in rows]
    gaps = [r for r in rows if r.get("value_gap") is not None and r["value_gap"] > 0.05]
    misread = [r for r in rows if (r.get("misread_statements") or 0) > 0]
    report: dict[str, Any] = {
        "environment": environment(),
        "llm": getattr(llm, "model", None) if llm is not None else None,
        "precision": precision,
        "close_calls": {
            "answered": sum(1 for r in rows if r.get("close_call")),
            "right": sum(1 for r in rows if r.get("close_call") and r["result"] == "right"),
        },
        "data": str(data_dir),
        "items": len(rows),
        "overall": {
            "right": c["right"],
            "wrong": c["wrong"],
            "refused": c["refused"],
            "accuracy": round(100 * c["right"] / max(1, len(rows)), 2),
            "accuracy_answered": round(100 * c["right"] / max(1, c["right"] + c["wrong"]), 2),
        },
        "by_query_type": _table(rows, "query_type"),
        "by_rung": _table(rows, "rung"),
        "by_story_kind": _table(rows, "story_kind"),
        "by_story_kind_decided": _table(
            [r for r in rows if decided_by_the_stated_numbers(r)], "story_kind"
        ),
        "by_kind_file": _table(rows, "kind"),
        "by_graph": _table(rows, "graph"),
        "refusal_reasons": Counter(
            (r["reason"] or "")[:110] for r in rows if r["result"] == "refused"
        ).most_common(15),
        "refusal_kinds": dict(
            Counter(r["refusal_kind"] for r in rows if r["result"] == "refused").most_common()
        ),
        "too_close_point_answers": {
            "refused": sum(1 for r in rows if r.get("refusal_kind") == "too close to call"),
            "point_answer_right": sum(
                1
                for r in rows
                if r.get("refusal_kind") == "too close to call"
                and r.get("point_answer") == r["expected"]
            ),
        },
        "answers_with_value_gap_over_0_05": len(gaps),
        "answers_from_misread_numbers": len(misread),
        "answers_checked_for_misreads": sum(
            1 for r in rows if r.get("misread_statements") is not None
        ),
        "misread_examples": [r["id"] for r in misread][:30],
        "answers_read_up_to_a_graph_symmetry": sum(
            1 for r in rows if r.get("symmetric_relabelling")
        ),
        "symmetry_examples": [r["id"] for r in rows if r.get("symmetric_relabelling")][:10],
        "value_gap_examples": [
            {k: r[k] for k in ("id", "query_type", "value", "truth_value", "result")}
            for r in gaps[:20]
        ],
        "seconds_per_question": {
            "median": round(statistics.median(secs), 4) if secs else None,
            "p90": round(sorted(secs)[int(0.9 * (len(secs) - 1))], 4) if secs else None,
            "max": round(max(secs), 4) if secs else None,
            "total": round(total_seconds, 1),
        },
        "anchors": [
            {"name": n, "accuracy": a, "measured_on": "CLadder official release"}
            for n, a in ANCHORS
        ],
        "rows": rows,
    }
    if cold:
        cs = cold_seconds(items, cold, seed)
        report["cold_process_seconds"] = {"samples": cs, "median": round(statistics.median(cs), 3)}
    report["rewordings"] = {}
    from causalqa.stated.plain_mechanisms import PLAIN_ROUTE

    for path in rewordings or []:
        path = Path(path)
        if not path.is_file():
            continue
        ritems = load_jsonl(path)
        for i, it in enumerate(ritems):
            it.setdefault("id", f"{path.stem}-{i}")
            it.setdefault("kind", it.get("story_kind", "?"))
            it["story_kind"] = STORY_KIND.get(it.get("story_kind", ""), it.get("story_kind", "?"))
        rrows = _score(ritems, llm=llm)
        rc = Counter(r["result"] for r in rrows)
        report["rewordings"][str(path)] = {
            "items": len(rrows),
            "right": rc["right"],
            "wrong": rc["wrong"],
            "refused": rc["refused"],
            "accuracy": round(100 * rc["right"] / max(1, len(rrows)), 2),
            "by_query_type": _table(rrows, "query_type")
            if all(r.get("query_type") for r in rrows)
            else {},
            "not_right": [
                {k: r[k] for k in ("id", "query_type", "result", "reason")}
                for r in rrows
                if r["result"] != "right"
            ],
        }
        shown = [r for r in rrows if r["answer"] is None and PLAIN_ROUTE in (r["route"] or [])]
        shown = [r for r in shown if r.get("value") is not None]
        if shown:
            # a deterministic story read in everyday words is shown, not answered: what
            # its reading would have answered (value 1: the asked outcome follows)
            would = Counter(
                "right" if ("yes" if r["value"] == 1.0 else "no") == r.get("expected") else "wrong"
                for r in shown
            )
            report["rewordings"][str(path)]["shown_plain_mechanisms"] = {
                "would_be_right": would["right"],
                "would_be_wrong": would["wrong"],
            }
        if reading_llm is not None and path.name.startswith("plain"):
            lrows = _score(ritems, llm=reading_llm)
            lc = Counter(r["result"] for r in lrows)
            report["rewordings"][str(path)]["with_llm_reading"] = {
                "llm": getattr(reading_llm, "model", None),
                "right": lc["right"],
                "wrong": lc["wrong"],
                "refused": lc["refused"],
                "read_by_llm": sum(
                    1 for r in lrows if any(str(s).startswith("llm") for s in r["route"] or [])
                ),
                "median_seconds": round(statistics.median(r["seconds"] for r in lrows), 2),
                "rows": [
                    {k: r[k] for k in ("id", "query_type", "result", "answer", "route", "reason")}
                    for r in lrows
                ],
            }
    report["markdown"] = markdown(report)
    out_dir = Path(out_dir)
    write_report(out_dir, "stated", report, report["markdown"], exclude=("rows", "markdown"))
    (out_dir / "stated-latest.rows.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    )
    if plot:
        _plot(report, out_dir / "stated-latest.png")
    return report


def _md_table(title: str, table: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        f"| {title} | n | right | wrong | refused | accuracy % | accuracy of answered % |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, v in table.items():
        lines.append(
            f"| {k} | {v['n']} | {v['right']} | {v['wrong']} | {v['refused']} | {v['accuracy']} | {v['accuracy_answered']} |"  # noqa: E501
        )
    return lines


def markdown(report: dict[str, Any]) -> str:
    o = report["overall"]
    s = report["seconds_per_question"]
    lines = [
        f"Items: {report['items']} (CLadder generator outputs, `{report['data']}`); "
        f"LLM: {report.get('llm') or 'none (rules only)'}.",
        "",
        f"**Overall: {o['accuracy']}% right** ({o['right']} right, {o['wrong']} wrong, {o['refused']} refused; "  # noqa: E501
        f"{o['accuracy_answered']}% of the answered).",
        "",
        "Published anchors, measured on CLadder's *official release* (not these generator outputs): "  # noqa: E501
        + "; ".join(f"{a['name']}: {a['accuracy']}%" for a in report["anchors"])
        + ".",
        "",
        f"Seconds per question (in process): median {s['median']}, p90 {s['p90']}, max {s['max']}; "
        f"whole run {s['total']} s.",
    ]
    if report.get("cold_process_seconds"):
        cp = report["cold_process_seconds"]
        lines.append(
            f"Cold process (import + one question): median {cp['median']} s over {len(cp['samples'])} runs."  # noqa: E501
        )
    lines += [
        "",
        f"**Answers computed from a misread number: {report['answers_from_misread_numbers']}** "
        "(every stated probability the reader used, checked against the quantity the generator "
        f"says it is, for {report['answers_checked_for_misreads']} answers with numbers, up to "
        "the graph's symmetries).",
        "",
        f"Answers whose reading gives a phrase to another variable than the generator does, "
        f"where the two have the same place in the graph (so every number is read as the same "
        f"quantity): {report.get('answers_read_up_to_a_graph_symmetry', 0)}"
        + (
            f" (e.g. {', '.join(report['symmetry_examples'][:3])})."
            if report.get("symmetry_examples")
            else "."
        ),
        "",
        f"Answers whose computed value is more than 0.05 from the generator's unrounded ground "
        f"truth: {report['answers_with_value_gap_over_0_05']}.",
        "",
        "Refusals by kind: "
        + "; ".join(f"{k}: {n}" for k, n in report["refusal_kinds"].items())
        + ".",
        "",
        "Numbers read "
        + ("as stated (exact)" if report["precision"] == "as-stated" else "as rounding intervals")
        + f" (`precision={report['precision']}`). Close calls answered with a note (the sign "
        "would change "
        f"within the rounding of the stated numbers): {report['close_calls']['answered']}, of "
        f"which {report['close_calls']['right']} right.",
        "",
        "Too close to call at the stated precision (the sign of the deciding number changes "
        "within the rounding of the stated numbers): "
        f"{report['too_close_point_answers']['refused']} refused; the stated values' own sign "
        "would have matched the label in "
        f"{report['too_close_point_answers']['point_answer_right']} of them (the labels come from "
        "the generator's unrounded numbers, which the story does not state).",
        "",
    ]
    for title, key in (
        ("query type", "by_query_type"),
        ("rung", "by_rung"),
        ("story kind", "by_story_kind"),
        ("story kind, on the questions the stated numbers decide", "by_story_kind_decided"),
        ("file", "by_kind_file"),
        ("graph", "by_graph"),
    ):
        lines += _md_table(title, report[key]) + [""]
    lines += ["Most common refusal reasons:", ""]
    lines += [f"- {n} × {r}" for r, n in report["refusal_reasons"]]
    if report.get("rewordings"):
        lines += ["", "Reworded stories:", ""]
        for path, rw in report["rewordings"].items():
            lines.append(
                f"- `{path}`: {rw['accuracy']}% right ({rw['right']} right, {rw['wrong']} wrong, "
                f"{rw['refused']} refused of {rw['items']})"
            )
            if rw.get("shown_plain_mechanisms"):
                sp = rw["shown_plain_mechanisms"]
                lines.append(
                    f"  - read as everyday mechanisms and shown, not answered: would be "
                    f"{sp['would_be_right']} right, {sp['would_be_wrong']} wrong"
                )
            if rw.get("with_llm_reading"):
                lw = rw["with_llm_reading"]
                lines.append(
                    f"  - with {lw['llm']} reading what the rules cannot: {lw['right']} right, "
                    f"{lw['wrong']} wrong, {lw['refused']} refused ({lw['read_by_llm']} went to "
                    f"the LLM; median {lw['median_seconds']} s a question)"
                )
    return document("causalqa bench stated", report, "\n".join(lines))


def _plot(report: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [3, 2]})
    for ax, key, title in (
        (axes[0], "by_query_type", "accuracy by query type"),
        (axes[1], "by_story_kind", "accuracy by story kind"),
    ):
        table = report[key]
        names = list(table)
        right = [table[n]["accuracy"] for n in names]
        refused = [100 * table[n]["refused"] / table[n]["n"] for n in names]
        ax.bar(names, right, color="#3a7", label="right")
        ax.bar(names, refused, bottom=right, color="#bbb", label="refused")
        for name, style in zip([a["name"] for a in report["anchors"]], (":", "--", "-.")):
            acc = next(a["accuracy"] for a in report["anchors"] if a["name"] == name)
            ax.axhline(
                acc,
                color="#a33",
                linestyle=style,
                linewidth=1,
                label=f"{name.split(' (')[0]} {acc}% (official release)",
            )
        ax.set_ylim(0, 105)
        ax.set_title(title)
        ax.tick_params(axis="x", rotation=40)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(
        f"causalqa stated: {report['overall']['accuracy']}% right on {report['items']} CLadder generator items"  # noqa: E501
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m causalqa.bench.stated", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--data", type=Path, default=Path("../shared/data/cladder"))
    p.add_argument("--out", type=Path, default=Path("bench/results/stated"))
    p.add_argument(
        "--rewordings", type=Path, nargs="*", default=None, help="JSON Lines of reworded stories"
    )
    p.add_argument("--limit", type=int, default=None, help="a seeded sample of this many items")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--query-type", nargs="*", default=None, help="only these query types (e.g. nde nie)"
    )
    p.add_argument(
        "--kinds", nargs="*", default=None, choices=KINDS, help="only these generator files"
    )
    p.add_argument("--cold", type=int, default=5, help="cold-process runs to time (0: none)")
    p.add_argument(
        "--precision",
        default="as-stated",
        choices=("as-stated", "interval"),
        help="as-stated: numbers are exact (close calls answered with a note); interval: refused",
    )
    p.add_argument(
        "--llm", default=None, help="a backend spec for tied readings (default: rules only)"
    )
    p.add_argument(
        "--llm-reading",
        default=None,
        help="a backend spec (e.g. local) that also answers the plain-wording sets reading what "
        "the rules cannot",
    )
    args = p.parse_args(argv)
    from causalqa.llm import get_llm

    llm = get_llm(args.llm) if args.llm else None
    reading_llm = get_llm(args.llm_reading, cache=True) if args.llm_reading else None
    rewordings = args.rewordings
    if rewordings is None:
        rewordings = sorted(Path("bench/data/stated").glob("dev-*.jsonl"))
    report = run_stated_bench(
        args.data,
        args.out,
        rewordings=rewordings,
        limit=args.limit,
        seed=args.seed,
        llm=llm,
        cold=args.cold,
        query_types=args.query_type,
        kinds=args.kinds,
        precision=args.precision,
        reading_llm=reading_llm,
    )
    print(report["markdown"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
