"""The grammar's other spellings of a literal (issue 29): a literal pinned by a shared start or end (roots._literal's
`kind` + `regex`) is said in every kind the language's grammar has for the same value (Java's decimal, hex, octal
and binary integers; a bash word, "string" and 'raw string'; a JS quoted and template string) and in every quote a
string opens with, so the rule does not hang on the one spelling the two examples happened to use."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sgtools.workflows.suggest.candidates import of_kinds

# Per language, the kinds its grammar writes one kind of value in (checked against ast-grep's parsers in
# tests/test_suggest_literal_kinds.py). A kind in no family is the only spelling its grammar has.
_INTEGERS = ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal")
_JS_STRINGS = ("string", "template_string")
FAMILIES: dict[str, tuple[tuple[str, ...], ...]] = {
    "java": (_INTEGERS, ("decimal_floating_point_literal", "hex_floating_point_literal")),
    "kotlin": (("integer_literal", "hex_literal", "bin_literal"),),
    "swift": (("integer_literal", "hex_literal", "oct_literal", "bin_literal"),
              ("line_string_literal", "multi_line_string_literal", "raw_string_literal")),
    "bash": (("word", "string", "raw_string"),),
    "javascript": (_JS_STRINGS,), "typescript": (_JS_STRINGS,), "tsx": (_JS_STRINGS,),
    "php": (("string", "encapsed_string"),),
    "go": (("interpreted_string_literal", "raw_string_literal"),),
    "rust": (("string_literal", "raw_string_literal"),),
    "csharp": (("string_literal", "verbatim_string_literal", "raw_string_literal"),),
}

_QUOTE = "[\"'`]"
_OPENING = re.compile(r"^\^(?:\\?[\"'`])")  # a pinned start that opens with one quote: `^"aws\-sdk`
_CLOSING = re.compile(r"(?:\\?[\"'`])\$$")  # a pinned end that closes with one: `\.log"$`


def family(language: str, kind: str) -> tuple[str, ...]:
    """The kinds the grammar spells the same value as `kind` in (just `kind` when it has one spelling)."""
    return next((f for f in FAMILIES.get(language, ()) if kind in f), (kind,))


def spelled_as(language: str, kinds: Iterable[str]) -> dict[str, Any]:
    """The rule fragment for a node of the kinds or any other spelling of their values."""
    return of_kinds(sorted({k for kind in kinds for k in family(language, kind)}))


def any_quote(regex: str, bare: bool) -> str:
    """The pinned regex with its opening (closing) quote as any quote; the start of a bare literal (`^/tmp/` of a
    bash word) whose grammar quotes the same value too takes an optional one (`"/tmp/x"`)."""
    if _OPENING.match(regex):
        return _OPENING.sub(lambda _m: "^" + _QUOTE, regex, count=1)
    if _CLOSING.search(regex):
        return _CLOSING.sub(lambda _m: _QUOTE + "$", regex, count=1)
    if bare and regex.startswith("^"):
        return f"^{_QUOTE}?{regex[1:]}"
    return regex


def pinned_rule(language: str, kind: str, regex: str) -> dict[str, Any]:
    """`kind` + `regex` for a pinned literal, said in every spelling its grammar has."""
    bare = "string" not in kind and any("string" in k for k in family(language, kind))
    return {**spelled_as(language, [kind]), "regex": any_quote(regex, bare)}
