"""The chain parser on real model outputs (saved verbatim) and hand-mangled ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causalqa.deduction.chains import (
    EXTRACTED,
    INFERRED,
    Chain,
    chain_edges,
    clean_chains,
    echoes_example,
    format_chains,
    node_key,
    parse_chains,
)

FIXTURES = Path(__file__).parent / "fixtures"


def nodes(text, **kw):
    return [c.nodes for c in parse_chains(text, **kw)]


@pytest.mark.parametrize("arrow", ["-->", "->", "→", "=>", "⟶", "⇒", "—>", "==>", "- ->"])
def test_arrow_variants(arrow):
    assert nodes(f"1. Ice on wing {arrow} Lift loss {arrow} Stall") == [
        ("Ice on wing", "Lift loss", "Stall")
    ]


def test_hyphens_inside_words_do_not_split():
    assert nodes("- Low-altitude maneuver --> Wire strike in a tree-lined area") == [
        ("Low-altitude maneuver", "Wire strike in a tree-lined area")
    ]


@pytest.mark.parametrize(
    "marker", ["1.", "1)", "(1)", "-", "*", "•", "a)", "Step 2:", "Chain 3:", "**1.**"]
)
def test_list_markers_are_stripped(marker):
    assert nodes(f"{marker} Fuel leak --> Engine fire") == [("Fuel leak", "Engine fire")]


def test_edges_and_text():
    (c,) = parse_chains("A --> B --> C", kind=INFERRED, report_id="r", statement="A")
    assert c.edges == [("A", "B"), ("B", "C")]
    assert c.text == "A --> B --> C"
    assert (c.kind, c.report_id, c.statement) == (INFERRED, "r", "A")
    assert chain_edges([c, c]) == [("A", "B"), ("B", "C")] * 2


def test_prose_and_empty_replies_give_no_chains():
    assert parse_chains("") == []
    assert parse_chains("The pilot stalled the airplane. Nothing else to add.") == []
    assert parse_chains("-->") == []
    assert parse_chains("A -->") == []


def test_prompt_examples_are_dropped_unless_asked():
    example = (
        "1. Engineer's inattentiveness to signal indications --> Engineer failed to operate "
        "train in accordance with signal indications and speed restriction --> Train "
        "collided with another train (Accident)\n- Cause Event --> Effect Event"
    )
    assert parse_chains(example) == []
    # The format's placeholder is never a chain; the example chain is, when asked.
    assert len(parse_chains(example, drop_examples=False)) == 1


def test_duplicates_are_kept_once_in_order():
    text = "- A --> B\n- C --> D\n- a --> b.\n- A → B"
    assert nodes(text) == [("A", "B"), ("C", "D")]


def test_accident_tag_and_quotes_are_cleaned():
    assert nodes('- "Late flare" --> Hard landing (Accident).') == [("Late flare", "Hard landing")]
    assert node_key("Hard landing (Accident)") == node_key("hard  landing.")


def test_semicolon_separated_chains_on_one_line():
    assert nodes("A -> B; C -> D") == [("A", "B"), ("C", "D")]
    # A semicolon inside an event is not a separator.
    assert nodes("A; and more -> B") == [("A; and more", "B")]


# -- hand-mangled outputs -------------------------------------------------------------------
def test_mangled_markdown():
    assert nodes((FIXTURES / "mangled_markdown.txt").read_text()) == [
        ("Frost on the wings", "Reduced lift", "Aerodynamic stall"),
        ("Pilot did not remove the frost", "Frost on the wings"),
        ("Stall at rotation", "Impact with runway"),
    ]


def test_mangled_wrapped_lines_are_joined_and_examples_dropped():
    assert nodes((FIXTURES / "mangled_wrapped.txt").read_text()) == [
        (
            "Carburetor ice accumulated during cruise",
            "Loss of engine power",
            "Forced landing in a field",
        ),  # noqa: E501
        ("Late application of carburetor heat", "Ice not melted", "Power not restored"),
    ]


def test_mangled_truncated_output_keeps_every_complete_edge():
    got = nodes((FIXTURES / "mangled_truncated.txt").read_text())
    assert got == [
        ("Pilot's fatigue", "Poor judgment", "Continued flight into IMC"),
        ("Continued flight into IMC", "Spatial disorientation", "Loss of control"),
        ("Loss of control", "Impact with terrain"),
        ("Inadequate preflight weather briefing", "Continued flight into IM"),
    ]


def test_mangled_prose_labels_and_cause_effect_pairs():
    assert nodes((FIXTURES / "mangled_prose.txt").read_text()) == [
        ("Fuel mismanagement", "Fuel exhaustion", "Total loss of engine power"),
        ("Total loss of engine power", "Forced landing"),
        ("Water in the fuel", "Engine roughness"),
        ("Engine roughness", "Partial loss of power"),
    ]


# -- real outputs of the embedded model (Prompts 3 and 4), saved verbatim -------------------
def _manifest():
    return json.loads((FIXTURES / "real_manifest.json").read_text(encoding="utf-8"))


def test_real_outputs_parse_without_losing_arrow_lines():
    """Every line of a real reply with an arrow between two events yields a chain with as
    many edges as it has arrows; only the prompt's own example chains are dropped."""
    from causalqa.deduction.chains import ARROW
    from causalqa.deduction.prompts import EXAMPLE_CHAINS

    entries = _manifest()
    assert len(entries) >= 6
    examples = {tuple(node_key(n) for n in c) for c in EXAMPLE_CHAINS}
    for e in entries:
        text = (FIXTURES / e["file"]).read_text(encoding="utf-8")
        arrows = 0
        for ln in text.splitlines():
            parts = [p for p in ARROW.split(ln) if p.strip(" -*.0123456789")]
            # An event repeated back to back (a looping model) is one event.
            keys = [node_key(p) for p in parts]
            parts = [p for i, p in enumerate(parts) if not i or keys[i] != keys[i - 1]]
            arrows += max(len(parts) - 1, 0)
        every = parse_chains(text, drop_examples=False)
        assert sum(len(c.edges) for c in every) == arrows, e["file"]
        if e["finish_reason"] == "length":
            # Cut off: at most the event after the last arrow is dropped.
            cut = parse_chains(text, drop_examples=False, truncated=True)
            assert arrows - 1 <= sum(len(c.edges) for c in cut) <= arrows, e["file"]
        kept = parse_chains(text)
        dropped = [c for c in every if c not in kept]
        assert all(echoes_example(c.nodes) for c in dropped), e["file"]
        assert not any(echoes_example(c.nodes) for c in kept), e["file"]
    assert examples <= {tuple(node_key(n) for n in c) for c in EXAMPLE_CHAINS}


def test_real_extraction_that_echoes_the_examples():
    text = (FIXTURES / "real_extract_ERA24LA297.txt").read_text(encoding="utf-8")
    got = parse_chains(text)
    assert len(got) == 4 and len(parse_chains(text, drop_examples=False)) == 6
    assert (
        got[0].nodes[0]
        == "Personnel issues - Physical - Impairment/incapacitation - Alcohol - Pilot"
    )  # noqa: E501
    assert got[-1].nodes[-1].startswith("Wire was damaged")
    # An inference that only echoes the example holds no chain of this report.
    echo = (FIXTURES / "real_infer-true_ntsb-20240430194174.txt").read_text(encoding="utf-8")
    assert parse_chains(echo) == []


def test_real_extraction_of_a_list():
    text = (FIXTURES / "real_extract_ntsb-20240430194174.txt").read_text(encoding="utf-8")
    assert [c.edges for c in parse_chains(text)] == [
        [("Carburetor icing during flight", "Loss of engine power")],
        [("Carburetor heat insufficient to melt ice", "Loss of engine power")],
        [("Lack of adequate fuel to complete the flight", "Loss of engine power")],
    ]


def test_real_extraction_without_arrows_gives_nothing():
    # The 1.5B model sometimes restates the report instead of listing chains.
    text = (FIXTURES / "real_extract_ntsb-20240215193798.txt").read_text(encoding="utf-8")
    assert "-->" not in text or parse_chains(text)
    if "-->" not in text and "->" not in text:
        assert parse_chains(text) == []


def test_a_reply_cut_off_by_the_budget_keeps_its_chains_but_not_the_cut_event():
    text = "1. Fog --> Low visibility --> Missed approach\n2. Fatigue --> Late flare --> Hard la"
    assert [c.nodes for c in parse_chains(text, truncated=True)] == [
        ("Fog", "Low visibility", "Missed approach"),
        ("Fatigue", "Late flare"),
    ]
    # Not cut off, or cut at a line break: nothing is dropped.
    assert parse_chains(text)[-1].nodes[-1] == "Hard la"
    assert len(parse_chains(text + "\n", truncated=True)[-1].nodes) == 3
    # Cut inside the first event after an arrow, or in prose: earlier chains stay whole.
    assert [c.nodes for c in parse_chains("- A --> B\n- C --> D", truncated=True)] == [("A", "B")]
    assert [c.nodes for c in parse_chains("- A --> B\nThe pil", truncated=True)] == [("A", "B")]


def test_an_event_repeated_back_to_back_is_kept_once():
    got = parse_chains("- Ice --> Stall --> Stall --> stall. --> Impact --> Stall")
    assert [c.nodes for c in got] == [("Ice", "Stall", "Impact", "Stall")]
    assert parse_chains("- Stall --> Stall --> Stall") == []


def test_real_looping_replies_cut_off_by_the_budget():
    """The 1.5B model looping on one event until the budget ran out (Prompt 3, and Prompt
    4 with the context first): the loop collapses to one event, the cut event is dropped,
    and what the reply does contain is kept."""
    text = (FIXTURES / "real_extract-loop_ANC23FA031.txt").read_text(encoding="utf-8")
    assert text.count("Pilot's decision to fly in VMC") > 20
    assert [c.nodes for c in parse_chains(text, truncated=True)] == [
        ("Poor weather conditions", "Pilot's decision to fly in VMC")
    ]
    text = (FIXTURES / "real_infer-loop_CEN23FA284.txt").read_text(encoding="utf-8")
    (chain,) = parse_chains(text, truncated=True, kind=INFERRED)
    assert chain.nodes[0].startswith("Pilot's failure to maintain control during a forced")
    assert len(chain.nodes) == len({node_key(n) for n in chain.nodes}) == 5
    assert all(len(n) > 20 for n in chain.nodes)  # no event cut mid-word


@pytest.mark.parametrize(
    "chain",
    [
        # Real chains of the 1.5B model (bench/data/ckg mining), all about aviation reports.
        "Lack of positive train control system --> Train F not stopped before red signal --> "
        "Train F passed red signal --> Collision between Train A and Train F",
        "VMC --> Engine failure: Engine failed to operate train in accordance with signal "
        "indications and speed restriction --> Train collided with another train",
        "Pilot's inattention to signal indications --> Pilot failed to operate the aircraft in "
        "accordance with signal indications and speed restriction --> Aircraft crashed",
        "Maintenance personnel's failure to secure the elevator hardware --> Maintenance "
        "personnel failed to operate the elevator in accordance with signal indications and "
        "speed restriction --> Elevator disconnection",
        "Pilot's decision not to climb --> Aircraft did not climb (Engineer's inattentiveness "
        "to signal indications --> Pilot error",
    ],
)
def test_edited_copies_of_the_prompt_examples_are_dropped(chain):
    assert echoes_example(chain.split(" --> "))
    assert parse_chains(f"1. {chain}\n2. Icing --> Stall") == [Chain(("Icing", "Stall"))]
    assert len(parse_chains(f"1. {chain}", drop_examples=False)) == 1


@pytest.mark.parametrize(
    "chain",
    [
        "Signal not seen by the engineer --> Train collided with another train",
        "Lack of positive train control system --> Train passed a stop signal",
        "Pilot's inattention to airspeed --> Aerodynamic stall --> Impact with terrain",
    ],
)
def test_chains_that_only_resemble_an_example_event_are_kept(chain):
    # A rail report may well say a train collided with another one, or lacked PTC.
    assert not echoes_example(chain.split(" --> "))


# -- cleaning and printing -----------------------------------------------------------------
def test_clean_chains_dedupes_at_levenshtein_08_and_keeps_first_10_per_kind():
    near = [
        Chain(("Pilot fatigue", "Late flare", "Hard landing")),
        Chain(("Pilot fatigue", "Late flare", "Hard landings")),  # ratio ≥ 0.8: dropped
        Chain(("Water in fuel", "Engine failure")),
    ]
    assert [c.nodes[-1] for c in clean_chains(near)] == ["Hard landing", "Engine failure"]
    many = [
        Chain((f"cause number {i:03d} xx{i}", f"effect {i * 7919}"), kind=k)
        for i in range(30)
        for k in (EXTRACTED, INFERRED)
    ]
    kept = clean_chains(many, threshold=1.01)
    assert sum(c.kind == EXTRACTED for c in kept) == 10
    assert sum(c.kind == INFERRED for c in kept) == 10
    assert len(clean_chains(many, threshold=1.01, limit=None)) == 60


def test_format_and_roundtrip():
    c = Chain(("A", "B"), kind=INFERRED, report_id="r", statement="s")
    assert format_chains([c, ("C", "D"), "E --> F"]) == "- A --> B\n- C --> D\n- E --> F"
    assert Chain.from_dict(c.to_dict()) == c


def test_numbers_at_the_start_of_an_event_are_not_list_markers():
    assert nodes("3.5 hours of flight --> Fatigue\n1.Frost --> Stall") == [
        ("3.5 hours of flight", "Fatigue"),
        ("Frost", "Stall"),
    ]
