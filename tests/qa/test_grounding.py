import networkx as nx
import pandas as pd
import pytest

from causalqa.causal_model import CausalModel
from causalqa.qa.grounding import ground


@pytest.mark.parametrize(
    ("question", "variables", "treatments", "subjects", "where"),
    [
        ("Does a change in Price lead to a change in Churn?", ["Price", "Churn"], [], [], None),
        ("does a change in price lead to a change in CHURN?", ["Price", "Churn"], [], [], None),
        (
            "Through which variables does cafe visits influence Revenue?",
            ["Café Visits", "Revenue"],
            [],
            [],
            None,
        ),
        (
            "What happens to Revenue if we push discounts?",
            ["Revenue", "Discount (%)"],
            ["Discount (%)"],
            [],
            None,
        ),
        (
            "What is the effect of tech suport on partner 3?",
            ["Tech Support"],
            ["Tech Support"],
            ["3"],
            None,
        ),
        (
            "Which partner not yet engaged benefits most from New Engagement Strategy?",
            [],
            ["New Engagement Strategy"],
            [],
            ("Already Engaged", False),
        ),
        (
            "Which partner that we haven't engaged yet gains most from Tech Support?",
            ["Tech Support"],
            ["Tech Support"],
            [],
            ("Already Engaged", False),
        ),
        (
            "Best engagement for partners who are already engaged?",
            [],
            [],
            [],
            ("Already Engaged", True),
        ),
        ("Which engagement is best for customer #2?", [], [], ["2"], None),
        # "excluding" puts the named group outside the answer.
        (
            "Excluding already-engaged partners, which engagement works best?",
            [],
            [],
            [],
            ("Already Engaged", False),
        ),
        (
            "Best engagement by mean effect, excl. already engaged.",
            [],
            [],
            [],
            ("Already Engaged", False),
        ),
        # Nouns count as the filter only when negated or qualified ...
        ("Best partner with no program so far?", [], [], [], ("Already Engaged", False)),
        (
            "Partners without an existing engagement: who gains most?",
            [],
            [],
            [],
            ("Already Engaged", False),
        ),
        (
            "Partners with an existing engagement: best program?",
            [],
            [],
            [],
            ("Already Engaged", True),
        ),
        # ... because alone they just mean a treatment.
        ("Which engagement has the highest average effect?", [], [], [], None),
    ],
)
def test_ground(partners, question, variables, treatments, subjects, where):
    g = ground(question, partners)
    assert sorted(g.names("variable")) == sorted(variables)
    assert sorted(g.names("treatment")) == sorted(treatments)
    assert g.names("subject") == subjects
    assert (None if g.where is None else (g.where.filter, g.where.value)) == where


def test_mentions_keep_question_order(partners):
    g = ground("Is Churn affected by Price?", partners)
    assert g.names("variable") == ["Churn", "Price"]


def test_unknown_names_are_reported(partners):
    g = ground("Does Weather affect Revenue?", partners)
    assert g.names("variable") == ["Revenue"]
    assert g.unresolved == ["Weather"]
    g = ground('What is the ATE of "Loyalty Bonus"?', partners)
    assert "Loyalty Bonus" in g.unresolved


def test_causal_shorthand_in_capitals_is_not_an_unknown_name(partners):
    g = ground("Give me the median CATE of Discount across partners.", partners)
    assert g.unresolved == []
    assert g.names("treatment") == ["Discount (%)"]
    g = ground("Does the DAG say Weather affects Revenue?", partners)
    assert g.unresolved == ["Weather"]


def test_longest_name_wins(partners):
    import networkx as nx

    from causalqa.causal_model import CausalModel

    m = CausalModel.from_graph(nx.DiGraph([("Price", "Price Index"), ("Price Index", "Sales")]))
    assert ground("Does Price Index affect Sales?", m).names("variable") == ["Price Index", "Sales"]


def test_numbers_are_not_subjects_without_a_noun(partners):
    assert ground("Who are the top 3 partners for Tech Support?", partners).names("subject") == []


@pytest.mark.parametrize(
    "question, value",
    [
        ("Best partner for Tech Support with Already Engaged = false?", False),
        ("Best partner for Tech Support, already engaged: yes", True),
        ("Which not-yet-engaged partner gains most from Tech Support?", False),
        ("Leaving out partners already in a program, who gains most from Tech Support?", False),
        ("Apart from engaged partners, who gains most from Tech Support?", False),
    ],
)
def test_filter_polarity_in_harder_wordings(partners, question, value):
    g = ground(question, partners)
    assert g.where is not None and g.where.value is value
    assert g.unresolved == []  # the filter's own name is not an unknown name


def test_masked_hides_the_names(partners):
    q = "What does New Engagement Strategy bring partner 3?"
    assert ground(q, partners).masked(q) == "what does X bring partner X?"


def test_subject_ids_written_without_their_prefix_or_unknown():
    graph = nx.DiGraph([("Price", "Revenue")])
    table = pd.DataFrame({"Partner ID": ["P007", "P042", "Q042"], "Discount": [1.0, 2.0, 3.0]})
    m = CausalModel.from_graph(graph, table)
    g = ground("What does Discount do for partner 7?", m)
    assert g.names("subject") == ["P007"] and g.unknown_subjects == []
    g = ground("What does Discount do for partner 42?", m)  # P042 or Q042: not guessed
    assert g.names("subject") == [] and g.unknown_subjects == ["42"]
    g = ground("And partner 123?", m)
    assert g.unknown_subjects == ["123"]
    assert ground("Which partner gains most from Discount?", m).unknown_subjects == []


def test_bare_numbers_are_subject_ids_unless_they_count_or_measure():
    graph = nx.DiGraph([("Price (10)", "Revenue")])
    table = pd.DataFrame({"Partner ID": list(range(1, 41)), "Discount": [1.0] * 40})
    m = CausalModel.from_graph(graph, table)
    for q, subjects in [
        ("Which engagement suits 19 best?", ["19"]),
        ("how much does Discount give 30", ["30"]),
        ("the Discount uplift of 12, please", ["12"]),
        ("Top 3 partners for Discount", []),
        ("Which 5 partners gain most from Discount?", []),
        ("Does Price (10) affect Revenue?", []),  # part of a name
        ("Is the lift above 20% for Discount?", []),
        ("the 2 best engagements", []),
        # thresholds and percentiles written around the number
        ("What effect of Discount sits at percentile 10 among partners?", []),
        ("how many partners clear the 20 mark on Discount's impact", []),
        ("how many partners beat an uplift of 20 from Discount?", []),
        ("how many partners hit 30+ on Discount impact", []),
        ("30 + Discount: what's the effect?", ["30"]),
        # a threshold named, then compared with ("higher than that", "meet or exceed it")
        ("With a cutoff of 20, how many partners gain more than that from Discount?", []),
        ("Taking 10 as the bar, what share of partners meet or exceed it with Discount?", []),
    ]:
        assert ground(q, m).names("subject") == subjects, q


def test_a_short_id_is_a_subject_unless_it_reads_as_a_percentile():
    graph = nx.DiGraph([("Price", "Revenue")])
    table = pd.DataFrame({"Partner ID": ["P1", "P5"], "Discount": [1.0, 2.0]})
    m = CausalModel.from_graph(graph, table)
    assert ground("For P1, what does Discount do?", m).names("subject") == ["P1"]
    assert ground("How much does Discount help P5?", m).names("subject") == ["P5"]
    assert ground("what is the p5 of Discount effects?", m).names("subject") == []
    assert ground("p5 effect of Discount?", m).names("subject") == []


def test_an_exact_name_wins_over_a_fuzzy_match_around_it():
    # "Discount's" is close to the variable "Discount (%)", but holds the treatment
    # "Discount" exactly
    graph = nx.DiGraph([("Discount (%)", "Revenue")])
    table = pd.DataFrame(
        {"Partner ID": ["P1", "P2"], "Discount": [1.0, 2.0], "Tech Support": [3.0, 4.0]}
    )
    m = CausalModel.from_graph(graph, table)
    g = ground("On average, what's Discount's effect minus Tech Support's?", m)
    assert g.names("treatment") == ["Discount", "Tech Support"]
    assert g.names("variable") == []
    g = ground("Does Discount (%) affect Revenue?", m)
    assert g.names("variable") == ["Discount (%)", "Revenue"]
