"""Fixtures of the evidence-model tests: a tiny BERT (random weights, MiniLM's vocabulary)
that trains in seconds, and a tiny shared-data folder shaped like the real one
(SemEval's TRAIN_FILE, the ADE corpus, the four path-to-causality sets), with sentences
that also sit in the evaluation splits, so leaks can be caught."""

from __future__ import annotations

import json

import pytest

CAUSE = ["{a} causes {b} in patients", "{a} leads to {b} quickly", "{a} induced {b} in mice"]
NOT = ["{a} was measured beside {b}", "{a} and {b} were both listed", "{a} is near {b}"]


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory):
    """A 1-layer, 16-wide BERT with MiniLM's tokenizer, saved like a local model folder."""
    from transformers import BertConfig, BertModel, BertTokenizerFast
    from transformers.utils import logging as hf_logging

    from causalqa.embed import default_model_path

    hf_logging.set_verbosity_error()
    folder = tmp_path_factory.mktemp("tinybert")
    tok = BertTokenizerFast.from_pretrained(str(default_model_path()))
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
    )
    import torch

    # seeded: unseeded weights depend on what earlier tests drew from torch's generator
    torch.manual_seed(0)
    BertModel(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _p2c(qid, sentence, e1, e2, label):
    return {
        "qid": str(qid),
        "sentence": sentence,
        "e1": e1,
        "e2": e2,
        "ground_truth": str(label),
        "llm_pred": "0",
        "metapaths": [],
    }


def _tag(template, a, b):
    return template.format(a=f"<e1> {a} </e1>", b=f"<e2> {b} </e2>") + " ."


def write_evidence_data(root):
    """The tiny data folder; returns facts the tests check against."""
    facts = {"eval_sentences": [], "semeval_reserved": []}
    sem = root / "semeval2010-task8"
    sem.mkdir(parents=True)
    blocks = []
    n = 0
    for i in range(24):
        a, b = f"storm{i}", f"flood{i}"
        if i % 3 == 0:
            s, rel = f"The <e1>{a}</e1> caused the <e2>{b}</e2>.", "Cause-Effect(e1,e2)"
        elif i % 3 == 1:
            s, rel = f"The <e1>{b}</e1> was caused by the <e2>{a}</e2>.", "Cause-Effect(e2,e1)"
        else:
            s, rel = f"The <e1>{a}</e1> is in the <e2>{b}</e2>.", "Content-Container(e1,e2)"
        n += 1
        blocks.append(f'{n}\t"{s}"\n{rel}\nComment:\n')
    (sem / "TRAIN_FILE.TXT").write_text("\n".join(blocks))

    ade = root / "ade-corpus-v2"
    ade.mkdir()
    rel, neg = [], []
    for i in range(30):
        drug, effect = f"drugol{i % 10}", f"rashitis{i}"
        rel.append(f"{100 + i}|Severe {effect} after {drug} therapy.|{effect}|0|1|{drug}|0|1")
        neg.append(f"{200 + i} NEG {drug.capitalize()} was given for rashitis{i + 100} and fever.")
    # one DRUG-AE sentence that is also in ADE's test split
    leak = "Severe rashitis0 after drugol0 therapy."
    (ade / "DRUG-AE.rel").write_text("\n".join(rel) + "\n")
    # ADE-NEG names effects from the positives' vocabulary too
    neg += [
        f"{300 + i} NEG drugol{i % 10} was stopped before rashitis{i} was seen." for i in range(30)
    ]
    (ade / "ADE-NEG.txt").write_text("\n".join(neg) + "\n")

    p2c = root / "path-to-causality"
    specs = {"comagc": ("GENE", "cancer"), "gene": ("GENA", "GENB")}
    for name, (pa, pb) in specs.items():
        folder = p2c / name
        folder.mkdir(parents=True)
        train, test = [], []
        for i in range(40):
            label = int(i % 3 == 0)
            tpl = (CAUSE if label else NOT)[i % 3]
            train.append(_p2c(i, _tag(tpl, f"{pa}{i}", f"{pb}{i}"), f"{pa}{i}", f"{pb}{i}", label))
        for i in range(6):
            label = i % 2
            tpl = (CAUSE if label else NOT)[i % 3]
            s = _tag(tpl, f"{pa}T{i}", f"{pb}T{i}")
            test.append(_p2c(i, s, f"{pa}T{i}", f"{pb}T{i}", label))
            facts["eval_sentences"].append(s)
        # a training sentence that is also a test sentence: must be dropped
        train.append(dict(test[0], qid="dup"))
        _write(folder / "train_full.jsonl", train)
        _write(folder / "test_truth.jsonl", test)
    folder = p2c / "ade"
    folder.mkdir(parents=True)
    train = [
        _p2c(i, f"Severe rashitis{i} after drugol{i % 10} therapy.", f"drugol{i % 10}",
             f"rashitis{i}", 1)
        for i in range(1, 30)
    ]  # fmt: skip
    _write(folder / "train_full.jsonl", train)
    _write(folder / "test_truth.jsonl", [_p2c(0, leak, "drugol0", "rashitis0", 1)])
    facts["eval_sentences"].append(leak)
    folder = p2c / "semeval"
    folder.mkdir(parents=True)
    train = [
        _p2c(i, f"The <e1> storm{i} </e1> caused the <e2> flood{i} </e2> .", f"storm{i}",
             f"flood{i}", 1)
        for i in range(0, 24, 3)
    ] + [_p2c(99, "The <e1> x </e1> y <e2> z </e2> .", "x", "z", 0)]  # fmt: skip
    facts["semeval_reserved"].append("The x y z .")
    _write(folder / "train_full.jsonl", train)
    test = [_p2c(0, "The <e1> storm3 </e1> caused the <e2> flood3 </e2> .", "storm3", "flood3", 1)]
    _write(folder / "test_truth.jsonl", test)
    facts["eval_sentences"].append(test[0]["sentence"])
    return facts


def _write(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")


@pytest.fixture(scope="session")
def evidence_data(tmp_path_factory):
    root = tmp_path_factory.mktemp("shared-data")
    facts = write_evidence_data(root)
    return root, facts


@pytest.fixture(scope="session")
def evidence_model(evidence_data, tiny_encoder, tmp_path_factory):
    """An evidence model trained on the tiny data folder (frozen tiny BERT, text only):
    (judge, training record, model folder, work folder, progress steps)."""
    from causalqa.discovery.training import train_evidence

    root, _ = evidence_data
    work = tmp_path_factory.mktemp("work")
    out = tmp_path_factory.mktemp("model")
    steps = []
    judge, record = train_evidence(
        data_dir=root,
        mode="frozen",
        work=work,
        out=out,
        folds=2,
        text_options={"model_path": tiny_encoder, "epochs": 60, "lr": 3e-3},
        command="pytest",
        on_progress=lambda *s: steps.append(s),
    )
    return judge, record, out, work, steps
