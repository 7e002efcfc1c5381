"""The deduction benchmark tests use the deduction tests' stand-in embedder."""

from tests.deduction.conftest import embedder, make_embedder  # noqa: F401
