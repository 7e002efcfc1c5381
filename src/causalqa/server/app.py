"""The HTTP API (``/v1/…``, OpenAPI at ``/openapi.json``, docs at ``/docs``) and the web
page (``/``), over one `Service`.

Safety is the default: the command line binds 127.0.0.1 and refuses any other address
without a bearer token; request bodies and uploads have size limits (413); every request
has a time limit (504); model calls go through one worker with a bounded queue (429 when
full, 503 before the model has loaded); no client input becomes a path; CORS is off unless
origins are given; and every error is ``{"error": {"code", "message", "hint"}}`` — never
a traceback.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations, which
# name local objects (the bearer scheme, path types).
import asyncio
import hmac
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, File, Form, Path, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from causalqa import __version__
from causalqa.deduction.deduce import Deduction
from causalqa.errors import AuthError, CausalQAError
from causalqa.server.problems import HTTP_CODES, body, error_body, status_of
from causalqa.server.schemas import (
    AskRequest,
    AskResponse,
    DeduceRequest,
    ErrorResponse,
    FitLearner,
    FitMethod,
    GraphRequest,
    Health,
    JobList,
    JobRecord,
    ModelDetail,
    ModelList,
    PairRequest,
    Readiness,
    SessionAsk,
    SessionCreate,
    SessionRecord,
    StatedRequest,
    Version,
)
from causalqa.server.service import Service
from causalqa.server.settings import ServerSettings
from causalqa.server.store import EFFECTS_UPLOAD_FORMATS, GRAPH_UPLOAD_FORMATS, MODEL_ID, ModelInfo
from causalqa.stated.result import StatedAnswer

STATIC = resources.files("causalqa.server") / "static"
UPLOAD_PATHS = ("/v1/models", "/v1/models/fit")
"""Paths whose bodies may be as large as ``max_upload`` (others: ``max_body``)."""

_DESCRIPTIONS = {
    400: "A malformed request, or an option or input the engine cannot use.",
    401: "The bearer token is missing or wrong.",
    404: "No such model, session, job or page.",
    409: "A model of that name exists, or it may not be deleted.",
    413: "The request body or upload is too large.",
    422: "The request does not match its schema, or its file or text is malformed.",
    429: "The model's queue is full; retry later.",
    502: "The language model failed.",
    503: "The model (or the knowledge graph a request needs) is not ready.",
    504: "The request took longer than the server's time limit.",
}


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {s: {"model": ErrorResponse, "description": _DESCRIPTIONS[s]} for s in statuses}


BASE = (400, 401, 413, 422, 504)
MODEL_CALL = (*BASE, 429, 502, 503)


def _json_error(status: int, payload: dict, headers: dict[str, str] | None = None) -> JSONResponse:
    if status == 429:
        headers = {**(headers or {}), "Retry-After": "5"}
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    return JSONResponse(payload, status_code=status, headers=headers)


# -- the guard: sizes, time, headers ---------------------------------------------------------
class _TooLarge(StarletteHTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit:,} bytes")


_CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


class Guard:
    """Pure ASGI middleware: refuses bodies over their limit (413, from the declared
    length at once, or while an undeclared one streams in), ends requests that run past
    `timeout` (504; event streams excepted) and adds security headers."""

    def __init__(self, app: Any, settings: ServerSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        limit = self.settings.max_upload if path in UPLOAD_PATHS else self.settings.max_body
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        started = False
        page = not path.startswith(("/docs", "/redoc"))

        async def send_(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                ]
                if page:
                    extra.append((b"content-security-policy", _CSP.encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        async def reply(status: int, payload: dict) -> None:
            response = _json_error(status, payload)
            await response(scope, receive, send_)

        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                await reply(400, body("bad_request", "the Content-Length header is not a number"))
                return
            if size > limit:
                await reply(
                    413,
                    body(
                        "too_large",
                        f"the request body ({size:,} bytes) is larger than {limit:,} bytes",
                        "send less, or start the server with a larger --max-body/--max-upload",
                    ),
                )
                return
        seen = 0

        async def receive_() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(limit)
            return message

        if path.endswith("/events"):  # a stream lasts as long as its job
            await self.app(scope, receive_, send_)
            return
        try:
            await asyncio.wait_for(self.app(scope, receive_, send_), self.settings.timeout)
        except TimeoutError:
            if not started:
                await reply(
                    504,
                    body(
                        "timeout",
                        f"the request took longer than {self.settings.timeout:g} s",
                        "retry with a shorter input, or start the server with a longer --timeout",
                    ),
                )


# -- the app -----------------------------------------------------------------------------------
def create_app(
    settings: ServerSettings, *, service: Service | None = None, llm: Any = None
) -> FastAPI:
    """The FastAPI application. `service` (or `llm`, an LLM object to use instead of
    ``settings.llm``) is for tests; by default the app makes its own and starts it (the
    model loads on the worker thread) when the app starts."""
    svc = service or Service(settings, llm=llm)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if not svc.worker.started:
            svc.start()
        try:
            yield
        finally:
            svc.stop()

    app = FastAPI(
        title="causalqa",
        version=__version__,
        summary="Answer causal questions with a language model grounded in causal knowledge.",
        description=(
            "A versioned JSON API over causalqa's engines: questions about a causal "
            "model (paper 000), knowledge-based causal discovery (paper 001), causal "
            "deduction over accident reports (paper 002) and questions about causal models "
            "stated in words (CLadder, Corr2Cause). Results are what the same CLI "
            'command prints with --json. Errors are {"error": {"code", "message", '
            '"hint"}}.'
        ),
        lifespan=lifespan,
        docs_url=None,  # served below from the vendored Swagger UI: no CDN, works offline
        redoc_url=None,
    )
    app.state.service = svc
    app.state.settings = settings

    bearer = HTTPBearer(auto_error=False, description="The token the server was started with.")

    async def require_token(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> None:
        given = credentials.credentials if credentials is not None else ""
        if not hmac.compare_digest(given.encode(), (settings.token or "").encode()):
            raise AuthError("missing or wrong bearer token")

    auth = [Depends(require_token)] if settings.token else []
    v1 = APIRouter(prefix="/v1", dependencies=auth)
    public = APIRouter(prefix="/v1")

    def route(method: str, path: str, *statuses: int, tag: str, router=v1, **options: Any):
        """The decorator of a documented route: its `tag` (group in /docs), the error
        `statuses` it may answer (each with its description) and FastAPI's `options`."""
        return getattr(router, method)(path, tags=[tag], responses=_errors(*statuses), **options)

    # -- errors
    @app.exception_handler(CausalQAError)
    async def _causalqa_error(_request: Request, exc: CausalQAError) -> JSONResponse:
        status, _ = status_of(exc)
        return _json_error(status, {"error": error_body(exc)})

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else str(exc.status_code)
        hint = "GET /docs lists the API" if exc.status_code in (404, 405) else None
        return _json_error(exc.status_code, body(code, message, hint), dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for e in exc.errors()[:3]:
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
            problems.append(f"{where}: {e.get('msg', 'invalid')}")
        more = len(exc.errors()) - len(problems)
        message = "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")
        return _json_error(
            422,
            body("invalid_request", message or "invalid request", "GET /docs shows each schema"),
        )

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        return _json_error(500, {"error": error_body(exc)})

    # -- status
    @route("get", "/health", 400, 413, tag="status", response_model=Health, router=public)
    def health() -> dict:
        """The process is up (always 200 while it answers)."""
        return svc.health()

    @route("get", "/ready", *BASE, 503, tag="status", response_model=Readiness)
    def ready() -> dict:
        """Whether the model has loaded: 200 when it has, 503 while it loads or if it failed."""
        return svc.readiness()

    @route("get", "/version", *BASE, tag="status", response_model=Version)
    def version() -> dict:
        return svc.version()

    # -- causal models
    id_path = Annotated[str, Path(pattern=MODEL_ID.pattern, max_length=64)]

    @route("get", "/models", *BASE, tag="models", response_model=ModelList)
    def list_models() -> dict:
        """The causal models this server has: uploaded, fitted or loaded by its operator."""
        return {"models": svc.list_models()}

    @route("post", "/models", *BASE, 409, tag="models", status_code=201, response_model=ModelInfo)
    async def upload_model(
        name: Annotated[str, Form(min_length=1, max_length=200, description="Display name.")],
        graph: Annotated[
            UploadFile, File(description="The causal graph: GraphML, DOT, edge-list CSV or JSON.")
        ],
        effects: Annotated[
            UploadFile | None,
            File(description="Effects table (CSV): subject id first, one column per treatment."),
        ] = None,
        graph_format: Annotated[
            str | None,
            Form(
                pattern="^(" + "|".join(GRAPH_UPLOAD_FORMATS) + ")$",
                description="Default: from the file name, else from its content.",
            ),
        ] = None,
        effects_format: Annotated[
            str | None, Form(pattern="^(" + "|".join(EFFECTS_UPLOAD_FORMATS) + ")$")
        ] = None,
        outcome: Annotated[
            str | None,
            Form(max_length=200, description="The graph variable the effects are on."),
        ] = None,
    ) -> dict:
        """Upload a causal model (a graph, optionally an effects table). Its id is made
        from the name; an existing id is refused (409), never replaced."""
        graph_bytes = await graph.read()
        effects_bytes = await effects.read() if effects is not None else None
        return await run_in_threadpool(
            svc.upload_model,
            name,
            graph_bytes,
            graph_filename=graph.filename,
            graph_format=graph_format,
            effects=effects_bytes,
            effects_filename=effects.filename if effects is not None else None,
            effects_format=effects_format,
            outcome=outcome,
        )

    @route(
        "post",
        "/models/fit",
        *BASE,
        409,
        429,
        503,
        tag="models",
        status_code=202,
        response_model=JobRecord,
    )
    async def fit_model(
        name: Annotated[str, Form(min_length=1, max_length=200)],
        data: Annotated[UploadFile, File(description="Observations (CSV), one row per subject.")],
        treatment: Annotated[
            list[Annotated[str, Form(min_length=1, max_length=200)]],
            Form(description="A binary treatment column (repeat the field for more)."),
        ],
        outcome: Annotated[str, Form(min_length=1, max_length=200)],
        subject_column: Annotated[str | None, Form(max_length=200)] = None,
        filter: Annotated[
            list[str] | None, Form(description="A yes/no column kept as a filter (repeat).")
        ] = None,
        method: Annotated[FitMethod | None, Form()] = None,
        learner: Annotated[FitLearner | None, Form()] = None,
        seed: Annotated[int | None, Form(ge=0, le=2**31 - 1)] = None,
        graph: Annotated[
            UploadFile | None, File(description="A known causal graph (skips discovery).")
        ] = None,
    ) -> dict:
        """Fit a causal model from data (as `causalqa fit`): a job; poll it, or stream
        its events. When done, its result is the stored model's record."""
        raw = await data.read()
        graph_bytes = await graph.read() if graph is not None else None
        job = await run_in_threadpool(
            lambda: svc.fit_model(
                name,
                raw,
                treatments=list(treatment),
                outcome=outcome,
                data_filename=data.filename,
                graph=graph_bytes,
                graph_filename=graph.filename if graph is not None else None,
                subject_column=subject_column,
                filters=list(filter or []),
                method=method,
                learner=learner,
                seed=seed,
            )
        )
        return job.to_dict()

    @route("get", "/models/{model_id}", *BASE, 404, tag="models", response_model=ModelDetail)
    def show_model(model_id: id_path) -> dict:
        """A model: its record, graph (nodes and edges) and the first rows of its effects."""
        return svc.show_model(model_id)

    @route("delete", "/models/{model_id}", *BASE, 404, 409, tag="models", status_code=204)
    def delete_model(model_id: id_path) -> Response:
        """Delete an uploaded or fitted model (and its chat sessions)."""
        svc.delete_model(model_id)
        return Response(status_code=204)

    # -- questions
    @route("post", "/ask", *MODEL_CALL, 404, tag="ask", response_model=AskResponse)
    async def ask(request: AskRequest) -> dict:
        """One question about a model: answer, plan (the tool calls), grounded names — the
        CLI's `ask --json` — and the nodes and edges it used."""
        return await svc.ask(request.model, request.question, request.mode)

    @route(
        "post",
        "/sessions",
        *BASE,
        404,
        503,
        tag="ask",
        status_code=201,
        response_model=SessionRecord,
    )
    def create_session(request: SessionCreate) -> dict:
        """Start a chat about a model: follow-ups ("and for partner 3?") keep the context.
        Sessions expire after a while without questions."""
        return svc.create_session(request.model, request.mode)

    sid_path = Annotated[str, Path(min_length=1, max_length=64)]

    @route("get", "/sessions/{session_id}", *BASE, 404, tag="ask", response_model=SessionRecord)
    def get_session(session_id: sid_path) -> dict:
        return svc.session(session_id)

    @route(
        "post",
        "/sessions/{session_id}/ask",
        *MODEL_CALL,
        404,
        tag="ask",
        response_model=AskResponse,
    )
    async def session_ask(session_id: sid_path, request: SessionAsk) -> dict:
        """A question in a chat session."""
        return await svc.session_ask(session_id, request.question)

    @route("delete", "/sessions/{session_id}", *BASE, 404, tag="ask", status_code=204)
    def delete_session(session_id: sid_path) -> Response:
        svc.delete_session(session_id)
        return Response(status_code=204)

    # -- discovery
    @route("post", "/discover/pair", *MODEL_CALL, tag="discovery", response_model=dict[str, Any])
    async def discover_pair(request: PairRequest) -> dict:
        """Is there a causal relation between a and b? The CLI's `discover pair --json`: by
        default the evidence method (direction A→B, B→A or none with calibrated
        probabilities, top contributions, strongest paths, the sentence cue — or
        `"verdict": "unknown"`, with `causal`, `direction` and `probability` null and an
        `abstention` saying what it lacks and what would decide it, when there is no
        sentence, no path between the linked nodes and no LLM feature); method "llm" is
        the paper's prompt (verdict, probability, the paths shown). A name the graph does
        not place, with no sentence, is a 422 `unknown_entity` naming the closest nodes."""
        return await svc.discover_pair(
            request.a,
            request.b,
            context=request.context,
            ranker=request.ranker,
            top_k=request.top_k,
            hops=request.hops,
            kinds_a=request.kinds_a,
            kinds_b=request.kinds_b,
            decision=request.decision,
            method=request.method,
            no_llm=request.no_llm,
        )

    @route(
        "post",
        "/discover/graph",
        *BASE,
        429,
        503,
        tag="discovery",
        status_code=202,
        response_model=JobRecord,
    )
    def discover_graph(request: GraphRequest) -> dict:
        """A directed graph among variables (every ordered pair asked): a job whose result
        is the CLI's `discover graph --json`."""
        return svc.discover_graph(
            request.variables,
            context=request.context,
            ranker=request.ranker,
            top_k=request.top_k,
            hops=request.hops,
            decision=request.decision,
        ).to_dict()

    # -- jobs
    job_path = Annotated[str, Path(min_length=1, max_length=64)]

    @route("get", "/jobs", *BASE, tag="jobs", response_model=JobList)
    def list_jobs() -> dict:
        return {"jobs": [j.to_dict() for j in svc.jobs.list()]}

    @route("get", "/jobs/{job_id}", *BASE, 404, tag="jobs", response_model=JobRecord)
    def get_job(job_id: job_path) -> dict:
        """A job's status, progress and (when done) result."""
        return svc.jobs.get(job_id).to_dict()

    @route("delete", "/jobs/{job_id}", *BASE, 404, tag="jobs", response_model=JobRecord)
    def cancel_job(job_id: job_path) -> dict:
        """Cancel a job: a queued one never runs, a running one stops at its next step."""
        job = svc.jobs.get(job_id)
        if not job.finished:
            job.cancel()
        return job.to_dict()

    @v1.get(
        "/jobs/{job_id}/events",
        tags=["jobs"],
        response_class=StreamingResponse,
        responses={
            200: {
                "description": "Server-sent events: `progress` while the job runs, then one "
                "`done`, `failed` or `cancelled`; each event's data is the job record.",
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            },
            **_errors(*BASE, 404),
        },
    )
    async def job_events(job_id: job_path) -> StreamingResponse:
        """Stream a job's progress as server-sent events until it finishes."""
        job = svc.jobs.get(job_id)
        limit = settings.job_timeout + settings.timeout

        async def stream() -> AsyncIterator[str]:
            seen, beat, start = -1, time.monotonic(), time.monotonic()
            while time.monotonic() - start < limit:
                if job.version != seen:
                    seen = job.version
                    name = job.status if job.finished else "progress"
                    yield f"event: {name}\ndata: {json.dumps(job.to_dict(), default=str)}\n\n"
                    if job.finished:
                        return
                    beat = time.monotonic()
                elif time.monotonic() - beat > 15:
                    yield ": keep-alive\n\n"
                    beat = time.monotonic()
                await asyncio.sleep(0.2)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    # -- deduction
    @route("post", "/deduce", *MODEL_CALL, tag="deduction", response_model=Deduction)
    async def deduce(request: DeduceRequest) -> dict:
        """Is the statement a probable cause of the accident in the report? The CLI's
        `deduce --json`: verdict, P(True), the evidence shown to the model."""
        return await svc.deduce(
            request.context,
            request.statement,
            retriever=request.retriever,
            fmt=request.format,
            method=request.method,
            k=request.k,
        )

    # -- causal models stated in words
    @route("post", "/stated", *MODEL_CALL, tag="stated", response_model=StatedAnswer)
    async def stated(request: StatedRequest) -> dict:
        """A question about a causal model stated in words (a graph with probabilities or
        mechanisms, or a closed system's stated (in)dependences), or a claim to check: the
        CLI's `ask --story … --json` — the answer (null when refused, with the reason), the
        value and estimand it came from, the model read from the story, the derivation."""
        return await svc.answer_stated(request.story, request.question, use_llm=request.use_llm)

    app.include_router(public)
    app.include_router(v1)

    # -- the page
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="causalqa API",
            swagger_js_url="/static/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/swagger/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )

    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(Guard, settings=settings)
    return app
