"""The write the request names by its place (issue 29): "never by assigning to os.environ", "no assigning to
innerHTML". The name is where the point is, not the point (requested.py leaves it alone): an author writes the
assignment, `=` or a compound one, whose target is that name, an element of it (`os.environ["K"] = v`) or a member
of it, however the object before it is reached (`el.innerHTML`, `this.el.innerHTML`); and, for a mapping or a
collection written to through its methods, a call of one of the methods that write it (`os.environ.update({...})`).
Reading it (`home = os.environ["HOME"]`, `dict(os.environ)`) is another act. The examples confirm it; first when
it separates them, like the code the request names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import callnames, written
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.mentioned import mentions
from sgtools.workflows.suggest.tree import Example, Node

# The words that say a name is written to: "assigning to X", "set X", "writing into X", "mutating X".
_WRITE = re.compile(r"\b(?:assign(?:ing)?|set(?:ting)?|writ(?:e|ing)|mutat(?:e|ing)|modify(?:ing)?|"
                    r"overwrit(?:e|ing))\s+(?:(?:to|into)\s+)?`?$", re.IGNORECASE)
# The methods that write a mapping or a collection in place, whatever the language calls them.
_WRITERS = ("update", "setdefault", "put", "putAll", "putIfAbsent", "set", "add", "insert", "push", "append",
            "extend", "merge", "store")
_PATH = r"^([\s\S]*(\.|->|::|\?\.))?"  # any object before the name, reached however
_PARTS = r"(\s*\[[\s\S]*\]|\s*(\.|->|\?\.)\s*[A-Za-z_$][\w$]*)*$"  # its elements and members


def _targets(request: str) -> list[str]:
    """The names the request says are written to, each as written (`os.environ`, `innerHTML`)."""
    return [m.qualifier + m.name for m in mentions(request) if _WRITE.search(request[:m.start])]


def _assignments(example: Example, target: re.Pattern[str]) -> list[Node]:
    """The assignments in the example whose target is the name, an element or a member of it."""
    return [n for n in example.nodes() if "assignment" in n.kind
            and any(c.role == "left" and target.search(c.text) for c in n.children)]


def _call_kind(examples: Sequence[Example]) -> tuple[str, str] | None:
    """The kind and callee field of a call the examples make (`monkeypatch.setenv(...)`, `list(sys.path)`), to say
    the writing methods by, a method call's first; None when they make none."""
    calls = [(n.kind, callee) for e in examples for n in e.nodes() if call_like(n.kind)
             and (callee := callnames.name_of(n)) is not None and callee.role]
    calls.sort(key=lambda kc: re.search(r"\.|->", kc[1].text) is None)
    return (calls[0][0], str(calls[0][1].role)) if calls else None


def assign_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example], language: str,
                 start: int) -> list[Candidate]:
    """Every write of the name the request says is assigned to, when each invalid example assigns to it; to be
    verified on the examples like any other candidate."""
    names = _targets(request) if request and invalid else []
    if not names:
        return []
    said = "(" + "|".join(re.escape(n) for n in dict.fromkeys(names)) + ")"
    target = re.compile(_PATH + said + _PARTS)
    found = [_assignments(e, target) for e in invalid]
    if not all(found):
        return []
    shown = {n.kind for ns in found for n in ns}
    kinds = sorted(shown | set(written.ASSIGNMENTS.get(language, ())))  # `=` and a compound one, where they differ
    # The target alone, or one of several assigned at once (`os.Args, flag.CommandLine = ...`, `a, b = ...`).
    left = {"field": "left", "any": [{"regex": target.pattern}, {"has": {"regex": target.pattern}}]}
    writes: list[dict[str, Any]] = [{"kind": k, "has": left} for k in kinds]
    call = _call_kind([*invalid, *valid])
    if call is not None:
        methods = _PATH + said + r"\s*(\.|->|\?\.)\s*(" + "|".join(_WRITERS) + ")$"
        writes.append(callnames.by_name(call[0], call[1], methods, language))
    rule = writes[0] if len(writes) == 1 else {"any": writes}
    label = " / ".join(dict.fromkeys(names))
    note = (f"flags every assignment to {label}, an element or a member of it (and a call of a method that writes "
            "it), whatever the value; lets through reading it")
    return [Candidate({"rule": rule}, Generalised.written(found[0][0], f"{label} = $B"), REQUESTED, start, note)]
