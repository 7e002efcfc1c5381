import networkx as nx
import pandas as pd
import pytest

from causalqa.causal_model import CausalModel


@pytest.fixture
def partners():
    """A small partners/engagements model with awkward names."""
    graph = nx.DiGraph(
        [
            ("Price", "Demand"),
            ("Discount (%)", "Demand"),
            ("Demand", "Revenue"),
            ("Discount (%)", "Revenue"),
            ("Tech Support", "Satisfaction"),
            ("Satisfaction", "Revenue"),
            ("Satisfaction", "Churn"),
            ("Café Visits", "Satisfaction"),
        ]
    )
    table = pd.DataFrame(
        {
            "Partner ID": [1, 2, 3, 4],
            "Tech Support": [10.0, 40.0, 70.0, -5.0],
            "Discount (%)": [20.0, 95.0, 80.0, 3.0],
            "New Engagement Strategy": [30.0, 60.0, 90.0, 1.0],
            "Already Engaged": [True, False, True, False],
        }
    )
    return CausalModel.from_graph(graph, table)
