"""JSON Schema → GBNF grammar for llama.cpp's constrained decoding.

We write our own converter instead of using ``llama_cpp.llama_grammar.json_schema_to_gbnf``
because, measured on llama-cpp-python 0.3.36, that one lets raw control characters
(newline, tab, NUL …) into JSON strings — `json.loads` then rejects the "constrained"
output — and it expands ``maxLength: N`` into N nested groups. Here:

- a string character is any code point except ``"``, ``\\`` and U+0000–U+001F/U+007F,
  or one of JSON's escapes, so every string the grammar admits is valid JSON;
- every free-text string is bounded (``maxLength``, else `DEFAULT_MAX_STRING`) with
  GBNF's native ``{m,n}`` repetition, so a model cannot ramble inside one string forever;
- whitespace is at most one space between tokens, so it cannot run away either;
- enums and consts are literal alternatives, so a name outside them cannot be produced.

Keywords the grammar cannot express (``pattern``, numeric bounds, ``uniqueItems``,
``not`` …) are left to the validation that always follows decoding.
"""

from __future__ import annotations

import json
import re
from typing import Any

from causalqa.errors import SchemaError

DEFAULT_MAX_STRING = 1000
"""Bound on free-text JSON strings without their own ``maxLength`` (characters)."""

_PRIMITIVES = {
    "sp": '" "?',
    "char": r'[^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "integer": r'"-"? ("0" | [1-9] [0-9]{0,15}) sp',
    "number": (r'"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,3})? sp'),
    "boolean": '("true" | "false") sp',
    "null": '"null" sp',
}

_UNSUPPORTED = ("prefixItems", "patternProperties", "dependentSchemas", "$dynamicRef")


def gbnf_literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _json_literal(value: Any) -> str:
    return gbnf_literal(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


class _Builder:
    def __init__(self, root: dict[str, Any], max_string: int) -> None:
        self.root = root
        self.max_string = max_string
        self.rules: dict[str, str] = {}
        self.refs: dict[str, str] = {}

    # -- rule table --------------------------------------------------------------------
    def rule(self, name: str, body: str) -> str:
        name = re.sub(r"[^a-zA-Z0-9-]+", "-", name).strip("-") or "r"
        for existing, existing_body in self.rules.items():
            if existing_body == body:
                return existing
        candidate, i = name, 1
        while candidate in self.rules or candidate in _PRIMITIVES:
            i += 1
            candidate = f"{name}-{i}"
        self.rules[candidate] = body
        return candidate

    def string_rule(self, min_len: int = 0, max_len: int | None = None) -> str:
        hi = max_len if max_len is not None else max(self.max_string, min_len)
        if hi < min_len:
            raise SchemaError(f"string minLength {min_len} exceeds maxLength {hi}")
        reps = f"{{{min_len}}}" if hi == min_len else f"{{{min_len},{hi}}}"
        return self.rule(f"string-{min_len}-{hi}", f'"\\"" char{reps} "\\"" sp')

    def value_rule(self) -> str:
        if "value" in self.rules:
            return "value"
        self.rules["value"] = ""  # reserve the name: object/array refer back to it
        string = self.string_rule()
        self.rules["object"] = (
            f'"{{" sp ( {string} ":" sp value ("," sp {string} ":" sp value)* )? "}}" sp'
        )
        self.rules["array"] = '"[" sp ( value ("," sp value)* )? "]" sp'
        self.rules["value"] = f"object | array | {string} | number | boolean | null"
        return "value"

    # -- schema walk -------------------------------------------------------------------
    def resolve_ref(self, ref: str) -> str:
        if ref in self.refs:
            return self.refs[ref]
        if not ref.startswith("#/"):
            raise SchemaError(f"only local $ref like '#/$defs/Name' is supported, got {ref!r}")
        target: Any = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                raise SchemaError(f"$ref {ref!r} points to nothing in the schema")
            target = target[part]
        name = "ref-" + ref.rsplit("/", 1)[-1]
        # Reserve a name first so recursive schemas refer to themselves.
        placeholder = self.rule(name, f"__pending__{ref}")
        self.refs[ref] = placeholder
        body_rule = self.visit(target, name + "-body")
        self.rules[placeholder] = body_rule
        return placeholder

    def visit(self, schema: Any, name: str) -> str:
        if schema is True or schema == {}:
            return self.value_rule()
        if schema is False:
            raise SchemaError(f"schema at {name!r} is `false`: no value can satisfy it")
        if not isinstance(schema, dict):
            raise SchemaError(f"schema at {name!r} must be an object, got {schema!r}")
        for key in _UNSUPPORTED:
            if key in schema:
                raise SchemaError(
                    f"JSON-schema keyword {key!r} is not supported for constrained output"
                )

        if "$ref" in schema:
            return self.resolve_ref(schema["$ref"])
        if "const" in schema:
            return self.rule(name, f"{_json_literal(schema['const'])} sp")
        if "enum" in schema:
            values = schema["enum"]
            if not values:
                raise SchemaError(f"enum at {name!r} is empty: no value can satisfy it")
            return self.rule(name, " | ".join(f"{_json_literal(v)} sp" for v in values))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                alts = [self.visit(s, f"{name}-{i}") for i, s in enumerate(schema[key])]
                return self.rule(name, " | ".join(alts))
        if "allOf" in schema:
            parts = schema["allOf"]
            if len(parts) == 1:
                return self.visit(parts[0], name)
            raise SchemaError("allOf with several schemas is not supported for constrained output")

        typ = schema.get("type")
        if isinstance(typ, list):
            alts = [self.visit({**schema, "type": t}, f"{name}-{t}") for t in typ]
            return self.rule(name, " | ".join(alts))
        if typ is None:
            if "properties" in schema:
                typ = "object"
            elif "items" in schema:
                typ = "array"
            else:
                return self.value_rule()

        if typ == "string":
            return self.string_rule(schema.get("minLength", 0), schema.get("maxLength"))
        if typ in ("integer", "number", "boolean", "null"):
            return typ
        if typ == "array":
            return self.array(schema, name)
        if typ == "object":
            return self.object(schema, name)
        raise SchemaError(f"unknown JSON-schema type {typ!r} at {name!r}")

    def array(self, schema: dict[str, Any], name: str) -> str:
        item = self.visit(schema.get("items", True), f"{name}-item")
        lo = int(schema.get("minItems", 0))
        hi = schema.get("maxItems")
        if hi is not None and int(hi) < lo:
            raise SchemaError(f"array minItems {lo} exceeds maxItems {hi} at {name!r}")
        if hi == 0:
            return self.rule(name, '"[" sp "]" sp')
        rest_lo = max(lo - 1, 0)
        if hi is None:
            reps = "*" if rest_lo == 0 else f"{{{rest_lo},}}"
        else:
            reps = f"{{{rest_lo},{int(hi) - 1}}}"
        inner = f'{item} ("," sp {item}){reps}'
        if lo == 0:
            inner = f"( {inner} )?"
        return self.rule(name, f'"[" sp {inner} "]" sp')

    def object(self, schema: dict[str, Any], name: str) -> str:
        props: dict[str, Any] = schema.get("properties") or {}
        if not props:
            extra = schema.get("additionalProperties", True)
            if extra is False:
                return self.rule(name, '"{" sp "}" sp')
            value = self.visit(extra, f"{name}-value")
            key = self.string_rule()
            kv = f'{key} ":" sp {value}'
            return self.rule(name, f'"{{" sp ( {kv} ("," sp {kv})* )? "}}" sp')
        required = set(schema.get("required", []))
        unknown = required - set(props)
        if unknown:
            raise SchemaError(f"required properties {sorted(unknown)} are not defined at {name!r}")
        kv_rules = {
            k: self.rule(
                f"{name}-{k}-kv",
                f'{_json_literal(k)} sp ":" sp {self.visit(s, f"{name}-{k}")}',
            )
            for k, s in props.items()
        }
        req = [k for k in props if k in required]
        opt = [k for k in props if k not in required]
        body = '"{" sp ' + ' "," sp '.join(kv_rules[k] for k in req)
        if opt:
            # Optional members keep their declared order; each may be left out.
            def chain(keys: list[str]) -> str:
                first, rest = keys[0], keys[1:]
                text = kv_rules[first]
                for k in rest:
                    text += f' ("," sp {kv_rules[k]})?'
                return text

            alts = " | ".join(chain(opt[i:]) for i in range(len(opt)))
            body += f' ( "," sp ( {alts} ) )?' if req else f" ( {alts} )?"
        body += ' "}" sp'
        return self.rule(name, body)


def schema_to_gbnf(schema: dict[str, Any], *, max_string: int = DEFAULT_MAX_STRING) -> str:
    """A GBNF grammar whose sentences are exactly JSON texts of the schema's shape.

    >>> print(schema_to_gbnf({"enum": ["yes", "no"]}).splitlines()[0])
    root ::= "\\"yes\\"" sp | "\\"no\\"" sp
    """
    builder = _Builder(schema, max_string)
    top = builder.visit(schema, "root")
    lines = [
        f"root ::= {builder.rules.pop(top) if top in builder.rules and top == 'root' else top}"
    ]
    for rule_name, body in builder.rules.items():
        lines.append(f"{rule_name} ::= {body}")
    for rule_name, body in _PRIMITIVES.items():
        lines.append(f"{rule_name} ::= {body}")
    return "\n".join(lines) + "\n"
