"""The MCP server (``causalqa mcp``): the service's tools for AI agents, over stdio by
default or streamable HTTP. Each tool has a typed input schema made from its signature,
and returns the same JSON object as the HTTP API (and the CLI's ``--json``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from causalqa import __version__
from causalqa.errors import CausalQAError
from causalqa.server.problems import status_of
from causalqa.server.schemas import (
    DeduceMethod,
    Format,
    Mode,
    PairDecision,
    PairMethod,
    Ranker,
    Retriever,
    StatedQuestion,
    StatedStory,
    StatedUseLLM,
)
from causalqa.server.service import MCP_SPELLING, Service
from causalqa.server.store import MODEL_ID

INSTRUCTIONS = (
    "causalqa answers causal questions from causal knowledge instead of guessing. "
    "list_models names the causal models (a DAG plus a table of treatment effects); "
    "ask answers a question about one of them with the plan (tool calls) it ran; "
    "discover_pair asks whether two named things are causally related, grounded in a "
    "knowledge graph; deduce judges whether a statement is a probable cause of the "
    "accident described in a report; answer_stated_question answers a yes/no question (or "
    "checks a claim) about a causal model stated in words, exactly from the stated graph, "
    "numbers or (in)dependences, or refuses."
)

ModelArg = Annotated[
    str,
    Field(pattern=MODEL_ID.pattern, description="A causal model's id (see list_models)."),
]


def build_mcp(service: Service, *, name: str = "causalqa") -> Any:
    """An `mcp.server.MCPServer` whose tools call `service` (started by the caller)."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(name, version=__version__, instructions=INSTRUCTIONS)

    def failed(e: CausalQAError) -> ToolError:
        _, code = status_of(e)
        hint = f" (hint: {e.hint})" if e.hint else ""
        return ToolError(f"[{code}] {e.message}{hint}")

    @server.tool()
    async def ask(
        model: ModelArg,
        question: Annotated[
            str, Field(min_length=1, max_length=2000, description="A question about the model.")
        ],
        mode: Annotated[
            Mode | None, Field(description="tool (default; exact) or context (baseline).")
        ] = None,
    ) -> dict[str, Any]:
        """Answer a causal question about a causal model: the answer, the typed plan it
        ran (tool calls), what the question was grounded to, and the graph part used."""
        try:
            return await service.ask(model, question, mode)
        except CausalQAError as e:
            raise failed(e) from None

    @server.tool()
    def list_models() -> dict[str, Any]:
        """The causal models this server has, with their variables, treatments and sizes."""
        return {"models": service.list_models()}

    @server.tool()
    def show_model(model: ModelArg) -> dict[str, Any]:
        """One causal model: its graph (nodes, edges), treatments, average effects and the
        first rows of its effects table."""
        try:
            return service.show_model(model)
        except CausalQAError as e:
            raise failed(e) from None

    @server.tool()
    async def discover_pair(
        a: Annotated[str, Field(min_length=1, max_length=200, description="First entity.")],
        b: Annotated[str, Field(min_length=1, max_length=200, description="Second entity.")],
        context: Annotated[
            str | None, Field(max_length=20_000, description="Text about the pair.")
        ] = None,
        ranker: Ranker | None = None,
        top_k: Annotated[int | None, Field(ge=0, le=10, description="Paths shown.")] = None,
        decision: PairDecision | None = None,
        method: PairMethod | None = None,
    ) -> dict[str, Any]:
        """Is there a causal relation between a and b? By default a trained evidence model
        over knowledge-graph paths and the text answers A→B, B→A or none with calibrated
        probabilities and why — or verdict "unknown" (causal, direction and probability
        null) with the reason and what would decide it when there is no sentence, no path
        between the two in the graph and no LLM feature; method "llm" asks the language
        model with the paths (ranker, top_k and decision apply to it)."""
        try:
            return await service.discover_pair(
                a, b, context=context, ranker=ranker, top_k=top_k, decision=decision,
                method=method, spelling=MCP_SPELLING,
            )  # fmt: skip
        except CausalQAError as e:
            raise failed(e) from None

    @server.tool()
    async def deduce(
        context: Annotated[
            str, Field(min_length=1, max_length=200_000, description="The accident report.")
        ],
        statement: Annotated[
            str, Field(min_length=1, max_length=2000, description="A candidate probable cause.")
        ],
        method: DeduceMethod | None = None,
        format: Format | None = None,
        retriever: Retriever | None = None,
    ) -> dict[str, Any]:
        """Is the statement a probable cause of the accident in the report? The verdict,
        P(True) and the evidence shown to the model."""
        try:
            return await service.deduce(
                context, statement, method=method, fmt=format, retriever=retriever
            )
        except CausalQAError as e:
            raise failed(e) from None

    @server.tool()
    async def answer_stated_question(
        story: StatedStory,
        question: StatedQuestion,
        use_llm: StatedUseLLM = False,
    ) -> dict[str, Any]:
        """Answer a yes/no question (or check a claim) about a causal model stated in
        words: the answer (null when refused, with the reason), the value and estimand it
        was decided from, the model read from the story and the derivation, step by step."""
        try:
            return await service.answer_stated(story, question, use_llm=use_llm)
        except CausalQAError as e:
            raise failed(e) from None

    return server


class BearerGuard:
    """ASGI middleware for the HTTP transport: every request carries the token."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        import hmac

        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, b"Bearer " + self.token):
                from starlette.responses import JSONResponse

                from causalqa.server.problems import body

                response = JSONResponse(
                    body("unauthorized", "missing or wrong bearer token"),
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
