"""``causalqa discover pair|graph``: knowledge-based causal discovery (paper 001)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from causalqa.cli.options import (
    JSONOption,
    LLMOption,
    SeedOption,
    emit,
    emit_json_if,
    err,
    open_kg,
    open_llm,
    out,
    write_and_emit,
)
from causalqa.errors import CausalQAError, ConfigError, DiscoveryError

app = typer.Typer(
    help="Knowledge-based causal discovery: one pair, or a graph among variables.",
    no_args_is_help=True,
)
KGOption = Annotated[
    Path | None,
    typer.Option("--kg", help="Knowledge graph store folder (default: $CAUSALQA_HOME/kg/default)."),
]
RankerOption = Annotated[
    str,
    typer.Option(
        "--ranker",
        help="Path ranker: none, random, similarity, llm, or a saved trained one "
        "(xgboost, rmse, ranknet, listnet).",
    ),
]
TopKOption = Annotated[int, typer.Option("--top-k", min=0, help="Paths put in the prompt.")]
HopsOption = Annotated[int, typer.Option("--hops", min=1, max=6, help="Maximum path length.")]


def _check_ranker(name: str) -> None:
    from causalqa.discovery.rankers import RANKERS

    if name not in RANKERS:
        raise ConfigError(f"unknown ranker {name!r}", hint=f"use {', '.join(RANKERS)}")


def _kinds(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


CalibrateOption = Annotated[
    bool | None,
    typer.Option(
        "--calibrate/--no-calibrate",
        help="Older spelling of --decision content-free / --decision argmax.",
        hidden=True,
    ),
]
PairDecisionOption = Annotated[
    str | None,
    typer.Option(
        "--decision",
        help="How the answer becomes a verdict: reference (log-odds above the model's mean "
        "on reference validation questions of the same prompt shape; causalqa bench "
        "discovery reference makes them for other models), content-free (contextual "
        "calibration) or argmax (the paper's rule).",
    ),
]


DecisionOption = Annotated[
    str,
    typer.Option(
        "--decision",
        help="How answers become edges: batch (default: log-odds above their mean over the run's "
        "questions with as many paths — label-free; the rule the validation split chose), "
        "content-free (contextual calibration) or argmax (the paper's rule).",
    ),
]


MethodOption = Annotated[
    str | None,
    typer.Option(
        "--method",
        help="evidence (default: a trained, calibrated model over KG paths, the sentence and "
        "the LLM's log-odds; three-way answer with the reasons) or llm (the paper's "
        "zero-shot prompt alone).",
    ),
]
NoLLMOption = Annotated[
    bool,
    typer.Option("--no-llm", help="Evidence method: leave the LLM feature out (faster)."),
]
EvidenceModelOption = Annotated[
    Path | None,
    typer.Option(
        "--evidence-model",
        help="Folder of an evidence model (default: the one causalqa discover train made, "
        "else the one shipped with causalqa).",
    ),
]
BatchOption = Annotated[
    Path | None,
    typer.Option(
        "--batch",
        help="JSON Lines of pairs (fields a, b, optional context): one JSON line out per "
        "pair, in input order, everything loaded once.",
    ),
]


def _open_kg_for_pairs(kg_path: Path | None, need: bool):
    """The KG store, or None when there is none and every pair has a sentence."""
    from causalqa.errors import KGStoreError

    try:
        return open_kg(kg_path)
    except KGStoreError:
        if need:
            raise
        return None


def _read_batch(path: Path) -> list[dict[str, Any]]:
    from causalqa.errors import DataFileError
    from causalqa.jsonl import read_jsonl

    items = []
    for line, obj in read_jsonl(path):
        if not isinstance(obj, dict):
            raise DataFileError(
                f"{path}:{line}: expected a JSON object with a and b", path=str(path), line=line
            )
        for key in ("a", "b"):
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise DataFileError(
                    f"{path}:{line}: field {key!r} must be a non-empty string",
                    hint='each line: {"a": "...", "b": "...", "context": "..." (optional)}',
                    path=str(path),
                    line=line,
                )
        ctx = obj.get("context")
        if ctx is not None and not isinstance(ctx, str):
            raise DataFileError(
                f"{path}:{line}: field 'context' must be a string", path=str(path), line=line
            )
        items.append({"a": obj["a"], "b": obj["b"], "context": ctx, "line": line})
    if not items:
        raise DataFileError(f"{path}: no pair in the file", path=str(path))
    return items


@app.command("pair")
def pair_command(
    a: Annotated[str | None, typer.Argument(help="The first variable.")] = None,
    b: Annotated[str | None, typer.Argument(help="The second variable.")] = None,
    context: Annotated[
        str | None,
        typer.Option("--context", help="A sentence that names both variables."),
    ] = None,
    method: MethodOption = None,
    no_llm: NoLLMOption = False,
    evidence_model: EvidenceModelOption = None,
    batch: BatchOption = None,
    kg_path: KGOption = None,
    ranker: RankerOption = "similarity",
    top_k: TopKOption = 1,
    hops: HopsOption = 4,
    kind_a: Annotated[
        str | None, typer.Option("--kind-a", help="Node kinds for A (e.g. Compound).")
    ] = None,
    kind_b: Annotated[
        str | None, typer.Option("--kind-b", help="Node kinds for B (e.g. Disease).")
    ] = None,
    decision: PairDecisionOption = "reference",
    calibrate: CalibrateOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Does A cause B? The evidence method answers A→B, B→A or none with calibrated
    probabilities and says why; --method llm is the paper's prompt alone."""
    from causalqa.discovery.pair import DEFAULT_METHOD, METHODS, evidence_llm

    method = method or DEFAULT_METHOD
    if method not in METHODS:
        raise ConfigError(f"unknown --method {method!r}", hint=f"use {', '.join(METHODS)}")
    if batch is None and (a is None or b is None):
        raise ConfigError("give two variables A B (or --batch FILE)")
    if batch is not None and (a is not None or b is not None or context is not None):
        raise ConfigError("--batch reads its pairs from the file: give no A, B or --context")
    if batch is None:
        from causalqa.discovery.pair import check_names

        check_names(a, b)
    items = (
        _read_batch(batch)
        if batch is not None
        else [{"a": a, "b": b, "context": context, "line": None}]
    )
    if method == "llm":
        return _pair_llm(
            items,
            batch,
            kg_path,
            ranker,
            top_k,
            hops,
            kind_a,
            kind_b,
            decision,
            calibrate,
            llm,
            json_,
        )
    _check_ranker(ranker)
    from causalqa.discovery.evidence import EvidenceJudge
    from causalqa.discovery.pair import judge_pair

    judge = EvidenceJudge.load(evidence_model)
    kg = _open_kg_for_pairs(kg_path, need=any(item["context"] is None for item in items))
    try:
        model, llm_note = evidence_llm(judge, True, no_llm=no_llm)
        if model is not None:
            model = open_llm(llm)
        results = []
        for item in items:
            try:
                with err.status(f"{item['a']} – {item['b']} …"):
                    verdict = judge_pair(
                        item["a"],
                        item["b"],
                        judge=judge,
                        kg=kg,
                        llm=model,
                        context=item["context"],
                        kinds_a=_kinds(kind_a),
                        kinds_b=_kinds(kind_b),
                        k=hops,
                    )
            except CausalQAError as e:
                if batch is None:
                    raise
                results.append(
                    {
                        "a": item["a"],
                        "b": item["b"],
                        "line": item["line"],
                        "error": e.message,
                        "hint": e.hint,
                    }
                )
                _emit_line(results[-1])
                continue
            if llm_note:
                verdict.notes.append(llm_note)
            if batch is not None:
                _emit_line(verdict.to_dict())
            else:
                results.append(verdict)
    finally:
        if kg is not None:
            kg.close()
    if batch is not None:
        return
    verdict = results[0]
    if emit_json_if(json_, verdict.to_dict()):
        return
    _print_verdict(verdict)


def _emit_line(obj: dict[str, Any]) -> None:
    import json
    import sys

    sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def _print_verdict(v) -> None:
    from causalqa.discovery.lexical import FAMILY_NAMES

    colour = "green" if v.causal else "yellow"
    arrow = {"A→B": f"{v.a} → {v.b}", "B→A": f"{v.b} → {v.a}", "none": f"{v.a} ⊥ {v.b}"}
    probs = "  ".join(f"P({k}) = {p:.3f}" for k, p in v.probabilities.items())
    out.print(
        f"[bold {colour}]{v.direction}[/] {escape(arrow[v.direction])}  {probs}",
        highlight=False,
    )
    used = v.variant.replace("+", " + ")
    text = f"; text model: {escape(v.text_model)}" if v.text_model else ""
    out.print(
        f"  [dim]evidence: {used}; causal when P(causal) ≥ {v.threshold:.2f}{text}; "
        f"{v.seconds:.2f} s[/]",
        highlight=False,
    )
    if v.contributions:
        why = ", ".join(
            f"{c['feature']} = {c['value']:.3g} ({c['contribution']:+.2f})" for c in v.contributions
        )
        out.print(f"  why (log-odds): {escape(why)}", highlight=False)
    if v.cue:
        out.print(f"  sentence cue: “{escape(v.cue)}”", highlight=False)
    if v.terms and v.terms.get("terms"):
        words = ", ".join(f"“{t['term']}” {t['contribution']:+.2f}" for t in v.terms["terms"])
        out.print(
            f"  words (reads as {FAMILY_NAMES.get(v.terms['family'], v.terms['family'])} text, "
            f"P = {v.terms['p_family']:.2f}): {escape(words)}",
            highlight=False,
        )
    for p in v.paths:
        out.print(f"  path: {escape(p['path'])}", highlight=False)
    if v.llm:
        out.print(f"  LLM log-odds of causal: {v.llm['log_odds']:+.2f}", highlight=False)
    for n in v.notes:
        out.print(f"  [dim]note: {escape(n)}[/]", highlight=False)


def _pair_llm(
    items, batch, kg_path, ranker, top_k, hops, kind_a, kind_b, decision, calibrate, llm, json_
) -> None:
    """The paper's zero-shot prompt alone (the method before the evidence model)."""
    from causalqa.discovery.pair import DECISIONS, discover_pair

    _check_ranker(ranker)
    if calibrate is not None:
        decision = "content-free" if calibrate else "argmax"
    if decision not in DECISIONS:
        raise ConfigError(f"unknown --decision {decision!r}", hint=f"use {', '.join(DECISIONS)}")
    kg = open_kg(kg_path)
    try:
        model = open_llm(llm)
        verdicts = []
        for item in items:
            with err.status(f"{item['a']} – {item['b']} …"):
                verdict = discover_pair(
                    item["a"],
                    item["b"],
                    kg=kg,
                    llm=model,
                    ranker=ranker,
                    top_k=top_k,
                    context=item["context"],
                    k=hops,
                    kinds_a=_kinds(kind_a),
                    kinds_b=_kinds(kind_b),
                    decision=decision,
                )
            if batch is not None:
                _emit_line(verdict.to_dict())
            verdicts.append(verdict)
    finally:
        kg.close()
    if batch is not None:
        return
    verdict = verdicts[0]
    if emit_json_if(json_, verdict.to_dict()):
        return
    colour = "green" if verdict.causal else "yellow"
    out.print(
        f"[bold {colour}]{verdict.verdict}[/] {escape(verdict.a)} – {escape(verdict.b)}  "
        f"P(causal) = {verdict.probability:.3f}  [dim]({escape(verdict.model)}, "
        f"ranker {verdict.ranker}, {verdict.candidates} paths found, "
        f"{verdict.decision} verdict)[/]"
    )
    for p in verdict.paths:
        out.print(f"  path: {escape(p)}", highlight=False)
    for n in verdict.notes:
        out.print(f"  [dim]note: {escape(n)}[/]", highlight=False)


@app.command("train")
def train_command(
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="finetune (MiniLM trained end to end, ~90 MB per fold model, kept in the "
            "cache) or frozen (MiniLM as shipped and a small head).",
        ),
    ] = "finetune",
    kg_path: KGOption = None,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="The shared data folder (default: ../shared/data)."),
    ] = None,
    with_llm: Annotated[
        bool,
        typer.Option(
            "--with-llm/--no-llm",
            help="Also compute the LLM feature for the training pairs (slow: one prompt per "
            "pair; resumable).",
        ),
    ] = False,
    llm_cached: Annotated[
        bool,
        typer.Option(
            "--llm-cached",
            help="Use the LLM feature only where the work folder already has it (no LLM call).",
        ),
    ] = False,
    folds: Annotated[int, typer.Option("--folds", min=2, max=10, help="Cross-fitting folds.")] = 3,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Where the model goes (default: the cache, used by discover pair)."
        ),
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option("--work", help="Where intermediate results are kept for reruns."),
    ] = None,
    threads: Annotated[int, typer.Option("--threads", min=1, help="torch threads.")] = 1,
    seed: SeedOption = 0,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Train the evidence model of discover pair (text classifier, KG and LLM features,
    calibrated combiners); every slow step is cached, so a rerun resumes."""
    import sys

    from causalqa.cli.options import progress
    from causalqa.discovery.training import train_evidence

    if mode not in ("finetune", "frozen"):
        raise ConfigError(f"unknown --mode {mode!r}", hint="use finetune or frozen")
    kg = open_kg(kg_path)
    try:
        model = open_llm(llm, cache=True) if with_llm or llm_cached else None
        with progress() as bar:
            tasks: dict[str, Any] = {}

            def step(what: str, done: int, total: int) -> None:
                if what not in tasks:
                    tasks[what] = bar.add_task(what, total=max(total, 1))
                bar.update(tasks[what], completed=done, total=max(total, 1))

            judge, record = train_evidence(
                data_dir=data,
                kg=kg,
                llm=model,
                mode=mode,
                work=work,
                out=out_dir,
                folds=folds,
                seed=seed,
                threads=threads,
                command="causalqa " + " ".join(sys.argv[1:]),
                llm_compute=not llm_cached,
                on_progress=step,
            )
    finally:
        kg.close()
    summary = {
        "out": str(getattr(judge, "folder", out_dir) or ""),
        "text_model": record.text_model,
        "variants": list(judge.combiners),
        "thresholds": {k: round(v, 4) for k, v in judge.thresholds.items()},
        "seconds": record.info.get("seconds"),
        "rows": record.info.get("rows"),
    }
    if emit_json_if(json_, summary):
        return
    out.print(
        f"trained the evidence model ({record.text_model}) in {summary['seconds']} s; "
        f"variants: {', '.join(summary['variants'])}",
        highlight=False,
    )


@app.command("graph")
def graph_command(
    variables: Annotated[
        str | None,
        typer.Option("--variables", help="Comma-separated variable names (graph node names)."),
    ] = None,
    kg_path: KGOption = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="CSV of observations whose columns are the variables: also run PC, "
            "ExactSearch and DirectLiNGAM on it.",
        ),
    ] = None,
    sachs: Annotated[
        bool,
        typer.Option(
            "--sachs",
            help="The SACHS experiment (Table 3): ours (no-subgraph and --ranker) beside "
            "PC, ExactSearch and DirectLiNGAM, scored against the reference graph.",
        ),
    ] = False,
    context: Annotated[
        str | None, typer.Option("--context", help="Textual context for every pair.")
    ] = None,
    ranker: RankerOption = "similarity",
    top_k: TopKOption = 1,
    hops: HopsOption = 4,
    truth: Annotated[str, typer.Option("--truth", help="SACHS reference: cdt or bnlearn.")] = (
        "cdt"
    ),
    decision: DecisionOption = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="llm (every ordered pair asked with the paper's prompt) or evidence (every "
            "pair judged by the evidence model; with --data, knowledge-guided PC: confident "
            "verdicts as background knowledge, evidence-ranked orientation).",
        ),
    ] = "llm",
    no_llm: NoLLMOption = False,
    evidence_model: EvidenceModelOption = None,
    alpha: Annotated[float, typer.Option("--alpha", help="PC's test level.")] = 0.05,
    require: Annotated[
        float, typer.Option("--require", help="Evidence: required edge when P(a→b) ≥ this.")
    ] = 0.9,
    forbid: Annotated[
        float, typer.Option("--forbid", help="Evidence: forbidden pair when P(causal) ≤ this.")
    ] = 0.05,
    llm: LLMOption = None,
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write the discovered graph to this GraphML file (.graphml), which "
            "causalqa ask --graph reads; with --sachs, the folder for its JSON and Markdown "
            "(default: bench/results/discovery).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out.")] = False,
    json_: JSONOption = False,
) -> None:
    """A directed graph among variables: every ordered pair asked (n(n-1) LLM calls), or
    with --method evidence the evidence model's verdicts and knowledge-guided PC."""
    if method not in ("llm", "evidence"):
        raise ConfigError(f"unknown --method {method!r}", hint="use llm or evidence")
    if out_path is not None and not sachs:
        _check_graph_out(out_path, force)
    if method == "evidence":
        return _graph_evidence(
            variables, kg_path, data, context, no_llm, evidence_model, alpha, require, forbid,
            llm, json_, out_path, force,
        )  # fmt: skip
    _check_ranker(ranker)
    from causalqa.discovery.graph import DECISIONS, DEFAULT_DECISION

    decision = decision or DEFAULT_DECISION
    if decision not in DECISIONS:
        raise ConfigError(f"unknown --decision {decision!r}", hint=f"use {', '.join(DECISIONS)}")
    calibrate = decision == "content-free"
    if sachs:
        out_dir = out_path or Path("bench/results/discovery")
        return _sachs(kg_path, ranker, top_k, context, truth, llm, out_dir, json_, decision)
    if not variables:
        raise ConfigError("give --variables a,b,c (or --sachs)")
    names = [v.strip() for v in variables.split(",") if v.strip()]
    if len(names) < 2:
        raise ConfigError("--variables needs at least two names")
    frame = None
    if data is not None:
        frame = _read_data(data, names)
    kg = open_kg(kg_path) if ranker != "none" else None
    try:
        model = open_llm(llm)
        from causalqa.discovery.graph import discover_graph

        with err.status("graph …") as status:
            g = discover_graph(
                names,
                kg=kg,
                llm=model,
                ranker=ranker,
                top_k=top_k,
                context=context,
                k=hops,
                on_progress=lambda d, t, w: status.update(f"graph {d}/{t}: {w}"),
                calibrate=calibrate,
                decision=decision,
            )
    finally:
        if kg is not None:
            kg.close()
    report: dict[str, Any] = {"model": getattr(model, "model", ""), **g.to_dict()}
    md = g.to_markdown()
    if out_path is not None:
        report["written"] = _write_graph(out_path, names, g.adjacency, g.probability, force)
        md += _written_md(report["written"])
    if frame is not None:
        report["statistical"] = _baselines(frame)
        md += "\n\nStatistical baselines on the data:\n\n" + "\n".join(
            f"- {r['method']}: " + (r.get("error") or ", ".join(f"{a}→{b}" for a, b in r["edges"]))
            for r in report["statistical"]
        )
    emit(report, md, json_)


def _check_graph_out(path: Path, force: bool) -> None:
    if path.suffix.lower() not in (".graphml", ".xml"):
        raise ConfigError(
            f"--out {path}: the graph is written as GraphML",
            hint="give a file name ending in .graphml (or --sachs for a results folder)",
        )
    if path.is_dir() or (path.exists() and not force):
        raise ConfigError(
            f"--out {path} already exists", hint="pass --force to overwrite it, or another --out"
        )


def _write_graph(path: Path, names, adjacency, weight, force: bool) -> dict[str, Any]:
    """Write the discovered graph as GraphML that `causalqa ask --graph` loads (a causal
    model's graph must be acyclic: `graph.as_dag` drops the weakest edge of each cycle)."""
    import os
    import tempfile

    from causalqa.causal_model import CausalModel
    from causalqa.discovery.graph import as_dag

    _check_graph_out(path, force)
    dag, dropped = as_dag(names, adjacency, weight)
    text = CausalModel.from_graph(dag).to_graphml()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {
        "path": str(path),
        "edges": [list(e) for e in dag.edges()],
        "dropped_for_acyclicity": [list(e) for e in dropped],
    }


def _written_md(written: dict[str, Any]) -> str:
    md = f"\n\nWrote {written['path']} ({len(written['edges'])} edges)"
    if written["dropped_for_acyclicity"]:
        md += "; dropped to break cycles: " + ", ".join(
            f"{a}→{b}" for a, b in written["dropped_for_acyclicity"]
        )
    return md + "."


def _graph_evidence(
    variables, kg_path, data, context, no_llm, evidence_model, alpha, require, forbid, llm, json_,
    out_path=None, force=False,
) -> None:  # fmt: skip
    from causalqa.discovery.evidence import EvidenceJudge
    from causalqa.discovery.graph import evidence_adjacency, guided_pc, pair_verdicts

    if not variables:
        raise ConfigError("give --variables a,b,c")
    names = [v.strip() for v in variables.split(",") if v.strip()]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ConfigError("--variables needs at least two distinct names")
    for name, value in (("--require", require), ("--forbid", forbid)):
        if not 0.0 <= value <= 1.0:
            raise ConfigError(f"{name} must be a probability, got {value}")
    frame = _read_data(data, names) if data is not None else None
    judge = EvidenceJudge.load(evidence_model)
    kg = _open_kg_for_pairs(kg_path, need=context is None)
    try:
        model = None
        if not no_llm and any("llm" in v for v in judge.combiners):
            model = open_llm(llm)
        with err.status("pairs …") as status:
            verdicts = pair_verdicts(
                names, judge=judge, kg=kg, llm=model, context=context,
                on_progress=lambda d, t, w: status.update(f"pairs {d}/{t}: {w}"),
            )  # fmt: skip
    finally:
        if kg is not None:
            kg.close()
    report: dict[str, Any] = {"method": "evidence", "text_model": judge.text_model}
    rows = [{"a": a, "b": b, **(v or {"evidence": None})} for (a, b), v in verdicts.items()]
    lines = ["| a | b | P(causal) | P(a→b) | P(b→a) | evidence |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "p_causal" in r:
            lines.append(
                f"| {r['a']} | {r['b']} | {r['p_causal']:.3f} | {r['p_ab']:.3f} "
                f"| {r['p_ba']:.3f} | {r['evidence']} |"
            )
        else:
            lines.append(f"| {r['a']} | {r['b']} | – | – | – | {r.get('error') or 'none'} |")
    report["pairs"] = rows
    if frame is not None:
        graph = guided_pc(frame, names, verdicts, alpha=alpha, require=require, forbid=forbid)
        report["graph"] = graph.to_dict()
        report["statistical"] = _baselines(frame)
        lines += [
            "",
            "Knowledge-guided PC: "
            + (", ".join(f"{a}→{b}" for a, b in graph.edges()) or "no edge"),
            "PC alone: " + (", ".join(f"{a}→{b}" for a, b in graph.pc.edges()) or "no edge"),
            *(f"- {n}" for n in graph.notes),
        ]
    if out_path is not None:
        adjacency, weight = evidence_adjacency(names, verdicts)
        if frame is not None:
            adjacency = graph.adjacency
        report["written"] = _write_graph(out_path, names, adjacency, weight, force)
        lines.append(_written_md(report["written"]).strip())
    emit(report, "\n".join(lines), json_)


def _read_data(path: Path, names: list[str]):
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise DiscoveryError(f"{path}: not a readable CSV: {e}") from None
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise DiscoveryError(
            f"{path}: no column for {', '.join(missing)}",
            hint="columns are: " + ", ".join(map(str, frame.columns)),
        )
    frame = frame[names]
    if frame.empty or not all(pd.api.types.is_numeric_dtype(frame[c]) for c in names):
        raise DiscoveryError(f"{path}: the variables' columns must be numeric and non-empty")
    return frame


def _baselines(frame) -> list[dict[str, Any]]:
    from causalqa.discovery.statistical import BASELINES, LABELS, run_baseline

    rows = []
    for m in BASELINES:
        try:
            res = run_baseline(m, frame)
        except CausalQAError as e:
            rows.append({"method": LABELS[m], "error": e.message})
            continue
        edges = [(res.names[i], res.names[j]) for i, j in zip(*res.adjacency.nonzero())]
        rows.append({"method": LABELS[m], "edges": edges, "adjacency": res.adjacency.tolist()})
    return rows


def _sachs(kg_path, ranker, top_k, context, truth, llm, out_dir, json_, decision="batch") -> None:
    from causalqa.bench.discovery_sachs import SACHS_CONTEXT, run_sachs, sachs_report

    rankers = ["none"] + ([ranker] if ranker != "none" else [])
    kg = open_kg(kg_path) if ranker != "none" else None
    try:
        model = open_llm(llm)
        with err.status("SACHS …") as status:
            bench, graphs = run_sachs(
                ours=rankers,
                kg=kg,
                llm=model,
                top_k=top_k,
                context=context or SACHS_CONTEXT,
                truth=truth,
                on_progress=status.update,
                calibrate=decision == "content-free",
                decisions=[decision],
            )
    finally:
        if kg is not None:
            kg.close()
    name = f"sachs-kg-{truth}"
    report, md = sachs_report(
        bench,
        graphs,
        name=name,
        benchmark="sachs-kg",
        model=getattr(model, "model", ""),
        context=context or SACHS_CONTEXT,
    )
    write_and_emit(out_dir, name, report, md, json_)
