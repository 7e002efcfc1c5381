"""The paper-000 QA benchmark data: synthetic causal models, questions with exact ground
truth, a held-out paraphrase set, graders, and the paper's own numbers.

The paper (§4) evaluates on synthetic problems: a directed Erdős–Rényi DAG with n_n nodes
and edge probability p = 0.2, and a table of individual treatment effects (ITE) of n_t
treatments on n_s subjects, e = 100·ε − 30 with ε ~ N(0, 1), plus an "Already Engaged"
column. Questions come from four graph templates and seven treatment-effect templates.
This module rebuilds all of that, deterministically from a seed:

- `generate_model` draws the graph and the table as a `CausalModel` with realistic,
  unique variable and treatment names (spaces, punctuation, some unicode), scaling to
  thousands of nodes and tens of thousands of subjects.
- `generate_questions` instantiates `TEMPLATES` on a model. Every `QAItem` carries its
  exact expected result, computed here directly from the graph and the table (not through
  `causalqa.qa.tools`, so the tests cross-check the tools), the plan of tool calls that
  answers it, and an ideal answer sentence for the LLM judge.
- Paraphrase sets word every template other ways: files read by `causalqa.bench.wordings`
  (``bench/data/wordings/paraphrase/``; set "a" first, "dev"…"dev5" for development,
  "test"…"test3" held out). They are for evaluation only — never put them in a prompt or
  a few-shot library, or the "unseen paraphrase" score measures memory, not understanding.
- `grade_exact` grades a machine-readable result; `judge_prompt`/`parse_judge` are the
  paper's LLM judge (Listing 5).
- `paper_tables` returns the numbers the paper reports (Tables 1–4, 6–9), for reports
  that print ours beside theirs.

    >>> model = generate_model(10, 5, 30, seed=0)
    >>> items = generate_questions(model, n_per_template=2, seed=0)
    >>> from causalqa.qa.tools import execute
    >>> all(grade_exact(i.expected, execute({"steps": i.plan}, model).result) for i in items)
    True
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from causalqa.bench.published import published
from causalqa.bench.wordings import load_wordings, wording_sets
from causalqa.causal_model import CausalModel
from causalqa.errors import ConfigError, DataFileError

ENGAGED = "Already Engaged"
"""The boolean filter column of generated tables; "not yet engaged" means it is false."""

SUBJECT_COLUMN = "Partner ID"
"""Header of the subject-id column of generated tables (the paper's partners scenario)."""

NOT_ENGAGED = {"filter": ENGAGED, "value": False}
"""The `where` argument selecting subjects that are not yet engaged."""

# -- names ---------------------------------------------------------------------------------

# Business and health variables. Realistic names, some with spaces, punctuation or
# non-ASCII characters, because real expert systems export such names and the engines must
# not trip over them. No commas (answers list names joined by ", ") and no braces.
BASE_VARIABLES: tuple[str, ...] = (
    "Revenue", "Net Promoter Score", "Churn Rate", "Customer Satisfaction", "Tech Support",
    "Discount (%)", "Café Visits", "Price", "Demand", "Marketing Spend", "Ad Impressions",
    "Website Traffic", "Conversion Rate", "Order Value", "Repeat Purchases",
    "Support Tickets", "Response Time (h)", "Employee Morale", "Staff Turnover",
    "Training Hours", "Product Quality", "Defect Rate", "Delivery Delay", "Inventory Level",
    "Stock-outs", "Brand Awareness", "Social Media Mentions", "Email Open Rate",
    "Click-through Rate", "Lead Volume", "Sales Calls", "Deal Size", "Contract Length",
    "Renewal Rate", "Upsell Revenue", "Partner Engagement", "Loyalty Points", "App Sessions",
    "Page Load Time (s)", "R&D Budget", "Patent Filings", "Market Share", "Competitor Price",
    "Seasonality", "Foot Traffic", "Store Size (m²)", "Temperature (°C)", "Cost per Lead (€)",
    "Blood Pressure", "Heart Rate", "Body-Mass Index", "Cholesterol (LDL)", "Sleep Quality",
    "Daily Steps", "Stress Level", "Caffeine Intake", "Sugar Intake", "Exercise Minutes",
    "Medication Adherence", "Hospital Visits", "Recovery Time", "Pain Score",
    "Vitamin D Level", "Smoking", "Alcohol Use", "Age", "Income", "Education Level",
    "Commute Time", "Screen Time", "Diet Quality", "Insurance Coverage", "Clinic Wait Time",
    "Doctor Visits", "Vaccination Rate", "Air Quality (AQI)", "Noise Exposure",
    "Résumé Screenings", "Crème Brûlée Sales", "Working Hours/Week",
)  # fmt: skip

# Prefixes that turn a base name into another plausible variable ("Weekly Revenue").
QUALIFIERS: tuple[str, ...] = (
    "Regional", "Online", "Weekly", "Monthly", "Quarterly", "Average", "Peak", "Baseline",
    "Projected", "Reported", "Northern", "Southern", "Urban", "Rural", "Senior", "Junior",
    "Premium", "Wholesale", "Retail", "Mobile", "In-store", "Team", "Clinic", "Night-shift",
    "Weekend", "Holiday", "Trial", "Long-term", "Seasonal", "Core",
)  # fmt: skip

# Engagements and interventions: the treatments of the ITE table (enough for the paper's
# n_t = 40 without combining). "Tech Support" is also a variable name on purpose: in the
# paper's Listing 4 treatments appear in the graph too, and an engine must cope.
BASE_TREATMENTS: tuple[str, ...] = (
    "Tech Support", "Discount", "New Engagement Strategy", "Loyalty Program", "Free Trial",
    "Onboarding Call", "Webinar Invite", "Email Campaign", "Account Manager",
    "Training Workshop", "Co-Marketing Fund", "Extended Warranty", "Priority Shipping",
    "Price Match", "Referral Bonus", "Product Demo", "Quarterly Business Review",
    "Partner Summit Invite", "Certification Voucher", "Volume Rebate (5%)", "Free Upgrade",
    "Customer Success Check-in", "Newsletter", "Social Media Ads", "Trade-show Pass",
    "Sales Kit", "Dedicated Slack Channel", "Case Study Feature", "Beta Access",
    "Health Coaching", "Nutrition Plan", "Fitness Tracker", "Telehealth Consultation",
    "Flu Vaccine", "Smoking Cessation Program", "Mindfulness Course", "Physiotherapy",
    "Medication Reminder", "Home Visit", "Café Voucher", "Gift Card (€20)",
    "Hackathon Sponsorship", "Joint Press Release", "Loyalty Points Boost",
)  # fmt: skip

TREATMENT_QUALIFIERS: tuple[str, ...] = (
    "Email", "Phone", "In-person", "Online", "Premium", "Basic", "Regional", "Extended",
    "Monthly", "One-off", "Team", "VIP",
)  # fmt: skip


def _name_pool(
    n: int, bases: Sequence[str], qualifiers: Sequence[str], rng: np.random.Generator
) -> list[str]:
    """At least `n` unique names: the bases first, then "Qualifier Base", then
    "Qualifier Qualifier Base", then numbered names — each tier shuffled by `rng` so large
    models mix qualifiers instead of listing every "Regional …" first."""
    pool: list[str] = []
    seen: set[str] = set()

    def add(names: Iterable[str]) -> None:
        for name in names:
            if name not in seen:
                seen.add(name)
                pool.append(name)

    add(bases)
    tiers: list[Callable[[], list[str]]] = [
        lambda: [f"{q} {b}" for q, b in itertools.product(qualifiers, bases)],
        lambda: [
            f"{q1} {q2} {b}"
            for q1, q2, b in itertools.product(qualifiers, qualifiers, bases)
            if q1 != q2
        ],
    ]
    for tier in tiers:
        if len(pool) >= n:
            break
        names = tier()
        add(names[i] for i in rng.permutation(len(names)))
    k = 2
    while len(pool) < n:  # beyond ~70,000 names: number them, still readable
        add(f"{b} {k}" for b in bases)
        k += 1
    return pool


def _pick_names(
    n: int, bases: Sequence[str], qualifiers: Sequence[str], rng: np.random.Generator
) -> list[str]:
    """`n` distinct names in random order, plain base names whenever `n` allows."""
    pool = _name_pool(n, bases, qualifiers, rng)
    # Up to len(bases) draw among bases only; above, every base plus the first combinations.
    pool = pool[: max(n, len(bases))]
    return [pool[i] for i in rng.permutation(len(pool))[:n]]


# -- the generator -------------------------------------------------------------------------


def _check_size(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ConfigError(
            f"{name} must be a whole number of at least {minimum}, got {value!r}",
            hint=f"pass {name}={max(minimum, 1)} or more",
        )
    return int(value)


def generate_model(
    n_nodes: int, n_treatments: int, n_subjects: int, *, p: float = 0.2, seed: int
) -> CausalModel:
    """A random causal model as in the paper's experiments (§4).

    The graph is a directed Erdős–Rényi DAG: every unordered pair of variables gets an
    edge with probability `p`, oriented from the earlier to the later variable of a random
    order, so it is acyclic by construction (variables are listed in a different random
    order, so file order reveals nothing). The effects table has subject ids "1".."n_s"
    in a first column "Partner ID", one column per treatment holding
    e = 100·ε − 30 with ε ~ N(0, 1) (rounded to cents: real ITE exports are, and it keeps
    the CSV of context prompts at a realistic size), and a boolean "Already Engaged"
    column (each subject with probability ½). Graph and table are separate artefacts, as
    from a causal expert system: treatments are not graph nodes (though a name may
    coincide).

    "Already Engaged" always holds at least one false (and, with two or more subjects, one
    true) value, so questions about subjects not yet engaged always have an answer.

    Args:
        n_nodes, n_treatments, n_subjects: sizes, each at least 1.
        p: edge probability, 0 ≤ p ≤ 1.
        seed: the same seed gives the same model.

    Raises:
        ConfigError: a size below 1 or p outside [0, 1].

    >>> m = generate_model(5, 3, 10, seed=1)
    >>> len(m.variables), len(m.treatments), m.subjects[:3], m.filters
    (5, 3, ['1', '2', '3'], ['Already Engaged'])
    """
    n_n = _check_size("n_nodes", n_nodes)
    n_t = _check_size("n_treatments", n_treatments)
    n_s = _check_size("n_subjects", n_subjects)
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ConfigError(
            f"p must be a probability between 0 and 1, got {p!r}", hint="the paper uses 0.2"
        )
    rng = np.random.default_rng(seed)

    names = _pick_names(n_n, BASE_VARIABLES, QUALIFIERS, rng)
    rank = rng.permutation(n_n)  # rank[i]: topological position; edges go low → high
    by_rank = [names[i] for i in np.argsort(rank)]
    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    # One row of coin flips per variable keeps memory linear (an n×n matrix would be
    # 800 MB at 10,000 nodes) with the same distribution.
    for i in range(n_n - 1):
        hits = np.flatnonzero(rng.random(n_n - i - 1) < p) + i + 1
        graph.add_edges_from((by_rank[i], by_rank[j]) for j in hits)

    treatments = _pick_names(n_t, BASE_TREATMENTS, TREATMENT_QUALIFIERS, rng)
    effects = np.round(100.0 * rng.standard_normal((n_s, n_t)) - 30.0, 2)
    engaged = rng.random(n_s) < 0.5
    if engaged.all():
        engaged[rng.integers(n_s)] = False
    elif n_s > 1 and not engaged.any():
        engaged[rng.integers(n_s)] = True
    table = pd.DataFrame({SUBJECT_COLUMN: [str(i) for i in range(1, n_s + 1)]})
    table = pd.concat(
        [table, pd.DataFrame(effects, columns=treatments), pd.Series(engaged, name=ENGAGED)],
        axis=1,
    )
    return CausalModel.from_graph(graph, table, filters=[ENGAGED])


# -- templates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """A question template.

    `text` has placeholders ``{X}``, ``{Y}`` (variables), ``{T}`` (a treatment), ``{S}``
    (a subject id) and ``{unit}``/``{Unit}`` (what a subject is: "partner", from the
    subject column's header). `category` is the paper's wording of what it asks.
    """

    id: str
    family: str  # "graph" or "effect"
    category: str
    text: str
    slots: tuple[str, ...]


def _templates(*ts: Template) -> dict[str, Template]:
    return {t.id: t for t in ts}


TEMPLATES: dict[str, Template] = _templates(
    # The paper's four graph templates (§4), word for word.
    Template(
        "connectivity",
        "graph",
        "Connectivity",
        "Does a change in {X} lead to a change in {Y}?",
        ("X", "Y"),
    ),
    Template(
        "paths", "graph", "Paths", "Through which variables does {X} influence {Y}?", ("X", "Y")
    ),
    Template(
        "parents", "graph", "Direct Parents", "Which variables directly influence {X}?", ("X",)
    ),
    Template(
        "children",
        "graph",
        "Direct Children",
        "If I change the value of {X}, which variables are directly affected?",
        ("X",),
    ),
    # Seven treatment-effect templates. The paper names their categories (optimal
    # treatment over the full table, or under: not yet engaged; a specific treatment; a
    # specific subject; combinations) but not their wording, so they follow its Listing 4
    # examples where one exists.
    Template(
        "best_treatment",
        "effect",
        "optimal treatment over the full table",
        "What's the engagement with the highest average effect?",
        (),
    ),
    Template(
        "best_treatment_not_engaged",
        "effect",
        "optimal treatment for subjects not yet engaged",
        "What's the engagement with the highest average effect on {unit}s that have not yet "
        "been engaged with a program?",
        (),
    ),
    Template(
        "ate",
        "effect",
        "effect of a specific treatment",
        'What\'s the average effect of the engagement "{T}"?',
        ("T",),
    ),
    Template(
        "best_subject",
        "effect",
        "optimal subject for a specific treatment",
        'Which {unit} has the highest revenue growth when providing engagement "{T}"?',
        ("T",),
    ),
    Template(
        "best_subject_not_engaged",
        "effect",
        "optimal subject not yet engaged for a specific treatment",
        "Which {unit} that has not yet been engaged with a program has the highest revenue "
        'growth when providing engagement "{T}"?',
        ("T",),
    ),
    Template(
        "ite",
        "effect",
        "effect of a specific treatment on a specific subject",
        'When applying the engagement "{T}" on {unit} {S}, what\'s the effect?',
        ("T", "S"),
    ),
    Template(
        "best_treatment_for_subject",
        "effect",
        "optimal treatment for a specific subject",
        "Which engagement has the highest effect on {unit} {S}?",
        ("S",),
    ),
)
"""The four graph and seven effect templates, by id, in benchmark order."""

GRAPH_TEMPLATES = tuple(t for t, v in TEMPLATES.items() if v.family == "graph")
EFFECT_TEMPLATES = tuple(t for t, v in TEMPLATES.items() if v.family == "effect")


def paraphrase_set(name: str) -> Mapping[str, tuple[str, ...]]:
    """The paraphrase set `name` (template id → wordings), from its data file
    (`causalqa.bench.wordings`): "a" (the first set, author-written, inspected once),
    "dev" … "dev5" (for developing the engine: look at their failures freely) and
    "test", "test2", "test3" (held out: report only).

    Raises:
        ConfigError: an unknown set name.
        DataFileError: the benchmark data is not installed, or the set does not word
            exactly the templates of `TEMPLATES`.
    """
    found = load_wordings(name, "paraphrase")
    if set(found.wordings) != set(TEMPLATES):
        raise DataFileError(
            f"{found.path}: words templates {sorted(found.wordings)}, not {sorted(TEMPLATES)}",
            path=str(found.path),
        )
    return found.wordings


def paraphrase_sets() -> list[str]:
    """Names of every paraphrase set."""
    return wording_sets("paraphrase")


# -- items ---------------------------------------------------------------------------------


@dataclass
class QAItem:
    """One benchmark question with its exact answer.

    Attributes:
        id: unique within one `generate_questions` call, e.g. ``"paths-3"``; the same in
            template and paraphrased mode, so the two can be compared item by item.
        family: ``"graph"`` or ``"effect"``.
        template: the `TEMPLATES` id.
        question: the question text.
        expected: the machine-readable answer — a bool, a list of names, a number, or
            ``{"arg": name or subject id, "value": number}``.
        plan: tool calls that answer it, ``[{"tool": name, "args": {...}}, ...]``; run it
            with ``causalqa.qa.tools.execute({"steps": plan}, model)``.
        ideal: the ideal answer sentence (what the LLM judge compares against).
        slots: what was filled in: ``X``/``Y`` variables, ``T`` treatment, ``S`` subject.
        paraphrase: index into ``paraphrase_set(paraphrase_set)[template]``, or None for
            the template wording.
    """

    id: str
    family: str
    template: str
    question: str
    expected: Any
    plan: list[dict[str, Any]]
    ideal: str
    slots: dict[str, str] = field(default_factory=dict)
    paraphrase: int | None = None
    paraphrase_set: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def unit_noun(model: CausalModel) -> str:
    """What a subject is called, from the id column's header: "Partner ID" → "partner",
    "patient_id" → "patient"; "subject" when nothing is left."""
    header = model.subject_column or ""
    noun = re.sub(r"[\s_-]*(id|ids|no|number|#)\s*$", "", header.strip(), flags=re.I).strip()
    return noun.lower() or "subject"


def _join(names: Sequence[str]) -> str:
    """Names as prose: "A", "A and B", "A, B and C"."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _num(x: float) -> str:
    return f"{x:.2f}"


class _Truth:
    """Ground truth computed straight from the graph and the table, with networkx and
    numpy, independently of `causalqa.qa.tools` (so tests cross-check the tools)."""

    def __init__(self, model: CausalModel) -> None:
        self.model = model
        self.graph = model.graph
        self._desc: dict[str, set[str]] = {}
        self._anc: dict[str, set[str]] = {}

    def ordered(self, names: Iterable[str]) -> list[str]:
        return sorted(names, key=self.model.order)

    def desc(self, x: str) -> set[str]:
        if x not in self._desc:
            self._desc[x] = nx.descendants(self.graph, x)
        return self._desc[x]

    def anc(self, y: str) -> set[str]:
        if y not in self._anc:
            self._anc[y] = nx.ancestors(self.graph, y)
        return self._anc[y]

    def rows(self, not_engaged: bool) -> pd.DataFrame:
        eff = self.model.effects
        return eff[~eff[ENGAGED].to_numpy(dtype=bool)] if not_engaged else eff

    def best_treatment(self, not_engaged: bool = False) -> dict[str, Any]:
        ts = self.model.treatments
        means = self.rows(not_engaged)[ts].to_numpy(dtype=float).mean(axis=0)
        i = int(np.argmax(means))  # first maximum: ties go to table order
        return {"arg": ts[i], "value": float(means[i])}

    def best_subject(self, t: str, not_engaged: bool = False) -> dict[str, Any]:
        rows = self.rows(not_engaged)
        col = rows[t].to_numpy(dtype=float)
        i = int(np.argmax(col))
        return {"arg": str(rows.index[i]), "value": float(col[i])}

    def best_for_subject(self, s: str) -> dict[str, Any]:
        ts = self.model.treatments
        row = self.model.effects.loc[s, ts].to_numpy(dtype=float)
        i = int(np.argmax(row))
        return {"arg": ts[i], "value": float(row[i])}


def _graph_item(truth: _Truth, template: str, slots: dict[str, str]) -> tuple[Any, list, str]:
    """(expected, plan, ideal) of a graph question."""
    x = slots["X"]
    if template == "connectivity":
        y = slots["Y"]
        yes = y in truth.desc(x)
        ideal = (
            f"Yes, a change in {x} leads to a change in {y}."
            if yes
            else f"No, a change in {x} does not lead to a change in {y}; {x} does not "
            f"influence {y}."
        )
        return yes, [{"tool": "is_cause", "args": {"cause": x, "effect": y}}], ideal
    if template == "paths":
        y = slots["Y"]
        plan = [{"tool": "paths_between", "args": {"source": x, "target": y}}]
        if y not in truth.desc(x):
            return [], plan, f"{x} does not influence {y}: there is no causal path from it."
        via = truth.ordered(truth.desc(x) & truth.anc(y))
        if not via:
            return [], plan, f"{x} influences {y} directly, not through any other variable."
        direct = " (and also directly)" if truth.graph.has_edge(x, y) else ""
        return via, plan, f"{x} influences {y} through {_join(via)}{direct}."
    if template == "parents":
        ps = truth.ordered(truth.graph.predecessors(x))
        verb = "influences" if len(ps) == 1 else "influence"
        ideal = (
            f"{_join(ps)} directly {verb} {x}." if ps else f"No variable directly influences {x}."
        )
        return ps, [{"tool": "parents", "args": {"variable": x}}], ideal
    if template == "children":
        cs = truth.ordered(truth.graph.successors(x))
        ideal = (
            f"Changing {x} directly affects {_join(cs)}."
            if cs
            else f"{x} does not directly influence any variables."
        )
        return cs, [{"tool": "children", "args": {"variable": x}}], ideal
    raise AssertionError(template)


def _effect_item(
    truth: _Truth, template: str, slots: dict[str, str], unit: str
) -> tuple[Any, list, str]:
    """(expected, plan, ideal) of an effect question."""
    eff = truth.model.effects
    where = dict(NOT_ENGAGED)
    Unit = unit[:1].upper() + unit[1:]
    if template == "best_treatment":
        r = truth.best_treatment()
        ideal = (
            f"The engagement with the highest average effect is {r['arg']}, with an average "
            f"effect of {_num(r['value'])}."
        )
        return r, [{"tool": "best_treatment", "args": {}}], ideal
    if template == "best_treatment_not_engaged":
        r = truth.best_treatment(not_engaged=True)
        ideal = (
            f"Among {unit}s not yet engaged, the engagement with the highest average effect "
            f"is {r['arg']}, with an average effect of {_num(r['value'])}."
        )
        return r, [{"tool": "best_treatment", "args": {"where": where}}], ideal
    t = slots.get("T")
    if template == "ate":
        v = float(eff[t].to_numpy(dtype=float).mean())
        ideal = f"The average effect of the engagement {t} is {_num(v)}."
        return v, [{"tool": "ate", "args": {"treatment": t}}], ideal
    if template == "best_subject":
        r = truth.best_subject(t)
        ideal = (
            f"{Unit} {r['arg']} has the highest revenue growth when providing {t}, with an "
            f"individual effect of {_num(r['value'])}."
        )
        return r, [{"tool": "best_subject", "args": {"treatment": t}}], ideal
    if template == "best_subject_not_engaged":
        r = truth.best_subject(t, not_engaged=True)
        ideal = (
            f"Among {unit}s not yet engaged, {unit} {r['arg']} has the highest revenue growth "
            f"when providing {t}, with an individual effect of {_num(r['value'])}."
        )
        return r, [{"tool": "best_subject", "args": {"treatment": t, "where": where}}], ideal
    s = slots.get("S")
    if template == "ite":
        v = float(eff.at[s, t])
        ideal = f"Applying {t} to {unit} {s} has an effect of {_num(v)}."
        return v, [{"tool": "ite", "args": {"treatment": t, "subject": s}}], ideal
    if template == "best_treatment_for_subject":
        r = truth.best_for_subject(s)
        ideal = (
            f"The engagement with the highest effect on {unit} {s} is {r['arg']}, with an "
            f"effect of {_num(r['value'])}."
        )
        return r, [{"tool": "best_treatment", "args": {"subject": s}}], ideal
    raise AssertionError(template)


# -- sampling ------------------------------------------------------------------------------


def _choice(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _draw_unique(want: int, draw: Callable[[], tuple[str, ...] | None]) -> list[tuple[str, ...]]:
    """Up to `want` distinct results of ``draw()`` (None = no proposal this time).

    Gives up after a bounded number of proposals, so a small space yields fewer items
    instead of duplicates or an endless loop.
    """
    out: dict[tuple[str, ...], None] = {}  # a dict keeps the drawing order
    for _ in range(30 * want + 100):
        if len(out) >= want:
            break
        got = draw()
        if got is not None:
            out.setdefault(got)
    return list(out)


ENUMERATE_UP_TO = 200
"""Graphs up to this many variables have all their pairs enumerated when sampling; larger
ones are sampled at random (all pairs would be a million at 1,000 nodes, and random
pairs there practically never repeat or run out)."""


def _pairs(
    truth: _Truth, rng: np.random.Generator, want: int
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Up to `want` distinct ordered pairs (x, y), x ≠ y, joined by a directed path, and
    up to `want` not joined by one, each list in random order."""
    vs = truth.model.variables
    if len(vs) < 2:
        return [], []
    if len(vs) <= ENUMERATE_UP_TO:
        conn, unconn = [], []
        for x in vs:
            d = truth.desc(x)
            for y in vs:
                if y != x:
                    (conn if y in d else unconn).append((x, y))
        return (
            [conn[int(i)] for i in rng.permutation(len(conn))[:want]],
            [unconn[int(i)] for i in rng.permutation(len(unconn))[:want]],
        )
    sources = [v for v in vs if truth.graph.out_degree(v) > 0]

    def connected() -> tuple[str, str] | None:
        if not sources:
            return None
        x = _choice(rng, sources)
        return x, _choice(rng, truth.ordered(truth.desc(x)))

    def unconnected() -> tuple[str, str] | None:
        x = _choice(rng, vs)
        d = truth.desc(x)
        pool = [v for v in vs if v != x and v not in d]
        return (x, _choice(rng, pool)) if pool else None

    return _draw_unique(want, connected), _draw_unique(want, unconnected)


def _sample_slots(
    template: str, truth: _Truth, rng: np.random.Generator, want: int
) -> list[dict[str, str]]:
    model = truth.model
    vs = model.variables
    if template == "connectivity":
        # Balanced: items alternate between pairs joined by a directed path (first) and
        # pairs that are not; when the graph runs out of one kind, the other fills in.
        conn, unconn = _pairs(truth, rng, want)
        pairs: list[tuple[str, str]] = []
        while len(pairs) < want and (conn or unconn):
            first, second = (conn, unconn) if len(pairs) % 2 == 0 else (unconn, conn)
            pairs.append((first or second).pop(0))
        return [{"X": x, "Y": y} for x, y in pairs]
    if template == "paths":
        conn, unconn = _pairs(truth, rng, want)  # pairs joined by a path first
        return [{"X": x, "Y": y} for x, y in (conn + unconn)[:want]]
    if template in ("parents", "children"):
        return [{"X": vs[int(i)]} for i in rng.permutation(len(vs))[:want]]
    ts, ss = model.treatments, model.subjects
    if template in ("best_treatment", "best_treatment_not_engaged"):
        return [{}]  # no slots: one question per model; repeating it adds nothing
    if template in ("ate", "best_subject", "best_subject_not_engaged"):
        return [{"T": ts[int(i)]} for i in rng.permutation(len(ts))[:want]]
    if template == "ite":
        pairs = _draw_unique(want, lambda: (_choice(rng, ts), _choice(rng, ss)))
        return [{"T": t, "S": s} for t, s in pairs]
    if template == "best_treatment_for_subject":
        return [{"S": ss[int(i)]} for i in rng.permutation(len(ss))[:want]]
    raise AssertionError(template)


def _usable(template: str, model: CausalModel) -> bool:
    """Whether the model can answer this template at all."""
    if TEMPLATES[template].family == "graph":
        return True
    if model.effects is None or not model.treatments:
        return False
    if template.endswith("_not_engaged"):
        return ENGAGED in model.filters and not bool(model.effects[ENGAGED].all())
    return True


def generate_questions(
    model: CausalModel,
    *,
    n_per_template: int,
    seed: int,
    paraphrased: bool | str = False,
    templates: Iterable[str] | None = None,
) -> list[QAItem]:
    """Questions about `model` with exact expected results, plans and ideal answers.

    For each template (all of `TEMPLATES`, or those named in `templates`) up to
    `n_per_template` distinct questions: fewer when the model has fewer distinct ones (a
    5-node graph; the two slot-free "best engagement" templates yield one each). Variables,
    treatments and subjects are drawn with `seed`. Connectivity alternates pairs with and
    without a directed path (balanced whenever the graph has both); Paths asks about pairs
    joined by a path whenever the graph has any. Effect templates are skipped when the
    model has no effects table, and the "not yet engaged" ones when it has no
    "Already Engaged" column with a false value.

    With ``paraphrased=True`` the same items (same ids, slots, answers) are worded by
    paraphrase set "a" instead, cycling through every paraphrase of a template; with a set
    name ("a", "dev", "test", …: `causalqa.bench.wordings.wording_sets("paraphrase")`) by
    that set.

    Raises:
        ConfigError: n_per_template < 1, or an unknown template id.
    """
    n = _check_size("n_per_template", n_per_template)
    chosen = list(TEMPLATES) if templates is None else list(templates)
    unknown = [t for t in chosen if t not in TEMPLATES]
    if unknown:
        raise ConfigError(
            f"unknown question templates {unknown}", hint="use: " + ", ".join(TEMPLATES)
        )
    set_name = "a" if paraphrased is True else (paraphrased or None)
    wordings = paraphrase_set(set_name) if set_name is not None else {}
    truth = _Truth(model)
    unit = unit_noun(model)
    items: list[QAItem] = []
    for k, tid in enumerate(TEMPLATES):  # fixed order and one stream per template, so
        if tid not in chosen or not _usable(tid, model):  # choosing templates changes nothing
            continue
        tpl = TEMPLATES[tid]
        rng = np.random.default_rng([seed, k])
        para_rng = np.random.default_rng([seed, k, 1])
        offset = int(para_rng.integers(len(wordings[tid]))) if set_name else 0
        for i, slots in enumerate(_sample_slots(tid, truth, rng, n)):
            if tpl.family == "graph":
                expected, plan, ideal = _graph_item(truth, tid, slots)
            else:
                expected, plan, ideal = _effect_item(truth, tid, slots, unit)
            para = (offset + i) % len(wordings[tid]) if set_name else None
            text = tpl.text if para is None else wordings[tid][para]
            fill = {**slots, "unit": unit, "Unit": unit[:1].upper() + unit[1:]}
            items.append(
                QAItem(
                    id=f"{tid}-{i}",
                    family=tpl.family,
                    template=tid,
                    question=text.format(**fill),
                    expected=expected,
                    plan=plan,
                    ideal=ideal,
                    slots=dict(slots),
                    paraphrase=para,
                    paraphrase_set=set_name,
                )
            )
    return items


# -- grading -------------------------------------------------------------------------------

REL_TOL = 1e-6
ABS_TOL = 0.01


def normalize_result(value: Any) -> Any:
    """The machine-readable answer inside a tool result.

    An `ExecutionResult` gives its final result; a `paths_between` result gives its
    ``variables``; a dict with ``arg`` and ``value`` (best-of, compare) gives just those
    two. Anything else is returned unchanged.
    """
    if hasattr(value, "steps") and hasattr(value, "result"):
        value = value.result
    if isinstance(value, Mapping):
        if "variables" in value and "paths" in value:
            return list(value["variables"])
        if "arg" in value and "value" in value:
            return {"arg": value["arg"], "value": value["value"]}
    return value


def _is_number(x: Any) -> bool:
    return (
        isinstance(x, numbers.Real)
        and not isinstance(x, bool | np.bool_)
        and math.isfinite(float(x))
    )


def _close(expected: float, got: Any) -> bool:
    if not _is_number(got):
        return False
    e, g = float(expected), float(got)
    if abs(e - g) <= max(REL_TOL * abs(e), ABS_TOL):
        return True
    # An answer quoting the value to 2 decimals; round() and the ± float error of the
    # decimal text can disagree on a half-cent, so compare the cents.
    return round(e, 2) == round(g, 2)


def grade_exact(expected: Any, result: Any) -> bool:
    """Whether `result` is the exact answer `expected` (a `QAItem.expected`).

    - bool: the result is the same bool (not 0/1, not "yes").
    - list of names: the result is a list/tuple/set with the same names, in any order,
      duplicates ignored (names and ids compared as strings).
    - number: within relative 1e-6 or absolute 0.01 (a value rounded to 2 decimals passes).
    - ``{"arg", "value"}``: the same arg (as a string: subject 3 is "3") and a value
      within the number tolerance.

    `result` may be a raw tool result or `ExecutionResult` (see `normalize_result`).
    Never raises: anything of the wrong shape is simply wrong.
    """
    result = normalize_result(result)
    if isinstance(expected, bool | np.bool_):
        return isinstance(result, bool | np.bool_) and bool(result) == bool(expected)
    if isinstance(expected, list | tuple | set | frozenset):
        if not isinstance(result, list | tuple | set | frozenset):
            return False
        return {str(x) for x in expected} == {str(x) for x in result}
    if isinstance(expected, Mapping):
        if not isinstance(result, Mapping) or "arg" not in result or "value" not in result:
            return False
        if result["arg"] is None or str(result["arg"]) != str(expected["arg"]):
            return False
        return _close(expected["value"], result["value"])
    if _is_number(expected):
        return _close(expected, result)
    return expected == result


JUDGE_TEMPLATE = string.Template(
    """You are assessing a submitted answer on a given task based on an ideal answer. Here is the data:
[BEGIN DATA]
***
[Task]: $input
***
[Submission]: $submission
***
[Ideal]: $ideal
***
[END DATA]
Do the submission and the ideal answer match?
First, write out in a step by step manner your reasoning about the criterion to be sure that your conclusion is correct.
Avoid simply stating the correct answers at the outset.
Then print only the single character "Y" or "N" (without quotes or punctuation) on its own line corresponding to the correct answer.
At the end, repeat just the letter again by itself on a new line.
If the question and answer are about ITE and revenue increase: The term ITE and revenue increase mean the same thing.
If the question asks about the best intervention or the best partner it is enough if the submission answers this correctly.
Reasoning:"""  # noqa: E501 -- verbatim; the listing's line breaks inside sentences are the PDF's
)
"""The paper's judge prompt (Listing 5, adapted from OpenAI evals' ``closed_qa``)."""


def judge_prompt(task: str, submission: str, ideal: str) -> str:
    """Listing 5 with the question (`task`), the answer to grade and the ideal answer
    filled in. Values are inserted once, so a ``$`` inside them stays as it is."""
    return JUDGE_TEMPLATE.substitute(input=task, submission=submission, ideal=ideal)


def parse_judge(text: str) -> bool | None:
    """The judge's verdict: True for Y, False for N, from the last line that is exactly
    "Y" or "N" (surrounding whitespace ignored); None when there is no such line."""
    for line in reversed(text.splitlines()):
        s = line.strip()
        if s in ("Y", "N"):
            return s == "Y"
    return None


# -- the paper's numbers -------------------------------------------------------------------


def _int_keys(node: Any) -> Any:
    """JSON keeps sizes as text; the tables are keyed by the numbers."""
    if isinstance(node, dict):
        return {int(k) if k.isdigit() else k: _int_keys(v) for k, v in node.items()}
    return node


def paper_tables() -> dict[str, Any]:
    """The numbers paper 000 reports, for printing beside ours.

    Returns a new dict each call::

        {"graph":  {"unparseable": T, "correct": T},   # T[llm][method][n_n]
         "effect": {"unparseable": E, "correct": E},   # E[llm][method][n_t][n_s]
         "tables": {...}, "notes": "..."}

    with llm "gpt-3.5-turbo" (Tables 1–4) or "gpt-4" (Appendix A, Tables 6–9), method
    "tool" or "context", and each cell ``{"mean": m, "std": s}`` or None where the paper
    prints "-" (no parseable response). "unparseable" is the proportion of responses that
    were not parseable JSON; "correct" the LLM-judged correctness of the parseable ones.

    >>> paper_tables()["graph"]["correct"]["gpt-3.5-turbo"]["tool"][40]
    {'mean': 0.93, 'std': 0.26}
    """
    tables = _int_keys(published("000"))
    tables.pop("paper")
    return tables


__all__ = [
    "ABS_TOL",
    "BASE_TREATMENTS",
    "BASE_VARIABLES",
    "EFFECT_TEMPLATES",
    "ENGAGED",
    "GRAPH_TEMPLATES",
    "JUDGE_TEMPLATE",
    "NOT_ENGAGED",
    "paraphrase_set",
    "paraphrase_sets",
    "REL_TOL",
    "SUBJECT_COLUMN",
    "TEMPLATES",
    "QAItem",
    "Template",
    "generate_model",
    "generate_questions",
    "grade_exact",
    "judge_prompt",
    "normalize_result",
    "paper_tables",
    "parse_judge",
    "unit_noun",
]
