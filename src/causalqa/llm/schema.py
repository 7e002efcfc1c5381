"""JSON-schema checks and parsing of model output against a schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError as _JSONSchemaError

from causalqa.errors import LLMOutputError, SchemaError


def check_schema(schema: Any) -> None:
    """Raise `SchemaError` unless `schema` is a valid JSON Schema (draft 2020-12) object."""
    if not isinstance(schema, dict):
        raise SchemaError(
            f"a JSON schema must be a JSON object, got {type(schema).__name__}",
            hint='e.g. {"type": "object", "properties": {"answer": {"type": "string"}}}',
        )
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except _JSONSchemaError as e:
        where = "/".join(str(p) for p in e.path) or "(top level)"
        raise SchemaError(f"invalid JSON schema at {where}: {e.message}") from None


def load_schema(path: str | Path) -> dict[str, Any]:
    """Read and check a JSON schema file."""
    p = Path(path)
    if not p.exists():
        raise SchemaError(f"schema file {p} does not exist")
    if p.is_dir():
        raise SchemaError(f"schema path {p} is a directory, not a JSON file")
    try:
        schema = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise SchemaError(f"schema file {p} is not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise SchemaError(
            f"schema file {p} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"
        ) from None
    check_schema(schema)
    return schema


def parse_json_output(text: str, schema: dict[str, Any]) -> Any:
    """Parse `text` as one JSON value and validate it against `schema`.

    Raises `LLMOutputError` naming what is wrong (not JSON; which field breaks which rule).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        snippet = text[max(0, e.pos - 30) : e.pos + 30]
        raise LLMOutputError(f"output is not JSON ({e.msg} near {snippet!r})") from None
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise LLMOutputError(f"output does not match the schema at {where}: {error.message}")
    return data
