"""The name the request writes after a module or a value, however it is reached (issue 29).

"no crypto.createCipher": every invalid example writes `crypto.` before the name, but code reaches that function
through any name for the module (`nodeCrypto.createCipher`, `require("crypto").createCipher`) or imports it into
scope (`const { createCipher } = require("crypto")`, `from logging import basicConfig`); "the old unittest
aliases (assertEquals, ...)" are shown as `self.assertEquals` and written `tc.assertEquals` too. An author asks
whether the receiver is the point: one lower-case module or value in front of a name of more than one word is how
the name is reached, so the rule is the member by its name on any object, and called bare where the language imports
names into scope. Not a class (`Thread.sleep`, `Assert.AreEqual`: the class says which API), nor a name of one
plain word (`plt.show`, `flag.Parse`, `process.exit`: without its module it is any object's). Where the valid
examples write the same name on another receiver (`sandbox.stub` beside `sinon.stub`), the receiver is the point:
this rule flags them and the verification drops it, for the rule that keeps the receiver (requested.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest import imported
from sgtools.workflows.suggest.tree import Node

# One lower-case module or value before the name (`crypto.`, `self.`, `c.`, `conn->`), not a class, nor a path.
_RECEIVER = re.compile(r"([a-z_]\w*)(\.|->)")
# A name of one plain word, maybe with a number (`show`, `Parse`, `TODO`, `getn`, `sha1`): without its module it
# names any object's member.
_PLAIN = re.compile(r"[A-Z]?[a-z]+\d*|[A-Z]+\d*")
# The instance itself: a value, never a module whose names a file imports.
_SELF = frozenset({"self", "this", "cls"})
# Where a grammar calls a name bare, once a file has imported it into scope (destructured, a named import).
_BARE_CALL = dict.fromkeys(("javascript", "typescript", "tsx"), ("call_expression", "function"))


def distinct(names: Sequence[str]) -> bool:
    """Every name is more than one plain word (`createCipher`, `assert_`, `BindJSON`)."""
    return bool(names) and not any(_PLAIN.fullmatch(n) for n in names)


def member_rule(alternatives: str, leaves: Sequence[Node]) -> dict[str, Any] | None:
    """The access by its member's name (`member_expression` whose `property` is one of the names), in the kind and
    field every name is written in after its receiver; None where they differ or a name has no receiver."""
    places = {(leaf.parent.kind, leaf.role) if leaf.parent is not None and leaf.role
              and leaf.parent.named_children()[0] is not leaf else None for leaf in leaves}
    place = places.pop() if len(places) == 1 else None
    if place is None:
        return None
    kind, role = place
    return {"kind": kind, "has": {"field": role, "regex": f"^({alternatives})$"}}


def anyhow(alternatives: str, qualifier: str, leaves: Sequence[Node], names: Sequence[str],
           language: str) -> dict[str, Any] | None:
    """The names on any receiver, and called bare where the language imports names into scope; None where the
    receiver may be the point (a class, a path) or a name is one plain word."""
    receiver = _RECEIVER.fullmatch(qualifier)
    # A family by the stem its names share (`load_*` of `imp.load_source` "and friends") is the module's family.
    if receiver is None or r"\w" in alternatives or not distinct([*{leaf.text for leaf in leaves}, *names]):
        return None
    rule = member_rule(alternatives, leaves)
    if rule is None:
        return None
    if receiver.group(1) in _SELF:
        return rule
    bare = _BARE_CALL.get(language)
    if bare is not None:
        return imported.either(rule, {"kind": bare[0], "has": {"field": bare[1], "kind": "identifier",
                                                               "regex": f"^({alternatives})$"}})
    return imported.with_imported(rule, alternatives, qualifier, language)
