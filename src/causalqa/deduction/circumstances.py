"""Does a statement fit the circumstances of the accident in a report?

A probable cause names circumstances — the kind of aircraft ("the helicopter's main
rotor"), the phase of flight ("during takeoff"), the weather ("into instrument
meteorological conditions"), the engine ("carburetor icing"), who acted ("the flight
instructor's"), a cause left undetermined, the kind of flight ("aerial application"),
what it was about (fuel exhaustion, impairment, wires, icing, ...). A report states them
too: NTSB records as event facts (category, phase, weather, engines, purpose) and coded
findings ("Personnel issues - ... - Student/instructed pilot"), narratives in words. A
cause written for another accident contradicts some of them far more often than the
report's own cause does: measured on the NTSB data set (3,108 statements, 20% True), a
statement whose phase of flight disagrees with the report's is True 6% of the time, one
that agrees 30%.

`agreement(context, statement)` gives, per circumstance, +1 (the statement names it and the
report agrees), -1 (it names it and the report says otherwise) or 0 (the statement is
silent, or the report does not say), with a sentence saying why. These are features of the
deduction verifier and part of the explanation `deduce` prints. The vocabulary is data:
``circumstances.json`` beside this module, read by `load_table`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from causalqa.errors import DataFileError

__all__ = ["CIRCUMSTANCES", "DESCRIPTIONS", "TABLE", "Agreement", "agreement", "load_table"]


TABLE = Path(__file__).with_name("circumstances.json")
"""The circumstance vocabulary (package data): which words name each circumstance in a
statement and how a report says it. Edit the table there; the code below reads it."""

CIRCUMSTANCES: tuple[str, ...] = (
    "fits_aircraft",
    "fits_phase",
    "fits_weather",
    "fits_engine",
    "fits_engine_count",
    "fits_actor",
    "fits_undetermined",
    "fits_purpose",
    "fits_topics",
    "misses_topics",
)
"""The agreement features, in column order."""


@dataclass(frozen=True)
class CircumstanceTable:
    """The compiled vocabulary of `TABLE` (each part as `agreement` uses it)."""

    aircraft_kinds: dict[str, re.Pattern[str]]
    statement_airplane: re.Pattern[str]
    phases: tuple[tuple[re.Pattern[str], frozenset[str]], ...]
    low_visibility: re.Pattern[str]
    narrative_imc: re.Pattern[str]
    piston: re.Pattern[str]
    turbine: re.Pattern[str]
    multi_engine: re.Pattern[str]
    actors: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...]
    undetermined_statement: re.Pattern[str]
    undetermined_report: re.Pattern[str]
    purposes: tuple[tuple[re.Pattern[str], str], ...]
    topics: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...]
    descriptions: dict[str, str]


def load_table(path: str | Path = TABLE) -> CircumstanceTable:
    """The circumstance table at `path`, compiled: every pattern ignores case but the
    report side of a topic (coded findings are capitalised labels: "Fluid level").

    Raises:
        DataFileError: the file is missing, not JSON, lacks a part, holds a pattern that
            does not compile, or describes other features than `CIRCUMSTANCES`.
    """
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataFileError(f"{path}: unreadable ({e})", path=str(path)) from None

    def rx(pattern: str, *, ignore_case: bool = True) -> re.Pattern[str]:
        try:
            return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except (re.error, TypeError) as e:
            raise DataFileError(f"{path}: bad pattern {pattern!r} ({e})", path=str(path)) from None

    try:
        table = CircumstanceTable(
            aircraft_kinds={k: rx(v) for k, v in doc["aircraft_kinds"].items()},
            statement_airplane=rx(doc["statement_airplane"]),
            phases=tuple(
                (rx(p["statement"]), frozenset(p["report_phases"])) for p in doc["phases"]
            ),
            low_visibility=rx(doc["low_visibility"]),
            narrative_imc=rx(doc["narrative_imc"]),
            piston=rx(doc["piston"]),
            turbine=rx(doc["turbine"]),
            multi_engine=rx(doc["multi_engine"]),
            actors=tuple((a["name"], rx(a["statement"]), rx(a["report"])) for a in doc["actors"]),
            undetermined_statement=rx(doc["undetermined"]["statement"]),
            undetermined_report=rx(doc["undetermined"]["report"]),
            purposes=tuple((rx(p["statement"]), p["purpose"]) for p in doc["purposes"]),
            topics=tuple(
                (t["topic"], rx(t["statement"]), rx(t["report"], ignore_case=False))
                for t in doc["topics"]
            ),
            descriptions=dict(doc["descriptions"]),
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise DataFileError(f"{path}: not a circumstance table ({e!r})", path=str(path)) from None
    if tuple(table.descriptions) != CIRCUMSTANCES:
        raise DataFileError(
            f"{path}: describes {list(table.descriptions)}, not {list(CIRCUMSTANCES)}",
            path=str(path),
        )
    return table


_TABLE = load_table()
_KIND_WORDS = _TABLE.aircraft_kinds
# In a statement only the explicit word counts for an airplane (gliders have ailerons too).
_STATEMENT_AIRPLANE = _TABLE.statement_airplane
_PHASES = _TABLE.phases
_LOW_VISIBILITY = _TABLE.low_visibility
_NARRATIVE_IMC = _TABLE.narrative_imc
_PISTON = _TABLE.piston
_TURBINE = _TABLE.turbine
_MULTI = _TABLE.multi_engine
# Who acted: statement words → how a report says so (each also matches its findings'
# person label: "Student/instructed pilot", "Instructor/check pilot", "ATC personnel", ...).
_ACTORS = _TABLE.actors
_UNDETERMINED_STATEMENT = _TABLE.undetermined_statement
_UNDETERMINED_REPORT = _TABLE.undetermined_report
_PURPOSES = _TABLE.purposes
# What a cause is about → how a report (its coded findings or its narrative) says so.
_TOPICS = _TABLE.topics

DESCRIPTIONS: dict[str, str] = _TABLE.descriptions

# The report's own lines (how `causalqa.deduction.dataset` renders NTSB event facts): the
# format, not the vocabulary, so they stay here.
_CATEGORY = re.compile(r"\(([^()]*)\) was involved in an")
_PHASE_LINE = re.compile(r"^Phase of flight: ([^.\n]*)", re.MULTILINE)
_WEATHER_LINE = re.compile(r"^Weather: ([^.\n]*)", re.MULTILINE)
_ENGINES_LINE = re.compile(r"^Engines: ([^\n]*)", re.MULTILINE)
_PURPOSE_LINE = re.compile(r"^Purpose of flight: ([^\n]*)", re.MULTILINE)
_WHERE = re.compile(r"\bnear [A-Z][^.\n]*|^Airport: .*$", re.MULTILINE)
"""Where it happened: town and airport names (Lake Worth, Hilliard, Bear Mountain) say
nothing about what the accident was about."""


@dataclass(frozen=True)
class Agreement:
    """One (report, statement)'s agreement values (`CIRCUMSTANCES` order) and, for each
    nonzero value, why."""

    values: dict[str, float]
    reasons: dict[str, str]


def report_aircraft(context: str) -> set[str]:
    """The report's aircraft kinds: its category line, else the kind its words name most."""
    m = _CATEGORY.search(context)
    if m:
        return {k.strip() for k in m.group(1).split(",") if k.strip()}
    counts = {k: len(rx.findall(context)) for k, rx in _KIND_WORDS.items()}
    best = max(counts, key=counts.__getitem__)
    return {best} if counts[best] else set()


def statement_aircraft(statement: str) -> set[str]:
    kinds = {k for k, rx in _KIND_WORDS.items() if k != "airplane" and rx.search(statement)}
    if _STATEMENT_AIRPLANE.search(statement):
        kinds.add("airplane")
    return kinds


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _line(pattern: re.Pattern[str], context: str) -> str | None:
    m = pattern.search(context)
    return m.group(1).strip() if m else None


def agreement(context: str, statement: str) -> Agreement:
    """How the circumstances a statement names fit those a report states."""
    v = dict.fromkeys(CIRCUMSTANCES, 0.0)
    why: dict[str, str] = {}

    said, kinds = statement_aircraft(statement), report_aircraft(context)
    if said and kinds:
        ok = bool(said & kinds)
        v["fits_aircraft"] = 1.0 if ok else -1.0
        why["fits_aircraft"] = (
            f"the statement speaks of {_a(' or '.join(sorted(said)))}; the report's aircraft "
            f"is {_a(' or '.join(sorted(kinds)))}"
        )

    phase = _line(_PHASE_LINE, context)
    if phase and phase != "Unknown":
        fits = [(rx.search(statement), ok) for rx, ok in _PHASES]
        named = [(m.group(0), ok) for m, ok in fits if m]
        if named:
            fitting = [word for word, allowed in named if phase in allowed]
            v["fits_phase"] = 1.0 if fitting else -1.0
            # Quote the word that fits, when one does, so the reason reads as the verdict.
            why["fits_phase"] = (
                f"the statement says '{(fitting or [named[0][0]])[0]}'; the report's phase of "
                f"flight is {phase}"
            )

    m = _LOW_VISIBILITY.search(statement)
    if m:
        weather = _line(_WEATHER_LINE, context)
        if weather in ("VMC", "IMC"):
            imc = weather == "IMC"
        else:
            imc = bool(_NARRATIVE_IMC.search(context)) if weather is None else None
        if imc is not None:
            v["fits_weather"] = 1.0 if imc else -1.0
            stated = (
                f"the report's weather is {'instrument (IMC)' if imc else 'visual (VMC)'}"
                if weather is not None
                else "the report speaks of instrument conditions"
                if imc
                else "the report never speaks of instrument conditions"
            )
            why["fits_weather"] = f"the statement says '{m.group(0)}'; {stated}"

    engines = _line(_ENGINES_LINE, context) or ""
    engine = (
        "turbine"
        if re.search(r"turbo|turbine|jet", engines, re.I)
        else "piston"
        if re.search(r"reciprocating|piston", engines, re.I)
        else None
    )
    piston, turbine = _PISTON.search(statement), _TURBINE.search(statement)
    if engine and (piston or turbine):
        ok = (engine == "piston" and piston is not None) or (
            engine == "turbine" and turbine is not None
        )
        v["fits_engine"] = 1.0 if ok else -1.0
        word = (piston or turbine).group(0)  # type: ignore[union-attr]
        why["fits_engine"] = (
            f"the statement says '{word}'; the report's engine is {engines.rstrip('.')}"
        )
    count = re.match(r"(\d+)", engines)
    multi = _MULTI.search(statement)
    if multi and count:
        n = int(count.group(1))
        v["fits_engine_count"] = 1.0 if n >= 2 else -1.0
        why["fits_engine_count"] = (
            f"the statement says '{multi.group(0)}'; the report's aircraft has {n} engine(s)"
        )

    found, missing = [], []
    for name, words, in_report in _ACTORS:
        if words.search(statement):
            if in_report.search(context):
                found.append(name)
            else:
                missing.append(name)
    if missing:
        v["fits_actor"] = -1.0
        why["fits_actor"] = f"the statement names {', '.join(missing)}; the report does not"
    elif found:
        v["fits_actor"] = 1.0
        why["fits_actor"] = f"the statement names {', '.join(found)}, as the report does"

    if _UNDETERMINED_STATEMENT.search(statement):
        ok = bool(_UNDETERMINED_REPORT.search(context))
        v["fits_undetermined"] = 1.0 if ok else -1.0
        why["fits_undetermined"] = "the statement leaves its cause undetermined; " + (
            "so do the report's findings" if ok else "the report's findings do not"
        )

    purpose = _line(_PURPOSE_LINE, context)
    if purpose:
        for rx, kind in _PURPOSES:
            if rx.search(statement):
                ok = kind in purpose
                v["fits_purpose"] = 1.0 if ok else -1.0
                why["fits_purpose"] = (
                    f"the statement speaks of {kind}; the report's flight was {purpose.rstrip('.')}"
                )
                if not ok:
                    break

    about = _WHERE.sub(" ", context)
    named = [
        (topic, bool(there.search(about)))
        for topic, said_rx, there in _TOPICS
        if said_rx.search(statement)
    ]
    if named:
        yes = [t for t, ok in named if ok]
        no = [t for t, ok in named if not ok]
        v["fits_topics"] = float(len(yes) - len(no))
        v["misses_topics"] = float(len(no))
        said_yes, said_no = ", ".join(yes), ", ".join(no)
        why["fits_topics"] = (
            f"the report speaks of {said_yes} but never names {said_no}"
            if yes and no
            else f"the report speaks of {said_yes}"
            if yes
            else f"the report never names {said_no}"
        )
        if no:
            why["misses_topics"] = (
                f"the statement is about {', '.join(no)}; the report never names "
                + ("it" if len(no) == 1 else "them")
            )
    return Agreement(v, why)
