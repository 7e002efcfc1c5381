"""The JSON-schema → GBNF converter: what it admits is valid JSON of the schema's shape.

Without llama.cpp we check the grammar text; with it, we also check that llama.cpp
compiles every grammar and that its sampler refuses what the schema forbids."""

import json
import re

import pytest
from tests.conftest import requires_small_model

from causalqa.errors import SchemaError
from causalqa.llm.grammar import DEFAULT_MAX_STRING, gbnf_literal, schema_to_gbnf

SCHEMAS = {
    "enum": {"enum": ["yes", "no", 'say "maybe"', "naïve → ✓"]},
    "object": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 40},
            "age": {"type": "integer"},
            "score": {"type": "number"},
            "ok": {"type": "boolean"},
            "nothing": {"type": "null"},
        },
        "required": ["name", "age"],
    },
    "array": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
    "nested": {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "fn": {"enum": ["parents", "children"]},
                        "args": {
                            "type": "object",
                            "properties": {"node": {"enum": ["A b", "C/d"]}},
                            "required": ["node"],
                        },
                    },
                    "required": ["fn", "args"],
                },
            }
        },
        "required": ["steps"],
    },
    "ref": {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            }
        },
        "$ref": "#/$defs/node",
    },
    "anyof": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "typelist": {"type": ["string", "null"]},
    "const": {"type": "object", "properties": {"kind": {"const": "answer"}}, "required": ["kind"]},
    "free": {},
    "free_object": {"type": "object"},
    "weird_keys": {
        "type": "object",
        "properties": {'a "q"': {"type": "string"}, "ü ß": {"type": "boolean"}},
        "required": ['a "q"'],
    },
    "all_optional": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    },
}


def rules(gbnf: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in gbnf.strip().splitlines())


def test_string_characters_exclude_control_characters():
    char = rules(schema_to_gbnf({"type": "string"}))["char"]
    # The plain-character class must exclude the quote, the backslash and U+0000-U+001F, U+007F.
    assert char.startswith('[^"\\\\\\x00-\\x1F\\x7F]')


def test_free_strings_are_bounded():
    r = rules(schema_to_gbnf({"type": "string"}))
    bounded = [b for b in r.values() if f"char{{0,{DEFAULT_MAX_STRING}}}" in b]
    assert bounded, r
    r = rules(schema_to_gbnf({"type": "string", "minLength": 2, "maxLength": 5}))
    assert any("char{2,5}" in b for b in r.values())
    assert "char*" not in schema_to_gbnf(SCHEMAS["free"])


def test_whitespace_cannot_run_away():
    assert rules(schema_to_gbnf({"type": "string"}))["sp"] == '" "?'


def test_enum_values_are_literals():
    r = rules(schema_to_gbnf(SCHEMAS["enum"]))
    root = r["root"]
    assert gbnf_literal(json.dumps("yes")) in root
    assert gbnf_literal(json.dumps('say "maybe"', ensure_ascii=False)) in root
    assert "naïve → ✓" in root
    assert "char" not in root


def test_array_bounds_use_native_repetition():
    root = rules(schema_to_gbnf(SCHEMAS["array"]))["root"]
    assert re.search(r'\("," sp [\w-]+\)\{1,3\}', root), root


def test_required_properties_come_first_and_optional_may_be_left_out():
    root = rules(schema_to_gbnf(SCHEMAS["object"]))["root"]
    assert root.index("name-kv") < root.index("age-kv") < root.index("score-kv")
    assert ')? "}" sp' in root


def test_recursive_ref():
    r = rules(schema_to_gbnf(SCHEMAS["ref"]))
    assert any(name.startswith("ref-node") for name in r)


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "string", "minLength": 5, "maxLength": 2},
        {"enum": []},
        {"$ref": "#/$defs/missing"},
        {"$ref": "http://example.com/s.json"},
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"type": "object", "properties": {"a": {}}, "required": ["b"]},
        {"type": "tuple"},
    ],
)
def test_unsupported_or_impossible_schemas_are_clear_errors(bad):
    with pytest.raises(SchemaError):
        schema_to_gbnf(bad)


def test_gbnf_literal_escapes():
    assert gbnf_literal('a"b\\c\nd\x01') == '"a\\"b\\\\c\\nd\\x01"'


@requires_small_model
@pytest.mark.model
@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_llama_cpp_compiles_every_grammar(name):
    """llama.cpp's grammar sampler compiles each grammar (`LlamaGrammar.from_string` would
    accept any text: it parses nothing), lets through instances valid under the schema,
    and refuses text that is not: a truncated instance and a wrong type."""
    import random

    import jsonschema
    from tests.hardening.support import schema_instance
    from tests.llm.grammar_probe import accepts

    schema = SCHEMAS[name]
    gbnf = schema_to_gbnf(schema)
    rng = random.Random(0)
    for _ in range(4):
        value = schema_instance(schema, rng)
        jsonschema.validate(value, schema)
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        assert accepts(gbnf, text), (name, text)
        if text[-1] in '}]"':  # cut before its closing bracket or quote: not JSON
            assert not accepts(gbnf, text[:-1]), (name, text[:-1])
    candidates = ('"?"', "12", "true", "null", "[]", "{}", "nope", "{", '"raw\nnewline"')
    wrong = [t for t in candidates if not valid(t, schema)]
    assert wrong and not any(accepts(gbnf, t) for t in wrong), (name, wrong)


def valid(text: str, schema) -> bool:
    import jsonschema

    try:
        jsonschema.validate(json.loads(text, strict=True), schema)
    except (ValueError, jsonschema.ValidationError):
        return False
    return True


@requires_small_model
@pytest.mark.model
def test_llama_cpp_refuses_raw_control_characters_inside_strings():
    """llama.cpp's own grammar engine, fed token by token: a raw newline or tab inside a
    string is refused, the escaped forms and any unicode are accepted."""
    from tests.llm.grammar_probe import accepts

    gbnf = schema_to_gbnf(
        {"type": "object", "properties": {"t": {"type": "string"}}, "required": ["t"]}
    )
    assert accepts(gbnf, '{"t":"line\\nnext"}')
    assert accepts(gbnf, '{"t": "ünïcödé ✓ \\"q\\""}')
    assert not accepts(gbnf, '{"t":"line\nnext"}')
    assert not accepts(gbnf, '{"t":"tab\there"}')
    assert not accepts(gbnf, '{"t":"unterminated')


@requires_small_model
@pytest.mark.model
def test_llama_cpp_enforces_enums_and_bounds():
    from tests.llm.grammar_probe import accepts

    enum = schema_to_gbnf(
        {"type": "object", "properties": {"v": {"enum": ["Price", "Revenue"]}}, "required": ["v"]}
    )
    assert accepts(enum, '{"v":"Revenue"}')
    assert not accepts(enum, '{"v":"Revenu"}')
    assert not accepts(enum, '{"v":"Profit"}')
    short = schema_to_gbnf({"type": "string", "maxLength": 5})
    assert accepts(short, '"abcde"')
    assert not accepts(short, '"abcdef"')
    arr = schema_to_gbnf(
        {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}
    )
    assert accepts(arr, "[1, 2]")
    assert not accepts(arr, "[]")
    assert not accepts(arr, "[1,2,3]")
