"""One registry finds every swappable part by kind and name."""

from __future__ import annotations

import pytest

from causalqa import registry
from causalqa.errors import ConfigError


def test_builtin_parts_by_kind():
    assert registry.names("llm")[:2] == ["local", "openai"]
    assert set(registry.names("ranker")) >= {"random", "similarity", "xgboost", "listnet"}
    assert registry.names("retriever")[:3] == ["none", "semantic", "rotg"]
    assert registry.get("retriever", "semantic").__name__ == "SemanticRetriever"


def test_create_passes_each_factory_only_what_it_takes():
    r = registry.create("ranker", "random", seed=3, llm=object(), embedder=None)
    assert r.seed == 3
    ce = registry.create("ranker", "ranknet", seed=1)
    assert ce.loss == "ranknet"


def test_unknown_names_list_the_choices():
    with pytest.raises(ConfigError, match="unknown ranker 'bm25'") as info:
        registry.get("ranker", "bm25")
    assert "similarity" in info.value.hint
    with pytest.raises(ConfigError, match="unknown kind"):
        registry.names("planner")


def test_register_adds_a_part_that_engines_find():
    from causalqa.deduction.retrieve import get_retriever

    class Echo:
        def __init__(self, k: int = 1) -> None:
            self.k = k

    registry.register("retriever", "echo", Echo, k=2)
    try:
        assert "echo" in registry.names("retriever")
        assert get_retriever("echo").k == 2
    finally:
        registry._added["retriever"].pop("echo")
