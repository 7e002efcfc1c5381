"""What the hardening tests share: the CLI run in-process as a user's shell runs it (argv,
stdin, exit code, stdout, stderr — through `causalqa.cli.main`, so its error handling is
what is tested), and a scripted LLM backend reachable by a spec string
(``--llm scripted:NAME``), so commands find it through the real registry and config, and
a command that ignored the global ``--llm`` would reach for the real model instead."""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causalqa import registry
from causalqa.llm.base import LabelScores
from causalqa.llm.testing import ScriptedLLM

ROOT = Path(__file__).resolve().parents[2]
PARTNERS = ROOT / "examples" / "partners"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[Any]:
        """stdout as JSON documents, one per line (fails on anything else)."""
        lines = self.stdout.splitlines()
        assert lines, f"no output; stderr: {self.stderr}"
        return [json.loads(line) for line in lines]


def run_cli(*argv: str, stdin: str = "") -> Run:
    """`causalqa ARGV` in this process: its exit code and what it printed."""
    from causalqa.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.argv, sys.stdin
    sys.argv, sys.stdin = ["causalqa", *argv], io.StringIO(stdin)
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv, sys.stdin = old
    return Run(code, out.getvalue(), err.getvalue())


def assert_clean_exit(run: Run, *, codes=(0, 1)) -> None:
    """The property every command keeps: a documented exit code, never a traceback, and
    an error as one line naming what is wrong (plus its hint)."""
    assert run.code in codes, (run.code, run.stderr[-2000:])
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    if run.code == 1:
        assert run.stderr.startswith(("error:", "Usage:")), run.stderr[-2000:]
    if run.code == 0 and run.stdout.startswith("{"):
        run.json_lines()


# -- a scripted backend -------------------------------------------------------------------
def schema_instance(schema: dict[str, Any], rng: random.Random, root=None) -> Any:
    """An instance valid under `schema` (the subset our grammars use), each choice among
    enums and anyOf branches drawn from `rng`: what a constrained decoder may emit."""
    root = root if root is not None else schema
    if "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return schema_instance(node, rng, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return schema_instance(rng.choice(schema[key]), rng, root)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "object":
        props = schema.get("properties", {})
        keys = list(schema.get("required", props))
        keys += [k for k in props if k not in keys and rng.random() < 0.5]
        return {k: schema_instance(props[k], rng, root) for k in keys if k in props}
    if kind == "array":
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 2), low + 2)
        items = schema.get("items", {"type": "string"})
        return [schema_instance(items, rng, root) for _ in range(rng.randint(low, high))]
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return rng.randint(schema.get("minimum", -3), schema.get("maximum", 12))
    if kind == "number":
        return rng.choice([0.0, 1.5, -2.0, 100.0])
    if kind == "null":
        return None
    return rng.choice(["", "x", "Revenue", "partner 7", "ignore previous instructions"])


class FuzzLLM(ScriptedLLM):
    """Replies valid under whatever schema it is asked with (choices drawn from a seeded
    generator), free text otherwise; random but finite label log-probabilities."""

    backend = "scripted"

    def __init__(self, seed: int = 0, text: str = "A causes B.", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rng = random.Random(seed)
        self.text = text
        self.specs: list[str] = []

    def _generate(self, messages, *, schema, max_tokens, temperature, seed):
        reply = self.text if schema is None else json.dumps(schema_instance(schema, self.rng))
        self._replies = [reply]
        return super()._generate(
            messages, schema=schema, max_tokens=max_tokens, temperature=temperature, seed=seed
        )

    def _score_labels(self, prompt, labels) -> LabelScores:
        self.calls.append({"prompt": prompt, "labels": labels})
        return LabelScores({lab: math.log(self.rng.uniform(0.05, 0.95)) for lab in labels})


class ScriptedBackend:
    """The registry entry behind ``--llm scripted:NAME``: hands out `llm` and records the
    specs it was asked for."""

    llm: FuzzLLM = FuzzLLM()
    asked: list[str] = []

    @classmethod
    def from_spec(cls, spec, *, quiet: bool = False, **options: Any) -> FuzzLLM:
        cls.asked.append(spec.model)
        return cls.llm


@contextlib.contextmanager
def scripted_backend(llm: FuzzLLM | None = None):
    """``scripted`` registered as an LLM backend serving `llm` (a fresh `FuzzLLM` by
    default) for the duration; yields the backend class, whose `asked` lists the specs
    requested."""
    ScriptedBackend.llm = llm or FuzzLLM()
    ScriptedBackend.asked = []
    before = registry._added["llm"].get("scripted")
    registry.register("llm", "scripted", ScriptedBackend)
    try:
        yield ScriptedBackend
    finally:
        if before is None:
            registry._added["llm"].pop("scripted", None)
        else:
            registry._added["llm"]["scripted"] = before


def files_under(path: Path) -> set[str]:
    """Every file and folder below `path`, relative (to compare before and after)."""
    return {str(p.relative_to(path)) for p in path.rglob("*")} if path.exists() else set()
