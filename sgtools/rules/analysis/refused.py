r"""Rules ast-grep refuses: turn its reason into a cause an agent can act on, with candidate repairs.

ast-grep says `Kind \`go_stmt\` is invalid` or `Undefined meta var \`B\` used in \`fix\``; the analyser adds
the nearest real kind (harvested from ast-grep's own parse output), the nearest bound metavariable, or a
grammar that can read the pattern (`$E as any` is TypeScript, not JavaScript). Candidates are verified by
the caller like every other repair.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.engine.process import Engine
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis import kinds, walk
from sgtools.rules.analysis.repairs import Candidate, wider_languages

_KIND = re.compile(r"Kind `([^`]+)` is invalid")
_METAVAR = re.compile(r"Undefined meta var `([^`]+)` used in `([^`]+)`")
_UNREADABLE = ("Multiple AST nodes", "Rule must specify a set of AST kinds", "invalid pattern", "No AST root")


def diagnose(engine: Engine, doc: Mapping[str, Any], language: str, reason: str, samples: list[str],
             cwd: Path) -> tuple[str, str, list[Candidate]]:
    """(code, cause, candidates) for a refused rule."""
    if m := _KIND.search(reason):
        return _unknown_kind(engine, doc, language, m.group(1), samples, cwd)
    if m := _METAVAR.search(reason):
        return _undefined_metavar(doc, m.group(1), m.group(2))
    if any(text in reason for text in _UNREADABLE):
        cands = wider_languages(doc, language)
        cause = f"ast-grep refuses the rule: {reason}."
        return F.WRONG_LANGUAGE if cands else F.RULE_REFUSED, cause, cands
    return F.RULE_REFUSED, f"ast-grep refuses the rule: {reason}.", []


def _unknown_kind(engine: Engine, doc: Mapping[str, Any], language: str, kind: str, samples: list[str],
                  cwd: Path) -> tuple[str, str, list[Candidate]]:
    known = kinds.known_kinds(engine, language, samples, cwd)
    close = kinds.nearest(kind, known)
    paths = [(*p, "kind") for p, node in walk.rule_objects(doc) if node.get("kind") == kind]
    cands = []
    for other in close:
        new: dict[str, Any] = dict(doc)
        for p in paths:
            new = walk.replaced(new, p, other)
        cands.append(Candidate(new, f"use the real kind `{other}`", walk.show(paths[0]) if paths else "rule"))
    hint = f" The nearest real kinds are {', '.join(close)}." if close else ""
    return F.UNKNOWN_KIND, f"`kind: {kind}` is not a node kind of {language}.{hint}", cands


def _undefined_metavar(doc: Mapping[str, Any], name: str, where: str) -> tuple[str, str, list[Candidate]]:
    bound: list[str] = []
    for _p, value in walk.patterns(doc):
        bound += walk.metavariables(walk.pattern_text(value))
    bound = list(dict.fromkeys(bound))
    close = sorted(bound, key=lambda b: (kinds.distance(name, b), b))[:3]
    cands = []
    rx = re.compile(r"(\$\$?\$?)" + re.escape(name) + r"\b")
    for other in close:
        new: dict[str, Any] = dict(doc)
        for key in ("fix", "transform", "constraints", "message"):
            if key in new:
                new = walk.replaced(new, (key,), _rename(new[key], rx, other))
        cands.append(Candidate(new, f"use the bound metavariable `${other}`", where))
    named = f" The rule's patterns bind {', '.join('$' + b for b in bound)}." if bound else \
        " The rule's patterns bind no metavariable."
    return (F.UNDEFINED_METAVARIABLE,
            f"`{where}` uses `${name}`, which no pattern of the rule binds, so ast-grep refuses it.{named}", cands)


def _rename(node: Any, rx: re.Pattern[str], other: str) -> Any:
    if isinstance(node, str):
        return rx.sub(lambda m: m.group(1) + other, node)
    if isinstance(node, Mapping):
        return {(other if isinstance(k, str) and rx.fullmatch("$" + k) else k):
                _rename(v, rx, other) for k, v in node.items()}
    if isinstance(node, list):
        return [_rename(v, rx, other) for v in node]
    return node
