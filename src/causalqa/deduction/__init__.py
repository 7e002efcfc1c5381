"""Causal deductive reasoning over an LLM-mined causal knowledge graph (paper 002).

Named steps: **build** a data set (`build_dataset`, `mine_negatives`), **mine** causal
chains into a KG (`mine`, `CausalKG`), **retrieve** chains for a statement
(`SemanticRetriever`), **verify** whether a statement is a probable cause with the trained
evidence verifier (`verify`, `Verifier`), or **deduce** it with the paper's prompts V1–V9.

>>> from causalqa.deduction import load_verifier, verify             # doctest: +SKIP
>>> d = verify(report_text, "Frost on the wings.", load_verifier())      # doctest: +SKIP
>>> d.verdict, d.probability                                          # doctest: +SKIP
(True, 0.91)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from causalqa._lazy import lazy_exports

if TYPE_CHECKING:
    from causalqa.deduction.chains import Chain, clean_chains, format_chains, parse_chains
    from causalqa.deduction.dataset import (
        Example,
        Report,
        build_dataset,
        load_jsonl,
        load_ntsb,
        save_jsonl,
        split_probable_cause,
    )
    from causalqa.deduction.deduce import (
        Deduction,
        check_pair,
        check_text,
        deduce,
        read_context,
        verify,
        verify_batch,
    )
    from causalqa.deduction.event_graph import CausalKG, MiningRecord
    from causalqa.deduction.mining import extract_chains, infer_chains, mine
    from causalqa.deduction.negatives import mine_negatives, with_llm_negatives
    from causalqa.deduction.prompts import FORMATS, get_format, paper_verdict, render
    from causalqa.deduction.retrieve import NoRetriever, Retriever, SemanticRetriever, get_retriever
    from causalqa.deduction.verifier import Verifier, load_verifier
    from causalqa.errors import (
        ContextError,
        DatasetError,
        DeductionError,
        EventGraphError,
        UnknownFormatError,
    )

_EXPORTS = {
    **dict.fromkeys(
        ["Chain", "clean_chains", "format_chains", "parse_chains"], "causalqa.deduction.chains"
    ),
    **dict.fromkeys(["CausalKG", "MiningRecord"], "causalqa.deduction.event_graph"),
    **dict.fromkeys(
        [
            "Example",
            "Report",
            "build_dataset",
            "load_jsonl",
            "load_ntsb",
            "save_jsonl",
            "split_probable_cause",
        ],
        "causalqa.deduction.dataset",
    ),
    **dict.fromkeys(
        [
            "Deduction",
            "check_pair",
            "check_text",
            "deduce",
            "read_context",
            "verify",
            "verify_batch",
        ],
        "causalqa.deduction.deduce",
    ),
    **dict.fromkeys(["mine_negatives", "with_llm_negatives"], "causalqa.deduction.negatives"),
    **dict.fromkeys(["Verifier", "load_verifier"], "causalqa.deduction.verifier"),
    **dict.fromkeys(
        ["ContextError", "DatasetError", "DeductionError", "EventGraphError", "UnknownFormatError"],
        "causalqa.errors",
    ),
    **dict.fromkeys(["extract_chains", "infer_chains", "mine"], "causalqa.deduction.mining"),
    **dict.fromkeys(
        ["FORMATS", "get_format", "paper_verdict", "render"], "causalqa.deduction.prompts"
    ),
    **dict.fromkeys(
        ["NoRetriever", "Retriever", "SemanticRetriever", "get_retriever"],
        "causalqa.deduction.retrieve",
    ),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "CausalKG",
    "Chain",
    "ContextError",
    "DatasetError",
    "Deduction",
    "DeductionError",
    "Example",
    "FORMATS",
    "EventGraphError",
    "MiningRecord",
    "NoRetriever",
    "Report",
    "Retriever",
    "SemanticRetriever",
    "UnknownFormatError",
    "Verifier",
    "build_dataset",
    "check_pair",
    "check_text",
    "clean_chains",
    "deduce",
    "extract_chains",
    "format_chains",
    "get_format",
    "get_retriever",
    "infer_chains",
    "load_jsonl",
    "load_ntsb",
    "load_verifier",
    "mine",
    "mine_negatives",
    "paper_verdict",
    "parse_chains",
    "read_context",
    "render",
    "save_jsonl",
    "split_probable_cause",
    "verify",
    "verify_batch",
    "with_llm_negatives",
]
