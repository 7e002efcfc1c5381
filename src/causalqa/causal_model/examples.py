"""The bundled example: the paper's partners/engagements scenario, simulated.

A software vendor engages its partners with programs (Tech Support, Discount, New
Engagement Strategy) and wants to know what they do to each partner's revenue. The data
come from a structural causal model with confounding (bigger partners get Tech Support
more often, struggling regions get Discounts) and heterogeneous effects (Tech Support
helps small partners most; the new strategy only works on partners not yet engaged), so
the fitted effects table has something to find. `examples/partners/` holds the data and
the model `causalqa fit` made from it (see its README)::

    python -m causalqa.causal_model.examples > partners.csv
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

TREATMENTS = ("Tech Support", "Discount", "New Engagement Strategy")
OUTCOME = "Revenue"
FILTER = "Already Engaged"


def simulate_partners(n: int = 1000, seed: int = 7) -> pd.DataFrame:
    """One row per partner: covariates, three binary engagements, mediators, revenue."""
    rng = np.random.default_rng(seed)
    size = rng.lognormal(mean=3.0, sigma=0.6, size=n)  # employees, in tens
    growth = rng.normal(0.0, 1.0, size=n)  # regional market growth
    engaged = rng.random(n) < 1 / (1 + np.exp(-(np.log(size) - 3.0)))
    p_support = 1 / (1 + np.exp(-(0.08 * (size - 20))))
    support = rng.random(n) < p_support
    discount = rng.random(n) < 1 / (1 + np.exp(growth))
    strategy = rng.random(n) < 0.5
    satisfaction = 5 + 2.0 * support + 0.02 * size + rng.normal(0, 1, n)
    demand = 10 + 3.0 * discount + 2.0 * growth + rng.normal(0, 1, n)
    # Effects on revenue (thousands): Tech Support helps small partners most, the new
    # strategy only partners not yet engaged.
    revenue = (
        20
        + 4.0 * satisfaction
        + 2.5 * demand
        + 0.5 * size
        + support * (15 - 0.3 * size)
        + strategy * np.where(engaged, 0.0, 12.0)
        + rng.normal(0, 5, n)
    )
    return pd.DataFrame(
        {
            "Partner ID": [f"P{i:03d}" for i in range(1, n + 1)],
            "Company Size": size.round(2),
            "Market Growth": growth.round(3),
            FILTER: engaged,
            "Tech Support": support.astype(int),
            "Discount": discount.astype(int),
            "New Engagement Strategy": strategy.astype(int),
            "Satisfaction": satisfaction.round(3),
            "Demand": demand.round(3),
            OUTCOME: revenue.round(2),
        }
    )


if __name__ == "__main__":
    simulate_partners().to_csv(sys.stdout, index=False)
