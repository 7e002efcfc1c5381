"""Evidence models: the decision of an engine made by a small trained, calibrated
classifier over named, explainable features (the LLM's log-odds is one of them), so a
verdict comes with a calibrated probability and the evidence that moved it.

The features stay in each engine (`causalqa.discovery`, `causalqa.deduction`); this package
holds what they share: `EvidenceModel` (fit → calibrated probabilities → per-feature
contributions), threshold choice, grouped cross-validation folds, saved models checked
against their manifest, stored without pickle (`artefact`), and the torch training
loop, transformer loader and pooling of their fine-tuned encoders (`finetune`).
"""

from causalqa.evidence.model import (
    Contribution,
    EvidenceModel,
    choose_threshold,
    grouped_folds,
)

__all__ = ["Contribution", "EvidenceModel", "choose_threshold", "grouped_folds"]
