"""Hard False statements: the probable causes of the most similar *other* reports.

The rule negatives of `dataset.rule_negatives` are other reports' causes whose wording is
moderately close to the true one; a user's real confusion is between the causes of two
accidents that look alike. `hard_negatives` gives, for each report, the true statements of
its `k` nearest other reports — nearest by the TF-IDF cosine of the two contexts (and, with
``similarity="both"``, the mean of that and the MiniLM cosine) — as False statements, with
the source ``false-hard``. It never gives a report its own cause: a candidate is dropped
when it comes from the same report id, or repeats, nearly copies (Levenshtein ratio ≥
0.9) or paraphrases (MiniLM cosine ≥ 0.8) one of the report's true statements — the rules
of `negatives.filter_items` — so two reports with the same text and the same cause give
each other nothing. Deterministic: ties are broken by report id, no randomness.

>>> from causalqa.deduction.dataset import Example
>>> def ex(rid, ctx, s):
...     return Example(report_id=rid, context=ctx, statement=s, label=True)
>>> data = [ex("a", "engine fuel exhaustion forced landing", "The pilot's fuel planning."),
...         ex("b", "engine fuel exhaustion field landing", "The mechanic's fuel cap install."),
...         ex("c", "wind gust landing runway", "The pilot's crosswind control.")]
>>> [(e.report_id, e.statement) for e in hard_negative_examples(data, 1, embedder=False)]
[('a', "The mechanic's fuel cap install."), ('b', "The pilot's fuel planning."), \
('c', "The pilot's fuel planning.")]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal

import numpy as np

from causalqa.deduction.dataset import Example
from causalqa.errors import DatasetError

SOURCE = "false-hard"
SIMILARITIES = ("tfidf", "embedding", "both")


def check_k(k: object) -> int:
    """`k` as an int, or a `DatasetError` saying it must be a whole number ≥ 1."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise DatasetError(
            f"the number of nearest reports for hard negatives must be a whole number ≥ 1, "
            f"not {k!r}",
            hint="e.g. --hard-negatives 3",
        )
    return int(k)


def context_similarity(
    contexts: Sequence[str],
    *,
    similarity: Literal["tfidf", "embedding", "both"] = "tfidf",
    embedder=None,
) -> np.ndarray:
    """Pairwise similarity of report contexts (n × n): TF-IDF cosine (1-2-grams, sublinear
    term frequency), MiniLM cosine, or their mean."""
    if similarity not in SIMILARITIES:
        raise DatasetError(
            f"unknown similarity {similarity!r}", hint=f"use one of {', '.join(SIMILARITIES)}"
        )
    n = len(contexts)
    sims = np.zeros((n, n))
    parts = 0
    if similarity in ("tfidf", "both"):
        from sklearn.feature_extraction.text import TfidfVectorizer

        try:
            m = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit_transform(contexts)
            sims += (m @ m.T).toarray()
        except ValueError:  # no word at all in any context: nothing is similar
            pass
        parts += 1
    if similarity in ("embedding", "both"):
        if embedder is None:
            from causalqa.embed import Embedder

            embedder = Embedder()
        v = np.asarray(embedder.encode(list(contexts)), dtype=np.float64)
        sims += v @ v.T
        parts += 1
    return sims / parts


def hard_negatives(
    truths: Mapping[str, Sequence[str]],
    contexts: Mapping[str, str],
    k: int,
    *,
    sources: Collection[str] | None = None,
    similarity: Literal["tfidf", "embedding", "both"] = "tfidf",
    embedder=None,
    near_duplicate: float = 0.9,
    paraphrase: float = 0.8,
) -> dict[str, list[tuple[str, str, float]]]:
    """For each report of `contexts`, the true statements of its `k` most similar other
    reports as False statements: report id → [(statement, the report it came from, context
    similarity)], nearest report first.

    `truths` maps report id → its true statements (reports without any give none);
    `sources`, if given, limits the reports whose causes may be drawn (e.g. the training
    reports only: a test report's cause is then never a training negative). A candidate
    equal to, nearly copying (Levenshtein ratio ≥ `near_duplicate`) or paraphrasing
    (MiniLM cosine ≥ `paraphrase`; ``embedder=False`` skips that check) one of the
    report's own true statements is dropped, and so is a repeat. Deterministic.

    Raises:
        DatasetError: `k` is not a whole number ≥ 1, or `similarity` is unknown.
    """
    from rapidfuzz import fuzz

    k = check_k(k)
    ids = list(contexts)
    if not ids:
        return {}
    allowed = set(ids if sources is None else sources) & set(truths)
    sims = context_similarity(
        [contexts[r] for r in ids],
        similarity=similarity,
        embedder=embedder if embedder is not False else None,
    )
    cand: dict[str, list[tuple[str, str, float]]] = {}
    for i, rid in enumerate(ids):
        others = [j for j, o in enumerate(ids) if o != rid and o in allowed and truths[o]]
        # Nearest first; equal similarity → report id, so the order never depends on input.
        others.sort(key=lambda j: (-round(float(sims[i, j]), 9), ids[j]))
        own = [t.casefold().strip() for t in truths.get(rid, ())]
        out: list[tuple[str, str, float]] = []
        seen: set[str] = set(own)
        for j in others[:k]:
            for s in truths[ids[j]]:
                key = s.casefold().strip()
                if key in seen:
                    continue
                if any(fuzz.ratio(key, t) / 100 >= near_duplicate for t in own):
                    continue
                seen.add(key)
                out.append((s, ids[j], float(sims[i, j])))
        cand[rid] = out
    if embedder is False or paraphrase >= 1:
        return cand
    if embedder is None:
        from causalqa.embed import Embedder

        embedder = Embedder()
    texts = list(
        dict.fromkeys(
            [s for v in cand.values() for s, _, _ in v] + [t for v in truths.values() for t in v]
        )
    )
    if not texts:
        return cand
    vec = np.asarray(embedder.encode(texts), dtype=np.float32)
    at = {t: n for n, t in enumerate(texts)}
    result: dict[str, list[tuple[str, str, float]]] = {}
    for rid, items in cand.items():
        own = list(truths.get(rid, ()))
        if not own or not items:
            result[rid] = items
            continue
        o = vec[[at[t] for t in own]]
        c = vec[[at[s] for s, _, _ in items]]
        keep = (c @ o.T).max(axis=1) < paraphrase
        result[rid] = [it for it, ok in zip(items, keep) if ok]
    return result


def hard_negative_examples(
    examples: Sequence[Example],
    k: int,
    *,
    sources: Collection[str] | None = None,
    reports: Collection[str] | None = None,
    similarity: Literal["tfidf", "embedding", "both"] = "tfidf",
    embedder=None,
) -> list[Example]:
    """`hard_negatives` of a data set as `Example`s (source ``false-hard``), for the
    reports in `reports` (default: all), drawing causes from the reports in `sources`
    (default: all); a statement the report already has (any label) is not repeated.
    Reports in data-set order; within one, nearest report first."""
    contexts: dict[str, str] = {}
    truths: dict[str, list[str]] = {}
    have: dict[str, set[str]] = {}
    for e in examples:
        contexts.setdefault(e.report_id, e.context)
        truths.setdefault(e.report_id, [])
        if e.label and e.statement not in truths[e.report_id]:
            truths[e.report_id].append(e.statement)
        have.setdefault(e.report_id, set()).add(e.statement.casefold().strip())
    found = hard_negatives(
        truths, contexts, k, sources=sources, similarity=similarity, embedder=embedder
    )
    wanted = set(contexts if reports is None else reports)
    out: list[Example] = []
    for rid, items in found.items():
        if rid not in wanted:
            continue
        for s, _, _ in items:
            if s.casefold().strip() in have[rid]:
                continue
            out.append(
                Example(
                    report_id=rid, context=contexts[rid], statement=s, label=False, source=SOURCE
                )
            )
    return out


def with_hard_negatives(examples: Sequence[Example], k: int, **kwargs) -> list[Example]:
    """`examples` with each report's `hard_negative_examples` placed after its own
    statements (reports keep their order); `kwargs` go to `hard_negative_examples`."""
    extra: dict[str, list[Example]] = {}
    for e in hard_negative_examples(examples, k, **kwargs):
        extra.setdefault(e.report_id, []).append(e)
    out: list[Example] = []
    last = {e.report_id: i for i, e in enumerate(examples)}
    for i, e in enumerate(examples):
        out.append(e)
        if last[e.report_id] == i:
            out += extra.get(e.report_id, [])
    return out
