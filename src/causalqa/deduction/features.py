"""Evidence features of (report, statement) for the deduction verifier, each explainable.

- lexical support: BM25 (``rank_bm25``) of the statement over the report's passages,
  TF-IDF cosine with the whole report (IDF fitted on training reports), coverage of the
  statement's key terms (plain and IDF-weighted, in the report and in its best passage);
- semantic support: MiniLM cosine between the statement and the report's passages
  (best, mean of the top 3) and the whole report;
- cues: negation ("no evidence", "did not", "ruled out") and hedging ("could not be
  determined", "may have") in the passage that supports the statement best, and in the
  statement itself;
- coded findings: NTSB's findings ("Aircraft - ... - Airspeed - Not attained/maintained")
  read as short phrases ("Airspeed Not attained or maintained"), the statement's MiniLM
  cosine with the closest ones and its key terms found among them;
- circumstances (`circumstances.agreement`): whether the aircraft, phase of flight,
  weather, engine, actor, purpose and topics the statement names fit the report's.

`passages` splits a report into the units every feature (and the cross-encoder, and the
explanation a user sees) works on: a coded-findings line, or a sentence of a narrative.
`TextFeatures` is an estimator (``fit`` on training contexts learns the IDF table) whose
``transform`` returns one row per (context, statement) and the passages behind it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from causalqa.deduction.circumstances import CIRCUMSTANCES, agreement
from causalqa.deduction.circumstances import DESCRIPTIONS as CIRCUMSTANCE_DESCRIPTIONS

STOP = frozenset(
    "a an the of and or to in on at by for with from was were is are be been being had has "
    "have his her their its it this that which who whom these those not no nor but as after "
    "before during when while he she they them him there than then into onto over under "
    "about also any all some such would could should may might can did do does due result "
    "resulted resulting which led leading accident accidents probable cause causes "
    "contributing factor factors".split()
)
NEGATION = re.compile(
    r"\b(?:no|not|never|none|without|nor|neither|cannot|unable|ruled out|excluded|"
    r"no evidence|did not|was not|were not|no anomalies|not a factor|unlikely)\b",
    re.IGNORECASE,
)
HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|possible|likely|probably|undetermined|unknown|"
    r"not determined|could not be determined|suspected|appears?|suggests?)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

LEGACY_FEATURES: tuple[str, ...] = (
    "bm25_max",
    "bm25_top2",
    "tfidf_cos",
    "coverage",
    "coverage_idf",
    "passage_coverage",
    "emb_max",
    "emb_top3",
    "emb_context",
    "passage_negation",
    "passage_hedge",
    "statement_negation",
    "statement_hedge",
)
"""The text features of verifiers trained before the findings and circumstance features."""
FINDING_FEATURES: tuple[str, ...] = (
    "finding_emb_max",
    "finding_emb_top2",
    "finding_coverage",
    "findings",
)
CLAUSE_FEATURES: tuple[str, ...] = ("clause_emb_min", "clause_emb_mean", "narrative")
"""Meaning over wording, part by part: each clause of the statement ("the pilot's failure
to remove the pitot cover" · "which resulted in a loss of control") against its closest
passage; and which kind of input the report is."""
FEATURES: tuple[str, ...] = LEGACY_FEATURES + FINDING_FEATURES + CIRCUMSTANCES + CLAUSE_FEATURES
"""The text features, in column order."""
IMPLIED_FEATURES: tuple[str, ...] = (
    "implied_finding_p",
    "implied_finding_lift",
    "implied_finding_loglift",
    "implied_absent_p",
    "implied_top_present",
)
"""The features of `ImpliedFindings` (learned), in column order."""

DESCRIPTIONS: dict[str, str] = {
    "bm25_max": "BM25 of the statement against the report's best passage",
    "bm25_top2": "mean BM25 of the statement against the report's two best passages",
    "tfidf_cos": "TF-IDF cosine between the statement and the whole report",
    "coverage": "share of the statement's key terms found in the report",
    "coverage_idf": "IDF-weighted share of the statement's key terms found in the report",
    "passage_coverage": "share of the statement's key terms in the best passage",
    "emb_max": "MiniLM cosine between the statement and the closest passage",
    "emb_top3": "mean MiniLM cosine of the three closest passages",
    "emb_context": "MiniLM cosine between the statement and the whole report",
    "passage_negation": "the closest passage negates (no evidence, did not, ruled out)",
    "passage_hedge": "the closest passage hedges (may have, could not be determined)",
    "statement_negation": "the statement itself is negated",
    "statement_hedge": "the statement itself hedges",
    "finding_emb_max": "MiniLM cosine between the statement and the closest coded finding",
    "finding_emb_top2": "mean MiniLM cosine of the two closest coded findings",
    "finding_coverage": "share of the statement's key terms found in the coded findings",
    "findings": "how many coded findings the report has (0: a narrative)",
    "clause_emb_min": "MiniLM cosine of the statement's least supported clause with its "
    "closest passage (every part of a cause should be in the report)",
    "clause_emb_mean": "mean over the statement's clauses of the cosine with the closest passage",
    "narrative": "the report is a free narrative (1), not a coded NTSB record (0)",
    "implied_finding_p": "learned P(finding | statement), highest among the report's findings",
    "implied_finding_lift": "how many times likelier than usual the statement makes the "
    "report's most implied finding",
    "implied_finding_loglift": "mean log of that lift over the report's findings",
    "implied_absent_p": "learned P(finding | statement), highest among findings the report "
    "does not have",
    "implied_top_present": "the finding the statement implies most is one of the report's",
    **CIRCUMSTANCE_DESCRIPTIONS,
}


def stem(word: str) -> str:
    """A light suffix stripper: plural, -ing, -ed, -ly, possessive (no dictionary)."""
    w = word.replace("'s", "")
    for suf in ("ingly", "ing", "edly", "ed", "ies", "es", "ly", "s"):
        if suf.startswith("ed") and w.endswith("e" + suf) or w.endswith("ss"):
            continue  # airspeed, loss
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def terms(text: str) -> list[str]:
    """Lower-cased, stemmed content words of `text` (stop words dropped)."""
    t = text.lower().replace("’", "'")
    return [stem(w) for w in _WORD.findall(t) if w not in STOP and len(w) > 1]


_CLAUSE = re.compile(
    r",?\s+(?:which|that)\s+(?:\w+\s+)?(?:resulted|led|caused|allowed)\s+(?:in|to)?\b|"
    r",?\s+resulting\s+in\b|,?\s+leading\s+to\b|\s+due\s+to\b|\s+because\s+of\b|;\s*|"
    r"\.\s+(?:Contributing|Also)\b[^.]*?\b(?:was|were)\s+|,\s+and\s+",
    re.IGNORECASE,
)


def clauses(statement: str) -> list[str]:
    """A statement cut into its parts at "which resulted in", "due to", "; ", ", and" and
    a "Contributing was" sentence; parts under two words are dropped.

    >>> clauses("The pilot's failure to remove the pitot cover, which resulted in a loss "
    ...         "of control due to erroneous airspeed.")
    ["The pilot's failure to remove the pitot cover", 'a loss of control', \
'erroneous airspeed.']
    """
    parts = [p.strip(" ,.") for p in _CLAUSE.split(statement)]
    out = [p for p in parts if len(p.split()) >= 2]
    if out and statement.rstrip().endswith(".") and not out[-1].endswith("."):
        out[-1] += "."
    return out or [statement]


_SENT = re.compile(r"(?<=[.!?])[\"”’]?\s+(?=[A-Z“\"(])")


def passages(context: str, *, max_words: int = 60) -> list[str]:
    """The report cut into passages: each line (a coded finding, a fact) and, within a
    line, each sentence; a sentence longer than `max_words` is cut into windows."""
    out: list[str] = []
    for line in context.splitlines():
        line = line.strip().lstrip("-•* ").strip()
        if not line:
            continue
        for s in _SENT.split(line):
            words = s.split()
            for i in range(0, len(words), max_words):
                chunk = " ".join(words[i : i + max_words]).strip()
                if len(chunk.split()) >= 2:
                    out.append(chunk)
    return out or [context.strip()]


def findings(context: str) -> list[str]:
    """A record's coded findings as short phrases: the levels below NTSB's category and
    subcategory, "(general)" dropped, "/" read as "or" ("Personnel issues - Task
    performance - Use of equip/info - Aircraft control - Pilot" → "Aircraft control
    Pilot"). A narrative has none."""
    out = []
    for line in context.splitlines():
        if not line.startswith("- "):
            continue
        levels = [x.strip() for x in line[2:].split(" - ")]
        keep = [x for x in levels[3:] if x != "(general)"] or levels[2:3] or levels[-1:]
        out.append(" ".join(keep).replace("/", " or "))
    return out


@dataclass
class Row:
    """One (context, statement)'s text features and the passages ranked for it."""

    values: dict[str, float]
    ranked: list[tuple[str, float]] = field(default_factory=list)
    """The report's passages, most similar to the statement first (text, cosine)."""
    reasons: dict[str, str] = field(default_factory=dict)
    """Why each nonzero circumstance feature has its value, in words."""


class TextFeatures:
    """Lexical, semantic and cue features of (context, statement) pairs.

    ``fit(contexts)`` learns the IDF of terms over training reports (`idf_`, `n_docs_`);
    ``transform(pairs)`` gives one `Row` per pair. `embedder` (MiniLM by default) is
    anything with ``encode(list[str]) -> unit vectors``.
    """

    def __init__(self, embedder=None, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.embedder = embedder
        self.k1 = k1
        self.b = b

    def _embedder(self):
        if self.embedder is None:
            from causalqa.embed import Embedder

            self.embedder = Embedder()
        return self.embedder

    def fit(self, contexts: Sequence[str]) -> TextFeatures:
        docs = list(dict.fromkeys(contexts))
        df: Counter[str] = Counter()
        for c in docs:
            df.update(set(terms(c)))
        n = max(len(docs), 1)
        self.idf_ = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.default_idf_ = math.log(1 + (n + 0.5) / 0.5)
        self.n_docs_ = n
        return self

    def _idf(self, t: str) -> float:
        return self.idf_.get(t, self.default_idf_)

    def transform(self, pairs: Sequence[tuple[str, str]]) -> list[Row]:
        """One `Row` per (context, statement)."""
        if not hasattr(self, "idf_"):
            from causalqa.errors import DeductionError

            raise DeductionError("the text features are not fitted", hint="call fit first")
        contexts = list(dict.fromkeys(c for c, _ in pairs))
        cut = {c: passages(c) for c in contexts}
        coded = {c: findings(c) for c in contexts}
        coded_terms = {c: {t for f in coded[c] for t in terms(f)} for c in contexts}
        parts = {s: clauses(s) for s in dict.fromkeys(s for _, s in pairs)}
        texts = list(
            dict.fromkeys(
                [p for c in contexts for p in cut[c]]
                + [f for c in contexts for f in coded[c]]
                + [s for _, s in pairs]
                + [q for v in parts.values() for q in v]
            )
        )
        texts += [c for c in contexts if c not in set(texts)]
        vecs = np.asarray(self._embedder().encode(texts), dtype=np.float32)
        at = {t: i for i, t in enumerate(texts)}
        bm25 = {c: _bm25(cut[c], self.k1, self.b) for c in contexts}
        ctx_terms = {c: Counter(terms(c)) for c in contexts}
        rows = []
        for c, s in pairs:
            ps = cut[c]
            sv = vecs[at[s]]
            sims = vecs[[at[p] for p in ps]] @ sv
            order = np.argsort(-sims, kind="stable")
            best = ps[int(order[0])]
            st = terms(s)
            uniq = list(dict.fromkeys(st))
            ct = ctx_terms[c]
            bt = set(terms(best))
            w = np.array([self._idf(t) for t in uniq]) if uniq else np.zeros(0)
            found = np.array([t in ct for t in uniq], dtype=float)
            scores = np.sort(bm25[c].get_scores(st))[::-1] if st else np.zeros(1)
            fs = coded[c]
            fsims = np.sort(vecs[[at[f] for f in fs]] @ sv)[::-1] if fs else np.zeros(0)
            f_terms = coded_terms[c]
            fits = agreement(c, s)
            P = vecs[[at[p] for p in ps]]
            per_clause = (vecs[[at[q] for q in parts[s]]] @ P.T).max(axis=1)
            values = {
                "bm25_max": float(scores[0]),
                "bm25_top2": float(scores[:2].mean()),
                "tfidf_cos": self._tfidf_cos(st, ct),
                "coverage": float(found.mean()) if uniq else 0.0,
                "coverage_idf": float((w * found).sum() / w.sum()) if uniq and w.sum() else 0.0,
                "passage_coverage": float(np.mean([t in bt for t in uniq])) if uniq else 0.0,
                "emb_max": float(sims[order[0]]),
                "emb_top3": float(sims[order[:3]].mean()),
                "emb_context": float(vecs[at[c]] @ sv),
                "passage_negation": float(bool(NEGATION.search(best))),
                "passage_hedge": float(bool(HEDGE.search(best))),
                "statement_negation": float(bool(NEGATION.search(s))),
                "statement_hedge": float(bool(HEDGE.search(s))),
                "finding_emb_max": float(fsims[0]) if fs else 0.0,
                "finding_emb_top2": float(fsims[:2].mean()) if fs else 0.0,
                "finding_coverage": float(np.mean([t in f_terms for t in uniq]))
                if fs and uniq
                else 0.0,
                "findings": float(len(fs)),
                **fits.values,
                "clause_emb_min": float(per_clause.min()),
                "clause_emb_mean": float(per_clause.mean()),
                "narrative": float(not fs),
            }
            ranked = [(ps[int(i)], float(sims[i])) for i in order]
            rows.append(Row(values, ranked, fits.reasons))
        return rows

    def tfidf_cos(self, context: str, statement: str) -> float:
        """TF-IDF cosine between a statement and a whole report (the fitted IDF)."""
        return self._tfidf_cos(terms(statement), Counter(terms(context)))

    def _tfidf_cos(self, st: list[str], ct: Counter[str]) -> float:
        q = Counter(st)
        if not q or not ct:
            return 0.0
        qv = {t: n * self._idf(t) for t, n in q.items()}
        cv = {t: n * self._idf(t) for t, n in ct.items()}
        dot = sum(v * cv.get(t, 0.0) for t, v in qv.items())
        nq = math.sqrt(sum(v * v for v in qv.values()))
        nc = math.sqrt(sum(v * v for v in cv.values()))
        return float(dot / (nq * nc)) if nq and nc else 0.0


def _bm25(ps: list[str], k1: float, b: float):
    from rank_bm25 import BM25Okapi

    docs = [terms(p) or ["_"] for p in ps]
    return BM25Okapi(docs, k1=k1, b=b)


class TermPairs:
    """A learned lexical interaction: logistic regression over hashed (statement term,
    report term) pairs and statement terms found / not found in the report — which words
    of a cause go with which words of a report (e.g. coded findings) in the training data.

    ``fit(contexts, statements, labels)`` returns self; ``decision_function`` the logit.
    """

    def __init__(self, *, n_features: int = 2**18, C: float = 0.5) -> None:
        self.n_features = n_features
        self.C = C

    def _rows(self, contexts: Sequence[str], statements: Sequence[str]):
        from sklearn.feature_extraction import FeatureHasher

        def feats(c: str, s: str) -> dict[str, float]:
            st, ct = set(terms(s)), set(terms(c))
            d: dict[str, float] = {}
            w = 1.0 / max(len(ct), 1) ** 0.5
            for a in st:
                d[f"in:{a}" if a in ct else f"out:{a}"] = 1.0
                for b in ct:
                    d[f"{a}|{b}"] = w
            return d

        hasher = FeatureHasher(self.n_features, input_type="dict")
        return hasher.transform(feats(c, s) for c, s in zip(contexts, statements))

    def fit(self, contexts, statements, labels) -> TermPairs:
        from sklearn.linear_model import LogisticRegression

        self.model_ = LogisticRegression(C=self.C, max_iter=3000, class_weight="balanced").fit(
            self._rows(contexts, statements), np.asarray(labels, dtype=bool)
        )
        return self

    def decision_function(self, contexts, statements) -> np.ndarray:
        return self.model_.decision_function(self._rows(contexts, statements))


class ImpliedFindings:
    """Which coded findings a cause implies, learned from the training reports' true
    statements, checked against the report's own findings (`findings`).

    One logistic regression per finding phrase found in at least `min_reports` training
    reports, over the TF-IDF (1-2-grams) of the statements that are a probable cause of a
    report: P(the report has finding f | its cause reads s). A statement that implies
    findings the report has (e.g. "failure to maintain airspeed" → "Airspeed Not attained
    or maintained") is supported by it; one that implies findings the report lacks is the
    cause of some other accident. Narratives have no findings: their features are 0.

    ``fit(contexts, statements, labels)`` learns from the True rows only and returns self;
    ``transform(contexts, statements)`` gives the `IMPLIED_FEATURES` columns.
    """

    def __init__(self, *, min_reports: int = 5, C: float = 2.0) -> None:
        self.min_reports = min_reports
        self.C = C

    def fit(self, contexts, statements, labels) -> ImpliedFindings:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        true = [i for i, y in enumerate(labels) if y]
        docs = [statements[i] for i in true]
        found = [set(findings(contexts[i])) for i in true]
        per_report = {contexts[i]: fs for i, fs in zip(true, found)}  # a report counts once
        counts = Counter(f for fs in per_report.values() for f in fs)
        self.labels_ = sorted(f for f, c in counts.items() if c >= self.min_reports)
        self.models_: dict[str, object] = {}
        self.prior_: dict[str, float] = {}
        if not docs or not self.labels_:
            return self
        self.vectorizer_ = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        Z = self.vectorizer_.fit_transform(docs)
        for f in self.labels_:
            target = np.array([f in fs for fs in found])
            if target.all() or not target.any():
                continue
            self.models_[f] = LogisticRegression(C=self.C, max_iter=2000).fit(Z, target)
            self.prior_[f] = float(target.mean())
        self.labels_ = [f for f in self.labels_ if f in self.models_]
        return self

    def implied(self, statements: Sequence[str]) -> np.ndarray:
        """P(finding | statement): one row per statement, one column per `labels_`."""
        if not self.labels_:
            return np.zeros((len(statements), 0))
        Z = self.vectorizer_.transform(list(statements))
        return np.column_stack([self.models_[f].predict_proba(Z)[:, 1] for f in self.labels_])

    def transform(self, contexts, statements) -> np.ndarray:
        return self._read(contexts, statements, explain=False)[0]

    def explain(self, contexts, statements) -> tuple[np.ndarray, list[dict[str, str]]]:
        """`transform`'s columns and, for each row, what each feature found in words: which
        finding the statement implies and whether the report lists it (or why there is
        nothing to check)."""
        return self._read(contexts, statements, explain=True)

    def _read(self, contexts, statements, *, explain: bool):
        out = np.zeros((len(statements), len(IMPLIED_FEATURES)))
        said: list[dict[str, str]] = [{} for _ in statements]
        if not self.labels_ or not len(statements):
            if explain:
                why = "no coded finding was common enough in the training reports to learn"
                said = [dict.fromkeys(IMPLIED_FEATURES, why) for _ in statements]
            return out, said
        P = self.implied(statements)
        prior = np.array([self.prior_[f] for f in self.labels_])
        for i, c in enumerate(contexts):
            has = set(findings(c))
            if not has:
                if explain:
                    why = "the report has no coded findings (a narrative): nothing to check"
                    said[i] = dict.fromkeys(IMPLIED_FEATURES, why)
                continue
            mine = np.array([f in has for f in self.labels_])
            lift = P[i] / prior
            if mine.any():
                out[i, 0] = P[i][mine].max()
                out[i, 1] = lift[mine].max()
                out[i, 2] = np.log(lift[mine]).mean()
            if (~mine).any():
                out[i, 3] = P[i][~mine].max()
            out[i, 4] = float(mine[int(P[i].argmax())])
            if explain:
                said[i] = self._reasons(P[i], lift, mine)
        return out, said

    def _reasons(self, p: np.ndarray, lift: np.ndarray, mine: np.ndarray) -> dict[str, str]:
        """One row's features in words (`p`, `lift`: per label; `mine`: the report has it)."""
        name = self.labels_
        order = [int(j) for j in np.argsort(-p)]
        out: dict[str, str] = {}
        own = [j for j in order if mine[j]]  # most probable first
        if own:
            likeliest, lifted = own[0], max(own, key=lambda j: lift[j])
            for feature, j, how in (
                ("implied_finding_p", likeliest, "makes '{}' likeliest"),
                ("implied_finding_lift", lifted, "raises '{}' most"),
                ("implied_finding_loglift", lifted, "raises '{}' most"),
            ):
                out[feature] = (
                    f"of the report's findings, the statement {how.format(name[j])} "
                    f"(P {p[j]:.2f}, {lift[j]:.1f}x its usual rate)"
                )
        absent = [j for j in order if not mine[j]]
        if absent:
            j = absent[0]
            out["implied_absent_p"] = (
                f"the statement suggests '{name[j]}' (P {p[j]:.2f}), a finding the report "
                "does not list"
            )
        top = order[0]
        out["implied_top_present"] = f"the finding it implies most, '{name[top]}', is " + (
            "one of the report's" if mine[top] else "not among the report's"
        )
        return out
