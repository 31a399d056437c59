"""A draft rule as a caller hands it in: size and type checks, one parse, the real binary's verdict.

Shared by the rule store (add, validate) and test_rule, so a rule that passes one is accepted by the other.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, TaggedScalar
from ruamel.yaml.scalarbool import ScalarBoolean

from sgtools.core import yamlio
from sgtools.core.cache import JsonCache, json_safe
from sgtools.core.digest import sha256
from sgtools.core.errors import BadInput, RuleInvalid, TooLarge
from sgtools.core.settings import Settings, get_settings
from sgtools.engine.process import Engine, stderr_message
from sgtools.project.workspace import Workspace, check_rule_id
from sgtools.rules.schema import type_name


def check_rule_inputs(rule_id: object, rule_yaml: object, valid: object, invalid: object, metadata: object,
                      settings: Settings) -> None:
    check_rule_id(rule_id)
    check_draft(rule_yaml, valid, invalid, settings)
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
            raise BadInput("metadata must be a mapping with string keys.")
        try:
            json.dumps(metadata)
        except (TypeError, ValueError):
            raise BadInput("metadata must hold plain JSON values (strings, numbers, lists, mappings).") from None


def check_draft(rule_yaml: object, valid: object, invalid: object, settings: Settings) -> None:
    """Type and size checks of a draft rule and its examples, before any parsing (shared with test_rule)."""
    if not isinstance(rule_yaml, str):
        raise BadInput(f"rule_yaml must be a string of YAML, got {type(rule_yaml).__name__}. Pass the rule's text.")
    size = len(rule_yaml.encode("utf-8", "surrogatepass"))
    if size > settings.max_rule_bytes:
        raise TooLarge(f"rule_yaml is {size} bytes, over the {settings.max_rule_bytes}-byte limit. "
                       "A rule is a few KB; split it or raise SGTOOLS_MAX_RULE_BYTES.")
    if "\x00" in rule_yaml:
        raise BadInput("rule_yaml contains NUL bytes: it looks like binary data, not YAML. Pass the rule's YAML text.")
    for name, examples in (("valid_examples", valid), ("invalid_examples", invalid)):
        if examples is None:
            continue
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            raise BadInput(f"{name} must be a list of code strings. Pass e.g. [\"print(1)\"].")
        if len(examples) > settings.max_examples:
            raise TooLarge(f"{name} has {len(examples)} items, over the limit of {settings.max_examples}. "
                           "Keep the most telling ones.")
        for i, code in enumerate(examples):
            if len(code.encode("utf-8", "surrogatepass")) > settings.max_code_bytes:
                raise TooLarge(f"{name}[{i}] is over {settings.max_code_bytes} bytes. Use a shorter snippet.")
            if "\x00" in code:
                raise BadInput(f"{name}[{i}] contains NUL bytes. Pass source code text.")


def parse_one(rule_yaml: str) -> Any:
    """The round-trip document (comments kept), parsed once: ruamel is pure Python and a big rule costs
    milliseconds per parse. The node budget and depth cap of `yamlio.check_shape` still apply."""
    docs: list[Any] = []
    try:
        if rule_yaml.strip():
            try:
                doc = yamlio.load_rt(rule_yaml)
            except yamlio.YamlError as exc:
                if "another document" not in exc.problem:
                    raise
                docs = [d for d in yamlio.load_all(rule_yaml) if d is not None]
            else:
                yamlio.check_shape(doc)
                if isinstance(doc, CommentedMap):
                    return doc
                docs = [] if doc is None else [doc]
    except yamlio.YamlError as exc:
        if any(word in exc.problem for word in ("nested", "expands to more than", "limit")):
            raise TooLarge(f"rule_yaml is refused: {exc}. A real rule is small and shallow; simplify it.",
                           check="yaml") from None
        hint = ""
        if "mapping values are not allowed" in exc.problem:
            hint = " A value containing `: ` (common in patterns such as `def $F(): $$$`) must be quoted."
        elif "\\t" in exc.problem or "\t" in exc.problem:
            hint = " YAML indentation must use spaces, not tabs."
        raise RuleInvalid(f"rule_yaml is not valid YAML: {exc}.{hint} Fix the YAML and retry.", check="yaml",
                          line=exc.line, column=exc.column) from None
    except RecursionError:
        raise TooLarge("rule_yaml is nested too deeply. A real rule is small and shallow; simplify it.",
                       check="yaml") from None
    if not docs:
        raise RuleInvalid("rule_yaml is empty. Pass a rule with at least `language` and `rule`.", check="yaml")
    if len(docs) > 1:
        raise RuleInvalid(f"rule_yaml holds {len(docs)} YAML documents (separated by `---`); pass one rule per "
                          "call.", check="yaml")
    raise RuleInvalid(f"rule_yaml must be a mapping with `id`, `language` and `rule`, got "
                      f"{type_name(docs[0])}.", check="yaml")


_canonical = JsonCache("rule-canonical-v1")


@functools.cache
def _code_digest() -> str:
    """What the canonical text depends on besides the draft: ruamel's version and the code that reads and dumps."""
    from ruamel.yaml import __version__

    return sha256(__version__.encode() + Path(yamlio.__file__).read_bytes() + Path(__file__).read_bytes()).hexdigest()


def read_draft(rule_yaml: str, rule_id: str, metadata: Mapping[str, object] | None
               ) -> tuple[dict[str, Any], Any, Callable[[], tuple[str, dict[str, Any]]]]:
    """The draft's plain data (with `metadata` merged in and `id` filled in), the `id` it declared, and a call
    that gives its canonical text (the round-trip dump, exactly the bytes that get written) with the data of the
    round-trip parse.

    The data comes from the safe loader (libyaml) where it is one mapping of JSON values: the checks that refuse
    most drafts (schema, id, language) need no round-trip parse, which is pure Python (~70 ms for a corpus rule,
    ~5 ms this way); the call parses round trip. Where the two loaders read a text differently, the caller checks
    again with the round-trip data, which decides. The canonical text and its data are remembered by content (the
    draft, the id, the metadata, the YAML limits and the code), in the process and across processes: the same
    draft comes back (validate, then add; a re-import). Only a draft whose canonical text was asked for is
    remembered, so a refused draft is read again and refused the same way. On a hit the declared id is None: the
    key holds `rule_id`, and the draft passed the id check when remembered."""
    settings = get_settings()
    key = None
    if metadata is None or json_safe(dict(metadata)):
        key = sha256(json.dumps([_code_digest(), settings.max_rule_bytes, settings.max_yaml_depth, rule_yaml,
                                 rule_id, None if metadata is None else dict(metadata)],
                                ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
        hit = _canonical.get("draft", key)
        if isinstance(hit, dict):
            known = json.loads(json.dumps(hit))  # a copy: callers may change the data they are given
            return known["data"], None, lambda: (str(known["text"]), known["data"])
    quick = _quick_draft(rule_yaml, rule_id, metadata)
    if quick is None:
        data, declared, dump = _round_trip(rule_yaml, rule_id, metadata, key)
        return data, declared, lambda: (dump(), data)

    def later() -> tuple[str, dict[str, Any]]:
        exact, _declared, dump = _round_trip(rule_yaml, rule_id, metadata, key)
        return dump(), exact
    return quick[0], quick[1], later


def _quick_draft(rule_yaml: str, rule_id: str, metadata: Mapping[str, object] | None
                 ) -> tuple[dict[str, Any], Any] | None:
    """`read_draft`'s data and declared id from the safe loader; None (the round-trip parse decides, and gives
    its errors) unless the text is one mapping of JSON values without a null `id`."""
    try:
        docs = yamlio.load_all(rule_yaml)
    except (yamlio.YamlError, RecursionError):
        return None
    if len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("id", "") is None:
        return None
    data: dict[str, Any] = docs[0]
    declared = data.get("id")
    _merge_metadata(data, metadata, dict)
    if declared is None:
        data = {"id": rule_id, **data}
    return (data, declared) if json_safe(data) else None


def _merge_metadata(doc: dict[str, Any], metadata: Mapping[str, object] | None,
                    empty: Callable[[], dict[str, Any]]) -> None:
    """The caller's `metadata` merged into the draft's own (made with `empty` when it has none); a `metadata`
    that is not a mapping is left for the schema check to refuse."""
    if metadata:
        meta = doc.get("metadata")
        if meta is None:
            meta = doc["metadata"] = empty()
        if isinstance(meta, dict):
            meta.update(metadata)


def _round_trip(rule_yaml: str, rule_id: str, metadata: Mapping[str, object] | None, key: str | None
                ) -> tuple[dict[str, Any], Any, Callable[[], str]]:
    doc = parse_one(rule_yaml)
    declared = doc.get("id")
    _merge_metadata(doc, metadata, CommentedMap)
    if declared is None:
        doc.insert(0, "id", rule_id)
    data = plain_data(doc)

    def dump() -> str:
        text = yamlio.dump_rt(doc)
        if key is not None and json_safe(data):
            _canonical.put("draft", key, json.loads(json.dumps({"data": data, "text": text})))  # a copy, as above
        return text
    return data, declared, dump


def compile_rule(ws: Workspace, engine: Engine, config: Path | str, rule_file: Path, original: str,
                 tmp: Path) -> None:
    result = engine.check_rule(rule_file, config=config, cwd=ws.root)
    if result.returncode == 0:
        return
    headline, causes = stderr_message(result.stderr)
    if not (headline.startswith("Cannot parse rule") and rule_file.name in headline):
        # ast-grep failed before it got to the rule: the project's own config or utils are broken.
        raise RuleInvalid(f"ast-grep could not load the project to check the rule: {headline}"
                          + (": " + "; ".join(causes) if causes else "")
                          + ". Fix sgconfig.yml or the util files first (see list_rules ruleErrors).",
                          check="project")
    detail = _join_causes(causes)
    if any(re.search(r"line \d+", c) for c in causes):
        # Line numbers refer to the normalised text; ask the binary about the text as given, for positions
        # the caller can find.
        original_file = tmp / "as-given.yml"
        original_file.write_text(original, encoding="utf-8")
        again = engine.check_rule(original_file, config=config, cwd=ws.root)
        if again.returncode != 0:
            _, causes = stderr_message(again.stderr)
            detail = _join_causes(causes)
    raise RuleInvalid(f"ast-grep 0.51 rejects the rule: {detail or headline}. {_advice(detail)}",
                      check="engine", causes=causes)


def _join_causes(causes: list[str]) -> str:
    """ast-grep's cause chain without its generic first link and the excerpt-bearing duplicate."""
    keep = [c.rstrip(". ") for c in causes if not c.startswith(("Fail to parse yaml as", "error: line"))]
    return "; ".join(dict.fromkeys(keep))


_ADVICE = (
    ("Rule must specify a set of AST kinds", "The pattern is not one complete piece of code: complete it, quote "
     "it in YAML, or use a pattern object with `context` and `selector`, or add `kind`."),
    ("Multiple AST nodes", "A pattern must be one node: split it with `all`/`has`, or use a pattern object with "
     "`context` and `selector`."),
    ("No AST root", "The pattern is empty: give code to match."),
    ("Undefined meta var", "Bind that metavariable in `rule` (e.g. in its pattern) or remove it from fix/transform."),
    ("invalid kind", "Use a node kind of this language; dump_syntax_tree shows the kinds."),
    ("is invalid", "Use a node kind of this language; dump_syntax_tree shows the kinds."),
    ("reserved characters", "Rename the util without ( ) , = and update its `matches:` references."),
    ("is not defined", "Define that util under `utils:` or in a util file of utilDirs, or fix the `matches:` name."),
    ("regex parse error", "Fix the regular expression (Rust regex syntax)."),
    ("unknown field", "Remove or rename that key; metadata belongs under `metadata:`."),
    ("positive matcher", "Give the rule at least one of pattern, kind, regex, nthChild, range, matches."),
)


def _advice(detail: str) -> str:
    return next((text for needle, text in _ADVICE if needle in detail), "Fix the rule and retry.")


def warn_about(data: dict[str, Any], warnings: list[str]) -> None:
    if "severity" not in data:
        warnings.append("no severity: ast-grep reports it as `hint`")
    elif data["severity"] == "off":
        warnings.append("severity is `off`: ast-grep neither scans nor tests with this rule until it gets another")
    if not data.get("message"):
        warnings.append("no message: findings will have an empty message")


def snip(code: str, limit: int = 60) -> str:
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def plain_data(node: Any) -> Any:
    """Plain Python data from a round-trip document, as a safe load would give (for the schema)."""
    if isinstance(node, dict):
        return {plain_data(k): plain_data(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain_data(v) for v in node]
    if node is None or isinstance(node, bool):
        return node
    if isinstance(node, ScalarBoolean):
        return bool(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, TaggedScalar):
        return str(node.value)
    return str(node)  # dates and times: text to ast-grep
