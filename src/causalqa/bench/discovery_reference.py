"""Reference thresholds for `discover pair` (see `causalqa.discovery.reference`): measured
on validation pairs in `discover_pair`'s own prompt shapes, saved for the model, and the
verdict rules they make scored on the test pairs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.bench.discovery_pairs import sample_records
from causalqa.discovery.pair import (
    CAUSAL,
    NON_CAUSAL,
    classify_pair,
    content_free_logprobs,
    rank_paths,
)
from causalqa.discovery.pathdata import (
    DATASETS,
    clean_sentence,
    load_path_dataset,
    validation_split,
)
from causalqa.discovery.rankers import SimilarityRanker
from causalqa.discovery.reference import (
    MAX_PATHS,
    ReferenceThresholds,
    reference_for,
    save_reference,
    shape_name,
    user_file,
)
from causalqa.errors import ConfigError, ReferenceThresholdsError
from causalqa.llm.concurrent import BUSY, run_ordered
from causalqa.metrics import binary_scores


def measure_reference(
    llm,
    *,
    datasets: Sequence[str] = ("comagc", "gene", "ade", "semeval"),
    per_dataset: int | None = 60,
    max_paths: int = MAX_PATHS,
    root=None,
    seed: int = 0,
    embedder=None,
    on_step: Callable[[str, int], None] | None = None,
    concurrency: int = 1,
) -> ReferenceThresholds:
    """Ask `llm` about validation pairs (a seeded sample of `per_dataset` from each data
    set's by-query validation split of ``train_full``) in `discover_pair`'s prompt shape,
    with and without the pair's sentence as context and with the top 0..`max_paths` paths
    of the similarity ranker, and return the mean log-odds per shape.
    `on_step(description, advance)` is called once per pair, in order; `concurrency` > 1
    keeps that many pairs' prompts in flight."""
    if max_paths < 0:
        raise ReferenceThresholdsError(f"max_paths must be at least 0, got {max_paths}")
    if embedder is None and max_paths > 0:
        from causalqa.embed import Embedder

        embedder = Embedder()
    ranker = SimilarityRanker(embedder)
    jobs = []  # (data set, pair, its top paths), ranked here: the embedder stays in one thread
    for ds in datasets:
        data = validation_split(load_path_dataset(ds, root, splits=("train",)), seed=seed)
        for q in sample_records(data.truth, per_dataset, seed):
            jobs.append(
                (ds, q, rank_paths(ranker, q, list(q.paths), max_paths) if max_paths else [])
            )

    def ask(job) -> list[tuple[bool, int, float]]:
        _, q, top = job
        out = []
        for context in (True, False):
            sentence = clean_sentence(q.sentence) if context else None
            for n in range(min(max_paths, len(top)) + 1):
                v = classify_pair(q.e1, q.e2, llm, paths=top[:n], context=sentence)
                out.append((context, n, v.log_odds))
        return out

    values: dict[str, dict[int, list[float]]] = {}

    def take(_i: int, job, answers: list[tuple[bool, int, float]]) -> None:
        for context, n, log_odds in answers:
            values.setdefault(shape_name(context), {}).setdefault(n, []).append(log_odds)
        if on_step:
            on_step(f"{job[0]}: {job[1].e1} – {job[1].e2}", 1)

    run_ordered(ask, jobs, concurrency=concurrency, retry=BUSY, on_result=take)
    pairs = len(jobs)
    if not pairs:
        raise ReferenceThresholdsError("no validation pair to measure on")
    model = getattr(llm, "model", "") or type(llm).__name__
    return ReferenceThresholds(
        model=model,
        means={s: {n: float(np.mean(v)) for n, v in sorted(t.items())} for s, t in values.items()},
        prompts={s: {n: len(v) for n, v in sorted(t.items())} for s, t in values.items()},
        info={
            "datasets": list(datasets),
            "pairs": pairs,
            "per_dataset": per_dataset,
            "seed": seed,
            "split": "by-query validation split of train_full (20%, seed as given)",
            "ranker": "similarity",
        },
    )


def evaluate_decisions(
    llm,
    ref: ReferenceThresholds | None,
    *,
    datasets: Sequence[str] = ("comagc", "gene", "ade", "semeval"),
    root=None,
    embedder=None,
    on_step: Callable[[str, int], None] | None = None,
    concurrency: int = 1,
) -> list[dict[str, Any]]:
    """What `discover_pair`'s verdict rules give on the test pairs (``test_truth``): each
    pair asked in its prompt shape with its sentence as context, without a path and with the
    similarity ranker's top path; P/R/F1/accuracy (%) per data set, path setting and rule
    (reference with `ref`, content-free, argmax). Thresholds are never fitted here.
    `concurrency` > 1 keeps that many pairs' prompts in flight."""
    if embedder is None:
        from causalqa.embed import Embedder

        embedder = Embedder()
    ranker = SimilarityRanker(embedder)
    rows: list[dict[str, Any]] = []
    for ds in datasets:
        queries = load_path_dataset(ds, root, splits=("truth",)).truth
        jobs = [(q, rank_paths(ranker, q, list(q.paths), 1)) for q in queries]

        def ask(job) -> list[tuple[int, float]]:
            q, top = job
            sentence = clean_sentence(q.sentence)
            return [
                (n, classify_pair(q.e1, q.e2, llm, paths=top[:n], context=sentence).log_odds)
                for n in ((0, 1) if top else (0,))
            ]

        got: dict[int, list[tuple[int, float]]] = {0: [], 1: []}

        def take(_i: int, job, answers: list[tuple[int, float]], ds=ds, got=got) -> None:
            for n, log_odds in answers:
                got[n].append((job[0].label, log_odds))
            if on_step:
                on_step(f"{ds}: {job[0].e1} – {job[0].e2}", 1)

        run_ordered(ask, jobs, concurrency=concurrency, retry=BUSY, on_result=take)
        for n, answers in got.items():
            if not answers:
                continue
            gold = [g for g, _ in answers]
            lo = np.array([x for _, x in answers])
            cf = content_free_logprobs(llm, n_paths=n, has_context=True)
            rules = {
                "argmax": lo > 0,
                "content-free": lo > cf[CAUSAL] - cf[NON_CAUSAL],
            }
            t = ref.threshold(context=True, n_paths=n) if ref is not None else None
            if t is not None:
                rules["reference"] = lo > t
            for rule, pred in rules.items():
                rows.append(
                    {"dataset": ds, "paths": n, "rule": rule, "pairs": len(gold),
                     "causal": int(sum(gold)), **binary_scores(pred.astype(int).tolist(), gold)}
                )  # fmt: skip
    return rows


def count_reference_pairs(
    datasets: Sequence[str], *, per_dataset: int, measure: bool, evaluate: bool, root=None,
    seed: int = 0,
) -> int:  # fmt: skip
    """How many pairs a reference run asks about (for a progress bar)."""
    total = 0
    if measure:
        for name in datasets:
            loaded = load_path_dataset(name, root, splits=("train",))
            total += min(len(validation_split(loaded, seed=seed).truth), per_dataset)
    if evaluate:
        total += sum(len(load_path_dataset(n, root, splits=("truth",)).truth) for n in datasets)
    return total


def run_reference_bench(
    llm,
    datasets: Sequence[str],
    *,
    per_dataset: int = 60,
    evaluate: bool = True,
    reuse: bool = False,
    root=None,
    seed: int = 0,
    on_step: Callable[[str, int], None] | None = None,
    concurrency: int = 1,
) -> tuple[dict[str, Any], str]:
    """Measure (or, with `reuse`, read) the model's reference thresholds, save them where
    `discover pair` finds them, and score the verdict rules on the test pairs
    (`evaluate`). Returns (report, Markdown body)."""
    ref = reference_for(llm.model) if reuse else None
    if reuse and ref is None:
        raise ConfigError(
            f"no reference thresholds saved for {llm.model}",
            hint="run without --reuse to measure them",
        )
    saved: Path | None
    if ref is None:
        ref = measure_reference(
            llm, datasets=datasets, per_dataset=per_dataset, root=root, seed=seed,
            on_step=on_step, concurrency=concurrency,
        )  # fmt: skip
        saved = save_reference(ref)
    else:
        saved = user_file(ref.model) if user_file(ref.model).is_file() else None
    rows = (
        evaluate_decisions(
            llm, ref, datasets=datasets, root=root, on_step=on_step, concurrency=concurrency
        )
        if evaluate
        else []
    )
    report = {"benchmark": "reference", **ref.to_dict(), "test": rows}
    report["saved"] = str(saved) if saved else None
    lines = [
        f"Model: {ref.model}; {ref.info.get('pairs', '?')} validation pairs "
        f"({ref.info.get('per_dataset', '?')} per data set at most: "
        f"{', '.join(ref.info.get('datasets', datasets))}); paths by the similarity ranker, "
        "plain form, discover pair's default instruction.",
        "",
        "| prompt | paths | mean log-odds of causal (the threshold) | answers |",
        "|---|---|---|---|",
    ]
    for shape, table in ref.means.items():
        for n, mean in table.items():
            lines.append(
                f"| {shape} | {n} | {mean:.4f} | {ref.prompts.get(shape, {}).get(n, '')} |"
            )
    if saved:
        lines += ["", f"Saved to {saved} (used by `causalqa discover pair --decision reference`)."]
    if rows:
        lines += [
            "",
            "Verdict rules on the test pairs (`test_truth`), context = the pair's sentence, "
            "discover pair's prompt; thresholds from the validation pairs above, never fitted "
            "on these:",
            "",
            "| data set | paths | rule | P | R | F1 | acc | pairs (causal) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {DATASETS[r['dataset']][1]} | {r['paths']} | {r['rule']} | {r['precision']} "
                f"| {r['recall']} | {r['f1']} | {r['accuracy']} | {r['pairs']} ({r['causal']}) |"
            )
    return report, "\n".join(lines)
