"""Arguments of the common shape are judged valid without jsonschema's walk (server/arguments.py
`_plainly_valid`): that shortcut may only ever say "valid" where jsonschema finds no error; anything else goes to
jsonschema, which names the errors as before."""

from __future__ import annotations

import itertools
from typing import Any

import jsonschema
import pytest

from sgtools.core.settings import Settings
from sgtools.server import arguments
from sgtools.server.schemas import input_schemas
from sgtools.server.tools import TOOLS

SCHEMAS = input_schemas(Settings(), TOOLS)

# Values of every JSON kind, at and around the limits the tool schemas use.
VALUES: list[Any] = [None, True, False, 0, 1, -1, 2, 10_000, 10_001, 1.0, 1.5, "", "x", "python", "error", "hint",
                     "warning ", "a" * 64, "a" * 65, "a" * 129, "\u00e9" * 64, "\u00e9" * 65, [], ["x"], {}, {"a": 1}]


def _cases(schema: dict[str, Any]) -> list[dict[str, Any]]:
    props = list(schema.get("properties", {}))
    required = list(schema.get("required", []))
    out: list[dict[str, Any]] = [{}]
    for key in [*props, "unknown"]:
        for value in VALUES:
            out.append({**{r: "x" for r in required}, key: value})
            out.append({key: value})
    for a, b in itertools.combinations(props, 2):
        for va, vb in itertools.product(VALUES[::3], VALUES[1::4]):
            out.append({**{r: "x" for r in required}, a: va, b: vb})
    return out


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_shortcut_says_valid_only_where_jsonschema_finds_no_error(name: str) -> None:
    schema = SCHEMAS[name]
    checker = jsonschema.Draft202012Validator(schema)
    taken = 0
    for args in _cases(schema):
        if arguments._plainly_valid(schema, args):
            taken += 1
            assert not list(checker.iter_errors(args)), (name, args)
    assert taken or name not in ("scan_code", "list_rules", "server_info"), f"{name}: the shortcut never applied"


def test_a_snippet_scan_is_validated_without_jsonschema() -> None:
    schema = SCHEMAS["scan_code"]

    class Refuses:
        def iter_errors(self, _args: object) -> Any:
            raise AssertionError("jsonschema was asked")

    args = {"code": "def f():\n    return 1\n", "language": "python", "max_results": 5, "min_severity": "hint"}
    assert arguments.validate("scan_code", schema, args, Refuses()) == args
    with pytest.raises(AssertionError, match="jsonschema was asked"):  # anything else still goes to jsonschema
        arguments.validate("scan_code", schema, {**args, "max_results": 0}, Refuses())
