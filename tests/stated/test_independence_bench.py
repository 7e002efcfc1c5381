"""The Corr2Cause-style generator and benchmark: the two brute-force labellers agree, the
premises say exactly a DAG's independences, labels on hand-checked classes, and a small
run of the benchmark writes its report."""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from causalqa.bench.corr2cause import (
    KINDS,
    _classes_by_independences,
    brute_force_class_all,
    brute_force_class_skeleton,
    generate_items,
    independences,
    render_premise,
    run_corr2cause_bench,
)
from causalqa.stated.independence_reader import read_premise


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_skeleton_labeller_finds_the_same_classes_as_all_dags(n):
    for stated in _classes_by_independences(n):
        full = {frozenset(g.edges) for g in brute_force_class_all(n, stated)}
        restricted = {frozenset(g.edges) for g in brute_force_class_skeleton(n, stated)}
        assert full == restricted


def test_the_papers_premise_for_a_chain():
    chain = nx.DiGraph([(0, 1), (1, 2)])
    assert render_premise("ABC", independences(chain)) == (
        "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
        "relations among these 3 variables are as follows: A correlates with B. A correlates "
        "with C. B correlates with C. However, A and C are independent given B."
    )


def test_reworded_premises_read_back_to_the_same_statements():
    rng = random.Random(3)
    for n in (3, 4):
        for stated in list(_classes_by_independences(n))[:40]:
            names = ["air pollution", "asthma", "income", "ice cream sales"][:n]
            premise = read_premise(render_premise(names, stated, rng))
            index = {name: i for i, name in enumerate(names)}
            independent = {
                (
                    min(index[s.x], index[s.y]),
                    max(index[s.x], index[s.y]),
                    frozenset(index[g] for g in s.given),
                )
                for s in premise.statements
                if s.independent
            }
            assert independent == set(stated)


def test_labels_of_the_collider_class():
    items = generate_items(
        sizes=(3,), samples_per_size=0, seed=0, reword_share=0, real_name_share=0
    )
    # A → C ← B is the class with exactly A ⫫ B.
    collider = [i for i in items if i.premise.endswith("However, A is independent of B.")]
    assert len(collider) == 6 * len(KINDS)
    labels = {(i.kind, i.a, i.b): i.label for i in collider}
    assert labels[("Is-Parent", "A", "C")] and labels[("Is-Child", "C", "B")]
    assert labels[("Has-Collider", "A", "B")] and labels[("Has-Collider", "B", "A")]
    assert not labels[("Has-Confounder", "A", "B")]
    assert not labels[("Is-Parent", "C", "A")] and not labels[("Is-Ancestor", "A", "B")]
    assert sum(labels.values()) == 6  # A→C, B→C as parent and as child, the collider twice
    assert {i.class_size for i in collider} == {1}


def test_items_cover_every_kind_and_ordered_pair():
    items = generate_items(sizes=(3,), samples_per_size=0, seed=0)
    # 11 classes over 3 labelled variables × 6 ordered pairs × 6 kinds
    assert len(items) == 11 * 6 * 6
    assert len({i.id for i in items}) == len(items)


def test_a_small_benchmark_run_writes_its_report(tmp_path):
    report = run_corr2cause_bench(
        tmp_path, sizes=(3, 5), samples_per_size=4, pairs_per_premise=3, seed=1
    )
    # 3 sampled ordered pairs × 6 kinds for each of 11 + 4 premises
    assert report["overall"]["items"] == (11 + 4) * 3 * 6
    assert report["overall"]["accuracy"] == 100.0
    assert report["class_size_agreement"] == "15/15"
    saved = json.loads((tmp_path / "corr2cause-latest.json").read_text())
    assert saved["overall"] == report["overall"]
    markdown = (tmp_path / "corr2cause-latest.md").read_text()
    assert markdown.startswith("# causalqa bench stated: Corr2Cause-style generator")
    assert "official Corr2Cause test set" in markdown
