"""Verbalise: say an executed plan's result in one sentence.

`template_sentence` is deterministic and exact. `llm_sentence` asks the LLM (continuing the
planner's conversation, so the local backend reuses its KV cache) and keeps its sentence
only if it states the result's key facts (the names and the rounded numbers); otherwise
the template sentence is used, so an answer never contradicts its result.
"""

from __future__ import annotations

import json
import re
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
