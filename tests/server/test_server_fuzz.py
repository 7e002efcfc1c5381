"""OpenAPI-driven fuzzing of every endpoint with schemathesis, over the real small model:
no internal error (500), every response in a status the schema declares for it, with the
content type and body schema it declares. The CI runs a smoke profile; the manual profile
(``CAUSALQA_FUZZ_EXAMPLES=70``: 70 examples for each of the 17 operations) makes more than
1,000 requests. Each run writes what it sent and got to ``CAUSALQA_FUZZ_REPORT`` (if set)."""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

import pytest
from tests.conftest import have, requires_llama
from tests.server.conftest import PARTNERS

pytestmark = [
    pytest.mark.model,
    requires_llama,
    pytest.mark.skipif(not have("schemathesis"), reason="schemathesis not installed"),
]

if have("schemathesis"):
    import schemathesis
    from hypothesis import HealthCheck, Phase
    from hypothesis import settings as hsettings

    EXAMPLES = int(os.environ.get("CAUSALQA_FUZZ_EXAMPLES", "4"))
    SENT: collections.Counter = collections.Counter()
    CHECKS = [
        schemathesis.checks.status_code_conformance,
        schemathesis.checks.content_type_conformance,
        schemathesis.checks.response_schema_conformance,
        schemathesis.checks.response_headers_conformance,
    ]
    DESIGNED_5XX = {502, 503, 504}
    """The model failed, or is busy loading, or the request ran past the time limit:
    declared, JSON, and counted in the report; a 500 (a bug) fails the test."""

    @pytest.fixture(scope="module")
    def api_schema(tmp_path_factory, tiny_kg):
        from causalqa.server import ServerSettings, create_app

        settings = ServerSettings(
            data_dir=tmp_path_factory.mktemp("fuzz"),
            llm="local:small",
            load={"partners": PARTNERS},
            kg=tiny_kg,
            timeout=60,
            max_graph_variables=3,
            job_timeout=30,
            max_body=200_000,
            max_upload=200_000,
        )
        app = create_app(settings)
        service = app.state.service.start()
        service.worker.wait_ready(600)
        yield schemathesis.openapi.from_asgi("/openapi.json", app)
        service.stop()
        report = os.environ.get("CAUSALQA_FUZZ_REPORT")
        if report:
            by_status = collections.Counter(s for (_, s), n in SENT.items() for _ in range(n))
            by_operation = collections.Counter(op for (op, _), n in SENT.items() for _ in range(n))
            from causalqa.bench.report import environment

            Path(report).write_text(
                json.dumps(
                    {
                        "benchmark": "schemathesis fuzzing of every operation",
                        "llm": "local:small",
                        "examples_per_operation": EXAMPLES,
                        "requests": sum(SENT.values()),
                        "operations": len(by_operation),
                        "by_status": dict(sorted(by_status.items())),
                        "by_operation": dict(sorted(by_operation.items())),
                        "environment": environment(),
                    },
                    indent=2,
                )
            )

    def fuzz(schema, mode) -> list[str]:
        """Every operation, `EXAMPLES` generated cases each; the failures, described."""
        from hypothesis import given
        from hypothesis.errors import Unsatisfiable

        failures: list[str] = []
        for result in schema.get_all_operations():
            operation = result.ok()

            @given(case=operation.as_strategy(generation_mode=mode))
            @hsettings(
                max_examples=EXAMPLES,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.explicit, Phase.generate],
                derandomize=True,
                database=None,
            )
            def run(case):
                response = case.call(timeout=180)
                SENT[(case.operation.label, response.status_code)] += 1
                problem = None
                if response.status_code == 500:
                    problem = "an internal error"
                elif response.status_code >= 500 and response.status_code not in DESIGNED_5XX:
                    problem = f"status {response.status_code}"
                if problem is None:
                    try:
                        case.validate_response(response, checks=CHECKS)
                    except Exception as e:  # schemathesis's failures (groups of them)
                        problem = " ".join(str(e).split())[:300]
                if problem:
                    failures.append(f"{case.operation.label}: {problem}: {response.text[:300]}")

            try:
                run()
            except Unsatisfiable:  # nothing to make invalid (an operation without inputs)
                continue
        return failures

    @pytest.mark.parametrize("mode", ["positive", "negative"])
    def test_every_endpoint_keeps_its_schema(api_schema, mode):
        from schemathesis.generation.modes import GenerationMode

        failures = fuzz(api_schema, GenerationMode(mode))
        assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:20])
        assert sum(SENT.values()) >= EXAMPLES  # it did send requests
