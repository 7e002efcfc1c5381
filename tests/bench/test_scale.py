"""`causalqa bench scale`'s measuring parts, without the real model."""

import os
import sys
from types import SimpleNamespace

from tests.llm.fake_openai import FakeServer, reply_to

from causalqa.bench import scale


def test_a_child_process_is_timed_by_its_own_cpu_and_first_output():
    code = (
        "import time, sys\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.3: pass\n"
        "print('ready', flush=True)\n"
        "time.sleep(0.3)\n"
    )
    r = scale.run_child([sys.executable, "-c", code])
    assert r["returncode"] == 0 and r["stdout"].strip() == "ready"
    assert 0.25 <= r["cpu"] < r["wall"]  # the sleep costs wall time, not CPU
    assert r["first_output"] is not None and r["first_output"] <= r["wall"] - 0.25


def test_percentiles_and_the_verdict_tell_load_from_work():
    assert scale._pct([1, 2, 3, 4], 0.5) == 2.5 and scale._pct([], 0.5) is None
    met = {"wall_p50": 1.2, "cpu_p50": 1.0}
    load = {"wall_p50": 4.0, "cpu_p50": 1.1}
    work = {"wall_p50": 4.0, "cpu_p50": 2.5}
    assert scale._verdict(met, 1.5) == "met"
    assert scale._verdict(load, 1.5).startswith("missed on wall time only")
    assert scale._verdict(work, 1.5).startswith("missed: the work itself")


def test_throughput_runs_one_job_at_each_concurrency_and_checks_the_answers(tmp_path):
    prompts = scale.job_prompts(6)
    assert len(set(prompts)) == 6
    with FakeServer(delay=0.05) as srv:
        server = SimpleNamespace(
            kind="fake",
            slots=4,
            threads=1,
            spec=f"openai:{srv.url}#fake",
            process=SimpleNamespace(pid=os.getpid()),
        )
        steps = []
        result = scale.throughput(server, prompts, [1, 4], 8, lambda: steps.append(1))
        assert srv.max_in_flight == 4
    assert result["identical"] and len(steps) == 2
    assert [r["concurrency"] for r in result["rows"]] == [1, 4]
    assert all(r["same_as_concurrency_1"] == 6 for r in result["rows"])
    assert result["rows"][0]["speedup"] == 1.0
    report = {"llm": "local", "server_model": "fake", "threads": 1, "throughput": result}
    md = scale.markdown(report)
    assert "| 4 |" in md and "identical at every concurrency: yes" in md
    assert scale.plot(report, tmp_path / "p.png").exists()
    assert reply_to("ab") == "ba"
