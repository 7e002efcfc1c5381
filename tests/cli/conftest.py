"""The command tests use the engines' own fixtures: the stand-in embedder and tiny
reports of the deduction tests, the Hetionet-shaped files of the KG tests."""

from tests.deduction.conftest import embedder, make_embedder, reports  # noqa: F401
from tests.discovery.conftest import evidence_data, evidence_model, tiny_encoder  # noqa: F401
from tests.kg.conftest import hetionet_dir  # noqa: F401
