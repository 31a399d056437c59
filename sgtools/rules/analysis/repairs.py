"""Repairs searched, not guessed: the known mutations of a rule, each to be verified by ast-grep.

A mutation is one small, common correction (`stopBy: end` on a relational rule, `$X` -> `$$$X`, an
anchored regex, a wider grammar, a pattern given its context); the analyser keeps only the candidates that
ast-grep compiles and that fire where they must (the pattern's instance, every invalid example) and stay
quiet where they must (every valid example), and reports the smallest as a full rule YAML.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ruamel.yaml.scalarstring import LiteralScalarString

from sgtools.core import yamlio
from sgtools.rules.analysis import walk
from sgtools.rules.analysis.selfmatch import WIDER


class Candidate:
    __slots__ = ("doc", "path", "why")

    def __init__(self, doc: dict[str, Any], why: str, path: str) -> None:
        self.doc = doc
        self.why = why  # what changed, in words: "add `stopBy: end` to rule.has"
        self.path = path  # where


def stop_by_end(doc: Mapping[str, Any]) -> list[Candidate]:
    out = []
    for path, node in walk.rule_objects(doc):
        for key in ("has", "inside"):
            sub = node.get(key)
            if isinstance(sub, Mapping) and "stopBy" not in sub:
                new = dict(sub)
                new["stopBy"] = "end"
                where = walk.show((*path, key))
                out.append(Candidate(walk.replaced(doc, (*path, key), new),
                                     f"add `stopBy: end` to `{where}` (without it, `{key}` only looks at "
                                     f"direct {'children' if key == 'has' else 'parents'})", where))
    return out


def multi_metavars(doc: Mapping[str, Any]) -> list[Candidate]:
    out = []
    for path, value in walk.patterns(doc):
        text = walk.pattern_text(value)
        for name in walk.metavariables(text):
            single = re.compile(r"(?<!\$)\$" + re.escape(name) + r"\b")
            if not single.search(text):
                continue
            new_text = single.sub(_multi(name), text)
            new: Any = {**value, "context": new_text} if isinstance(value, Mapping) else new_text
            out.append(Candidate(walk.replaced(doc, path, new),
                                 f"`${name}` matches exactly one node; `$$${name}` matches any number",
                                 walk.show(path)))
    return out


def _multi(name: str) -> Callable[[re.Match[str]], str]:
    return lambda _m: "$$$" + name


def _unanchored(regex: str) -> bool:
    return not regex.startswith("^") and not regex.endswith("$") and "\\b" not in regex


def anchored_regexes(doc: Mapping[str, Any]) -> list[Candidate]:
    out = []
    for path, node in walk.rule_objects(doc):
        regex = node.get("regex")
        if isinstance(regex, str) and _unanchored(regex):
            where = walk.show((*path, "regex"))
            out.append(Candidate(walk.replaced(doc, (*path, "regex"), f"^({regex})$"),
                                 f"anchor `{where}`: ast-grep searches the regex anywhere inside the node's "
                                 f"text, so `{regex}` also matches longer names", where))
    return out


def wider_languages(doc: Mapping[str, Any], language: str) -> list[Candidate]:
    return [Candidate({**doc, "language": other}, f"use `language: {other}`: the {language} grammar cannot "
                      f"read this rule's patterns, the {other} grammar can", "language")
            for other in WIDER.get(language, ())]


def wider_kinds(doc: Mapping[str, Any], known: set[str]) -> list[Candidate]:
    """Each `kind: K` replaced by a real kind that contains it (`for_statement` -> `for_in_statement`, the
    JavaScript for...of loop): for examples that a near-miss kind does not reach."""
    out = []
    for path, node in walk.rule_objects(doc):
        kind = node.get("kind")
        if not isinstance(kind, str):
            continue
        for other in sorted(k for k in known if k != kind and _contains(kind, k))[:_MAX_KINDS]:
            where = walk.show((*path, "kind"))
            out.append(Candidate(walk.replaced(doc, (*path, "kind"), other),
                                 f"`{where}`: the code is a `{other}`, not a `{kind}`", where))
    return out


_MAX_KINDS = 4


def _contains(small: str, big: str) -> bool:
    """Every word of `small` in `big`, in order (for_statement in for_in_statement)."""
    words = iter(big.split("_"))
    return all(w in words for w in small.split("_"))


def mutations(doc: Mapping[str, Any], language: str) -> list[Candidate]:
    return [*stop_by_end(doc), *multi_metavars(doc), *anchored_regexes(doc), *wider_languages(doc, language)]


def combined(first: Candidate, doc_mutations: list[Candidate], language: str) -> list[Candidate]:
    """`first` then one more mutation of its result (for a rule with two faults)."""
    out = []
    for extra in mutations(first.doc, language):
        if extra.why != first.why:
            out.append(Candidate(extra.doc, f"{first.why}; and {extra.why}", f"{first.path}, {extra.path}"))
    return out


def unanchored_words(regex: str) -> bool:
    """`eval|exec`: bare alternatives of words, which also match inside longer names."""
    return _unanchored(regex) and "|" in regex and all(re.fullmatch(r"\w+", p) for p in regex.split("|"))


def to_yaml(doc: Mapping[str, Any]) -> str:
    """Block YAML with multi-line strings as literal blocks, keys in the rule's own order."""
    def convert(node: Any) -> Any:
        if isinstance(node, Mapping):
            return {k: convert(v) for k, v in node.items()}
        if isinstance(node, list):
            return [convert(v) for v in node]
        if isinstance(node, str) and "\n" in node and not re.search(r"[ \t]\n|\s$", node):
            return LiteralScalarString(node)
        return node

    return yamlio.dump(convert(doc))
