"""A Python module's function used by its bare name where the file imports it (issue 29): `from logging import
basicConfig` then `basicConfig(...)` is `logging.basicConfig(...)`; a bare `utcnow()` in a file that imports no
`utcnow` from `datetime` is some other function. The rule for a name the request writes qualified by a module
(`logging.basicConfig()`, `warnings.warn`) is `any` of the qualified name and the bare name in a file with that
import (requested.py, required.py)."""

from __future__ import annotations

import re
from typing import Any

_MODULE = re.compile(r"(?:[a-z_]\w*\.)+")  # a module path written before a name: `logging.`, `os.path.`


def module_of(qualifier: str, language: str) -> str | None:
    """The module a Python qualifier names (`logging` of `logging.`), None for another language or qualifier."""
    return qualifier[:-1] if language == "python" and _MODULE.fullmatch(qualifier) else None


def bare_where_imported(alternatives: str, module: str) -> dict[str, Any]:
    """The bare name (`^(basicConfig)$`) in a file whose top level imports it from the module, not in the import."""
    imports = rf"^from\s+{re.escape(module)}\s+import\b[\s\S]*\b({alternatives})\b"
    return {"kind": "identifier", "regex": f"^({alternatives})$",
            "inside": {"kind": "module", "stopBy": "end", "has": {"kind": "import_from_statement", "regex": imports}},
            "not": {"inside": {"kind": "import_from_statement", "stopBy": "end"}}}


def with_imported(rule: dict[str, Any], alternatives: str, qualifier: str, language: str) -> dict[str, Any]:
    """The rule, or `any` of it and the bare name where the file imports it from the qualifier's module."""
    module = module_of(qualifier, language)
    return rule if module is None else either(rule, bare_where_imported(alternatives, module))


def either(rule: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """`any` of the rule's alternatives and one more."""
    return {"any": [*(rule["any"] if set(rule) == {"any"} else [rule]), other]}
