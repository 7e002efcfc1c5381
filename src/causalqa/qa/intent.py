"""A learned check of what a question asks: which kind of question it is (a median, a
count over a threshold, the confounders of A and B, the paper's "which variables directly
influence X" …), read by a small calibrated text classifier, and whether a plan answers
that kind.

The lexicon of `check.py` catches the quantity words it knows; a wording it has never
seen ("the value in the middle if you line partners up", "MB(X)?") slips past it. The
classifier reads the question with its names masked (``⟦1⟧``, as `intent_text` writes
it) and gives a probability per kind; `support` sums the probability of the kinds the plan
answers. A plan with too little support is not run: the answer says what the question
reads as and what the plan computes. Kinds are those of the open-question benchmark and
the paper's templates, plus the planner's other tools (learned from its worked examples
only, so a plan of those alone is not judged).

The shipped model is built by ``python -m causalqa.bench.qa_intent build`` (trained on
development wordings only) and stored without pickle: vocabularies, idf weights and
coefficients in one ``.npz`` with a JSON manifest.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.errors import DataFileError
from causalqa.qa.frame import (
    Frame,
    Slot,
    comparisons,
    marked_cause_effect,
    plan_of,
    read_conditions,
    read_difference,
    read_quantile,
    slotted,
)
from causalqa.qa.grounding import Grounding

Plan = dict[str, Any]
Pattern = tuple[str, str | None, str | None]
"""(tool, stat, value kind): None matches anything."""

DEFAULT_PATH = Path(__file__).with_name("intent_model.npz")


def _s(stat: str, value: str = "treatment") -> Pattern:
    return ("summarize", stat, value)


def _tool(name: str) -> Pattern:
    return (name, None, None)


_BEST_TREATMENT = [
    _tool("best_treatment"),
    ("rank_treatments", "mean", None),
    _tool("top_k_treatments"),
]
_BEST_SUBJECT = [
    _tool("best_subject"),
    ("rank_subjects", None, "treatment"),
    _tool("top_k_subjects"),
]

ANSWERS: dict[str, tuple[str, list[Pattern]]] = {
    # the open-question benchmark's kinds
    "median": ("the median of a treatment's effects", [_s("median")]),
    "minimum": ("the smallest effect on any subject", [_s("min")]),
    "maximum": ("the largest effect on any subject", [_s("max")]),
    "std": ("the standard deviation of the effects", [_s("std"), _s("var")]),
    "percentile": ("a percentile of the effects", [_s("quantile")]),
    "count_benefit": ("a count of subjects", [_tool("count_subjects")]),
    "count_threshold": ("a count of subjects", [_tool("count_subjects")]),
    "count_more_engaged": ("a count of subjects", [_tool("count_subjects")]),
    "share_benefit": ("a share of subjects", [_tool("share_subjects")]),
    "share_at_least": ("a share of subjects", [_tool("share_subjects")]),
    "list_hurt": ("a list of subjects", [_tool("list_subjects"), _tool("select_subjects")]),
    "subject_difference": (
        "one subject's difference of two effects",
        [("subject_value", None, "difference"), _tool("compare_treatments")],
    ),
    "mean_difference": (
        "the mean difference of two treatments' effects",
        [_s("mean", "difference"), _tool("compare_treatments")],
    ),
    "best_by_median": (
        "the treatment with the highest median",
        [("rank_treatments", "median", None)],
    ),
    "best_subject_difference": (
        "the subject with the largest difference of two effects",
        [("rank_subjects", None, "difference")],
    ),
    "each": ("every subject's effect", [_tool("subject_values")]),
    "best_on_average_outcome": ("the best treatment on average", _BEST_TREATMENT),
    "confounders": ("the common causes (confounders)", [_tool("common_causes")]),
    "mediators": ("the mediators", [_tool("mediators"), _tool("paths_between")]),
    "on_path": ("whether a variable lies on a causal path", [_tool("on_path")]),
    "independence": ("a d-separation (independence)", [_tool("d_separated"), _tool("d_connected")]),
    "adjustment": ("an adjustment set", [_tool("adjustment_set")]),
    "markov_blanket": ("a Markov blanket", [_tool("markov_blanket")]),
    "effect_kind": ("whether an effect is direct, indirect or both", [_tool("effect_kind")]),
    "common_effects": ("the common effects", [_tool("common_effects")]),
    "mode": ("a mode, which no operator computes", []),
    "correlation": ("a correlation, which no operator computes", []),
    "probability": ("a probability, which no operator computes", []),
    "intervention_level": ("the level a variable would reach, which no operator computes", []),
    "iqr": ("an interquartile range, which no operator computes", []),
    # the paper's templates (direction — parents or children — is judged by check.py)
    "paper:connectivity": ("whether one variable causes another", [_tool("is_cause")]),
    "paper:paths": (
        "the variables on the causal paths",
        [_tool("paths_between"), _tool("mediators")],
    ),
    "paper:parents": ("the direct causes or effects", [_tool("parents"), _tool("children")]),
    "paper:children": ("the direct causes or effects", [_tool("children"), _tool("parents")]),
    "paper:best_treatment": ("the best treatment on average", _BEST_TREATMENT),
    "paper:best_treatment_not_engaged": ("the best treatment on average", _BEST_TREATMENT),
    "paper:ate": ("the average effect", [_tool("ate"), _s("mean")]),
    "paper:best_subject": ("the subject that gains most", _BEST_SUBJECT),
    "paper:best_subject_not_engaged": ("the subject that gains most", _BEST_SUBJECT),
    "paper:ite": ("one subject's effect", [_tool("ite"), ("subject_value", None, "treatment")]),
    "paper:best_treatment_for_subject": (
        "the best treatment for one subject",
        [_tool("best_treatment"), _tool("rank_treatments"), _tool("top_k_treatments")],
    ),
}
"""Kind → (what it asks, in words; the plans that answer it). Kinds named ``tool:NAME``
(the planner's other tools, learned from its worked examples) are answered by that tool."""


def signature(plan: Plan) -> Pattern | None:
    """The last step's (tool, stat, value kind): what decides which kinds a plan answers."""
    steps = plan.get("steps") if isinstance(plan, dict) else None
    if not steps or not isinstance(steps[-1], dict):
        return None
    args = steps[-1].get("args") or {}
    value = args.get("value")
    kind = min(map(str, value), default=None) if isinstance(value, dict) else None
    stat = args.get("stat")
    return (str(steps[-1].get("tool")), stat if isinstance(stat, str) else None, kind)


def answers(kind: str, plan: Plan) -> bool:
    """Whether `plan` computes what a question of `kind` asks."""
    sig = signature(plan)
    if sig is None:
        return False
    if kind.startswith("tool:"):
        return sig[0] == kind[5:]
    patterns = ANSWERS.get(kind, ("", []))[1]
    return any(all(p is None or p == s for p, s in zip(pattern, sig)) for pattern in patterns)


def says(kind: str) -> str:
    """What a question of `kind` asks, in words."""
    if kind.startswith("tool:"):
        return f"what the {kind[5:]!r} tool computes"
    return ANSWERS.get(kind, (kind, []))[0]


_TOKEN = re.compile(r"[^\s?.,!:;()]+")
_SPACES = re.compile(r"\s\s+")
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (2, 5)


def word_terms(text: str) -> list[str]:
    """Word 1- and 2-grams of the lowercased text (scikit-learn's word analyzer with
    `_TOKEN` as its token pattern)."""
    tokens = _TOKEN.findall(text.lower())
    return tokens + [" ".join(tokens[i : i + 2]) for i in range(len(tokens) - 1)]


def char_terms(text: str) -> list[str]:
    """Character 2- to 5-grams inside word boundaries (scikit-learn's ``char_wb``)."""
    grams = []
    for w in _SPACES.sub(" ", text.lower()).split():
        w = f" {w} "
        for n in range(CHAR_NGRAMS[0], CHAR_NGRAMS[1] + 1):
            offset = 0
            grams.append(w[:n])
            while offset + n < len(w):
                offset += 1
                grams.append(w[offset : offset + n])
            if offset == 0:
                break
    return grams


def intent_text(text: str, slots: Sequence[Slot]) -> str:
    """The masked wording the classifier reads (`frame.slotted`'s text and slots): a name
    mentioned twice fills one slot number ("the effect of ⟦1⟧ … of ⟦1⟧ on that partner"
    names one treatment, not two; numbers count names, not mentions), and a name that is
    only a graph variable, not a treatment, is marked ``⟦vN⟧`` ("the highest ⟦v1⟧ growth
    under ⟦2⟧" names one treatment). A treatment that is also a graph node reads as a
    treatment: so it does in the worked examples' model, the one training model where
    treatments are nodes (marking it apart lowered the right plans' support there)."""
    first: dict[str | None, int] = {}
    token = {}
    for sl in slots:
        n = first.setdefault(sl.treatment or sl.variable or sl.subject, len(first) + 1)
        token[sl.index] = f"⟦{'v' if sl.treatment is None else ''}{n}⟧"
    return _SLOT.sub(lambda m: token.get(int(m.group(2)), m.group(0)), text)


def masked_question(question: str, grounding: Grounding) -> str:
    """`question` as the classifier reads it: `frame.slotted`, then `intent_text`."""
    return intent_text(*slotted(question, grounding))


def slot_terms(text: str) -> list[str]:
    """How many distinct treatments and variables the masked wording names: one term, so
    a wording that names no treatment is not read as a kind that needs one."""
    found = set(_SLOT.findall(text))
    treatments = sum(1 for mark, _ in found if not mark)
    return [f"slots:{treatments}t{len(found) - treatments}v"]


_SLOT = re.compile(r"⟦(v?)(\d+)⟧")
_ANALYZERS = (word_terms, char_terms, slot_terms)


class IntentModel:
    """TF-IDF over words (1-2 grams) and characters (2-5 grams) of the masked question and
    the count of the treatments and variables it names (`intent_text`), and a multinomial
    logistic regression over the kinds (scikit-learn fits it; predicting needs only numpy,
    so a question costs no scikit-learn import).

    `threshold` is the least support a plan needs; `build` in `causalqa.bench.qa_intent`
    chooses it by leave-one-wording-set-out cross-validation."""

    def __init__(self, *, C: float = 10.0, char_min_df: int = 2, threshold: float = 0.1) -> None:
        self.C = C
        self.char_min_df = char_min_df
        self.threshold = threshold

    def fit(self, texts: Sequence[str], kinds: Sequence[str]) -> IntentModel:
        from scipy.sparse import hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        vectorizers = [
            TfidfVectorizer(analyzer=word_terms, sublinear_tf=True),
            TfidfVectorizer(analyzer=char_terms, min_df=self.char_min_df, sublinear_tf=True),
            TfidfVectorizer(analyzer=slot_terms, sublinear_tf=True),
        ]
        x = hstack([v.fit_transform(list(texts)) for v in vectorizers]).tocsr()
        clf = LogisticRegression(C=self.C, max_iter=5000).fit(x, list(kinds))
        self.vocabularies_ = [dict(v.vocabulary_) for v in vectorizers]
        self.idf_ = [v.idf_.astype(np.float32) for v in vectorizers]
        self.classes_ = np.asarray(clf.classes_, dtype=str)
        self.coef_ = clf.coef_.astype(np.float32)
        self.intercept_ = clf.intercept_.astype(np.float32)
        return self

    def features(self, texts: Sequence[str]) -> np.ndarray:
        """The TF-IDF rows (sublinear tf, l2-normalised per analyzer), as scikit-learn's
        `TfidfVectorizer` computes them."""
        blocks = []
        for analyze, vocab, idf in zip(_ANALYZERS, self.vocabularies_, self.idf_):
            block = np.zeros((len(texts), len(vocab)), dtype=np.float64)
            for row, text in enumerate(texts):
                counts = Counter(t for t in analyze(text) if t in vocab)
                for term, n in counts.items():
                    block[row, vocab[term]] = (1.0 + np.log(n)) * idf[vocab[term]]
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            blocks.append(block / np.where(norms == 0, 1.0, norms))
        return np.hstack(blocks)

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        z = self.features(texts) @ self.coef_.T.astype(np.float64) + self.intercept_
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def support(self, text: str, plan: Plan) -> tuple[float, str, float] | None:
        """(probability that `plan` answers the question, the most likely kind, its
        probability); None when no benchmark kind covers the plan: a tool known only from
        the planner's few worked examples (ancestors, is_parent …) is not judged."""
        covered = np.asarray([answers(k, plan) for k in self.classes_])
        if not any(c and not k.startswith("tool:") for k, c in zip(self.classes_, covered)):
            return None
        p = self.predict_proba([text])[0]
        top = int(p.argmax())
        return float(p[covered].sum()), str(self.classes_[top]), float(p[top])

    # -- storage without pickle --------------------------------------------------------
    def save(self, path: str | Path, *, info: dict[str, Any] | None = None) -> Path:
        """Write the model (arrays only) and ``<path>.json`` (settings, sha256, `info`)."""
        path = Path(path)
        arrays: dict[str, np.ndarray] = {
            "classes": self.classes_,
            "coef": self.coef_.astype(np.float16),
            "intercept": self.intercept_,
        }
        for i, (vocab, idf) in enumerate(zip(self.vocabularies_, self.idf_)):
            arrays[f"vocab{i}"] = np.asarray(sorted(vocab, key=vocab.__getitem__), dtype=str)
            arrays[f"idf{i}"] = idf
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)
        manifest = {
            "settings": {"C": self.C, "char_min_df": self.char_min_df, "threshold": self.threshold},
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "classes": [str(c) for c in self.classes_],
            **(info or {}),
        }
        path.with_name(path.name + ".json").write_text(json.dumps(manifest, indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path = DEFAULT_PATH) -> IntentModel:
        """A saved model, checked against its manifest; `DataFileError` when it is missing,
        altered or unreadable."""
        path = Path(path)
        hint = "rebuild it: python -m causalqa.bench.qa_intent build"
        try:
            manifest = json.loads(path.with_name(path.name + ".json").read_text())
            blob = path.read_bytes()
        except (OSError, ValueError) as e:
            raise DataFileError(
                f"{path}: cannot read the question-intent model ({e})", hint=hint
            ) from None
        if not isinstance(manifest, dict) or hashlib.sha256(blob).hexdigest() != manifest.get(
            "sha256"
        ):
            raise DataFileError(
                f"{path}: the question-intent model does not match its manifest", hint=hint
            )
        model = cls(**manifest["settings"])
        with np.load(path, allow_pickle=False) as z:
            if not {f"vocab{i}" for i in range(len(_ANALYZERS))} <= set(z.files):
                raise DataFileError(
                    f"{path}: the question-intent model was built for another version", hint=hint
                )
            model.classes_ = z["classes"]
            model.coef_ = z["coef"].astype(np.float32)
            model.intercept_ = z["intercept"]
            model.vocabularies_ = [
                {str(t): j for j, t in enumerate(z[f"vocab{i}"])} for i in range(len(_ANALYZERS))
            ]
            model.idf_ = [z[f"idf{i}"] for i in range(len(_ANALYZERS))]
        if model.coef_.shape[1] != sum(len(v) for v in model.vocabularies_):
            raise DataFileError(
                f"{path}: the question-intent model was built for another version", hint=hint
            )
        return model


@lru_cache(maxsize=1)
def default_model() -> IntentModel:
    """The shipped model, loaded once per process."""
    return IntentModel.load(DEFAULT_PATH)


_ONE_TREATMENT_STATS = {"median": "median", "minimum": "min", "maximum": "max", "std": "std"}
_SIGNED = {
    "count_benefit": ("count_subjects", ">"),
    "share_benefit": ("share_subjects", ">"),
    "list_hurt": ("list_subjects", "<"),
}
_SYMMETRIC = {"confounders": "common_causes", "common_effects": "common_effects"}
_ORDERED = {"effect_kind": "effect_kind", "mediators": "mediators", "adjustment": "adjustment_set"}
_DIFFERENCE = {
    "mean_difference": ("summarize", "mean"),
    "best_subject_difference": ("rank_subjects", None),
}
_THRESHOLD = {"count_threshold": "count_subjects", "share_at_least": "share_subjects"}


def frame_for(kind: str, slots: Sequence[Slot], text: str | None = None) -> Frame | None:
    """The frame of a question of `kind` naming these slots (`frame.slotted`), for the
    kinds whose arguments cannot be misread — one treatment, one variable, or two
    variables in either order — and, given the slotted `text`, for the kinds whose order
    or number the wording states in a way the frame reader reads (cause → effect said in
    so many words, "⟦1⟧ minus ⟦2⟧", one threshold, one percentile); None for any other
    kind, set of names or wording. `frame.plan_of` writes its plan, as for a frame read
    from the wording."""
    treatments = list(dict.fromkeys(s.treatment for s in slots if s.treatment))
    variables = list(dict.fromkeys(s.variable for s in slots if s.variable))
    one_treatment = len(treatments) == 1 and len(slots) == 1
    value = {"treatment": treatments[0]} if one_treatment else None
    if kind in _ONE_TREATMENT_STATS and one_treatment:
        return Frame("summarize", stat=_ONE_TREATMENT_STATS[kind], value=value)
    if kind == "each" and one_treatment:
        return Frame("subject_values", value=value)
    if kind in _SIGNED and one_treatment:
        tool, op = _SIGNED[kind]
        return Frame(tool, conditions=[{"value": value, "op": op, "than": 0}])
    if kind == "best_by_median" and not slots:
        return Frame("rank_treatments", stat="median")
    if kind == "markov_blanket" and len(variables) == 1 and len(slots) == 1:
        return Frame("markov_blanket", variables=variables)
    if kind in _SYMMETRIC and len(variables) == 2 and len(slots) == 2:
        return Frame(_SYMMETRIC[kind], variables=variables)
    if text is None:
        return None
    slots = list(slots)
    if kind in _ORDERED and len(variables) == 2 and len(slots) == 2:
        pair = marked_cause_effect(text, slots)
        return Frame(_ORDERED[kind], variables=list(pair)) if pair else None
    if kind in _DIFFERENCE and len(treatments) == 2 and len(slots) == 2:
        difference = read_difference(text, slots)
        tool, stat = _DIFFERENCE[kind]
        return Frame(tool, stat=stat, value={"difference": difference}) if difference else None
    if kind == "percentile" and one_treatment:
        q = read_quantile(text)
        return Frame("summarize", stat="quantile", q=q, value=value) if q is not None else None
    if kind in _THRESHOLD and one_treatment:
        conditions, used = read_conditions(text, slots)
        numeric = len(conditions) == 1 and not isinstance(conditions[0]["than"], dict)
        return (
            Frame(_THRESHOLD[kind], conditions=conditions, used_numbers=used) if numeric else None
        )
    if kind == "count_more_engaged" and len(treatments) == 2 and len(slots) == 2:
        conditions, used = comparisons(text, slots)
        between = len(conditions) == 1 and isinstance(conditions[0]["than"], dict)
        return (
            Frame("count_subjects", conditions=conditions, used_numbers=used) if between else None
        )
    return None


def plan_for(
    kind: str, slots: Sequence[Slot], grounding: Grounding, text: str | None = None
) -> Plan | None:
    """The plan of `frame_for(kind, slots, text)`, with the question's filter (from
    `grounding`) as `where` on the table; None when there is no such frame, or when the
    kind names a filter ("among partners already engaged") the grounding did not read."""
    if kind == "count_more_engaged" and grounding.where is None:
        return None
    frame = frame_for(kind, slots, text)
    return plan_of(frame, grounding) if frame is not None else None


def tool_of(kind: str) -> str | None:
    """The tool a question of one of the paper's kinds (or a ``tool:NAME`` kind) calls;
    None for the open kinds, which frames and the open planner write whole plans for."""
    if kind.startswith("tool:"):
        return kind[5:]
    if kind.startswith("paper:"):
        return ANSWERS[kind][1][0][0]
    return None


def choose_tool(model: IntentModel, text: str, tools: Sequence[str]) -> tuple[str, float]:
    """The most probable of `tools` for the masked question `text` (`intent_text`), and its
    probability (summed over the kinds that call it)."""
    p = model.predict_proba([text])[0]
    by_tool = dict.fromkeys(tools, 0.0)
    for kind, pk in zip(model.classes_, p):
        tool = tool_of(str(kind))
        if tool in by_tool:
            by_tool[tool] += float(pk)
    best = max(by_tool, key=by_tool.__getitem__)
    return best, by_tool[best]
