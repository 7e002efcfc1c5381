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
deduction verifier and part of the explanation `deduce` prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CIRCUMSTANCES", "DESCRIPTIONS", "Agreement", "agreement"]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_APOS = "['’]"

# Aircraft kinds, as NTSB's AirCraftCategory names them (the report's line reads
# "a <make model> (<category>) was involved"), with the words that reveal each in text.
_KIND_WORDS: dict[str, re.Pattern[str]] = {
    "helicopter": _rx(
        r"\b(?:helicopters?|rotorcraft|main rotor|tail rotor|autorotations?|anti-torque|"
        r"rotor rpm|hover(?:ing)?|collective|cyclic)\b"
    ),
    "glider": _rx(r"\b(?:gliders?|sailplanes?|tow ?planes?|tow ?ropes?)\b"),
    "balloon": _rx(r"\b(?:balloons?|envelope|burners?)\b"),
    "gyroplane": _rx(r"\b(?:gyroplanes?|gyrocopters?|autogyros?)\b"),
    "powered parachute": _rx(r"\b(?:powered parachutes?|paragliders?|paramotors?)\b"),
    "weight-shift-control aircraft": _rx(r"\b(?:weight-shift|trikes?)\b"),
    "airplane": _rx(r"\b(?:airplanes?|aeroplanes?|flaps|ailerons?|propellers?)\b"),
}
# In a statement only the explicit word counts for an airplane (gliders have ailerons too).
_STATEMENT_AIRPLANE = _rx(rf"\b(?:airplanes?|airplane{_APOS}s|aeroplanes?)\b")
_CATEGORY = re.compile(r"\(([^()]*)\) was involved in an")

# Phase words of a statement → the NTSB broad phases (BroadPhaseofFlight) they fit.
_PHASES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        _rx(
            r"\b(?:take[- ]?offs?|departures?|departing|initial climb|climb-?out|lift-?off|"
            r"rotation)\b"
        ),
        frozenset({"Takeoff", "Initial Climb"}),
    ),
    (
        _rx(r"\b(?:approach(?:es|ing)?|final|base leg|downwind|traffic pattern|circling)\b"),
        frozenset({"Approach", "Landing", "Maneuvering"}),
    ),
    (
        _rx(r"\b(?:landings?|touchdown|flare|landing roll|go-arounds?|rollout)\b"),
        frozenset({"Landing", "Approach"}),
    ),
    (_rx(r"\b(?:cruise|en ?route|cross-country)\b"), frozenset({"Enroute"})),
    (
        _rx(
            r"\b(?:maneuver(?:s|ing)?|low[- ]altitude|aerobatics?|aerobatic maneuvers?|"
            r"low-level|steep turns?)\b"
        ),
        frozenset({"Maneuvering"}),
    ),
    (_rx(r"\btaxi(?:ing|s)?\b"), frozenset({"Taxi", "Standing"})),
)
_PHASE_LINE = re.compile(r"^Phase of flight: ([^.\n]*)", re.MULTILINE)

_LOW_VISIBILITY = _rx(
    r"\b(?:instrument meteorological|IMC|clouds?|fog|low visibility|reduced visibility|"
    r"restricted visibility|low ceilings?|instrument conditions|whiteout|"
    r"spatial disorientation)\b"
)
_WEATHER_LINE = re.compile(r"^Weather: ([^.\n]*)", re.MULTILINE)
_NARRATIVE_IMC = _rx(
    r"instrument meteorological conditions|\bIMC\b|spatial disorientation|low clouds|"
    r"overcast|fog\b"
)

_PISTON = _rx(
    r"\b(?:carburet\w*|magnetos?|cylinders?|pistons?|spark plugs?|mixture|crankshaft|"
    r"connecting rods?|camshaft)\b"
)
_TURBINE = _rx(r"\b(?:turbines?|turboprop|turboshaft|compressor|fuel control unit|turbofan|jet)\b")
_ENGINES_LINE = re.compile(r"^Engines: ([^\n]*)", re.MULTILINE)
_MULTI = _rx(
    r"\b(?:multi-?engine|twin|one engine|(?:left|right) engine|engine-out|asymmetric|"
    r"critical engine)\b"
)

# Who acted: statement words → how a report says so (each also matches its findings'
# person label: "Student/instructed pilot", "Instructor/check pilot", "ATC personnel", ...).
_ACTORS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "a student pilot",
        _rx(r"\b(?:student|trainee)\b"),
        _rx(r"\bstudent\b"),
    ),
    (
        "a flight instructor",
        _rx(r"\b(?:flight instructor|instructor|CFI|check pilot|examiner)\b"),
        _rx(r"\binstructor\b|\bCFI\b|examiner"),
    ),
    (
        "a copilot",
        _rx(r"\b(?:first officer|FO|copilot|co-pilot|second-in-command|SIC)\b"),
        _rx(r"first officer|copilot|co-pilot"),
    ),
    (
        "a flight crew",
        _rx(r"\b(?:flight ?crew|crew|captain)\b"),
        _rx(r"\bcrew\b|captain"),
    ),
    (
        "maintenance",
        _rx(
            r"\b(?:maintenance|mechanics?|technicians?|repair station|inspectors?|"
            r"annual inspection|overhaul)\b"
        ),
        _rx(r"maintenance|mechanic|technician|inspection"),
    ),
    (
        "air traffic control",
        _rx(r"\b(?:controllers?|air traffic|ATC)\b"),
        _rx(r"controller|air traffic|\bATC\b"),
    ),
    ("a passenger", _rx(r"\bpassengers?\b"), _rx(r"passenger")),
    (
        "the operator",
        _rx(rf"\b(?:operator|company|operator{_APOS}s|management|director of operations)\b"),
        _rx(r"operator|company"),
    ),
    (
        "the manufacturer",
        _rx(r"\b(?:manufacturer|design(?:ed)?)\b"),
        _rx(r"manufacturer|design"),
    ),
    (
        "an owner or builder",
        _rx(r"\b(?:builder|owner|kit)\b"),
        _rx(r"builder|owner|kit"),
    ),
    (
        "the FAA",
        _rx(r"\b(?:FAA|Federal Aviation)\b"),
        _rx(r"\bFAA\b|Federal Aviation"),
    ),
    (
        "another aircraft",
        _rx(
            r"\b(?:other (?:airplane|aircraft|helicopter|pilot)|pilot of the [a-z-]+ "
            r"(?:airplane|aircraft|helicopter)|see and avoid|see-and-avoid|mid-?air|"
            r"right[- ]of[- ]way)\b"
        ),
        _rx(r"other aircraft|other airplane|mid-?air|see and avoid"),
    ),
)

_UNDETERMINED_STATEMENT = _rx(
    r"\b(?:undetermined|could not be determined|unknown reasons?|for reasons that|"
    r"not be determined|unable to be determined)\b"
)
_UNDETERMINED_REPORT = _rx(
    r"Unknown/Not determined|Not determined|could not be determined|undetermined"
)

_PURPOSES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_rx(r"\b(?:aerial application|agricultural|spray(?:ing)?|crop)\b"), "aerial application"),
    (_rx(r"\b(?:instructional|instruction|training|lesson|student)\b"), "instructional"),
    (_rx(r"\bbanner\b"), "banner tow"),
    (_rx(r"\b(?:skydiv\w*|parachute jump\w*)\b"), "skydiving"),
    (_rx(r"\b(?:fire ?fighting|water drops?|bucket)\b"), "firefighting"),
    (_rx(r"\b(?:air tour|tour)\b"), "air tour"),
    (_rx(r"\b(?:test flight|flight test|maintenance test)\b"), "flight test"),
    (_rx(r"\b(?:air ?show|aerobatic)\b"), "air show"),
)
_PURPOSE_LINE = re.compile(r"^Purpose of flight: ([^\n]*)", re.MULTILINE)

# What a cause is about → how a report (its coded findings or its narrative) says so.
_TOPICS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "fuel exhaustion",
        _rx(r"\bfuel exhaustion|ran out of fuel|exhausted the fuel|insufficient fuel\b"),
        re.compile(r"Fluid level|exhaust"),
    ),
    (
        "fuel starvation or management",
        _rx(
            r"\bfuel starvation|mismanagement of the (?:available )?fuel|fuel selector|"
            r"fuel management\b"
        ),
        re.compile(r"Fluid management|starv|selector"),
    ),
    (
        "contamination",
        _rx(r"\bcontaminat\w*|water in the fuel\b"),
        re.compile(r"Fluid condition|contaminat"),
    ),
    (
        "impairment",
        _rx(
            r"\b(?:alcohol|ethanol|drugs?|impair\w*|marijuana|cannab\w*|tetrahydrocannabinol|"
            r"amphetamine|methamphetamine|cocaine|sedating|medications?)\b"
        ),
        re.compile(r"Impairment|alcohol|drug|medication|Illicit|Prescription|Alcohol"),
    ),
    ("carbon monoxide", _rx(r"\bcarbon monoxide\b"), re.compile(r"[Cc]arbon monoxide")),
    (
        "wildlife",
        _rx(r"\b(?:birds?|deer|animals?|wildlife)\b"),
        re.compile(r"Bird|Animal|bird|animal"),
    ),
    (
        "wires",
        _rx(r"\b(?:wires?|power ?lines?|powerlines?|utility poles?|cables?)\b"),
        re.compile(r"Wire|wire|power ?line|Pole|pole"),
    ),
    ("trees", _rx(r"\btrees?\b"), re.compile(r"Tree|tree")),
    (
        "icing",
        _rx(r"\b(?:icing|ice|frost|snow)\b"),
        re.compile(r"[Ii]cing|\bice\b|[Ff]rost|[Ss]now"),
    ),
    (
        "wind or convection",
        _rx(
            r"\b(?:thunderstorms?|convective|turbulence|downdrafts?|wind ?shear|gust\w*|"
            r"tailwind|crosswind)\b"
        ),
        re.compile(r"[Cc]onvective|[Tt]urbulence|[Dd]owndraft|[Ww]ind|[Gg]ust"),
    ),
    (
        "density altitude",
        _rx(r"\b(?:density altitude|high density)\b"),
        re.compile(r"[Dd]ensity altitude|High density"),
    ),
    ("fatigue", _rx(r"\bfatigued?\b"), re.compile(r"Fatigue|fatigue")),
    (
        "a medical condition",
        _rx(r"\b(?:medical condition|cardiac|heart|incapacitat\w*|stroke|seizure)\b"),
        re.compile(r"Incapacitation|incapacitat|[Cc]ardi|[Hh]eart|Illness|seizure|stroke"),
    ),
    (
        "a stall",
        _rx(r"\b(?:angle of attack|stall(?:ed|s)?|spin)\b"),
        re.compile(r"Angle of attack|stall|spin"),
    ),
    ("airspeed", _rx(r"\b(?:air)?speed\b"), re.compile(r"Airspeed|airspeed|speed")),
    (
        "altitude or clearance",
        _rx(r"\b(?:altitude|clearance|descen\w* below|minimum (?:safe )?altitude)\b"),
        re.compile(r"Altitude|altitude|clearance|Terrain|terrain"),
    ),
    (
        "spatial disorientation",
        _rx(r"\b(?:spatial(?:ly)? disorient\w*|disorient\w*|illusion)\b"),
        re.compile(r"[Dd]isorientation|disoriented|illusion"),
    ),
    ("darkness", _rx(r"\b(?:night|dark(?:ness)?)\b"), re.compile(r"Dark|\bnight\b|dark")),
    (
        "sun glare",
        _rx(r"\b(?:sun|glare|bright light|sunlight)\b"),
        re.compile(r"Bright light|\bsun\b|glare|sunlight"),
    ),
    (
        "low visibility",
        _rx(
            r"\b(?:instrument meteorological|IMC|clouds?|low ceilings?|visibility|fog|"
            r"VFR|visual flight rules|whiteout|obscur\w*)\b"
        ),
        re.compile(
            r"Low ceiling|Low visibility|Clouds|Below VFR|Below approach|Obscuration|Haze|"
            r"\bIMC\b|instrument meteorological|cloud|fog|visibility"
        ),
    ),
    (
        "mountainous terrain",
        _rx(r"\b(?:mountain\w*|hilly|ridges?|canyons?|rising terrain)\b"),
        re.compile(r"Mountainous|mountain|\bridges?\b|canyon|\bhill(?:s|y)?\b"),
    ),
    (
        "water",
        _rx(r"\b(?:impact with (?:the )?water|into (?:the )?water|lake|ocean|river|gulf|sea)\b"),
        re.compile(r"\b(?:Water|water|lake|ocean|river|Gulf|sea)\b"),
    ),
    (
        "directional control",
        _rx(r"\b(?:directional control|ground loop|runway excursion|veer\w*)\b"),
        re.compile(r"Directional control|directional|veer"),
    ),
    (
        "the glidepath or descent rate",
        _rx(r"\b(?:glide ?path|descent rate|rate of descent|sink rate|approach path|glide)\b"),
        re.compile(r"[Gg]lide ?path|Descent rate|descent|glide"),
    ),
    (
        "weather planning",
        _rx(r"\b(?:weather (?:briefing|information|planning|forecasts?)|forecast\w*)\b"),
        re.compile(r"Weather planning|[Ww]eather brief|forecast|Availability of related info"),
    ),
    (
        "carburetor icing",
        _rx(r"\bcarburetor (?:ic\w*|heat)\b"),
        re.compile(r"[Cc]arburetor icing|carburetor heat|Conducive to carburetor"),
    ),
    ("oil", _rx(r"\boil\b"), re.compile(r"\b(?:Oil|oil)\b")),
    (
        "the ignition",
        _rx(r"\b(?:magnetos?|ignition|spark plugs?)\b"),
        re.compile(r"Magneto|Ignition|Spark plug|magneto|ignition|spark plug"),
    ),
    (
        "the engine's internals",
        _rx(r"\b(?:cylinders?|pistons?|valves?|crankshaft|connecting rods?|camshaft|bearings?)\b"),
        re.compile(r"cyl section|Recip engine power|cylinder|piston|valve|crankshaft|bearing"),
    ),
    (
        "the flight controls",
        _rx(
            r"\b(?:elevator|ailerons?|rudder|flight controls?|trim|control cables?|control rods?)\b"
        ),
        re.compile(r"Flight control system|elevator|aileron|rudder|control cable|trim"),
    ),
    (
        "the landing gear",
        _rx(r"\b(?:landing gear|gear|wheels?|brakes?|floats?|skis?)\b"),
        re.compile(r"Landing gear|landing gear|Wheel|wheel|brake|float"),
    ),
    (
        "the structure",
        _rx(
            r"\b(?:spars?|structural|fatigue cracks?|fractur\w*|in-?flight (?:breakup|separation)|"
            r"breakup)\b"
        ),
        re.compile(r"structure|Spar|spar|Fatigue/wear|fracture|separat|breakup"),
    ),
    (
        "a rotor",
        _rx(r"\b(?:main rotor|tail rotor|rotor blades?|swashplate|mast|rotor)\b"),
        re.compile(r"rotor|Rotor"),
    ),
    ("the propeller", _rx(r"\bpropellers?\b"), re.compile(r"[Pp]ropeller")),
    ("a fire", _rx(r"\b(?:fire|smoke)\b"), re.compile(r"\b(?:[Ff]ire|[Ss]moke)\b")),
    (
        "weight and balance",
        _rx(r"\b(?:overweight|gross weight|weight|balance|center of gravity)\b"),
        re.compile(r"Maximum weight|Weight/balance|weight|balance|gravity"),
    ),
    (
        "experience or certification",
        _rx(
            r"\b(?:experience|training|certificat\w*|(?:non-?)?instrument-rated|rating|"
            r"qualif\w*|proficien\w*|noncertificated|non-certificated)\b"
        ),
        re.compile(
            r"Experience|experience|Training|training|Qualification|certificat|\brating|\brated\b"
        ),
    ),
    ("the preflight", _rx(r"\bpre-?flight\b"), re.compile(r"[Pp]re-?flight")),
    ("a checklist", _rx(r"\bchecklists?\b"), re.compile(r"[Cc]hecklist")),
    (
        "suicide",
        _rx(r"\b(?:suicide|intentional(?:ly)?)\b"),
        re.compile(r"Suicide|suicide|Intentional|intentional"),
    ),
    ("hypoxia", _rx(r"\b(?:hypoxia|oxygen)\b"), re.compile(r"[Hh]ypoxia|[Oo]xygen")),
    (
        "attention or lookout",
        _rx(r"\b(?:lookout|attention|distract\w*|monitor\w*|vigilance)\b"),
        re.compile(r"Attention|Monitoring|lookout|distract|monitor"),
    ),
    (
        "climb or takeoff performance",
        _rx(
            r"\b(?:climb performance|climb capability|takeoff distance|runway length|"
            r"obstacles?|performance)\b"
        ),
        re.compile(
            r"Climb capability|Takeoff distance|Performance calculations|performance|"
            r"runway length"
        ),
    ),
    (
        "communication",
        _rx(r"\b(?:communicat\w*|radio|phraseology)\b"),
        re.compile(r"Communication|communicat|radio"),
    ),
    ("the autopilot", _rx(r"\bautopilot\b"), re.compile(r"[Aa]utopilot|Automation")),
)

_WHERE = re.compile(r"\bnear [A-Z][^.\n]*|^Airport: .*$", re.MULTILINE)
"""Where it happened: town and airport names (Lake Worth, Hilliard, Bear Mountain) say
nothing about what the accident was about."""

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

DESCRIPTIONS: dict[str, str] = {
    "fits_aircraft": "the kind of aircraft the statement names fits the report's (+1) or not (-1)",
    "fits_phase": "the phase of flight the statement names fits the report's (+1) or not (-1)",
    "fits_weather": "the statement's low-visibility weather fits the report's (+1) or not (-1)",
    "fits_engine": "the statement's engine parts (carburetor, turbine) fit the report's engine",
    "fits_engine_count": "the statement's multi-engine words fit the report's engine count",
    "fits_actor": "who the statement says acted (instructor, mechanic, ...) is in the report",
    "fits_undetermined": "the statement's 'could not be determined' fits the report's findings",
    "fits_purpose": "the kind of flight the statement names fits the report's purpose",
    "fits_topics": "topics of the statement the report speaks of minus those it does not",
    "misses_topics": "topics of the statement (fuel, wires, ...) the report never names",
}


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
