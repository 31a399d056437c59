"""The community index format (`index.json`, version 1): checked on load, rendered byte-stable.

An index is the only thing a client reads before it decides to fetch a rule, so everything in it is treated
as hostile until `validate_index` has passed it: the JSON Schema (`index_schema.json`) fixes the shape, and
the checks here add what a schema cannot say (unique ids, paths that cannot leave the index's location).
Building one from a rule repository is community/build.py.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from sgtools.core.errors import BadInput, EngineFailed
from sgtools.project.workspace import RULE_ID

INDEX_VERSION = 1
INDEX_NAME = "index.json"
AST_GREP_RANGE = ">=0.51"
SCHEMA_FILE = Path(__file__).with_name("index_schema.json")
TEST_SUFFIX = "-test"
YAML_SUFFIXES = (".yml", ".yaml")
DEFAULT_SEVERITY = "hint"  # what ast-grep assumes when a rule names none
UNKNOWN_LICENSE = "NOASSERTION"  # SPDX's word for "nobody said"
# A path segment: plain characters only, never `.` or `..` (hidden names such as `.sg` are fine: rule repositories
# keep their rules there).
_SEGMENT = re.compile(r"(?!\.\.?\Z)[A-Za-z0-9._@+-]+")


# ---- loading and checking ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    # jsonschema costs ~100 ms to import: only pay it when an index is actually checked.
    import jsonschema

    try:
        schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EngineFailed(f"The community index schema {SCHEMA_FILE} is missing or broken ({exc}); this install "
                           "is incomplete. Reinstall context-sherpa.") from None
    return jsonschema.Draft202012Validator(schema)


def check_relpath(path: object, where: str, what: str = "path") -> str:
    """A rule or test path from an index: relative, `/`-separated, no `..`, nothing that could leave the
    index's directory or URL (independent of the schema, so a schema change cannot open a traversal)."""
    if not isinstance(path, str) or not path or len(path) > 1024:
        raise BadInput(f"The community index {where} has an empty or oversized `{what}`. Fix or remove that source.")
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or ":" in path or not all(_SEGMENT.fullmatch(p) for p in parts):
        raise BadInput(
            f"The community index {where} has `{what}: {path[:200]!r}`, which is absolute, has a `..` or `.` segment "
            "or other characters that could leave the index's location. Refused: fix or remove that source."
        )
    if not path.endswith(YAML_SUFFIXES):
        raise BadInput(f"The community index {where} has `{what}: {path[:200]!r}`, which is not a .yml file. Refused.")
    return path


def parse_index(raw: bytes, where: str, *, schema: bool = True) -> dict[str, Any]:
    """Bytes of an `index.json` -> the checked index; every problem names the source it came from.
    `schema=False` skips only the JSON Schema pass (for bytes whose digest already passed it); the id and path
    checks always run."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(
            f"The community index {where} is not valid JSON ({exc}). Fix the file, or remove that source from "
            "SGTOOLS_COMMUNITY_SOURCES / the config file."
        ) from None
    return validate_index(data, where, schema=schema)


def validate_index(data: Any, where: str, *, schema: bool = True) -> dict[str, Any]:
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(e.absolute_path), e.message)) \
        if schema else []
    if errors:
        err = errors[0]
        at = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise BadInput(
            f"The community index {where} does not match the index v1 schema at {at}: {err.message[:300]}. "
            "Rebuild it with `sgtools community build-index`, or remove that source."
        )
    seen: set[str] = set()
    for entry in data["rules"]:
        rid = entry["id"]
        if not RULE_ID.fullmatch(rid) or rid in seen:
            problem = "is not a valid rule id" if not RULE_ID.fullmatch(rid) else "appears twice"
            raise BadInput(f"The community index {where}: rule id {rid[:200]!r} {problem}. Refused that source.")
        seen.add(rid)
        check_relpath(entry["path"], where)
        if entry.get("tests") is not None:
            check_relpath(entry["tests"], where, "tests")
    return data  # type: ignore[no-any-return]


def render_index(index: dict[str, Any]) -> bytes:
    """The canonical bytes of an index: what `build-index` writes and what a rebuild must reproduce."""
    return (json.dumps(index, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
