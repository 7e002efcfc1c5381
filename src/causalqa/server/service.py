"""The service: the causal-model registry, the chat sessions, the jobs and the one model
worker, with one method per thing a client can ask. The HTTP API (`app`) and the MCP
server (`mcp`) are thin layers over it, so both answer alike.

Discovery, deduction and stories go through the same library functions as the CLI
(`discovery.pair.discover_pairs`, `discovery.graph.find_graph`,
`deduction.deduce.deduce_items`, `stated.route.ask_story`), so results go out exactly as
the CLI's ``--json`` prints them — `Answer.model_dump()`, `EvidenceVerdict.to_dict()` or
`PairVerdict.to_dict()`, `GraphFinding.to_dict()`, `Deduction.model_dump()`,
`StatedAnswer.model_dump()` — and options
a client leaves out are left to those functions' defaults. A client never names a file:
texts come in the request, files as uploads, and the knowledge graphs are the operator's
(`ServerSettings.kg`, `deduction_kg`).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
import warnings
from pathlib import Path
from typing import Any

from causalqa import __version__, jsonl
from causalqa.errors import (
    CausalQAError,
    DeductionError,
    NotReadyError,
    PairDiscoveryError,
    ServiceError,
)
from causalqa.server.highlight import used_subgraph
from causalqa.server.problems import error_body
from causalqa.server.sessions import Job, JobStore, SessionStore
from causalqa.server.settings import ServerSettings
from causalqa.server.store import ModelStore, describe, effects_suffix, graph_suffix, relabel
from causalqa.server.worker import ModelWorker, QueuedLLM

MAX_TURNS = 50
"""Turns a session's record keeps (the assistant itself looks back two)."""

HTTP_SPELLING = {
    "sentence": '"context"',
    "kg": "a server started with --kg DIR",
    "llm": '"no_llm": false',
    "llm_model": "a server whose evidence model has it: causalqa discover train --with-llm",
    "kind": '"kinds_{which}": ["{kind}"]',
}
"""How the HTTP API names what would decide an unknown pair (`discovery.evidence.Spelling`):
the request's fields, and the operator's options for what a request cannot change."""
MCP_SPELLING = {
    "sentence": "the context argument",
    "kg": "an MCP server started with --kg DIR",
    "llm": None,  # the tool always lets the LLM judge when the evidence model can
    "llm_model": "a server whose evidence model has it: causalqa discover train --with-llm",
    "kind": None,  # the tool takes no node kinds
}
"""How the MCP tool ``discover_pair`` names them."""


def _given(**options: Any) -> dict[str, Any]:
    """The options a client set: the rest are left to the engine's defaults."""
    return {k: v for k, v in options.items() if v is not None}


class Service:
    """Everything the surfaces serve. `llm`: an LLM object to use instead of opening
    ``settings.llm`` (tests); the model is opened on the worker thread by `start`."""

    def __init__(self, settings: ServerSettings, *, llm: Any = None) -> None:
        self.settings = settings
        if llm is None:

            def open_llm() -> Any:
                from causalqa.llm import get_llm

                return get_llm(settings.llm, quiet=True)

        else:

            def open_llm() -> Any:
                return llm

        self.worker = ModelWorker(open_llm, queue_size=settings.queue, name=settings.llm)
        self.store = ModelStore(Path(settings.data_dir) / "models", settings.load)
        self.sessions = SessionStore(settings.session_ttl, settings.max_sessions)
        self.jobs = JobStore(settings.max_jobs, settings.job_ttl, settings.job_timeout)
        self._stores: list[Any] | None = None
        self._deduction_kg: Any = None
        self._retrievers: dict[str, Any] = {}
        self._verifier_model: Any = None
        self._evidence_judge: Any = None
        self.started = time.monotonic()

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> Service:
        self.worker.start()
        return self

    def stop(self) -> None:
        self.worker.stop()
        for kg in self._stores or []:
            try:
                kg.close()
            except Exception:  # closing at shutdown: nothing left to tell
                pass
        self._stores = None

    # -- status ---------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        return {"status": "ok", "uptime": round(time.monotonic() - self.started, 1)}

    def readiness(self) -> dict[str, Any]:
        """The model's state; `NotReadyError` while it loads or when it failed."""
        self.worker.check_ready()
        return {
            "ready": True,
            "llm": self.settings.llm,
            "model": getattr(self.worker.llm, "model", ""),
            "load_seconds": round(self.worker.load_seconds or 0.0, 2),
            "queue": {
                "waiting": self.worker.waiting,
                "running": self.worker.running,
                "capacity": self.settings.queue,
            },
            "answered": self.worker.done,
        }

    def version(self) -> dict[str, Any]:
        return {"causalqa": __version__, "api": "v1", "llm": self.settings.llm}

    # -- causal models --------------------------------------------------------------------
    def list_models(self) -> list[dict[str, Any]]:
        return [info.to_dict() for info in self.store.list()]

    def show_model(self, model_id: str) -> dict[str, Any]:
        return describe(self.store.get(model_id), self.store.info(model_id))

    def upload_model(
        self,
        name: str,
        graph: bytes,
        *,
        graph_filename: str | None = None,
        graph_format: str | None = None,
        effects: bytes | None = None,
        effects_filename: str | None = None,
        effects_format: str | None = None,
        outcome: str | None = None,
    ) -> dict[str, Any]:
        """Validate an uploaded graph (and effects table) and store them as a model."""
        from causalqa.causal_model import CausalModel

        scratch = self.store.scratch()
        try:
            graph_path = scratch / f"graph{graph_suffix(graph_format, graph_filename, graph)}"
            graph_path.write_bytes(graph)
            labels = {str(graph_path): f"graph upload {_label(graph_filename)}"}
            effects_path = None
            if effects is not None:
                effects_path = (
                    scratch / f"effects{effects_suffix(effects_format, effects_filename)}"
                )
                effects_path.write_bytes(effects)
                labels[str(effects_path)] = f"effects upload {_label(effects_filename)}"
            try:
                model = CausalModel.load(graph_path, effects_path, outcome=outcome or None)
            except CausalQAError as e:
                raise relabel(e, labels) from None
            return self.store.add(model, name, "upload").to_dict()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def delete_model(self, model_id: str) -> None:
        self.store.delete(model_id)
        self.sessions.drop_model(model_id)

    def fit_model(
        self,
        name: str,
        data: bytes,
        *,
        treatments: list[str],
        outcome: str,
        data_filename: str | None = None,
        graph: bytes | None = None,
        graph_filename: str | None = None,
        subject_column: str | None = None,
        filters: list[str] | None = None,
        method: str | None = None,
        learner: str | None = None,
        seed: int | None = None,
    ) -> Job:
        """A job that fits a causal model from observations (`fit_causal_model`) and
        stores it; its result is the stored model's record."""
        from causalqa.causal_model import fit_causal_model
        from causalqa.server.store import check_id_for_new, slug

        check_id_for_new(slug(name))  # a bad name fails now, not after the fit
        scratch = self.store.scratch()
        data_path = scratch / "data.csv"
        data_path.write_bytes(data)
        labels = {str(data_path): f"data upload {_label(data_filename)}"}
        graph_path = None
        if graph is not None:
            graph_path = scratch / f"graph{graph_suffix(None, graph_filename, graph)}"
            graph_path.write_bytes(graph)
            labels[str(graph_path)] = f"graph upload {_label(graph_filename)}"
        options = _given(
            graph=graph_path,
            subject_column=subject_column or None,
            filters=filters or None,
            method=method,
            learner=learner,
            seed=seed,
        )

        def work(_llm: Any, job: Job) -> dict[str, Any]:
            job.report(0, 2, "fitting")
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    model = fit_causal_model(
                        data_path, treatments=treatments, outcome=outcome, **options
                    )
            except CausalQAError as e:
                raise relabel(e, labels) from None
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            notes = [str(w.message) for w in caught if "causalqa" in w.filename]
            job.report(1, 2, "storing")
            info = self.store.add(
                model, name, "fit", notes=[relabel_text(n, labels) for n in notes]
            )
            return info.to_dict()

        try:
            return self.jobs.start("fit", self.worker.submit, work, error_body)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise

    # -- questions ------------------------------------------------------------------------
    def _answer(self, model: Any, answer: Any, session: str | None) -> dict[str, Any]:
        return {
            **answer.model_dump(),
            "highlight": used_subgraph(model, answer),
            "session": session,
        }

    async def ask(self, model_id: str, question: str, mode: str | None = None) -> dict[str, Any]:
        """One question about a stored model: the CLI's ``ask --json`` object, plus the
        nodes and edges it used (``highlight``)."""
        from causalqa.qa.assistant import Assistant

        model = await asyncio.to_thread(self.store.get, model_id)  # may read files
        options = _given(mode=mode)
        answer = await self.worker.run(lambda llm: Assistant(model, llm, **options).ask(question))
        return self._answer(model, answer, None)

    def create_session(self, model_id: str, mode: str | None = None) -> dict[str, Any]:
        from causalqa.qa.assistant import Assistant

        model = self.store.get(model_id)
        self.worker.check_ready()
        session = self.sessions.create(
            model_id, Assistant(model, self.worker.llm, **_given(mode=mode))
        )
        return session.to_dict(self.sessions.ttl)

    def session(self, sid: str) -> dict[str, Any]:
        return self.sessions.get(sid).to_dict(self.sessions.ttl)

    def delete_session(self, sid: str) -> None:
        self.sessions.delete(sid)

    async def session_ask(self, sid: str, question: str) -> dict[str, Any]:
        """A question in a conversation: follow-ups keep the earlier questions' context."""
        session = self.sessions.get(sid)
        assistant = session.assistant
        answer = await self.worker.run(lambda _llm: assistant.ask(question))
        session.turns.append({"question": question, "answer": answer.answer})
        del session.turns[:-MAX_TURNS]
        del assistant.history[:-MAX_TURNS]  # the planner looks back two; keep memory flat
        return self._answer(assistant.model, answer, sid)

    # -- discovery ------------------------------------------------------------------------
    def _discovery_stores(self) -> list[Any]:
        """The graphs discovery consults, opened on the worker thread on first use: the
        server's --kg store, else every store loaded under $CAUSALQA_HOME/kg (Hetionet's
        default, CauseNet …), as the CLI's ``discover pair``."""
        if self._stores is None:
            from causalqa.kg.store import open_stores

            self._stores = open_stores(self.settings.kg)
        return self._stores

    def _discovery_split(self) -> tuple[Any, list[Any]]:
        """(the graph the trained evidence model reads, the general-knowledge stores)."""
        from causalqa.discovery.general import split_stores

        kg, general, _ = split_stores(self._discovery_stores())
        return kg, general

    def _discovery_kg(self) -> Any:
        """The graph the paper's method takes its paths from: the typed one, else the first
        general-knowledge store."""
        kg, general = self._discovery_split()
        return kg if kg is not None else general[0]

    async def discover_pair(
        self,
        a: str,
        b: str,
        *,
        context: str | None = None,
        ranker: str | None = None,
        top_k: int | None = None,
        hops: int | None = None,
        kinds_a: list[str] | None = None,
        kinds_b: list[str] | None = None,
        decision: str | None = None,
        method: str | None = None,
        no_llm: bool | None = None,
        spelling: dict[str, str | None] | None = None,
    ) -> dict[str, Any]:
        """Is there a causal relation between a and b? `discover_pairs` on one pair, as the
        CLI's ``discover pair --json``: by default the evidence method
        (`EvidenceVerdict.to_dict()`, the evidence model loaded once; ``"verdict":
        "unknown"`` when there is no sentence, path or LLM feature); method "llm" is the
        paper's prompt (`PairVerdict.to_dict()`). `spelling` names the request's fields in
        the hints (default: the HTTP API's, `HTTP_SPELLING`)."""
        from causalqa.discovery.evidence import Spelling
        from causalqa.discovery.pair import (
            DEFAULT_METHOD,
            PairItem,
            check_names,
            discover_pairs,
            needs_kg,
            pair_kg,
        )

        check_names(a, b)
        method = method or DEFAULT_METHOD
        if method == "evidence":
            given = [n for n, v in (("ranker", ranker), ("top_k", top_k), ("decision", decision))
                     if v is not None]  # fmt: skip
            if given:
                raise PairDiscoveryError(
                    f"{', '.join(given)} choose the prompt of the paper's method; the evidence "
                    "method does not prompt with ranked paths",
                    hint="add method 'llm' to prompt with ranked paths",
                )
        items = [PairItem(a, b, context)]
        options = _given(ranker=ranker, top_k=top_k, hops=hops, decision=decision)

        def work(llm: Any) -> dict[str, Any]:
            judge = self._evidence() if method == "evidence" else None
            kg, general = pair_kg(self._discovery_split, need=needs_kg(method, items)) or (None, [])
            (verdict,) = discover_pairs(
                items, method=method, kg=kg, llm=llm, judge=judge, no_llm=bool(no_llm),
                kinds_a=kinds_a, kinds_b=kinds_b, spelling=Spelling(**(spelling or HTTP_SPELLING)),
                general=general, **options,
            )  # fmt: skip
            return verdict.to_dict()

        return await self.worker.run(work)

    def _evidence(self) -> Any:
        if self._evidence_judge is None:
            from causalqa.discovery.evidence import EvidenceJudge

            self._evidence_judge = EvidenceJudge.load()
        return self._evidence_judge

    def discover_graph(
        self,
        variables: list[str],
        *,
        context: str | None = None,
        ranker: str | None = None,
        top_k: int | None = None,
        hops: int | None = None,
        decision: str | None = None,
    ) -> Job:
        """A job asking every ordered pair (`find_graph`, the LLM method); its result is the
        CLI's ``discover graph --json`` object."""
        from causalqa.discovery.graph import find_graph

        limit = self.settings.max_graph_variables
        if len(variables) > limit:
            raise ServiceError(
                f"{len(variables)} variables asked for; this server discovers graphs over "
                f"at most {limit} ({limit * (limit - 1)} model calls)",
                hint="ask about fewer variables, or start the server with --max-graph-variables",
            )
        options = _given(context=context, ranker=ranker, top_k=top_k, hops=hops, decision=decision)

        def work(llm: Any, job: Job) -> dict[str, Any]:
            kg = self._discovery_kg() if ranker != "none" else None
            found = find_graph(
                variables,
                method="llm",
                kg=kg,
                llm=llm,
                on_progress=lambda done, total, what: job.report(done, total, what),
                **options,
            )
            return found.to_dict()

        return self.jobs.start("discover-graph", self.worker.submit, work, error_body)

    # -- deduction ------------------------------------------------------------------------
    def _deduction_graph(self) -> Any:
        if self._deduction_kg is None and self.settings.deduction_kg is not None:
            from causalqa.deduction.event_graph import CausalKG

            kg = CausalKG.load(self.settings.deduction_kg)
            if not kg.nodes:
                raise NotReadyError(
                    "the server's causal KG for deduction is empty",
                    hint="mine some reports into it (causalqa kg mine) and restart",
                )
            self._deduction_kg = kg
        return self._deduction_kg

    def _verifier(self) -> Any:
        if self._verifier_model is None:
            from causalqa.deduction.verifier import load_verifier

            self._verifier_model = load_verifier()
        return self._verifier_model

    def _retriever(self, name: str) -> Any:
        from causalqa.deduction.retrieve import get_retriever

        key = name.strip().lower()
        if key not in self._retrievers:
            graph = self._deduction_graph()
            if graph is None:
                raise DeductionError(
                    f"the {name} retriever needs a causal KG, and this server has none",
                    hint="ask with retriever 'none', or start the server with --deduction-kg DIR",
                )
            self._retrievers[key] = get_retriever(key).fit(graph)
        return self._retrievers[key]

    async def deduce(
        self,
        context: str,
        statement: str,
        *,
        retriever: str | None = None,
        fmt: str | None = None,
        method: str | None = None,
        k: int | None = None,
    ) -> dict[str, Any]:
        """Is `statement` a probable cause of the accident in `context` (the report's
        text)? `deduce_items` on one item, as the CLI's ``deduce --json``
        (`Deduction.model_dump()`): by default the evidence verifier; "logprobs", "text"
        and "both" are the paper's prompt-only methods."""
        from causalqa.deduction.deduce import check_text, deduce_items

        text = check_text(context, what="context")
        check_text(statement, what="statement", min_words=1)
        method = method or "verifier"
        retrieving = retriever is not None and retriever.strip().lower() != "none"
        if method == "verifier" and (retrieving or fmt is not None):
            raise DeductionError(
                "retriever and fmt choose the prompt of the paper's prompt-only methods; "
                "the verifier reads the server's causal KG itself",
                hint="add method 'logprobs' (or 'text', 'both') to prompt with chains",
            )

        def work(llm: Any) -> dict[str, Any]:
            verifier = self._verifier() if method == "verifier" else None
            found = self._retriever(retriever) if retrieving else None
            (result,) = deduce_items(
                [(text, statement)], method=method, verifier=verifier, llm=llm,
                kg=self._deduction_graph(), retriever=found, fmt=fmt, **_given(k=k),
            )  # fmt: skip
            return result.model_dump()

        return await self.worker.run(work)

    # -- causal models stated in words ---------------------------------------------------
    async def answer_stated(
        self, story: str, question: str, *, use_llm: bool = False
    ) -> dict[str, Any]:
        """A question (or a claim to check) about a causal model stated in words:
        `ask_story`, as the CLI's ``ask --story … --json`` prints it (`StatedAnswer`). The
        story is read by rules in the thread pool, not on the model worker, so it never
        waits for the model. With `use_llm` (the CLI's ``--llm``) a story or question the
        rules cannot read is read by the model, whose calls wait their turn on the worker;
        without it such a story is refused, as in the CLI."""
        from causalqa.stated.route import ask_story

        llm = QueuedLLM(self.worker) if use_llm else None
        answer = await asyncio.to_thread(ask_story, story, question, llm=llm)
        # Through the CLI's own JSON (a NaN is null there), so both print the same object.
        return json.loads(jsonl.dumps(answer.model_dump(), strict=True))


def _label(filename: str | None) -> str:
    """An upload's file name as the client gave it, shortened, for messages only."""
    name = (filename or "").replace("\n", " ").strip()[:80]
    return repr(name) if name else "(unnamed)"


def relabel_text(text: str, labels: dict[str, str]) -> str:
    for path, label in labels.items():
        text = text.replace(path, label)
    return text
