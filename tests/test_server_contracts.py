"""Each tool's published output schema, derived from its result TypedDict, against REAL results: real ast-grep
on a temp project, the bundled community catalogue. A real result must validate; the same result without one
of its required fields must not; and a result may hold no field its schema does not declare (checked with
every object schema closed), so a field a service adds cannot be missing from what agents are told."""

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, TypedDict

import jsonschema
import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.server.app import TOOLS, tool_specs
from sgtools.server.schemas import contract, input_schemas, output_schema, published_output, schema_of
from sgtools.server.spec import App

pytestmark = pytest.mark.slow  # one module-wide project, about twenty real ast-grep calls

RULE = ("id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nnote: use ast.literal_eval\n"
        "rule:\n  pattern: eval($X)\nfix: ast.literal_eval($X)\n")
# (tool, arguments); `None` as rule_id means: the first community match of the search before it. A tool with
# modes (scan_code of a snippet or of files, list_rules or one rule, find_code or a rewrite) is called in each,
# keyed "tool:mode".
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("initialize_ast_grep", {}),
    ("add_or_update_rule", {"rule_id": "no-eval", "rule_yaml": RULE, "invalid_examples": ["eval(x)"],
                            "valid_examples": ["f(x)"]}),
    ("scan_code", {"code": "z = eval(q)\n", "language": "python"}),
    ("scan_code:paths", {"max_results": 1}),
    ("list_rules", {}),
    ("list_rules:one", {"rule_id": "no-eval"}),
    ("test_rule", {"rule_yaml": RULE, "code": "eval(1)", "invalid_examples": ["eval(x)", "f(y)"],
                   "valid_examples": ["eval(z)"]}),
    ("suggest_rule", {"language": "python", "invalid_examples": ["eval(a)", "eval(b + 1)"],
                      "valid_examples": ["evaluate(a)"], "fix_examples": [{"before": "eval(c)", "after": "safe(c)"}]}),
    ("dump_syntax_tree", {"code": "eval(x)", "language": "python"}),
    ("find_code", {"pattern": "$A == None", "language": "python"}),
    ("find_code:rewrite", {"pattern": "$A == None", "rewrite": "$A is None", "language": "python"}),
    ("apply_fixes", {}),
    ("search_community_rules", {"query": "eval", "language": "python"}),
    ("get_community_rule_details", {"rule_id": None}),
    ("import_community_rule", {"rule_id": None}),
    ("server_info", {}),
    ("remove_rule", {"rule_id": "no-eval"}),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    home = tmp_path_factory.mktemp("home")
    root = tmp_path_factory.mktemp("proj")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = eval(y)\nw = eval(v)\nif a == None:\n    pass\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(home / "cache"))
        mp.setenv("XDG_CONFIG_HOME", str(home / "config"))
        for name in ("SGTOOLS_ROOT", "SGTOOLS_AST_GREP", "SGTOOLS_COMMUNITY_SOURCES"):
            mp.delenv(name, raising=False)
        app = App(Workspace(str(root)), Engine(), Settings())
        specs = tool_specs()
        out: dict[str, dict[str, Any]] = {}
        for name, args in CALLS:
            if args.get("rule_id", "") is None:
                args = {"rule_id": out["search_community_rules"]["matches"][0]["id"]}
            out[name] = dict(specs[name.split(":")[0]].call(app, args))
        yield out


def _closed(schema: Any) -> Any:
    """The schema with every object that lists properties closed to other keys."""
    if isinstance(schema, dict):
        out = {k: _closed(v) for k, v in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_closed(v) for v in schema]
    return schema


def test_every_tool_is_exercised() -> None:
    assert sorted({name.split(":")[0] for name, _ in CALLS}) == sorted(tool_specs())


@pytest.mark.parametrize("name", [name for name, _ in CALLS])
def test_real_result_validates_against_its_output_schema(results: dict[str, dict[str, Any]], name: str) -> None:
    spec = tool_specs()[name.split(":")[0]]
    schema = output_schema(spec)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(results[name], schema)
    jsonschema.validate(results[name], _closed(schema))  # nothing undeclared, at any depth
    shown = published_output(spec)  # what tools/list shows: looser, never stricter
    jsonschema.Draft202012Validator.check_schema(shown)
    jsonschema.validate(results[name], shown)


# Tools with modes whose results share no field (list_rules: the list, or one rule) publish none as required.
_MODES_SHARE_NOTHING = {"list_rules"}


@pytest.mark.parametrize("name", [name for name, _ in CALLS if name.split(":")[0] not in _MODES_SHARE_NOTHING])
def test_result_without_a_required_field_is_rejected(results: dict[str, dict[str, Any]], name: str) -> None:
    schema = output_schema(tool_specs()[name.split(":")[0]])
    assert schema.get("required"), f"{name} publishes no required field"
    for field in schema["required"]:
        broken = copy.deepcopy(results[name])
        del broken[field]
        with pytest.raises(jsonschema.ValidationError, match=repr(field)):
            jsonschema.validate(broken, schema)


def test_nested_shapes_are_checked_too(results: dict[str, dict[str, Any]]) -> None:
    """The results exercise the nested shapes (a Diagnostic with a verified fix-it, a failed example, a page
    that continues), and a nested field removed is caught as well."""
    scan = results["scan_code:paths"]
    assert scan["truncated"] and isinstance(scan["nextOffset"], int)
    assert scan["issues"][0]["fixits"][0]["verified"] is True
    assert results["test_rule"]["examples"]["failed"], "an example should have failed"
    broken = copy.deepcopy(scan)
    del broken["issues"][0]["fixits"][0]["edits"][0]["newText"]
    with pytest.raises(jsonschema.ValidationError, match="newText"):
        jsonschema.validate(broken, output_schema(tool_specs()["scan_code"]))


def test_input_schemas_are_the_argument_typeddicts() -> None:
    """Names, types and required arguments come from the TypedDicts; the docs table only adds descriptions
    and caps, and naming an argument the TypedDict lacks is an error at build time."""
    published = input_schemas(Settings(), TOOLS)
    for spec in TOOLS:
        args_type, _ = contract(spec)
        derived = schema_of(args_type)
        schema = published[spec.name]
        assert set(schema["properties"]) == set(derived.get("properties", {})), spec.name
        assert schema.get("required", []) == derived.get("required", []), spec.name
        for name, prop in derived.get("properties", {}).items():
            assert schema["properties"][name]["type"] == prop["type"], (spec.name, name)


class Inner(TypedDict):
    a: int


class Outer(TypedDict, total=False):
    s: Required[str]
    n: float | None
    k: Literal["x", "y"]
    items: list[Inner]
    m: dict[str, str | list[str]]
    opt: NotRequired[Inner | None]
    any: object


def test_schema_of_covers_the_contract_types() -> None:
    schema = schema_of(Outer)
    assert schema["required"] == ["s"]
    props = schema["properties"]
    assert props["n"] == {"type": ["number", "null"]}
    assert props["k"] == {"type": "string", "enum": ["x", "y"]}
    assert props["items"]["items"]["required"] == ["a"]
    assert props["m"]["additionalProperties"] == {"anyOf": [{"type": "string"},
                                                            {"type": "array", "items": {"type": "string"}}]}
    assert props["opt"]["type"] == ["object", "null"]
    assert props["any"] == {}
    with pytest.raises(TypeError, match="JSON types"):
        schema_of(Path)
