"""A request's list of names as one family (issue 29): "not ArrayList(), HashMap(), HashSet()" with examples that
each write one of them asks about every name listed, not only those shown. A call by a name regex of the names
shown (`^(ArrayList|HashMap)$`, callnames.py), or a type by the names shown (`^(String|Number)$`, facts.py), is
said with the whole list the request writes them in, when every name shown is in that list and no valid example
writes a name of it the invalid examples do not show: one they show, the valid examples may write where the rule
does not flag it (`count()` before a loop, where the rule flags it in the loop's condition)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sgtools.rules.analysis.walk import rule_objects
from sgtools.workflows.suggest.asked import code_tokens
from sgtools.workflows.suggest.candidates import FIELD, LEAF_KIND, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.tree import Example

_NAME = r"[A-Za-z_]\w*(?:\.\w+)*(?:\(\))?"
_LIST = re.compile(rf"{_NAME}(?:\s*(?:,\s*(?:or\s+|and\s+)?|\bor\b|/)\s*{_NAME})+")
_LAST = re.compile(rf"\s+and\s+{_NAME}")
_LITERAL = re.compile(r"\^(?:\((?P<many>[^()]+)\)|(?P<one>[^()|]+))\$")


def request_lists(request: str | None) -> list[list[str]]:
    """The lists of two or more names the request writes (`a, b or c`, `x / y`), each name without its `()`; a
    plain word that opens a phrase (`, use strtol`, `, not the`) is prose, not a name of the list. Not
    mentioned.runs: a list of called names, so a bare `and` or `nor` joins none (but the last of a run that has a comma:
    `a, b and c`) and any plain word may be a name."""
    text = request or ""
    out = []
    for m in _LIST.finditer(text):
        run = m.group(0)
        last = _LAST.match(text, m.end()) if "," in run else None  # `a, b and c`: the `and` closes the list
        if last is not None:
            run = text[m.start():last.end()]
        names = [re.sub(r"\(\)$", "", n.group(0)) for n in re.finditer(_NAME, run)
                 if n.group(0) not in ("or", "and") and (_a_name(n.group(0), text[m.start() + n.end():])
                                                         or _closes("," in run, run[:n.start()]))]
        if len(set(names)) > 1:
            out.append(list(dict.fromkeys(names)))
    return out


def _closes(comma: bool, before: str) -> bool:
    """The word after the `or` or `and` that ends a list with commas (`exec, shell_exec, system or passthru must
    ...`): its last name, whatever words follow it."""
    return comma and re.search(r",[^,]*\b(or|and|nor)\s+$", before) is not None


def _a_name(word: str, after: str) -> bool:
    """Written as code (`f()`, `a.b`, `a_b`, a capital), or a plain word not followed by more words."""
    return bool(re.search(r"\(\)|[._A-Z]", word)) or not re.match(r"\s+(?!(or|and)\b)\w", after)


def _shown(regex: str) -> list[str] | None:
    """The names a literal name regex lists (`^(A|B)$`, `^A$`), None for a regex that says more (a prefix)."""
    m = _LITERAL.fullmatch(regex)
    if m is None:
        return None
    names = [re.sub(r"\\(.)", r"\1", n) for n in (m.group("many") or m.group("one")).split("|")]
    return names if all(re.fullmatch(r"\w+(\.\w+)*", n) for n in names) else None


def _regexes(rule: Any) -> list[str]:
    return [str(node["regex"]) for _, node in rule_objects({"rule": rule}) if isinstance(node.get("regex"), str)]


def widened(passing: Sequence[Candidate], request: str | None,
            valid: Sequence[Example]) -> list[tuple[Candidate, Candidate]]:
    """Each call or type by a literal name regex whose names the request lists with others no valid example writes, said
    with the whole list (`^(ArrayList|HashMap|HashSet)$`): each with its widened copy, to be verified."""
    lists = request_lists(request)
    if not lists:
        return []
    written = set().union(*(code_tokens(e) for e in valid)) if valid else set()
    out: list[tuple[Candidate, Candidate]] = []
    for cand in passing:
        found = _regexes(cand.body.get("rule")) if cand.form in (FIELD, LEAF_KIND) else []
        shown = _shown(found[0]) if len(found) == 1 else None
        family = next((ls for ls in lists if shown and set(shown) <= set(ls) and len(ls) > len(shown)), None)
        if shown is None or family is None or any(n.split(".")[-1] in written for n in family if n not in shown):
            continue
        regex = "^(" + "|".join(re.escape(n) for n in family) + ")$"
        body = json.loads(json.dumps(cand.body).replace(json.dumps(found[0]), json.dumps(regex)))
        gen = Generalised.written(cand.gen.root, cand.gen.pattern.replace(found[0], regex))
        out.append((cand, replace(cand, body=body, gen=gen, family=True,
                           note=cand.note.replace(found[0], regex) + "; the whole list of names the request writes")))
    return out
