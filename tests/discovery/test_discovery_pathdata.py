"""Parsing the path-to-causality JSONL files, malformed lines included."""

from __future__ import annotations

import json

import pytest

from causalqa.discovery.pathdata import (
    DATASETS,
    PathDataError,
    default_data_dir,
    load_path_dataset,
    parse_record,
    read_path_file,
)

RECORD = {
    "qid": "7",
    "sentence": "Intravenous azithromycin-induced ototoxicity.",
    "e1": "azithromycin",
    "e2": "ototoxicity",
    "llm_pred": "1",
    "ground_truth": "1",
    "metapaths": [
        {
            "pathid": 8,
            "rel_score": 3.16867,
            "prob_score": -0.31559083,
            "relevant": "1",
            "stops": "Azithromycin - Hearing impaired - Isotretinoin - Ototoxicity",
            "reltypes": "CAUSES_CcSE - CAUSES_CcSE - CAUSES_CcSE",
            "nodelabels": "Compound - SideEffect - Compound - SideEffect",
        },
        {
            "pathid": 2,
            "rel_score": -1.5,
            "prob_score": -0.66,
            "relevant": "0",
            "stops": "Azithromycin - Renal failure - Ototoxicity",
            "reltypes": "CAUSES_CcSE - CAUSES_CcSE",
            "nodelabels": "Compound - SideEffect - SideEffect",
        },
    ],
}
WIKIDATA = {
    "pathid": 0,
    "rel_score": 16.3,
    "prob_score": -0.06,
    "relevant": "1",
    "stops": "Protection - United Kingdom - Exposure",
    "reltypes": "country of origin - place of publication",
    "nodelabels": "",
    "stops_id": "Q632803 - Q145 - Q2368580",
    "reltypes_id": "P495 - P291",
}


def write(path, lines):
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_record_fields_and_verbalisation(tmp_path):
    recs = read_path_file(write(tmp_path / "train_full.jsonl", [RECORD, "", RECORD]))
    assert len(recs) == 2
    r = recs[0]
    assert r.pair == ("azithromycin", "ototoxicity") and r.label == 1 and r.llm_pred == 1
    assert (r.source.endswith("train_full.jsonl"), r.line) == (True, 1)
    assert recs[1].line == 3
    p = r.paths[0]
    assert p.path_id == 8 and p.relevant is True and p.rel_score == pytest.approx(3.16867)
    assert p.stops == ("Azithromycin", "Hearing impaired", "Isotretinoin", "Ototoxicity")
    assert p.text(types=False) == "Azithromycin - Hearing impaired - Isotretinoin - Ototoxicity"
    assert p.text().startswith("Compound Azithromycin - SideEffect Hearing impaired")
    assert p.text(types=False, relations=True).startswith(
        "Azithromycin -[CAUSES_CcSE]-> Hearing impaired"
    )
    assert p.to_dict()["relevant"] == "1"


def test_wikidata_paths_use_relations_as_meta_information():
    rec = parse_record({**RECORD, "metapaths": [WIKIDATA, {**WIKIDATA, "stops": ""}]})
    p = rec.paths[0]
    assert p.node_types == () and p.stop_ids == ("Q632803", "Q145", "Q2368580")
    assert (
        p.text()
        == "Protection - country of origin - United Kingdom - place of publication - Exposure"
    )
    assert rec.paths[1].stops == () and rec.paths[1].text() == ""


def test_sim_records_have_no_llm_fields():
    m = {
        k: v
        for k, v in RECORD["metapaths"][0].items()
        if k not in ("rel_score", "prob_score", "relevant")
    }
    rec = parse_record(
        {
            **{k: v for k, v in RECORD.items() if k != "llm_pred"},
            "metapaths": [{**m, "sim_score": 0.5}],
        }
    )
    assert rec.llm_pred is None and rec.paths[0].sim_score == 0.5 and rec.paths[0].rel_score is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", ":2: not valid JSON"),
        ("[1, 2]", ":2: expected a JSON object"),
        (json.dumps({**RECORD, "e1": None}), ":2: field 'e1' must be a string"),
        (
            json.dumps({k: v for k, v in RECORD.items() if k != "sentence"}),
            "missing field 'sentence'",
        ),
        (json.dumps({**RECORD, "ground_truth": "maybe"}), "'ground_truth' must be '0' or '1'"),
        (json.dumps({**RECORD, "metapaths": {}}), "'metapaths' must be a list"),
        (
            json.dumps({**RECORD, "metapaths": [{**WIKIDATA, "rel_score": "high"}]}),
            r":2: field metapaths\[0\].'rel_score' must be a number",
        ),
        (
            json.dumps({**RECORD, "metapaths": [{"pathid": 1}]}),
            r"missing field metapaths\[0\].'stops'",
        ),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path, line, message):
    path = write(tmp_path / "test_truth.jsonl", [RECORD, line])
    with pytest.raises(PathDataError, match=message) as info:
        read_path_file(path)
    assert "test_truth.jsonl" in info.value.message


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(PathDataError, match="no such file"):
        read_path_file(tmp_path / "nope.jsonl")
    with pytest.raises(PathDataError, match="holds no record"):
        read_path_file(write(tmp_path / "empty.jsonl", [""]))
    with pytest.raises(PathDataError, match="unknown path data set"):
        load_path_dataset("wiki", tmp_path)
    with pytest.raises(PathDataError, match="no data set folder"):
        load_path_dataset("ade", tmp_path)


def test_load_dataset_from_folder(tmp_path):
    folder = tmp_path / "ade"
    folder.mkdir()
    write(folder / "train_full.jsonl", [RECORD])
    write(folder / "test_truth.jsonl", [RECORD])
    ds = load_path_dataset("ade", tmp_path)
    assert (len(ds.train), len(ds.truth), ds.sim, ds.gpt) == (1, 1, [], [])
    assert ds.display_name == "ADE"


@pytest.mark.skipif(
    not (default_data_dir() / "path-to-causality").is_dir(), reason="shared data not present"
)
def test_shared_files_all_parse():
    sizes = {name: len(load_path_dataset(name).train) for name in DATASETS}
    assert sizes == {"comagc": 638, "gene": 517, "ade": 800, "semeval": 323}


def test_validation_split_is_by_query_and_seeded():
    from causalqa.discovery.pathdata import PathDataset, PathRecord, validation_split

    recs = [PathRecord(str(i), "s", f"a{i}", f"b{i}", i % 2, ()) for i in range(50)]
    data = PathDataset("ade", recs, [PathRecord("t", "s", "x", "y", 1, ())])
    val = validation_split(data)
    assert (len(val.train), len(val.truth)) == (40, 10) and val.name == "ade"
    assert {r.qid for r in val.train} | {r.qid for r in val.truth} == {str(i) for i in range(50)}
    assert not {r.qid for r in val.train} & {r.qid for r in val.truth}
    assert "t" not in {r.qid for r in val.truth}  # never a test record
    assert [r.qid for r in validation_split(data).truth] == [r.qid for r in val.truth]
    assert [r.qid for r in validation_split(data, seed=1).truth] != [r.qid for r in val.truth]
    with pytest.raises(PathDataError, match="fraction"):
        validation_split(data, fraction=1.5)
    with pytest.raises(PathDataError, match="cannot be split"):
        validation_split(PathDataset("ade", recs[:1], []))


@pytest.mark.parametrize("key", ["reltypes", "nodelabels", "stops_id", "reltypes_id"])
def test_a_number_in_a_paths_optional_text_field_is_a_clear_error(tmp_path, key):
    path = tmp_path / "train_full.jsonl"
    rec = json.loads(json.dumps(RECORD))
    rec["metapaths"][0][key] = 5
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    with pytest.raises(PathDataError, match=rf":1: field metapaths\[0\]\.'{key}' must be a string"):
        read_path_file(path)


def test_a_missing_or_null_optional_text_field_is_empty(tmp_path):
    path = tmp_path / "train_full.jsonl"
    rec = json.loads(json.dumps(RECORD))
    rec["metapaths"][0]["nodelabels"] = None
    del rec["metapaths"][0]["reltypes"]
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    cand = read_path_file(path)[0].paths[0]
    assert cand.node_types == () and cand.relations == ()
