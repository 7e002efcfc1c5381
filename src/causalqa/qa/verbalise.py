"""Verbalise: say an executed plan's result in one sentence.

`template_sentence` is deterministic and exact. `llm_sentence` asks the LLM (continuing the
planner's conversation, so the local backend reuses its KV cache) and keeps its sentence
only if it states the result's key facts (the names and the rounded numbers); otherwise
the template sentence is used, so an answer never contradicts its result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from causalqa.llm import LLM, Usage


def _num(x: float) -> str:
    return f"{x:,.2f}"


def _names(xs: list[str], empty: str = "none", limit: int = 25) -> str:
    """'a', 'b' and 'c'; past `limit` names the first ones and how many more (the whole
    list stays in the answer's result)."""
    if not xs:
        return empty
    if len(xs) == 1:
        return f"'{xs[0]}'"
    if len(xs) > limit:
        return ", ".join(f"'{x}'" for x in xs[: limit - 5]) + f" and {len(xs) - limit + 5:,} more"
    return ", ".join(f"'{x}'" for x in xs[:-1]) + f" and '{xs[-1]}'"


def _where_text(args: dict[str, Any]) -> str:
    w = args.get("where")
    if not w:
        return ""
    return f" among subjects with {w['filter']} = {'yes' if w['value'] else 'no'}"


def template_sentence(step: dict[str, Any], result: Any) -> str:
    """The answer as a plain sentence, from the last call and its result."""
    tool, a = step["tool"], step["args"]
    if tool == "is_cause":
        if result:
            return f"Yes, a change in '{a['cause']}' leads to a change in '{a['effect']}'."
        return (
            f"No, a change in '{a['cause']}' does not lead to a change in '{a['effect']}': "
            "there is no directed path between them."
        )
    if tool == "is_parent":
        return (
            f"Yes, '{a['parent']}' is a direct cause (parent) of '{a['child']}'."
            if result
            else f"No, '{a['parent']}' is not a direct cause of '{a['child']}'."
        )
    if tool == "paths_between":
        if not result["count"]:
            return f"'{a['source']}' does not influence '{a['target']}': there is no directed path."
        via = result["variables"]
        head = f"'{a['source']}' influences '{a['target']}' "
        if not via:
            return head + "directly, through no intermediate variables."
        n = result["count"]
        return head + f"through {_names(via)} ({n} path{'s' if n != 1 else ''})."
    if tool in ("parents", "children", "ancestors", "descendants"):
        what = {
            "parents": "directly influence",
            "children": "are directly affected by",
            "ancestors": "influence, directly or indirectly,",
            "descendants": "are affected, directly or indirectly, by",
        }[tool]
        return f"The variables that {what} '{a['variable']}': {_names(result)}."
    if tool == "variables":
        return f"The graph has {len(result)} variables: {_names(result)}."
    if tool in ("treatments", "subjects", "filters"):
        return f"The {tool}: {_names([str(x) for x in result])}."
    if tool == "ate":
        return f"The average effect of '{a['treatment']}'{_where_text(a)} is {_num(result)}."
    if tool == "ite":
        return f"The effect of '{a['treatment']}' on subject {a['subject']} is {_num(result)}."
    if tool == "best_treatment":
        scope = f" for subject {a['subject']}" if a.get("subject") else " on average"
        which = "treatment with the lowest effect" if a.get("lowest") else "best treatment"
        return (
            f"The {which}{scope}{_where_text(a)} is '{result['arg']}' "
            f"with an effect of {_num(result['value'])}."
        )
    if tool == "best_subject":
        most = "least" if a.get("lowest") else "most"
        return (
            f"Subject {result['arg']} benefits {most} from '{a['treatment']}'{_where_text(a)}, "
            f"with an effect of {_num(result['value'])}."
        )
    if tool in ("top_k_subjects", "top_k_treatments"):
        items = ", ".join(f"{r['arg']} ({_num(r['value'])})" for r in result)
        return f"The {'bottom' if a.get('lowest') else 'top'} {len(result)}: {items}."
    if tool == "compare_treatments":
        if result["arg"] is None:
            return f"'{a['a']}' and '{a['b']}' have the same effect ({_num(result['value'])})."
        other = a["b"] if result["arg"] == a["a"] else a["a"]
        return (
            f"'{result['arg']}' has the higher effect ({_num(result['value'])}), "
            f"{_num(abs(result['difference']))} more than '{other}'."
        )
    if tool in _OPEN_SENTENCES:
        return _OPEN_SENTENCES[tool](a, result)
    return f"The result is {json.dumps(result, ensure_ascii=False)}."


_PATH_WORDS = re.compile(r"\b(?:paths?|routes?|pathways?|chains?)\b", re.IGNORECASE)


def count_answer(step: dict[str, Any], result: Any, question: str) -> tuple[int, str] | None:
    """A "how many" question's answer: the number of things the last call listed, and a
    sentence; None when its result is not a list of things (nothing to count)."""
    tool, a = step["tool"], step["args"]
    if tool == "paths_between" and isinstance(result, dict):
        if _PATH_WORDS.search(question):
            n = int(result["count"])
            return n, (
                f"There {'is' if n == 1 else 'are'} {n} directed path{'' if n == 1 else 's'} "
                f"from '{a['source']}' to '{a['target']}'."
            )
        via = list(result["variables"])
        return len(via), (
            f"{len(via)} variable{'' if len(via) == 1 else 's'} lie on the directed paths from "
            f"'{a['source']}' to '{a['target']}': {_names(via)}."
        )
    if not isinstance(result, list):
        return None
    n = len(result)
    what = {
        "parents": f"directly influence '{a.get('variable')}'",
        "children": f"are directly affected by '{a.get('variable')}'",
        "ancestors": f"influence '{a.get('variable')}', directly or indirectly",
        "descendants": f"are affected by '{a.get('variable')}', directly or indirectly",
    }
    if tool in what:
        return n, f"{n} variable{'' if n == 1 else 's'} {what[tool]}: {_names(result)}."
    if tool in ("variables", "treatments", "subjects", "filters"):
        where = "graph" if tool == "variables" else "effects table"
        return n, f"The {where} has {n:,} {tool}: {_names([str(x) for x in result])}."
    return None


def key_facts(result: Any) -> list[str]:
    """Strings an answer must contain to state `result` (names, numbers to 2 decimals)."""
    if isinstance(result, bool):
        return []
    if isinstance(result, (int, float)):
        return [f"{result:.2f}".rstrip("0").rstrip(".")]
    if isinstance(result, list):
        return [str(x["arg"]) if isinstance(x, dict) else str(x) for x in result]
    if isinstance(result, dict) and "arg" in result:
        facts = [] if result["arg"] is None else [str(result["arg"])]
        return facts
    if isinstance(result, dict) and "variables" in result:
        return list(result["variables"])
    return []


def states(sentence: str, result: Any) -> bool:
    """Whether `sentence` states `result`: every key fact appears, and a yes/no answer
    starts with the right word."""
    text = sentence.replace(",", "").casefold()
    for fact in key_facts(result):
        f = fact.replace(",", "").casefold()
        if re.fullmatch(r"-?\d+(\.\d+)?", f):
            numbers = {n.rstrip("0").rstrip(".") for n in re.findall(r"-?\d+\.\d+|-?\d+", text)}
            if f not in numbers and f"{float(f):.2f}".rstrip("0").rstrip(".") not in numbers:
                return False
        elif f not in text:
            return False
    if isinstance(result, bool):
        first = re.findall(r"[a-z]+", text)[:1]
        return first == (["yes"] if result else ["no"])
    return True


def llm_sentence(
    llm: LLM, messages: list[dict[str, str]], plan: dict, result: Any
) -> tuple[str | None, Usage]:
    """Ask the LLM to answer from the result; None when its sentence does not state it."""
    msgs = [
        *messages,
        {
            "role": "assistant",
            "content": json.dumps(plan, ensure_ascii=False, separators=(",", ":")),
        },
        {
            "role": "user",
            "content": "Result: "
            + json.dumps(result, ensure_ascii=False, default=str)
            + "\nAnswer the question in one sentence using this result. Start yes/no questions "
            "with Yes or No. Write numbers with 2 decimals.",
        },
    ]
    r = llm.complete(msgs, max_tokens=80)
    sentence = r.text.strip().split("\n")[0]
    return (sentence if states(sentence, result) else None), r.usage


# -- the open-question tools --------------------------------------------------------------

_STAT_WORDS = {
    "mean": "average", "median": "median", "min": "smallest value", "max": "largest value",
    "std": "standard deviation", "var": "variance", "sum": "sum",
}  # fmt: skip
_OP_WORDS = {">": "above", ">=": "at least", "<": "below", "<=": "at most", "==": "equal to",
             "!=": "other than"}  # fmt: skip


def value_text(value: dict[str, Any]) -> str:
    """A value in words: "the effect of 'Discount'", "the effect of 'A' minus that of 'B'"."""
    if "difference" in value:
        a, b = value["difference"]
        return f"the effect of '{a}' minus that of '{b}'"
    return f"the effect of '{value['treatment']}'"


def condition_text(c: dict[str, Any]) -> str:
    """A condition in words: "the effect of 'Discount' above 10"."""
    than = c["than"]
    other = value_text(than) if isinstance(than, dict) else f"{float(than):g}"
    return f"{value_text(c['value'])} {_OP_WORDS.get(c['op'], c['op'])} {other}"


def _stat_text(stat: str, q: float | None = None) -> str:
    if stat == "quantile" and q is not None:
        return f"{100 * q:g}th percentile"
    return _STAT_WORDS.get(stat, stat)


def scope_text(args: dict[str, Any], count: int | None = None, noun: str = "subjects") -> str:
    """Which subjects a computation ran over: "over 1,000 partners with Already Engaged =
    yes and the effect of 'Discount' above 0"."""
    parts = []
    w = args.get("where")
    if w:
        parts.append(f"{w['filter']} = {'yes' if w['value'] else 'no'}")
    parts += [condition_text(c) for c in args.get("conditions") or []]
    head = f"over {count:,} {noun}" if count is not None else f"over the {noun}"
    return head + (" with " + " and ".join(parts) if parts else "")


def _summarize(a: dict[str, Any], result: float) -> str:
    stat = _stat_text(a["stat"], a.get("q"))
    return f"The {stat} of {value_text(a['value'])} {scope_text(a)} is {_num(result)}."


def _conds(a: dict[str, Any]) -> str:
    return " and ".join(condition_text(c) for c in a.get("conditions") or []) or "no condition"


def _count(a: dict[str, Any], result: int) -> str:
    verb = "has" if result == 1 else "have"
    return f"{result:,} subject{'' if result == 1 else 's'}{_where_text(a)} {verb} {_conds(a)}."


def _share(a: dict[str, Any], result: float) -> str:
    return f"{100 * result:.2f}% of the subjects{_where_text(a)} have {_conds(a)}."


def _list(a: dict[str, Any], result: list[str]) -> str:
    return f"The subjects{_where_text(a)} with {_conds(a)} ({len(result):,}): {_names(result)}."


def _values(a: dict[str, Any], result: list[dict[str, Any]]) -> str:
    items = ", ".join(f"{r['arg']}: {_num(r['value'])}" for r in result[:25])
    more = f" and {len(result) - 25:,} more" if len(result) > 25 else ""
    head = value_text(a["value"]).capitalize()
    return f"{head}, for each of {len(result):,} subjects: {items}{more}."


def _one_value(a: dict[str, Any], result: float) -> str:
    return f"For subject {a['subject']}, {value_text(a['value'])} is {_num(result)}."


def _rank(a: dict[str, Any], result: list[dict[str, Any]], what: str) -> str:
    end = "lowest" if a.get("lowest") else "highest"
    items = ", ".join(f"{r['arg']} ({_num(r['value'])})" for r in result)
    return f"The {what} with the {end} {{by}} {scope_text(a)}: {items}."


def _rank_subjects(a: dict[str, Any], result: list[dict[str, Any]]) -> str:
    return _rank(a, result, "subject" if len(result) == 1 else "subjects").replace(
        "{by}", value_text(a["value"]).removeprefix("the ")
    )


def _rank_treatments(a: dict[str, Any], result: list[dict[str, Any]]) -> str:
    by = f"{_stat_text(a['stat'])} of the effect"
    return _rank(a, result, "treatment" if len(result) == 1 else "treatments").replace("{by}", by)


def _yes_no(yes: str, no: str) -> Callable[[dict[str, Any], bool], str]:
    return lambda a, r: (yes if r else no).format(**a)


def _given(a: dict[str, Any]) -> str:
    g = a.get("given") or []
    return f" given {_names(g)}" if g else " (conditioning on nothing)"


_OPEN_SENTENCES: dict[str, Callable[[dict[str, Any], Any], str]] = {
    "summarize": _summarize,
    "count_subjects": _count,
    "share_subjects": _share,
    "list_subjects": _list,
    "subject_values": _values,
    "subject_value": _one_value,
    "rank_subjects": _rank_subjects,
    "rank_treatments": _rank_treatments,
    "mediators": lambda a, r: (
        f"The variables on the directed paths from '{a['source']}' to '{a['target']}': {_names(r)}."
    ),
    "on_path": _yes_no(
        "Yes, '{variable}' lies on a directed path from '{source}' to '{target}'.",
        "No, '{variable}' does not lie on any directed path from '{source}' to '{target}'.",
    ),
    "common_causes": lambda a, r: (
        f"The common causes (confounders) of '{a['a']}' and '{a['b']}': {_names(r)}."
    ),
    "common_effects": lambda a, r: (
        f"The variables both '{a['a']}' and '{a['b']}' lead to: {_names(r)}."
    ),
    "markov_blanket": lambda a, r: f"The Markov blanket of '{a['variable']}': {_names(r)}.",
    "d_separated": lambda a, r: (
        f"{'Yes' if r else 'No'}, the graph {'makes' if r else 'does not make'} '{a['a']}' and "
        f"'{a['b']}' independent{_given(a)} (they are {'' if r else 'not '}d-separated)."
    ),
    "d_connected": lambda a, r: (
        f"{'Yes' if r else 'No'}, '{a['a']}' and '{a['b']}' {'can' if r else 'cannot'} depend on "
        f"each other{_given(a)} (they are {'not ' if r else ''}d-separated)."
    ),
    "adjustment_set": lambda a, r: (
        f"To estimate the effect of '{a['treatment']}' on '{a['outcome']}', adjust for "
        f"{_names(r, empty='nothing (no back-door path needs blocking)')} (a minimal set that "
        "satisfies the back-door criterion)."
    ),
    "effect_kind": lambda a, r: f"'{a['cause']}' {_KIND_WORDS[r]} '{a['effect']}'.",
}
"""Exact sentences for the open-question tools, keyed by tool name."""

_KIND_WORDS = {
    "direct": "affects, only directly (an edge and no longer path),",
    "indirect": "affects, only indirectly (through other variables),",
    "both": "affects, both directly and through other variables,",
    "none": "does not affect (there is no directed path to)",
}


def computation(plan: dict[str, Any], model: Any) -> str:
    """What a plan computed, in words derived from the plan: "the median of the effect of
    'Tech Support' over 1,000 partners"."""
    step = plan["steps"][-1]
    tool, a = step["tool"], step["args"]
    noun = (getattr(model, "subject_column", None) or "subject").lower()
    noun = f"{noun[:-3].strip() if noun.endswith(' id') else noun}s"
    has_table = getattr(model, "effects", None) is not None
    n = _count_over(model, a) if has_table and tool in _OVER_SUBJECTS else None
    if tool == "summarize":
        what = f"the {_stat_text(a['stat'], a.get('q'))} of {value_text(a['value'])}"
        return f"{what} {scope_text(a, n, noun)}"
    if tool in ("count_subjects", "share_subjects", "list_subjects"):
        kind = {"count_subjects": "the number", "share_subjects": "the share",
                "list_subjects": "the list"}[tool]  # fmt: skip
        base = _count_over(model, {"where": a.get("where")})
        return f"{kind} of the {base:,} {noun}{_where_text(a)} that have {_conds(a)}"
    if tool == "ate":
        return f"the average of the effect of '{a['treatment']}' {scope_text(a, n, noun)}"
    if tool in ("rank_treatments", "best_treatment", "top_k_treatments") and not a.get("subject"):
        stat = _stat_text(a.get("stat", "mean"))
        return f"each treatment's {stat} of the effect {scope_text(a, n, noun)}, ranked"
    if tool in ("rank_subjects", "best_subject", "top_k_subjects"):
        value = a.get("value") or {"treatment": a.get("treatment")}
        return f"{value_text(value)} {scope_text(a, n, noun)}, ranked"
    if a.get("subject") is not None and tool in ("best_treatment", "top_k_treatments", "ite"):
        if tool == "ite":
            return f"the effect of '{a['treatment']}' on {noun[:-1]} {a['subject']}"
        return f"each treatment's effect on {noun[:-1]} {a['subject']}, ranked"
    if tool == "subject_value":
        return f"{value_text(a['value'])} on {noun[:-1]} {a['subject']}"
    if tool == "subject_values":
        return f"{value_text(a['value'])} for each of {_count_over(model, a):,} {noun}"
    if tool == "compare_treatments":
        if a.get("subject") is not None:
            return f"the effects of '{a['a']}' and '{a['b']}' on {noun[:-1]} {a['subject']}"
        return f"the averages of the effects of '{a['a']}' and '{a['b']}'{_where_text(a)}"
    words = _GRAPH_WORDS.get(tool)
    if words is not None:
        names = {k: (", ".join(f"'{x}'" for x in v) if isinstance(v, list) else f"'{v}'")
                 for k, v in a.items() if k != "max_paths"}  # fmt: skip
        given = names.get("given") or "nothing"
        return words.format_map({**names, "given": given})
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in a.items())
    return f"{tool}({args})"


_GRAPH_WORDS = {
    "parents": "the direct causes of {variable} in the graph",
    "children": "the variables {variable} causes directly in the graph",
    "ancestors": "every variable with a directed path to {variable}",
    "descendants": "every variable {variable} has a directed path to",
    "is_parent": "whether the graph has an edge {parent} → {child}",
    "is_cause": "whether the graph has a directed path from {cause} to {effect}",
    "paths_between": "the directed paths from {source} to {target}",
    "mediators": "the variables on directed paths from {source} to {target}",
    "on_path": "whether {variable} lies on a directed path from {source} to {target}",
    "common_causes": (
        "the common causes of {a} and {b} (ancestors of both by paths that avoid the other)"
    ),
    "common_effects": "the common effects of {a} and {b} (descendants of both)",
    "markov_blanket": (
        "the Markov blanket of {variable} (parents, children and the children's other parents)"
    ),
    "d_separated": "whether {a} and {b} are d-separated given {given}",
    "d_connected": "whether {a} and {b} are d-connected given {given}",
    "adjustment_set": (
        "a minimal back-door adjustment set for the effect of {treatment} on {outcome}"
    ),
    "effect_kind": "whether {cause} affects {effect} directly, through other variables, or both",
}


_OVER_SUBJECTS = {
    "summarize", "ate", "rank_treatments", "best_treatment", "top_k_treatments",
    "rank_subjects", "best_subject", "top_k_subjects",
}  # fmt: skip


def _count_over(model: Any, args: dict[str, Any]) -> int:
    from causalqa.qa.tools import select_subjects

    return len(select_subjects(model, args.get("where"), args.get("conditions"))[1])
