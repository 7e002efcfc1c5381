from causalqa.causal_model import CausalModel
from causalqa.causal_model.examples import TREATMENTS, simulate_partners


def test_simulation_is_deterministic_and_shaped():
    a, b = simulate_partners(200, seed=1), simulate_partners(200, seed=1)
    assert a.equals(b)
    assert set(TREATMENTS) <= set(a.columns)
    assert a["Partner ID"].is_unique


def test_bundled_model_loads():
    m = CausalModel.load(
        "examples/partners/model/graph.graphml", "examples/partners/model/effects.csv"
    )
    assert set(m.treatments) == set(TREATMENTS)
    assert m.filters == ["Already Engaged"]
    assert "Revenue" in m.variables and len(m.subjects) == 1000
