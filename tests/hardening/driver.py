"""Work for the crash-safety and concurrency tests to run in a subprocess (so it can be
killed with SIGKILL, or run twice at once):

    python tests/hardening/driver.py JOB JSON_ARGS

Jobs: ``cache`` (write entries into a response cache), ``vectors`` (into the
embeddings' vector cache), ``saves`` (save two causal models
into one folder, alternately, forever), ``cli`` (run ``causalqa ARGV``, optionally with
the scripted LLM backend and the bag-of-words embedder, each LLM call taking `slow`
seconds). Prints ``ready`` on stdout once its imports are done, so a test can time its
kill from the start of the real work."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]


def ready() -> None:
    print("ready", flush=True)


def cache(path: str, start: int, count: int, tag: str = "", size: int = 2000) -> None:
    from causalqa.llm.cache import ResponseCache

    c = ResponseCache(path)
    ready()
    for i in range(start, start + count):
        c.put(f"{tag}{i}", {"i": i, "tag": tag, "text": "x" * size})
    c.close()


def vectors(path: str, count: int, tag: str = "") -> None:
    import numpy as np

    from causalqa.embed import _VectorCache

    c = _VectorCache(Path(path))
    ready()
    for i in range(count):
        c.put_many({f"{tag}{i}": np.full(8, i, dtype=np.float32)})


def saves(folder: str, a_graph: str, a_effects: str, b_graph: str, b_effects: str) -> None:
    from causalqa.causal_model import CausalModel

    models = [CausalModel.load(a_graph, a_effects), CausalModel.load(b_graph, b_effects)]
    ready()
    i = 0
    while True:
        models[i % 2].save(folder, overwrite=True)
        i += 1


def cli(argv: list[str], scripted: bool = False, slow: float = 0.0, bag_of_words: bool = False):
    if scripted:
        from tests.hardening.support import FuzzLLM, scripted_backend

        class Slow(FuzzLLM):
            def _generate(self, *a, **k):
                time.sleep(slow)
                return super()._generate(*a, **k)

        stack = scripted_backend(Slow(text="1. Frost on the wings -> the stall -> impact"))
        stack.__enter__()
    if bag_of_words:
        from tests.deduction.conftest import BagOfWordsEmbedder

        import causalqa.embed

        causalqa.embed.Embedder = lambda *a, **k: BagOfWordsEmbedder()
    from causalqa.cli import main

    sys.argv = ["causalqa", *argv]
    ready()
    main()


if __name__ == "__main__":
    job, args = sys.argv[1], json.loads(sys.argv[2])
    {"cache": cache, "vectors": vectors, "saves": saves, "cli": cli}[job](**args)
