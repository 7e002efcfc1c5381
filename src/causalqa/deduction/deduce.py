"""Causal deduction: is a statement a probable cause of the accident in a report?

`verify` (the default of ``causalqa deduce``) asks the trained evidence verifier
(`causalqa.deduction.verifier`): a calibrated probability, the passages and chains that
support the statement, and the features that moved the verdict. `verify_batch` does many
at once. `deduce` is the paper's prompt-only way (§4.3): it renders one of the prompt
formats V1–V9 with whatever relations it shows — chains retrieved from a causal KG,
extracted from the context (Prompt 3), inferred from the statement (Prompt 4) — and
reads the LLM's verdict:

- ``method="text"``: generate a reply; False if the word "False" appears anywhere in it
  (the paper's rule);
- ``method="logprobs"``: the log-probabilities of "True" and "False" as the reply's
  start; the verdict is the likelier one and `probability` is P(True) renormalised over
  the two (one prompt evaluation, no generation);
- ``method="both"``: the paper's verdict, plus the probability.

>>> from causalqa.llm.testing import ScriptedLLM
>>> llm = ScriptedLLM(label_scores={"True": -0.2, "False": -1.8})
>>> d = deduce("The pilot did not remove frost from the wings before takeoff, "
...            "and the airplane stalled.", "Frost on the wings.", llm)
>>> d.verdict, round(d.probability, 2), d.fmt
(True, 0.83, 'V1')
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from causalqa.deduction.chains import Chain
from causalqa.deduction.prompts import get_format, paper_verdict, render
from causalqa.errors import ContextError, DatasetError, DeductionError

Method = Literal["text", "logprobs", "both"]
METHODS = ("verifier", "logprobs", "text", "both")
LABELS = ("True", "False")


class Deduction(BaseModel):
    """The answer to one statement about one context."""

    statement: str
    verdict: bool
    label: Literal["True", "False"]
    probability: float | None = None
    """P(True) from the label log-probabilities, renormalised over True/False."""
    method: str
    fmt: str
    retriever: str = "none"
    reply: str | None = None
    """The generated reply (methods text and both)."""
    chains: list[dict[str, Any]] = Field(default_factory=list)
    """The retrieved chains shown in the prompt."""
    extracted: list[str] = Field(default_factory=list)
    inferred: list[str] = Field(default_factory=list)
    logprobs: dict[str, float] | None = None
    usage: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    model: str = ""
    threshold: float | None = None
    """The verifier's decision threshold on `probability` (method verifier)."""
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    """The report's passages that support the statement best (text, cosine)."""
    contributions: list[dict[str, Any]] = Field(default_factory=list)
    """The features that moved the verifier's verdict most (value, contribution to the
    log-odds, what the feature measures)."""


# -- input checks --------------------------------------------------------------------------
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
# English prose, even NTSB's coded findings, is ≥ 7% these words (measured over the 429
# reports of the NTSB data set); random letters or base64 are ≤ 2%.
_COMMON = frozenset(
    "the a an of and to in on at by for with from was were is are be been had has have "
    "his her their its it this that which not no or but as after before during when "
    "while he she they".split()
)
_COMMON_MIN_SHARE = 0.03
_COMMON_MIN_WORDS = 20
_LONG_TOKEN = 40


def check_text(text: str, *, what: str = "context", min_words: int = 8) -> str:
    """`text` stripped, or `ContextError` if it is empty, binary, too short to reason
    over, or garbled: mostly non-letters, mostly "words" without vowels, mostly long
    runs without a space (encoded data), or — from 20 words on — almost none of the
    commonest English words ("the", "of", "was" …: random letters)."""
    if text is None or not str(text).strip():
        raise ContextError(
            f"the {what} is empty", hint=f"give the {what} as text or as a path to a text file"
        )
    t = str(text).strip()
    if "\x00" in t or sum(not (c.isprintable() or c.isspace()) for c in t) > 0.02 * len(t):
        raise ContextError(
            f"the {what} looks like binary data, not text",
            hint="give a plain-text (UTF-8) report",
        )
    words = _WORD.findall(t)
    if len(words) < min_words:
        raise ContextError(
            f"the {what} is too short to reason over ({len(words)} words; at least "
            f"{min_words} needed)",
            hint="give the accident report's narrative or findings"
            if what == "context"
            else "state a candidate cause in a full phrase",
        )
    visible = [c for c in t if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    no_vowel = sum(1 for w in words if len(w) > 3 and not _VOWEL.search(w))
    if letters < 0.5 * len(visible) or no_vowel > 0.4 * len(words):
        raise ContextError(
            f"the {what} looks garbled ({letters}/{len(visible)} characters are letters, "
            f"{no_vowel}/{len(words)} words have no vowel)",
            hint="check the file's encoding, or that it is the report and not e.g. a PDF",
        )
    unbroken = sum(len(w) for w in t.split() if len(w) > _LONG_TOKEN)
    if unbroken > 0.5 * len(visible):
        raise ContextError(
            f"the {what} looks garbled ({unbroken}/{len(visible)} characters are in runs "
            f"of more than {_LONG_TOKEN} without a space)",
            hint="it reads like encoded data (e.g. base64), not a report: give the plain text",
        )
    common = sum(w.lower() in _COMMON for w in words)
    if len(words) >= _COMMON_MIN_WORDS and common < _COMMON_MIN_SHARE * len(words):
        raise ContextError(
            f"the {what} does not read as English text ({common}/{len(words)} words are "
            "common ones such as 'the', 'of', 'was'; reports have 7% or more)",
            hint="check that it is the report's text and not random or encoded characters",
        )
    return t


def check_pair(context: str, statement: str) -> tuple[str, str]:
    """Both texts checked (`check_text`), and the statement no longer than the report:
    a longer one is almost always the two swapped."""
    context = check_text(context, what="context")
    statement = check_text(statement, what="statement", min_words=1)
    n_ctx, n_stmt = len(_WORD.findall(context)), len(_WORD.findall(statement))
    if n_stmt > n_ctx:
        raise ContextError(
            f"the statement ({n_stmt} words) is longer than the report ({n_ctx} words)",
            hint="give the report as --context and one candidate cause as --statement",
        )
    return context, statement


def read_context(value: str | Path) -> str:
    """A context given as a path to a text file or as the text itself (FILE|TEXT)."""
    if isinstance(value, Path):
        path: Path | None = value
    else:
        s = str(value).strip()
        if not s:
            return str(value)
        looks_like_path = "\n" not in s and len(s) < 4096 and not re.search(r"\s", s)
        path = Path(s).expanduser() if looks_like_path else None
        if path is not None and not path.exists():
            if re.search(r"[/\\]|\.(?:txt|md|json|jsonl|csv)$", s, re.IGNORECASE):
                raise ContextError(
                    f"no such context file: {s}",
                    hint="give an existing file, or the context text itself",
                )
            path = None
    if path is None:
        return str(value)
    if path.is_dir():
        raise ContextError(f"{path} is a directory", hint="give a text file or the text")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ContextError(
            f"{path} is not UTF-8 text (byte {e.start})",
            hint="convert the report to UTF-8 plain text first",
        ) from e


# -- the task ------------------------------------------------------------------------------
def deduce(
    context: str,
    statement: str,
    llm,
    retriever=None,
    fmt: str | None = None,
    *,
    method: Method = "logprobs",
    k: int = 3,
    kg=None,
    extracted: list[Chain] | None = None,
    inferred: list[Chain] | None = None,
    max_tokens: int = 64,
    seed: int = 0,
    threshold: float = 0.5,
) -> Deduction:
    """Judge whether `statement` is a probable cause of the accident in `context` by the
    paper's prompt alone.

    `retriever` (fitted, e.g. `SemanticRetriever().fit(kg)`) supplies the chains of the
    "retrieved" formats V6–V9; `fmt` defaults to V6 (the paper's best) with a retriever
    and V1 without. Formats that show extracted or inferred chains take them from
    `extracted`/`inferred`, else from `kg` (mined earlier for this context — possibly
    no chains), else mine them now with Prompts 3/4 (two extra LLM calls). With
    ``method="logprobs"`` the verdict is P(True) ≥ `threshold`.

    Raises `ContextError` for an empty or garbled context or statement, and
    `DeductionError` when the format needs a retriever and none is given.
    """
    context, statement = check_pair(context, statement)
    if method not in ("text", "logprobs", "both"):
        raise DeductionError(f"unknown method {method!r}", hint="use text, logprobs or both")
    f = get_format(fmt or ("V6" if retriever is not None else "V1"))
    if f.retrieved and retriever is None:
        raise DeductionError(
            f"format {f.name} shows retrieved chains but no retriever was given",
            hint="pass --retriever semantic with --kg DIR, or use a format V1–V5",
        )
    start = time.perf_counter()
    usage = {"prompt_tokens": 0, "completion_tokens": 0}

    def count(prompt_tokens: int, completion_tokens: int = 0) -> None:
        usage["prompt_tokens"] += prompt_tokens
        usage["completion_tokens"] += completion_tokens

    retrieved: list[Chain] = []
    if f.retrieved:
        retrieved = list(retriever.retrieve(context, statement, k))
    # A KG that mined this context already answers, even with no chains: mining again
    # would repeat the same deterministic call.
    if f.extracted and extracted is None:
        extracted = kg.chains_of(context=context, kind="extracted") if kg is not None else []
        if not extracted and not (kg is not None and kg.context_mined(context, "extract")):
            from causalqa.deduction.mining import extract_chains

            res = extract_chains(context, llm, seed=seed)
            extracted = res.chains
            count(res.record.prompt_tokens, res.record.completion_tokens)
    if f.inferred and inferred is None:
        inferred = (
            kg.chains_of(context=context, kind="inferred", statement=statement)
            if kg is not None
            else []
        )
        if not inferred and not (kg is not None and kg.context_mined(context, "infer", statement)):
            from causalqa.deduction.mining import infer_chains

            res = infer_chains(context, statement, llm, seed=seed)
            inferred = res.chains
            count(res.record.prompt_tokens, res.record.completion_tokens)
    from causalqa.deduction.chains import clean_chains

    ext = clean_chains(extracted or []) if f.extracted else []
    inf = clean_chains(inferred or []) if f.inferred else []
    messages = render(f, context, statement, retrieved=retrieved, extracted=ext, inferred=inf)

    reply = None
    probability = None
    logprobs = None
    verdict: bool
    if method in ("text", "both"):
        response = llm.complete(messages, max_tokens=max_tokens, temperature=0.0, seed=seed)
        count(response.usage.prompt_tokens, response.usage.completion_tokens)
        reply = response.text
        verdict = paper_verdict(reply)
    if method in ("logprobs", "both"):
        scores = llm.label_logprobs(messages, list(LABELS))
        count(scores.usage.prompt_tokens)
        logprobs = scores.logprobs
        probability = float(scores.normalized["True"])
        if method == "logprobs":
            verdict = probability >= threshold
    return Deduction(
        statement=statement,
        verdict=verdict,
        label="True" if verdict else "False",
        probability=probability,
        method=method,
        fmt=f.name,
        retriever=getattr(retriever, "name", type(retriever).__name__) if retriever else "none",
        reply=reply,
        chains=[c.to_dict() for c in retrieved],
        extracted=[c.text for c in ext],
        inferred=[c.text for c in inf],
        logprobs=logprobs,
        usage=usage,
        seconds=round(time.perf_counter() - start, 3),
        model=f"{llm.backend}:{llm.model}",
    )


# -- the evidence verifier -----------------------------------------------------------------
def llm_log_odds(context: str, statement: str, llm) -> float:
    """The LLM's log P("True") − log P("False") under the paper's Prompt 5 (V1): the
    verifier's optional LLM feature."""
    messages = render(get_format("V1"), context, statement)
    lp = llm.label_logprobs(messages, list(LABELS)).logprobs
    return float(lp["True"] - lp["False"])


def verify_batch(
    items: list[tuple[str, str]],
    verifier,
    *,
    llm=None,
    kg=None,
    top: int = 3,
) -> list[Deduction]:
    """The verifier's verdict on each (context, statement), in order. Bad items raise
    `ContextError` naming the item. LLM features (if the verifier has any) need `llm`."""
    start = time.perf_counter()
    checked = []
    for i, (c, s) in enumerate(items):
        try:
            checked.append(check_pair(c, s))
        except ContextError as e:
            if len(items) == 1:
                raise
            raise ContextError(f"item {i + 1}: {e.message}", hint=e.hint) from None
    llm_cols: dict[str, list[float]] = {}
    if verifier.llm_features:
        if llm is None:
            raise DeductionError(
                "this verifier needs the LLM's log-odds, and --no-llm was given",
                hint="drop --no-llm, or use a verifier trained without LLM features",
            )
        llm_cols["llm_v1"] = [llm_log_odds(c, s, llm) for c, s in checked]
    X, rows = verifier.evidence(checked, kg=kg, llm=llm_cols)
    probs = verifier.proba(X, [c for c, _ in checked])
    cuts = verifier.threshold_for([c for c, _ in checked])
    seconds = (time.perf_counter() - start) / max(len(items), 1)
    out = []
    for (c, s), x, row, p, cut in zip(checked, X, rows, probs, cuts):
        verdict = bool(p >= cut)
        out.append(
            Deduction(
                statement=s,
                verdict=verdict,
                label="True" if verdict else "False",
                probability=round(float(p), 4),
                method="verifier",
                fmt="-",
                threshold=round(float(cut), 4),
                evidence=[{"passage": t, "cosine": round(v, 3)} for t, v in row.ranked[:top]],
                contributions=_with_reasons(verifier.explain(x, top=5, context=c), row.reasons),
                seconds=round(seconds, 3),
                model=f"verifier ({len(verifier.feature_names_)} features"
                + (f", LLM {llm.backend}:{llm.model}" if verifier.llm_features else "")
                + ")",
            )
        )
    return out


def _with_reasons(contributions: list[dict], reasons: dict[str, str]) -> list[dict]:
    """A circumstance feature's contribution says what it found in this report
    ("the statement says 'during takeoff'; the report's phase of flight is Approach")."""
    return [
        {**c, "description": reasons[c["feature"]]} if c.get("feature") in reasons else c
        for c in contributions
    ]


def verify(context: str, statement: str, verifier, *, llm=None, kg=None, top: int = 3):
    """The verifier's verdict on one statement about one report (see `verify_batch`)."""
    return verify_batch([(context, statement)], verifier, llm=llm, kg=kg, top=top)[0]


# -- many statements, as every surface asks them ---------------------------------------------
def deduce_items(
    items: list[tuple[str, str]],
    *,
    method: str = "verifier",
    verifier=None,
    llm=None,
    kg=None,
    retriever=None,
    fmt: str | None = None,
    k: int = 3,
) -> list[Deduction]:
    """The verdict on each (context, statement) of `items`, in order, by `method` (one of
    `METHODS`): what ``causalqa deduce`` and the API's and MCP's ``deduce`` run.

    ``verifier`` (default): `verify_batch` with `verifier` (default `load_verifier()`), the
    causal KG `kg` for its chain features and `llm` for its LLM feature when it has one
    (None: the verifier refuses, since its verdict would lack a feature it was trained
    with). ``logprobs``, ``text``, ``both``: the paper's prompt (`deduce`) in format `fmt`,
    with the chains the fitted `retriever` finds among the `k` nearest nodes; these need
    `llm`. A retriever or a format given to the verifier is refused, not ignored.
    """
    if method not in METHODS:
        raise DeductionError(f"unknown method {method!r}", hint=f"use {', '.join(METHODS)}")
    if method == "verifier":
        if retriever is not None or fmt is not None:
            raise DeductionError(
                "a retriever and a prompt format choose the prompt of the paper's "
                "prompt-only methods; the verifier reads the KG's chains itself",
                hint="use method logprobs (or text, both) to prompt with retrieved chains",
            )
        if verifier is None:
            from causalqa.deduction.verifier import load_verifier

            verifier = load_verifier()
        return verify_batch(items, verifier, llm=llm if verifier.llm_features else None, kg=kg)
    return [deduce(c, s, llm, retriever, fmt, method=method, k=k, kg=kg) for c, s in items]


def read_batch(path: Path) -> list[tuple[str, str]]:
    """The (context, statement) items of a JSON Lines file (fields ``context`` and
    ``statement``), checked in full before any model loads: a bad line is a `DatasetError`
    naming the file and line."""
    from causalqa.jsonl import read_jsonl

    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"no such batch file: {path}", path=str(path))
    items = []
    for n, obj in read_jsonl(path, error=DatasetError):
        if (
            not isinstance(obj, dict)
            or not isinstance(obj.get("context"), str)
            or not isinstance(obj.get("statement"), str)
        ):
            raise DatasetError(
                f"{path}:{n}: expected a JSON object with string fields context and statement",
                path=str(path),
                line=n,
            )
        try:
            items.append(check_pair(obj["context"], obj["statement"]))
        except ContextError as e:
            raise DatasetError(
                f"{path}:{n}: {e.message}", hint=e.hint, path=str(path), line=n
            ) from None
    if not items:
        raise DatasetError(f"{path} holds no items", path=str(path))
    return items


def load_event_graph(path: Path):
    """The mined causal KG at `path`, which must have nodes (`DatasetError` otherwise: an
    empty KG would silently give every statement the no-chain verdict)."""
    from causalqa.deduction.event_graph import CausalKG

    kg = CausalKG.load(path)
    if not kg.nodes:
        raise DatasetError(f"the causal KG at {path} is empty", hint="mine some reports first")
    return kg
