"""Context augmentation, exactly as the paper's baseline (§3.1, §3.3, Listings 1–3).

Classify the question (graph or treatment effect), then put the whole graph (GraphML) or
the whole effects table (CSV) in the prompt and ask for step-by-step JSON. No decoding
constraint; the JSON is read from the first opening bracket to the last closing one, and
a reply that does not parse counts as unparseable — as the paper measured it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from string import Template
from typing import Any

from causalqa.causal_model import CausalModel
from causalqa.errors import LLMError, LLMUnavailableError
from causalqa.llm import LLM, Usage

CLASSIFY = Template("""You are a personal AI assistant that can answer causal questions about some data. You can either answer questions about the causal graph, average treatment effects (ATEs) or individual treatment effects (ITEs). Questions about the graph deal with the relationship between different variables in the graph. Questions about the ATE care about the average outcomes of interventions or engagements. Questions about the ITE deal with individual outcomes that are on the level of a specific partner.

Here are some examples of each.
Graph Questions:
- List all paths between ABC and DEF.
- Is A a cause of B?
- Is C a parent of H?
- Is G an ancestor of B?

TE Questions:
- On average, whats the effect of the engagement "D"?
- When engaging with the program H, what outcome can we expect?
- When applying the engagement "L" on partner 1, what's the effect?
- Which partner has the highest revenue growth when providing engagement C?

Classify the question you receive into one of these two categories. Provide a reasoning for the classification.

Only output the results in the following JSON format:
{
  "class": "",
  "reason": "",
}

For example:
{
  "class": "graph",
  "reason": "The question is about the causal graph."
}


The class can only be one of "graph", "te".

Question:
$question

{""")

GRAPH = Template("""Here is a causal graph as a GraphML string.

$graph

In this example, $example_parent is a cause of $example_child.

There will be a question about the graph. What are the intermediate steps and solutions to them necessary to answer the question? Be as detailed as possible.
Make sure to consider all paths of any length when you are asked about paths in the graph, ie you should consider paths of length 1, 2, 3, 4, etc....

Also, provide an output on whether you believe the answer is correct or not.

Output your reasoning in the following JSON format:
{
  "steps": [
    {
      "Step": "",
      "Solution": ""
    }
  ]
  "answer": "",
  "correct":
}

Question:
$question

{""")

EFFECTS = Template("""There is a csv table holding the individual treatment effects (ITE) of different intervention (columns) on the revenue of a specific customer (rows).
There will be a question about the ITEs or average treatment effect (ATE) in the CSV. What are the intermediate steps and solutions to them necessary to answer the question? Be as detailed as possible.
Only output the results of the steps and the final results in the following JSON schema:
{
  "steps": [
    {"step": "", "result": ""}
  ],
  "answer": "",
}
For example:
{ "steps": [ {"step": "What is the average ITE of the Tech Support intervention?", "result": "1234"} ],
  "answer": "1234"
}
Here is the table:
$table

Question:
$question

{""")


def parse_bracketed(text: str, opening: str = "{") -> Any | None:
    """The paper's §3.3 parsing: from the first opening bracket to the last closing one.

    The prompt ends with an opening bracket, so a completion model continues the JSON and
    the reply is read with that bracket prepended. A chat model instead often writes prose
    and then the JSON; then the first opening bracket is the reply's own. None when
    neither reading is JSON.
    """
    closing = "}" if opening == "{" else "]"
    end = text.rfind(closing)
    if end < 0:
        return None
    candidates = [opening + text[: end + 1]]
    first = text.find(opening)
    if 0 <= first < end:
        candidates.append(text[first : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    return None


@dataclass
class ContextAnswer:
    family: str | None  # "graph" | "te" | None when classification failed
    answer: str | None
    parsed: Any
    raw: str
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    cached: bool = False


def answer_in_context(
    llm: LLM, model: CausalModel, question: str, *, max_tokens: int = 1024
) -> ContextAnswer:
    """Classify, then answer from the full graph or table in the prompt."""
    usage = Usage()
    try:
        r = llm.complete(CLASSIFY.substitute(question=question), max_tokens=200)
    except LLMUnavailableError:
        raise  # a server that is down is the user's to know, not an unparseable answer
    except LLMError as e:
        return ContextAnswer(None, None, None, "", usage, str(e))
    usage = usage + r.usage
    cls = parse_bracketed(r.text)
    family = str(cls.get("class", "")).strip().lower() if isinstance(cls, dict) else None
    if family not in ("graph", "te"):
        return ContextAnswer(None, None, None, r.text, usage, "classification did not parse")
    if family == "graph":
        edges = list(model.graph.edges)
        parent, child = edges[0] if edges else (model.variables[0], model.variables[0])
        prompt = GRAPH.substitute(
            graph=model.to_graphml(), example_parent=parent, example_child=child, question=question
        )
    else:
        if model.effects is None:
            return ContextAnswer(family, None, None, "", usage, "the model has no effects table")
        prompt = EFFECTS.substitute(table=model.effects_csv(), question=question)
    try:
        r = llm.complete(prompt, max_tokens=max_tokens)
    except LLMUnavailableError:
        raise
    except LLMError as e:  # e.g. the table does not fit the context window
        return ContextAnswer(family, None, None, "", usage, str(e))
    usage = usage + r.usage
    parsed = parse_bracketed(r.text)
    if not isinstance(parsed, dict) or "answer" not in parsed:
        return ContextAnswer(family, None, parsed, r.text, usage, "answer did not parse as JSON")
    return ContextAnswer(family, str(parsed["answer"]), parsed, r.text, usage, cached=r.cached)
