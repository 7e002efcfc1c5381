"""Knowledge-based causal discovery (paper 001): path data sets, subgraph rankers,
statistical baselines and their metrics.

Submodules are imported on use so that ``import causalqa.discovery`` stays light:

- `causalqa.discovery.pathdata`: the path-to-causality JSONL records;
- `causalqa.discovery.rankers`: random, similarity, LLM permutation, cross-encoder and
  XGBoost subgraph rankers, and `evaluate_rankers` (Table D2);
- `causalqa.discovery.statistical`: PC, ExactSearch (A*) and DirectLiNGAM as plain functions;
- `causalqa.metrics`: precision/recall/F1, SHD, Hamming distances, NDCG@k, Recall@k;
- `causalqa.bench.discovery_sachs`: the SACHS data and its Table 3 benchmark.
"""
