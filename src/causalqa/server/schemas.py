"""The API's request and response bodies. Engine results are the engines' own models
(`Answer`, `Deduction`) or their ``to_dict()`` objects, and every choice a request offers
(modes, decision rules, rankers, prompt formats, methods) is read from the engine that
defines it, so nothing here re-declares an engine's fields or options."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from causalqa import registry
from causalqa.causal_model.fit import LEARNERS, METHODS
from causalqa.deduction.deduce import METHODS as DEDUCE_METHODS
from causalqa.deduction.prompts import FORMATS
from causalqa.discovery.graph import DECISIONS as GRAPH_DECISIONS
from causalqa.discovery.pair import DECISIONS as PAIR_DECISIONS
from causalqa.discovery.pair import METHODS as PAIR_METHODS
from causalqa.discovery.rankers import RANKERS
from causalqa.qa.assistant import MAX_QUESTION_CHARS, Answer, Mode
from causalqa.server.store import MODEL_ID, ModelInfo
from causalqa.stated.solve import MAX_QUESTION_CHARS as MAX_STATED_QUESTION_CHARS

Ranker = Literal[RANKERS]  # type: ignore[valid-type]
PairDecision = Literal[PAIR_DECISIONS]  # type: ignore[valid-type]
GraphDecision = Literal[GRAPH_DECISIONS]  # type: ignore[valid-type]
PairMethod = Literal[PAIR_METHODS]  # type: ignore[valid-type]
Format = Literal[tuple(FORMATS)]  # type: ignore[valid-type]
FitMethod = Literal[METHODS]  # type: ignore[valid-type]
FitLearner = Literal[LEARNERS]  # type: ignore[valid-type]
DeduceMethod = Literal[DEDUCE_METHODS]  # type: ignore[valid-type]
Retriever = Literal[tuple(registry.names("retriever"))]  # type: ignore[valid-type]

ModelId = Annotated[
    str, Field(pattern=MODEL_ID.pattern, max_length=64, description="A causal model's id.")
]
Question = Annotated[
    str,
    Field(
        min_length=1, max_length=MAX_QUESTION_CHARS, description="A question about a causal model."
    ),
]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- errors and status ------------------------------------------------------------------------
class ErrorDetail(BaseModel):
    code: str = Field(description="A stable name for the kind of error, e.g. not_found.")
    message: str = Field(description="One line saying what is wrong, naming the input.")
    hint: str | None = Field(default=None, description="What to do about it.")


class ErrorResponse(BaseModel):
    """Every error the API answers with."""

    error: ErrorDetail


class Health(BaseModel):
    status: Literal["ok"]
    uptime: float


class QueueState(BaseModel):
    waiting: int
    running: bool
    capacity: int


class Readiness(BaseModel):
    ready: bool
    llm: str
    model: str
    load_seconds: float
    queue: QueueState
    answered: int


class Version(BaseModel):
    causalqa: str
    api: str
    llm: str


# -- causal models ----------------------------------------------------------------------------
class ModelList(BaseModel):
    models: list[ModelInfo]


class EffectsPreview(BaseModel):
    columns: list[str]
    rows: list[list[str | float | bool]]


class ModelDetail(ModelInfo):
    """A model's record, its graph and a look at its effects table."""

    nodes: list[str]
    edge_list: list[list[str]] = Field(description="The graph's edges as [cause, effect].")
    subject_column: str | None = None
    ate: dict[str, float] = Field(description="Each treatment's average effect.")
    effects_preview: EffectsPreview | None = None


# -- questions --------------------------------------------------------------------------------
class AskRequest(_Request):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "model": "partners",
                    "question": "Does a change in Discount lead to a change in Revenue?",
                }
            ]
        },
    )
    model: ModelId
    question: Question
    mode: Mode | None = Field(
        default=None, description="tool (typed API) or context (the paper's baseline)."
    )


class Highlight(BaseModel):
    nodes: list[str] = Field(description="Graph variables the answer used.")
    edges: list[list[str]] = Field(description="Graph edges the answer used, [cause, effect].")


class AskResponse(Answer):
    """The CLI's ``ask --json`` object, plus what the page highlights and the session."""

    highlight: Highlight
    session: str | None = None


class SessionCreate(_Request):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"model": "partners"}]}
    )
    model: ModelId
    mode: Mode | None = None


class Turn(BaseModel):
    question: str
    answer: str


class SessionRecord(BaseModel):
    id: str
    model: str
    created: str
    expires_in: int = Field(description="Seconds until the session expires unless used.")
    turns: list[Turn]


class SessionAsk(_Request):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"question": "and for partner P042?"}]}
    )
    question: Question


# -- discovery --------------------------------------------------------------------------------
class PairRequest(_Request):
    """Options left out take the CLI's defaults (`discover pair`): the evidence method.
    `ranker`, `top_k` and `decision` choose the prompt of method ``llm``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"a": "Raloxifene", "b": "breast cancer"},
                {"a": "Raloxifene", "b": "breast cancer", "method": "llm", "ranker": "random"},
            ]
        },
    )

    a: Name
    b: Name
    context: Annotated[str, Field(max_length=20_000)] | None = None
    method: PairMethod | None = None
    no_llm: bool | None = None
    ranker: Ranker | None = None
    top_k: Annotated[int, Field(ge=0, le=10)] | None = None
    hops: Annotated[int, Field(ge=1, le=6)] | None = None
    kinds_a: Annotated[list[Name], Field(max_length=20)] | None = None
    kinds_b: Annotated[list[Name], Field(max_length=20)] | None = None
    decision: PairDecision | None = None


class GraphRequest(_Request):
    """Options left out take the engine's defaults (`discover_graph`)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"variables": ["Raloxifene", "ERBB2", "breast cancer"], "ranker": "random"}
            ]
        },
    )

    variables: Annotated[list[Name], Field(min_length=2, max_length=64)]
    context: Annotated[str, Field(max_length=20_000)] | None = None
    ranker: Ranker | None = None
    top_k: Annotated[int, Field(ge=0, le=10)] | None = None
    hops: Annotated[int, Field(ge=1, le=6)] | None = None
    decision: GraphDecision | None = None


class JobRecord(BaseModel):
    id: str
    kind: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    created: str
    seconds: float | None = None
    progress: dict[str, Any]
    result: Any = Field(
        default=None, description="When done: what the same CLI command's --json prints."
    )
    error: ErrorDetail | None = None


class JobList(BaseModel):
    jobs: list[JobRecord]


# -- deduction --------------------------------------------------------------------------------
class DeduceRequest(_Request):
    """Options left out take the engine's defaults (`deduce`)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "context": "The pilot did not remove the frost from the wings before takeoff. "
                    "Shortly after liftoff the airplane stalled and hit the ground.",
                    "statement": "Frost on the wings.",
                }
            ]
        },
    )

    context: Annotated[str, Field(min_length=1, max_length=200_000)] = Field(
        description="The accident report's text."
    )
    statement: Annotated[str, Field(min_length=1, max_length=2000)]
    retriever: Retriever | None = None
    format: Format | None = None
    method: DeduceMethod | None = None
    k: Annotated[int, Field(ge=1, le=20)] | None = None


# -- causal models stated in words ------------------------------------------------------------
StatedStory = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200_000,
        description="A causal model in words: a graph with probabilities or mechanisms, or a "
        "closed system's stated correlations and independences.",
    ),
]
StatedQuestion = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_STATED_QUESTION_CHARS,
        description="A yes/no question about it, or a claim to check (yes when it follows).",
    ),
]

StatedUseLLM = Annotated[
    bool,
    Field(
        description="Let the server's LLM read the sentences and the question the rules cannot "
        "(as the CLI's --llm; its reading is checked like the rules' and shown — value, "
        "model, derivation — but never given as the answer); by default such a story is "
        "refused, saying so."
    ),
]


class StatedRequest(_Request):
    """A causal model stated in words and a question about it (or a claim to check)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "story": "Smoking has a direct effect on tar deposit. Tar deposit has a "
                    "direct effect on lung cancer. For nonsmokers, the probability of tar "
                    "deposit is 10%. For smokers, the probability of tar deposit is 70%. For "
                    "people without tar deposit, the probability of lung cancer is 20%. For "
                    "people with tar deposit, the probability of lung cancer is 50%.",
                    "question": "Will smoking increase the chance of lung cancer?",
                },
                {
                    "story": "Suppose there is a closed system of 3 variables, A, B and C. All "
                    "the statistical relations among these 3 variables are as follows: A "
                    "correlates with C. B correlates with C. However, A is independent of B.",
                    "question": "A directly causes C.",
                },
            ]
        },
    )

    story: StatedStory
    question: StatedQuestion
    use_llm: StatedUseLLM = False
