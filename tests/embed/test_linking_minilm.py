"""Entity linking with the real all-MiniLM-L6-v2 (not a stand-in): a name no exact, case
or fuzzy rule can match reaches the right node through its meaning, and an unrelated
name is not forced onto one."""

from __future__ import annotations

import pandas as pd
import pytest
from tests.conftest import requires_minilm

from causalqa.embed import Embedder
from causalqa.kg import Linker

pytestmark = [pytest.mark.embed, requires_minilm]

NODES = pd.DataFrame(
    [
        ("Disease::DOID:5844", "myocardial infarction", "Disease"),
        ("Disease::DOID:1612", "breast cancer", "Disease"),
        ("Compound::DB00945", "Acetylsalicylic acid", "Compound"),
        ("Disease::DOID:9352", "type 2 diabetes mellitus", "Disease"),
        ("Symptom::D006261", "Headache", "Symptom"),
    ],
    columns=["id", "name", "kind"],
)


@pytest.fixture(scope="module")
def linker(tmp_path_factory):
    return Linker(NODES, embedder=Embedder(), cache_dir=tmp_path_factory.mktemp("vectors"))


@pytest.mark.parametrize(
    ("query", "node"),
    [
        ("heart attack", "Disease::DOID:5844"),
        ("mammary carcinoma", "Disease::DOID:1612"),
        ("pain in the head", "Symptom::D006261"),
        ("adult-onset diabetes", "Disease::DOID:9352"),
    ],
)
def test_a_paraphrase_links_by_meaning(linker, query, node):
    assert linker.link(query, embeddings=False).best is None  # no cheaper rule finds it
    linking = linker.link(query)
    assert linking.method == "embedding"
    assert linking.candidates[0].node.id == node, linking.candidates[:3]


def test_an_unrelated_name_is_not_linked(linker):
    linking = linker.link("quarterly revenue of a bakery")
    assert linking.best is None, linking.candidates[:3]
