"""`bench discovery pairs` and `reference` with several prompts in flight: the same
predictions, rows and thresholds as one at a time, and the calls did overlap."""

import json
import zlib

import numpy as np
from tests.discovery.test_discovery_pair import _record, write_path_data
from tests.discovery.test_discovery_rankers import HashEmbedder
from tests.llm.busy_llm import BusyLLM

from causalqa.bench.discovery_pairs import benchmark_pairs
from causalqa.bench.discovery_reference import evaluate_decisions, measure_reference
from causalqa.llm.base import LabelScores

TIMINGS = {"seconds_per_pair", "ranker_seconds"}


def p_causal(text: str) -> float:
    """A probability that depends on the whole prompt, so a mixed-up answer shows."""
    return 0.05 + 0.9 * (zlib.crc32(text.encode()) % 1000) / 1000


def ranking(messages) -> str:
    """The LLM ranker's reply: a permutation that depends on the prompt."""
    ids = [1, 2, 3]
    shift = zlib.crc32(messages[-1]["content"].encode()) % 3
    return json.dumps({"ranking": ids[shift:] + ids[:shift]})


class SlowPromptLLM(BusyLLM):
    """`p_causal` of each prompt, after a delay per prompt; counts the calls in flight."""

    def __init__(self):
        super().__init__(ranking)

    def _score_labels(self, prompt, labels):
        text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
        self.calls.append({"prompt": text, "labels": labels})
        p = p_causal(text)
        scores = LabelScores({"causal": np.log(p), "non-causal": np.log(1 - p)})
        return self.serve(text, lambda: scores)


def write_many(root, n=16):
    paths = [[(f"g{i} - x{j} - d{i}", float(j)) for j in range(3)] for i in range(n)]
    return write_path_data(
        root, [_record(str(i), f"g{i}", f"d{i}", i % 2, paths[i]) for i in range(n)]
    )


def _untimed(rows):
    return [{k: v for k, v in r.items() if k not in TIMINGS} for r in rows]


def test_benchmark_pairs_at_concurrency_4_gives_the_results_of_concurrency_1(tmp_path):
    root = write_many(tmp_path / "p2c")
    runs, llms, steps = {}, {}, {}
    for c in (1, 4):
        llms[c], steps[c] = SlowPromptLLM(), []
        runs[c] = benchmark_pairs(
            llms[c],
            datasets=["comagc"],
            methods=["none", "oracle", "gpt", "random", "similarity", "llm"],
            top_k=2,
            root=root,
            embedder=HashEmbedder(),
            on_step=lambda what, n, c=c: steps[c].append(n),
            concurrency=c,
        )
    assert llms[4].most > 1 and llms[1].most == 1
    assert runs[4].predictions == runs[1].predictions
    assert _untimed(runs[4].rows) == _untimed(runs[1].rows)
    assert runs[4].content_free == runs[1].content_free and runs[1].content_free["comagc"]
    assert sum(steps[4]) == sum(steps[1]) == 16 * 6
    assert {r["method"]: "error" in r for r in runs[4].rows}["llm"] is False
    # one call per distinct prompt, whatever the concurrency
    asked = {
        c: [x.get("prompt") or x["messages"][-1]["content"] for x in llms[c].calls] for c in (1, 4)
    }
    assert sorted(asked[4]) == sorted(asked[1])
    # at concurrency 1 the pair prompts come in the one-at-a-time order: a shape's
    # content-free prompt right after the first pair prompt of that shape
    scored = [x["prompt"] for x in llms[1].calls if "prompt" in x]
    assert "g0" in scored[0] and "g0" not in scored[1]


def test_reference_thresholds_and_rules_at_concurrency_4_are_those_of_concurrency_1(tmp_path):
    root = write_many(tmp_path / "p2c", n=30)
    got = {}
    for c in (1, 4):
        llm = SlowPromptLLM()
        ref = measure_reference(
            llm, datasets=["comagc"], root=root, embedder=HashEmbedder(), max_paths=2,
            concurrency=c,
        )  # fmt: skip
        rules = evaluate_decisions(
            llm, ref, datasets=["comagc"], root=root, embedder=HashEmbedder(), concurrency=c
        )
        got[c] = (ref.to_dict(), rules, llm.most)
    assert got[4][2] > 1
    assert got[4][0] == got[1][0] and got[1][0]["info"]["pairs"] >= 4
    assert got[4][1] == got[1][1] and len(got[1][1]) >= 4
    assert np.isfinite(got[1][0]["means"]["context"]["0"])


def test_the_llm_ranker_at_concurrency_4_ranks_as_at_concurrency_1():
    from tests.discovery.test_discovery_rankers import synthetic

    from causalqa.bench.discovery_rankers import evaluate_rankers
    from causalqa.discovery.pathdata import PathDataset
    from causalqa.discovery.rankers import LLMPermutationRanker

    def shuffle(messages):  # a permutation of the window that depends on the prompt
        n = sum(1 for m in messages if m["role"] == "user" and m["content"].startswith("["))
        ids = list(range(1, n + 1))
        shift = zlib.crc32(messages[-1]["content"].encode()) % n
        return json.dumps({"ranking": ids[shift:] + ids[:shift]})

    data = PathDataset("synthetic", synthetic(20, 0), synthetic(12, 1))
    rows, llms = {}, {}
    for c in (1, 4):
        llms[c] = BusyLLM(shuffle, busy=0 if c == 1 else 2)
        ev = evaluate_rankers(
            data, rankers=[], random_draws=0, llm_ranker=LLMPermutationRanker(llms[c]),
            llm_queries=12, concurrency=c,
        )  # fmt: skip
        rows[c] = [{k: v for k, v in r.items() if k != "rank_seconds"} for r in ev.rows]
    assert llms[4].most > 1 and llms[4].busy == 0
    assert rows[4] == rows[1] and "llm-permutation" in rows[1][0]["ranker"]
