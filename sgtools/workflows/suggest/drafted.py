"""A rule the calling agent drafted (`draft_rule`), proven before it is offered, and the guidance it drafts by.

Why: the generaliser's hand-written moves fit the requests they came from; on requests written blind to it its
top rule is right about one time in seven, while a model that reads the request and the examples writes a right
rule about two times in three (docs/suggest-rule.md, "The agent drafts, the tool proves"). So the agent drafts
and the tool proves: ast-grep must find the draft flags every invalid example and no valid one, the rule analyser
must find no error, and the workspace proof shows where it fires. A draft that fails any of these is not offered;
the answer says why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sgtools.contracts.suggest import SuggestResult
from sgtools.core import yamlio
from sgtools.core.errors import BadInput
from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import offered
from sgtools.workflows.suggest.call import SuggestCall
from sgtools.workflows.suggest.verify import Outcome, run_rules

# The keys of a draft that decide what it flags; anything else a model adds (id, message, fix, files) is dropped:
# the rule's id, message and severity are the caller's, its fix is inferred and verified, its scope is the request's.
KEPT_KEYS = ("rule", "constraints", "utils", "transform")
_FENCE = re.compile(r"```(?:ya?ml)?[ \t]*\n(.*?)```", re.S)

SYSTEM = """\
You write ast-grep rules (ast-grep 0.51, tree-sitter grammars). Reply with one YAML mapping in a ```yaml fence and
nothing else: `rule:` and, when needed, `constraints:` and `utils:`. No id, language, message, fix, files or ignores.

Write the rule an experienced ast-grep author writes from a developer's request: the examples are samples, not the
whole story. The rule must flag every other instance of the problem (other receivers, names, argument values,
formatting, nesting, the construct inside larger code) and stay quiet on fine code, including near misses like the
valid examples. Generalise from what the request says; do not copy literal text of the examples into the rule
unless the request is about that text (a function name, a module, a keyword argument, a value).

New code reaches the same point in ways the examples do not show; cover them unless the request rules them out:
the name reached another way (imported bare, aliased, fully qualified, called as a method or a function), passed
as a value instead of called, the same thing made by another constructor or builder, a flag or value held in a
variable instead of written in place, a command behind a wrapper (`sudo`, `docker exec`, `env`), the construct in
its other statement forms (`if` as well as `while`, a ternary as well as an `if`). Do not require a part the
request does not name (a variable's name, the number of arguments, the enclosing function): that misses them.

Rule syntax:
- `pattern: CODE` matches code of that shape; `$X` is one node, `$$$ARGS` zero or more, `$_` one node uncaptured;
  a repeated `$A` must be the same code. A pattern must parse alone as one complete node of the language.
- `kind: NODE_KIND` matches a tree-sitter node kind (python `call`, `keyword_argument`, `assert_statement`;
  javascript `call_expression`, `member_expression`; go `call_expression`, `selector_expression`; rust
  `macro_invocation`, `call_expression`; java `method_invocation`; comments are `comment` or `line_comment`).
- `regex: RE` searches the node's text (Rust regex: no look-around): anchor it (`^...$`) to match the whole
  text; with `kind` it narrows by name.
- `has: RULE` / `inside: RULE` look at children / ancestors; add `stopBy: end` to search all descendants /
  ancestors, and `field: NAME` (e.g. `function`, `arguments`, `name`, `body`) to pick a child by its field; a
  field picks, it does not match: give it a matcher too (`has: {field: receiver, regex: '^self$'}`).
- `follows: RULE` / `precedes: RULE` are the siblings before / after (add `stopBy: end` for any of them).
- `all: [RULES]`, `any: [RULES]`, `not: RULE` compose; a rule needs at least one positive matcher.
- `constraints: {X: {regex: "^(get|post)$"}}` restricts what the metavariable `$X` of the pattern may match.
- A missing argument or field is `not: {has: {...}}`; code in a context is `inside: {..., stopBy: end}`; code
  outside it is `not: {inside: {..., stopBy: end}}`.
- Prefer `kind` with `has`/`regex` when a pattern would be misread (a lone Go call `fmt.Println($$$A)` parses as
  a type conversion: use `kind: call_expression` with `has: {field: function, regex: '^fmt\\.Println$'}`).
"""


@dataclass(frozen=True)
class DraftPrompt:
    """What a drafting model reads: the guidance (the server's `draft_rule` prompt), the request and examples."""

    system: str
    user: str


DRAFT_ID = "drafted-rule"
FORM = "your draft (`draft_rule`), proven on the examples"


@dataclass
class Draft:
    """A draft read and checked: its body when ast-grep proved it on the examples, else why it is not offered."""

    body: dict[str, Any] | None
    reason: str = ""
    mended: bool = False  # a `field` with nothing to match got `regex: [\s\S]`


def given(draft_rule: object, settings: Settings) -> str | None:
    """The caller's draft to prove, if any, checked as text."""
    if draft_rule is None:
        return None
    if not isinstance(draft_rule, str) or not draft_rule.strip():
        raise BadInput("draft_rule must be an ast-grep rule as YAML text (at least a `rule:` mapping).")
    if len(draft_rule.encode("utf-8", "surrogatepass")) > settings.max_rule_bytes:
        raise BadInput(f"draft_rule is over {settings.max_rule_bytes} bytes. Give one rule.")
    return draft_rule


def offer(ws: Workspace, engine: Engine, draft: str, call: SuggestCall,
          result: SuggestResult) -> dict[str, Any] | None:
    """The draft put first in `result` when ast-grep and the rule analyser prove it on the examples (its body
    returned), else a warning saying why it is not offered (None)."""
    checked = check(engine, call.language, call.file_name, draft, call.invalid, call.valid)
    if checked.body is None:
        result["warnings"].insert(0, f"The rule drafted by you is not offered: {checked.reason}.")
        return None
    why = (f"Drafted by you{' for the request' if call.request else ''}; ast-grep checked it flags all "
           f"{len(call.invalid)} invalid example(s) and none of the {len(call.valid)} valid one(s)."
           + (f" ast-grep refused a `field` with nothing to match in it: each got `regex: {ANY_TEXT}` (the field "
              "is there)." if checked.mended else ""))
    proven = offered.item(ws, engine, call, checked.body, DRAFT_ID,
                          call.request or "Flagged by a drafted rule: say what to do instead.", FORM, why,
                          "as wide as the draft's own words: read where it fires on this project (`proof`) before "
                          "saving")
    if isinstance(proven, str):
        result["warnings"].insert(0, f"The rule drafted by you is not offered: the rule analyser refuses it "
                                     f"({proven}).")
        return None
    if call.pairs:
        result["warnings"].append(f"{proven['rule_id']} (drafted): no fix is inferred for a drafted rule; the "
                                  "generaliser's candidates carry one where it verified.")
    offered.put_first(result, [proven], call.count)
    return checked.body


def prompt(language: str, invalid: Sequence[str], valid: Sequence[str], request: str | None) -> DraftPrompt:
    """The message a model drafts from: only what suggest_rule is given."""
    parts = [f"Language: {language}"]
    if request:
        parts.append(f"The developer's request: {request}")
    parts.append("Code the rule must flag:")
    parts += [_fenced(language, code) for code in invalid]
    if valid:
        parts.append("Code the rule must not flag:")
        parts += [_fenced(language, code) for code in valid]
    parts.append("Write the rule.")
    return DraftPrompt(SYSTEM, "\n\n".join(parts))


def _fenced(language: str, code: str) -> str:
    fence = "````" if "```" in code else "```"
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def read(text: str) -> dict[str, Any] | str:
    """The rule body in a model's reply or a caller's draft (fenced or bare YAML), or why there is none."""
    fenced = _FENCE.search(text)
    source = fenced.group(1) if fenced else text
    try:
        doc = yamlio.load_one(source)
    except (BadInput, ValueError) as exc:
        return f"it is not YAML ({str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__})"
    if not isinstance(doc, Mapping) or not isinstance(doc.get("rule"), Mapping) or not doc["rule"]:
        return "it has no `rule:` mapping"
    return {k: doc[k] for k in KEPT_KEYS if k in doc}


def check(engine: Engine, language: str, file_name: str, text: str, invalid: Sequence[str],
          valid: Sequence[str]) -> Draft:
    """The draft proven on the examples by ast-grep (one call; two when it says a field and nothing to match in
    it, the one mistake mended here), or the reason it is not offered."""
    body = read(text)
    if isinstance(body, str):
        return Draft(None, body)
    outcome = run_rules(engine, language, file_name, [body], [*invalid, *valid])[0]
    mended = _field_matched(body) if outcome.refused and _NO_MATCHER in outcome.why else None
    if mended is not None:
        again = run_rules(engine, language, file_name, [mended], [*invalid, *valid])[0]
        if not _failure(again, len(invalid)):
            return Draft(mended, mended=True)
    reason = _failure(outcome, len(invalid))
    return Draft(None, reason) if reason else Draft(body)


_NO_MATCHER = "positive matcher"
# Keys that match a node by themselves; a rule object with a `field` and none of them is refused by ast-grep.
_MATCHERS = frozenset({"pattern", "kind", "regex", "any", "all", "matches", "has", "inside", "precedes", "follows",
                       "nthChild"})
ANY_TEXT = r"[\s\S]"  # a regex any node's text holds: "the field is there"


def _field_matched(node: Any) -> Any:
    """`node` with `regex: [\\s\\S]` beside each `field` that has nothing to match (`not: {has: {field: receiver}}`
    means "no receiver"), or None when it has none such."""
    changed = False

    def walk(item: Any) -> Any:
        nonlocal changed
        if isinstance(item, list):
            return [walk(x) for x in item]
        if not isinstance(item, Mapping):
            return item
        out = {k: walk(v) for k, v in item.items()}
        if "field" in out and not _MATCHERS & out.keys():
            out["regex"], changed = ANY_TEXT, True
        return out

    mended = walk(node)
    return mended if changed else None


def _failure(outcome: Outcome, n_invalid: int) -> str:
    if outcome.refused:
        return f"ast-grep refuses it ({outcome.why.rstrip('.') or 'no reason given'})"
    missed = [i for i in range(n_invalid) if not outcome.hits[i]]
    flagged = [i - n_invalid for i in range(n_invalid, len(outcome.hits)) if outcome.hits[i]]
    said = [f"misses invalid_examples{missed}"] if missed else []
    said += [f"flags valid_examples{flagged}"] if flagged else []
    return " and ".join(said)
