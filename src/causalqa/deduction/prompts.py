"""The prompts of paper 002, copied from its appendix, as chat-message lists.

- Prompt 1 (`CAUSES`): split a probable-cause paragraph into a list of causes.
- Prompt 2 (`NEGATIVES`): ten causes investigated in the context but not the probable cause.
- Prompt 3 (`EXTRACT`): extract the causal chains a report states.
- Prompt 4 (`INFER`): infer chains linking a candidate cause to the accident
  (`INFER_CONTEXT_FIRST`: the same prompt with the context before the statement, so a
  report's statements share a cacheable prefix).
- Prompts 5–13: the deduction task in nine formats, V1–V9 (`FORMATS`, `render`).

The paper wrote them for Mistral-Instruct with its ``<s>[INST] … [/INST]`` markup; here
each ``[INST]`` block is a user message and each reply (``Yes, I understand.``) an
assistant message, and the LLM layer renders the backend's own chat template. Two
choices the markup forces on us, both recorded here so they are not silent:

- the paper's ``Answer:`` cue sits after ``[/INST]`` (the start of the model's turn); a
  chat API cannot prefill the reply, so the cue ends the last user message instead;
- Prompt 1's task block is cut off in the paper's PDF after ``##### TASK #####``; we
  complete it with the same ``[START_CONTEXT]`` … ``Expected Output:`` layout as its
  example.

>>> msgs = render("V6", "The engine lost power.", "Fuel exhaustion.", retrieved="- A --> B")
>>> [m["role"] for m in msgs]
['user', 'assistant', 'user']
>>> msgs[1]["content"]
'Yes, I understand.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from causalqa.errors import UnknownFormatError

Message = dict[str, str]

# -- Prompts 1–4: data set creation and mining ---------------------------------------------

CAUSES = """##### INSTRUCTIONS #####

Please help to extract the key Causes into point forms based on a paragraph bounded by [START_CONTEXT] and [END_CONTEXT].
Do not add any explanations, or leading or trailing descriptions. Add as many bullet points as needed to exhaustively extract all stated Causes.

##### EXAMPLE #####

[START_CONTEXT]
The probable cause of the employee fatality at the Dyno Nobel facility was a result of the conductor being impacted by the moving railcars during a shoving movement while located in an area with insufficient walking space available for the employee to perform trackside duties.
[END_CONTEXT]

Expected Output:
[START_CAUSES]
- Conductor impacted by the moving railcars during a shoving movement
- Accident was located in area with insufficient walking space available for the employee to perform trackside duties
[END_CAUSES]

##### TASK #####

[START_CONTEXT]
{context}
[END_CONTEXT]

Expected Output:"""  # noqa: E501

NEGATIVES = """Based on the following accident investigation bounded by <CONTEXT> delimiters, the true probable cause(s) are provided within <CAUSES> delimiters. Given these information, provide a list of 10 possible causes or contributing causes investigated within the context that is not stated as a final true probable cause.

Your output should only contain a list of 10 enumerated statements/sentences with no explanation.

<CAUSES>
{causes}
</CAUSES>

<CONTEXT>
{context}
</CONTEXT>"""  # noqa: E501

EXTRACT = """Extract all the causal events in this report:
{context}

Format the extracted Cause and Effect events into a list, like:
1. Engineer's inattentiveness to signal indications --> Engineer failed to operate train in accordance with signal indications and speed restriction --> Train collided with another train
2. Lack of positive train control system --> Train A not stopped before red signal --> Train A passed red signal --> Collision between Train A and Train B
...
where "-->" represents "causes", so "Cause Event --> Effect Event".

Answer:"""  # noqa: E501

INFER = """Based on your knowledge, suggest the series of Cause and Effect events that explain how the cause within the STATEMENT could have led to the accident in the CONTEXT.

<STATEMENT>
{statement}
</STATEMENT>
<CONTEXT>
{context}
</CONTEXT>

Format the suggested Cause and Effect events into a list, like:
- Engineer's inattentiveness to signal indications --> Engineer failed to operate train in accordance with signal indications and speed restriction --> Train collided with another train (Accident)
where "-->" represents "causes", so "Cause Event --> Effect Event".

Answer:"""  # noqa: E501

# Prompt 4 with its <CONTEXT> block before the <STATEMENT> block, words unchanged: every
# statement about one report then shares the prompt's prefix up to the end of the context,
# and a backend that keeps its KV cache (llama.cpp) evaluates the report once per report
# instead of once per statement. The instruction names both blocks, so the order carries
# no meaning; `infer_messages(..., context_first=False)` gives the paper's order.
_STATEMENT_BLOCK = "<STATEMENT>\n{statement}\n</STATEMENT>\n"
_CONTEXT_BLOCK = "<CONTEXT>\n{context}\n</CONTEXT>\n"
INFER_CONTEXT_FIRST = INFER.replace(
    _STATEMENT_BLOCK + _CONTEXT_BLOCK, _CONTEXT_BLOCK + _STATEMENT_BLOCK
)

# The example chains of Prompts 3 and 4: a small model often copies them into its answer,
# and they describe no report, so the chain parser drops them.
EXAMPLE_CHAINS: tuple[tuple[str, ...], ...] = (
    (
        "Engineer's inattentiveness to signal indications",
        "Engineer failed to operate train in accordance with signal indications and speed "
        "restriction",
        "Train collided with another train",
    ),
    (
        "Lack of positive train control system",
        "Train A not stopped before red signal",
        "Train A passed red signal",
        "Collision between Train A and Train B",
    ),
    ("Cause Event", "Effect Event"),
)

# -- Prompts 5–13: the deduction task ------------------------------------------------------

UNDERSTAND = 'You have a fair understanding of causal relations, where "-->" represents "causes".'
UNDERSTAND_SUCH_AS = (
    'You have a fair understanding of causal relations, where "-->" represents "causes", '
    "such as:\n{retrieved}"
)
UNDERSTAND_ALL = (
    'You have a fair understanding of causal relations, where "-->" represents "causes", '
    "such as:\n<RELATIONS>\nHistorical relations:\n{retrieved}\n\n"
    "Relations extracted from <CONTEXT>:\n{extracted}\n\n"
    "Possible relations linking probable cause in <STATEMENT> to accident:\n{inferred}\n"
    "</RELATIONS>"
)
ACK = "Yes, I understand."

TASK = """Based on an accident investigation bounded by <CONTEXT> delimiters, answer if the statement within <STATEMENT> delimiters about the probable cause(s) of the accident is True or False. Your answer must be based on the investigation facts and details within <CONTEXT>.

<CONTEXT>
{context}
</CONTEXT>

{relations}Is this statement True or False?
<STATEMENT>
{statement}
</STATEMENT>

Answer:"""  # noqa: E501

REL_EXTRACTED = "Relations extracted from <CONTEXT>:\n{extracted}"
REL_INFERRED = "Possible relations linking probable cause in <STATEMENT> to accident:\n{inferred}"

# What an empty relations block shows; the paper never had one (it kept only reports
# whose relations it could extract), a user's report may.
EMPTY_RELATIONS = "None"


@dataclass(frozen=True)
class PromptFormat:
    """One of the paper's nine deduction prompts: which relations go where."""

    name: str
    prompt: int
    """The prompt's number in the paper's appendix."""
    multi_turn: bool
    retrieved: bool
    """Retrieved chains in the first turn ("… such as: {retrieved}")."""
    extracted: bool
    inferred: bool
    relations_first: bool = False
    """All relations in the first turn, none beside the task (V9)."""

    @property
    def needs(self) -> tuple[str, ...]:
        """The relation kinds this format shows: 'retrieved', 'extracted', 'inferred'."""
        return tuple(k for k in ("retrieved", "extracted", "inferred") if getattr(self, k))


FORMATS: dict[str, PromptFormat] = {
    "V1": PromptFormat("V1", 5, False, False, False, False),
    "V2": PromptFormat("V2", 6, True, False, False, False),
    "V3": PromptFormat("V3", 7, True, False, True, False),
    "V4": PromptFormat("V4", 8, True, False, False, True),
    "V5": PromptFormat("V5", 9, True, False, True, True),
    "V6": PromptFormat("V6", 10, True, True, False, False),
    "V7": PromptFormat("V7", 11, True, True, True, False),
    "V8": PromptFormat("V8", 12, True, True, True, True),
    "V9": PromptFormat("V9", 13, True, True, True, True, relations_first=True),
}


def get_format(name: str) -> PromptFormat:
    """The format called `name` ("V1"…"V9", any case, or the paper's prompt number "P5"…)."""
    key = name.strip().upper()
    if key.startswith("P") and key[1:].isdigit():
        for f in FORMATS.values():
            if f.prompt == int(key[1:]):
                return f
    if key.isdigit():
        key = f"V{key}"
    if key not in FORMATS:
        raise UnknownFormatError(f"unknown prompt format {name!r}")
    return FORMATS[key]


_SLOT = re.compile(r"\{(context|statement|causes|extracted|inferred|retrieved|relations)\}")


def fill(template: str, **values: str) -> str:
    """Substitute ``{name}`` slots in one pass, so braces inside a report are left alone."""
    return _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def relations_text(chains: Sequence[object] | str | None) -> str:
    """Chains as the prompt shows them: one ``- A --> B --> C`` line each."""
    if chains is None:
        return EMPTY_RELATIONS
    if isinstance(chains, str):
        return chains.strip() or EMPTY_RELATIONS
    lines = []
    for c in chains:
        text = c if isinstance(c, str) else getattr(c, "text", None) or " --> ".join(c)
        lines.append(f"- {text}")
    return "\n".join(lines) or EMPTY_RELATIONS


def render(
    fmt: str | PromptFormat,
    context: str,
    statement: str,
    *,
    retrieved: Sequence[object] | str | None = None,
    extracted: Sequence[object] | str | None = None,
    inferred: Sequence[object] | str | None = None,
) -> list[Message]:
    """The messages of deduction prompt `fmt` (V1–V9) for one context and statement.

    Relations are chains (`Chain`, tuples of node texts, or ``A --> B`` strings) or an
    already formatted block; a format ignores the kinds it does not show.
    """
    f = get_format(fmt) if isinstance(fmt, str) else fmt
    rel = {
        "retrieved": relations_text(retrieved),
        "extracted": relations_text(extracted),
        "inferred": relations_text(inferred),
    }
    blocks = []
    if not f.relations_first:
        if f.extracted:
            blocks.append(fill(REL_EXTRACTED, **rel))
        if f.inferred:
            blocks.append(fill(REL_INFERRED, **rel))
    relations = "<RELATIONS>\n" + "\n\n".join(blocks) + "\n</RELATIONS>\n\n" if blocks else ""
    task = fill(TASK, context=context.strip(), statement=statement.strip(), relations=relations)
    if not f.multi_turn:
        return [{"role": "user", "content": task}]
    if f.relations_first:
        first = fill(UNDERSTAND_ALL, **rel)
    elif f.retrieved:
        first = fill(UNDERSTAND_SUCH_AS, **rel)
    else:
        first = UNDERSTAND
    return [
        {"role": "user", "content": first},
        {"role": "assistant", "content": ACK},
        {"role": "user", "content": task},
    ]


def extract_messages(context: str) -> list[Message]:
    """Prompt 3: extract the causal chains stated in `context`."""
    return [{"role": "user", "content": fill(EXTRACT, context=context.strip())}]


def infer_messages(context: str, statement: str, *, context_first: bool = False) -> list[Message]:
    """Prompt 4: chains linking the cause in `statement` to the accident in `context`.

    With `context_first`, the context block comes before the statement block
    (`INFER_CONTEXT_FIRST`: the same words, a prefix shared by a report's statements)."""
    template = INFER_CONTEXT_FIRST if context_first else INFER
    content = fill(template, context=context.strip(), statement=statement.strip())
    return [{"role": "user", "content": content}]


def causes_messages(probable_cause: str) -> list[Message]:
    """Prompt 1: the probable-cause paragraph as a bulleted list of causes."""
    return [{"role": "user", "content": fill(CAUSES, context=probable_cause.strip())}]


def negatives_messages(context: str, causes: Sequence[str]) -> list[Message]:
    """Prompt 2: ten investigated causes that are not the probable cause."""
    block = "\n".join(f"- {c}" for c in causes)
    return [{"role": "user", "content": fill(NEGATIVES, context=context.strip(), causes=block)}]


_FALSE = re.compile(r"\bfalse\b", re.IGNORECASE)


def paper_verdict(reply: str) -> bool:
    """The paper's rule (§4.3): a reply is False if the word "False" appears anywhere in
    it, True otherwise. Any case counts ("false." as well as "False")."""
    return _FALSE.search(reply) is None
