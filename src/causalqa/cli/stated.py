"""``causalqa ask --story`` and ``ask --batch``: questions about causal models stated in
words, answered by `causalqa.stated.route` (`ask_story`, `ask_batch`); this module only
reads the options and the files and prints.

``ask`` takes one of three models: ``--graph`` (a causal model in files, answered by the
QA engine), ``--story TEXT|FILE`` (a model stated in words) or ``--batch FILE`` (JSON
Lines of ``{"id", "story", "question"}``). `ask_stated` is the part of ``ask`` that
checks which one was given and answers the two kinds of story.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from causalqa.cli.options import as_json, emit_json, err, llm_spec, open_llm, out
from causalqa.errors import ConfigError, DataFileError

StoryOption = Annotated[
    str | None,
    typer.Option(
        "--story",
        help="A causal model stated in words (graph and probabilities, mechanisms, or stated "
        "(in)dependences): a file holding it, '-' for standard input, or the text itself.",
    ),
]
BatchOption = Annotated[
    Path | None,
    typer.Option(
        "--batch",
        help='JSON Lines of {"id", "story", "question"} (\'-\': standard input): one answer per '
        "line, in input order.",
    ),
]

# A value with no space that ends like a file name: meant as a file, so a missing one is
# an error rather than a one-word story.
_LOOKS_LIKE_A_PATH = re.compile(r"^\S*(?:[/\\]\S*|\.[A-Za-z0-9]{1,5})$")


def ask_stated(
    question: str | None,
    graph: Path | None,
    story: str | None,
    batch: Path | None,
    llm: str | None,
    json_: bool,
    **graph_options: Any,
) -> bool:
    """Answer ``ask --story`` or ``ask --batch`` and return True; return False when ``ask``
    was given ``--graph`` (and a question) for the QA engine. A `ConfigError` when no
    model or more than one is given, or when the question is missing or out of place;
    `graph_options` (the options only ``--graph`` takes, by flag) must be unset with a
    story. With ``--llm`` that LLM reads the sentences and the question the rules cannot
    (under a schema, then checked like the rules' reading) and what it computes is shown,
    never given as the answer; without it such stories are refused. A story whose words
    leave two readings tied is refused either way."""
    given = [name for name, v in (("--graph", graph), ("--story", story), ("--batch", batch))
             if v is not None]  # fmt: skip
    if not given:
        raise ConfigError(
            "ask needs a model: --graph FILE (a causal model), --story TEXT|FILE (a model "
            "stated in words) or --batch FILE (stories and questions, one per line)",
            hint='e.g. causalqa ask --story story.txt "Does smoking increase the chance of '
            'cancer?"',
        )
    if len(given) > 1:
        raise ConfigError(f"{' and '.join(given)} each name the model to ask about; give one")
    if graph is not None:
        if question is None:
            raise ConfigError("give a QUESTION about the model in --graph")
        return False
    used = [flag for flag, v in graph_options.items() if v is not None]
    if used:
        raise ConfigError(
            f"{', '.join(used)}: only for a model in --graph; a story states its whole model",
            hint=f"drop {', '.join(used)}",
        )
    # Only a backend the user names (--llm, here or before the command) reads what the
    # rules cannot; its reading of plain sentences is measured in bench/README.md. It never
    # picks between tied readings: asked to, the embedded 1.5B chose right 12 times in 24.
    spec = llm_spec(llm)
    model_llm = _LLMOnFirstUse(spec) if spec else None
    if batch is not None:
        if question is not None:
            raise ConfigError(
                "--batch reads each question from its line; give no QUESTION with it",
                hint=f"drop {question!r}",
            )
        _answer_batch(batch, model_llm, as_json(json_))
        return True
    if question is None or not question.strip():
        raise ConfigError(
            "--story needs a QUESTION (or a claim to check) about it",
            hint='e.g. causalqa ask --story story.txt "Does A directly cause B?"',
        )
    from causalqa.stated.route import ask_story

    answer = ask_story(story_text(story), question, llm=model_llm)
    if as_json(json_):
        emit_json(answer.model_dump())
    else:
        show_answer(answer.model_dump())
    return True


def story_text(value: str) -> str:
    """The story `value` names: the text of the file at that path if there is one, standard
    input for '-', else `value` itself. A `DataFileError` for a file that cannot be read,
    an empty one, or a value shaped like a file name that names no file."""
    if value == "-":
        return _nonempty(sys.stdin.read(), "standard input")
    if not value.strip():
        raise ConfigError("--story is empty", hint="give the story's text or a file holding it")
    path = Path(value)
    try:
        is_file = path.is_file()
    except (OSError, ValueError):  # a long text or one with a NUL byte is no file name
        is_file = False
    if is_file:
        try:
            return _nonempty(path.read_text(encoding="utf-8"), str(path))
        except UnicodeDecodeError as e:
            raise DataFileError(f"{path}: not UTF-8 text ({e.reason})", path=str(path)) from None
        except OSError as e:
            raise DataFileError(f"{path}: cannot be read: {e.strerror}", path=str(path)) from None
    if _LOOKS_LIKE_A_PATH.match(value.strip()):
        raise DataFileError(
            f"{value}: no such file",
            hint="--story takes a file, or the story's text itself (several words)",
            path=value,
        )
    return value


def _nonempty(text: str, where: str) -> str:
    if not text.strip():
        raise DataFileError(f"{where} holds no story", path=where)
    return text


class _LLMOnFirstUse:
    """The backend ``--llm`` names, opened when the rules cannot read a story or a
    question: the rule path, most stories, never imports the LLM layer."""

    def __init__(self, spec: str | None) -> None:
        self._spec = spec
        self._llm: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._llm is None:
            self._llm = open_llm(self._spec)
        return getattr(self._llm, name)


def _batch_lines(batch: Path) -> Iterator[str]:
    if str(batch) == "-":
        yield from sys.stdin
        return
    if not batch.is_file():
        raise DataFileError(f"{batch}: no such file", path=str(batch))
    try:
        with batch.open(encoding="utf-8") as f:
            yield from f
    except UnicodeDecodeError as e:
        raise DataFileError(f"{batch}: not UTF-8 text ({e.reason})", path=str(batch)) from None


def _answer_batch(batch: Path, llm: Any, json_: bool) -> None:
    from causalqa.stated.route import ask_batch

    answered = 0
    for result in ask_batch(_batch_lines(batch), llm=llm):
        answered += 1
        if json_:
            emit_json(result)
            continue
        label = f"{result['id']}" if result["id"] is not None else f"line {result['line']}"
        out.rule(escape(label), align="left", style="dim")
        show_answer(result)
    if not answered:
        raise DataFileError(
            f"{batch} holds no items",
            hint='each line is {"id": ..., "story": "...", "question": "..."}',
            path=str(batch),
        )


def show_answer(answer: dict[str, Any]) -> None:
    """A story's answer for people: the answer (or the refusal and why), its value and
    estimand, and the derivation's steps; which readers ran and the time on stderr."""
    if answer["answer"] is None:
        out.print(f"[bold yellow]no answer:[/] {escape(answer['reason'] or '')}", soft_wrap=True)
    else:
        colour = "green" if answer["answer"] == "yes" else "red"
        out.print(f"[bold {colour}]{answer['answer']}[/]")
    if answer["value"] is not None:
        out.print(f"[dim]value:[/] {answer['value']:.4g}", highlight=False)
    if answer["estimand"]:
        out.print(f"[dim]estimand:[/] {escape(answer['estimand'])}", soft_wrap=True)
    if answer["derivation"]:
        out.print("[dim]derivation:[/]")
        for step in answer["derivation"]:
            out.print(f"  {escape(step)}", highlight=False, soft_wrap=True)
    seconds = answer.get("seconds")
    timing = f" · {seconds:.2f} s" if seconds is not None else ""
    if answer["route"]:
        err.print(f"[dim]{escape(' · '.join(answer['route']))}{timing}[/]", soft_wrap=True)
