"""The rule written from the request's own code words (issue 29): "table.getn and table.setn are gone",
"toUpperCase() and toLowerCase() are deprecated", "replace lazy_static! with LazyLock", "new URL(String) is
deprecated". When the request names code that the invalid examples write and the valid ones do not, that code is the
rule: every mention of it, however it is qualified, called or aliased. The examples confirm it and add the names they
show beside the request's (`after_filter` for "before_filter and friends"); the request's list adds the names they do
not show (`table.setn`). A family ("and friends", "like X", or a name shown the request does not write) is said by
the stem its names share (`*_filter`), as an author writes it. Four snippets are a sample of the code; the request
says what is meant, so this rule goes first when it separates them (service.py).

Not for a request whose named code the valid examples also write ("requests.get needs a timeout": the call is fine,
its arguments are the point), nor one that names two things every invalid example writes together ("isPresent() and
then get()": a combination, said by a context).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sgtools.rules.analysis.walk import rule_objects
from sgtools.workflows.suggest import callnames, contrast, imported, placed, reached
from sgtools.workflows.suggest.arguments import argument_list
from sgtools.workflows.suggest.asked import code_leaves, code_tokens
from sgtools.workflows.suggest.author import call_like
from sgtools.workflows.suggest.candidates import REQUESTED, Candidate, of_kinds
from sgtools.workflows.suggest.carry import shaped_by_examples
from sgtools.workflows.suggest.constructs import creation
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.mentioned import Mention, lists, mentions
from sgtools.workflows.suggest.names import family_stem
from sgtools.workflows.suggest.tree import Example, Node

_QUALIFIED = re.compile(r"(?:\?\.|\.|::|->|\\)?[A-Za-z_$\\][\w$]*(?:(?:\?\.|\.|::|->|\\)[A-Za-z_$][\w$]*)*")


def _reference(leaf: Node) -> Node:
    """The name as written where it is used: the leaf with the qualifier before it (`datetime.datetime.utcnow`,
    `table.getn`, `\\error_log`), not the call or the subscript around it."""
    node = leaf
    while node.parent is not None and node.parent.end == leaf.end and _QUALIFIED.fullmatch(node.parent.text):
        node = node.parent
    return node


def _qualifier(ref: Node, leaf: Node) -> str:
    """What is written before the name (`datetime.`), "" for none or a separator alone (`.toUpperCase` after a
    call)."""
    before = ref.text[:len(ref.text) - len(leaf.text)]
    return "" if re.fullmatch(r"\W*", before) else before


def _separator(qualifier: str) -> str:
    return qualifier[-2:] if qualifier.endswith(("::", "->")) else qualifier[-1:]


# The namespace separator of the languages that call a function by a path (`std::mem::forget`, `\\Foo\\bar()`).
_PATHS = {"cpp": "::", "rust": "::", "php": "\\"}
# A JavaScript global function is also reached through the global object (`window.fetch`, `globalThis.alert`).
_GLOBAL = dict.fromkeys(("javascript", "typescript", "tsx"), r"((window|globalThis|self)\.)?")


def namespace_path(qualifier: str, language: str) -> str:
    """The namespace path a name is written with (`std::process::`), each part optional from the left
    (`process::exit`, `exit` after a `use`); a leading `::` only before the path (`::std::x`, not `::x`, a global
    function of that name); any path of the language's when there is none, and none where it has no paths but a
    global object's (`window.`)."""
    separator = _PATHS.get(language)
    if not qualifier:
        return rf"({re.escape(separator)})?(\w+{re.escape(separator)})*" if separator else _GLOBAL.get(language, "")
    out = "(::)?"
    for part in qualifier.split("::")[:-1]:
        out = f"({out}{re.escape(part)}::)?"
    return out


_Built = tuple[dict[str, Any], str]  # a rule and what it names, for the candidate's label


def _either(kinds: set[str], regex: str) -> dict[str, Any]:
    return {**of_kinds(sorted(kinds)), "regex": regex}


def _made(alternatives: str, refs: list[Node], names: list[str]) -> _Built | None:
    """`new` of the type by any package path (`new java.util.Date(ms)`), not every use of the type."""
    made = [(r.parent, r) for r in refs if r.role and r.parent is not None and creation(r.parent.kind)]
    if len({(a.kind, r.role) for a, r in made}) != 1:  # the verification checks that every example makes one
        return None
    kind, role = made[0][0].kind, str(made[0][1].role)
    regex = rf"^(\w+(\.|::))*({alternatives})(<.*>)?$"
    return {"kind": kind, "has": {"field": role, "regex": regex}}, f"new {' / '.join(names)}"


def _one_call(refs: list[Node]) -> Node | None:
    """The first call, when every name is the callee of a call, all of one kind and by one field; else None."""
    call = refs[0].parent
    if call is None or not call_like(call.kind) or any(
            r.parent is None or r.parent.kind != call.kind or r.role != refs[0].role
            or callnames.name_of(r.parent) is not r for r in refs):
        return None
    return call


def _called(alternatives: str, names: list[str], refs: list[Node], leaves: list[Node], mentions: list[Mention],
            language: str) -> _Built | None:
    """Calls by the name when every use shown is one, bare or by a namespace path (the request's path optional
    from the left): not a method of that name on some object (`printer.print`)."""
    call = _one_call(refs)
    if call is None or any(re.search(r"\.|->", _qualifier(r, leaf)) for r, leaf in zip(refs, leaves, strict=True)):
        return None
    path = namespace_path(next((m.qualifier for m in mentions if "::" in m.qualifier), ""), language)
    if not path and len({n.text[:1].isupper() for n in leaves}) == 1:  # the namespace a name is written under
        path = callnames.front(leaves[0].text, language)
    rule = callnames.by_name(call.kind, refs[0].role or "", f"^{path}({alternatives})$", language)
    passed = _passed(call, f"^{path}({alternatives})$", leaves)
    return {"any": [rule, passed]} if passed else rule, " / ".join(f"{n}(...)" for n in names)


def _passed(call: Node, regex: str, leaves: list[Node]) -> dict[str, Any] | None:
    """The function passed by its bare name as an argument (`results.foreach(println)`, `pcall(loadstring, s)`):
    what it is passed to calls it. The list of arguments, of the kind the examples' calls write, holding the name as
    a whole argument or alone in an argument's wrapper (C#'s `argument`, Kotlin's `value_argument`). Said from the
    list, not by `inside` from the name: a rule with `inside` reads as placed already (placed.py)."""
    args = argument_list(call)
    kinds = {leaf.kind for leaf in leaves}
    if args is None or len(kinds) != 1:
        return None
    name = {"kind": kinds.pop(), "regex": regex}
    return {"kind": args.kind, "has": {"any": [name, {"regex": regex, "has": name}]}}


def _called_as_written(refs: list[Node], mentions: list[Mention], language: str) -> _Built | None:
    """Calls by the whole names the request writes (`it.skip`, `describe.skip`, `xit`) when the examples call the
    name on different objects the request writes it after: those, not the name on any object (`parser.skip`)."""
    names = list(dict.fromkeys(m.qualifier + m.name for m in mentions))
    call = _one_call(refs)
    if call is None or not {r.text for r in refs} <= set(names):
        return None
    regex = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    return callnames.by_name(call.kind, refs[0].role or "", regex, language), " / ".join(f"{n}(...)" for n in names)


def _names_rule(alternatives: str, names: list[str], leaves: list[Node], mentions: list[Mention],
                language: str) -> _Built | None:
    """The rule flagging every use of the names: `new` of the type when the request writes `new`; the qualified
    name when every invalid example writes the same object before it (`datetime.`, `table.`, `ReactDOM.`); a call
    by its name when every one is a call by that name; else the name itself, wherever it stands. `alternatives`
    is the regex of the names (`names` label them): the names themselves, or the stem of their family."""
    refs = [_reference(leaf) for leaf in leaves]
    if any(m.new for m in mentions):
        return _made(alternatives, refs, names)
    qualifiers = _qualifiers(leaves)
    qualifier = _shared(qualifiers)
    if qualifier and _separator(qualifier) in (".", "->"):
        regex = (rf"^{callnames.rooted(qualifier, language)}(\w+{re.escape(_separator(qualifier))})*"
                 rf"{re.escape(qualifier)}({alternatives})$")
        rule = imported.with_imported(_either({r.kind for r in refs}, regex), alternatives, qualifier, language)
        return rule, " / ".join(qualifier + n for n in names)
    if len(qualifiers) > 1 and (whole := _called_as_written(refs, mentions, language)) is not None:
        return whole
    if any("." in m.qualifier and not re.fullmatch(r"([a-z_]\w*\.)+", m.qualifier) for m in mentions):
        return None  # `Model.all.each`: an object the request names, which no one rule on the name says
    return _called(alternatives, names, refs, leaves, mentions, language) or _members(alternatives, names, leaves,
                                                                                      mentions) or (
        _either(_as_members(leaves, language), rf"^({alternatives})$"), " / ".join(names))


def _qualifiers(leaves: list[Node]) -> set[str]:
    """What the invalid examples write before the name (`crypto.`), "" for nothing."""
    return {_qualifier(_reference(leaf), leaf) for leaf in leaves}


def _shared(qualifiers: set[str]) -> str:
    """The one qualifier every example writes, "" where they differ."""
    return next(iter(qualifiers)) if len(qualifiers) == 1 else ""


def _anyhow(alternatives: str, names: list[str], leaves: list[Node], mentions: list[Mention],
            language: str) -> _Built | None:
    """The names however reached (reached.py), where every invalid example writes them after one receiver and the
    request does not say `new`."""
    qualifier = _shared(_qualifiers(leaves))
    rule = None if any(m.new for m in mentions) else reached.anyhow(alternatives, qualifier, leaves,
                                                                  [m.name for m in mentions], language)
    return None if rule is None else (rule, " / ".join(names) + " on any object")


def _members(alternatives: str, names: list[str], leaves: list[Node], mentions: list[Mention]) -> _Built | None:
    """The names the request writes after a dot alone (`.head`, `.last`) as members of any object, where every
    example reaches them so: the access by its member (`has: {field: ..., regex: ...}`), not any name so spelt
    (`case head :: tail`, `val (init, last) = ...`)."""
    if not mentions or not all(m.member for m in mentions):
        return None
    rule = reached.member_rule(alternatives, leaves)
    return None if rule is None else (rule, " / ".join("." + n for n in names))


# The kind a grammar writes a name in after `.` where it differs from the name alone (grammar, not API knowledge).
_MEMBER_NAME = dict.fromkeys(("javascript", "typescript", "tsx"), "property_identifier") | dict.fromkeys(
    ("go", "rust", "c", "cpp"), "field_identifier")
_RECEIVER = re.compile(r"member|selector|field_expression")


def _as_members(leaves: list[Node], language: str) -> set[str]:
    """The kinds of the names shown, and the member name's where every one is an object something is reached
    through (`ipcRenderer.send(...)`): `electron.ipcRenderer` reaches the same object. Not a name shown as a
    declaration's (`func init()`) or passed as a value (`apply(logger, arguments)`)."""
    kinds = {leaf.kind for leaf in leaves}
    member = _MEMBER_NAME.get(language)
    if member is None or kinds != {"identifier"} or not all(
            leaf.parent is not None and _RECEIVER.search(leaf.parent.kind) and leaf.role != "property"
            and leaf.parent.children[0] is leaf for leaf in leaves):
        return kinds
    return kinds | {member}


def _written(m: Mention, valid: Sequence[Example], tokens: set[str]) -> bool:
    """A valid example writes the mention as the request does: the type made with `new` (`URL url = ...` is no
    `new URL`), the name after the object the request writes (`scene.keyWindow` is no
    `UIApplication.shared.keyWindow`), else the name anywhere in its code."""
    if m.new:
        said = rf"\bnew\s+([\w.]+\.)?{_pattern(m.name)}\b"
    elif m.qualifier.endswith("."):
        said = rf"(?<![\w.]){re.escape(m.qualifier)}{_pattern(m.name)}\b"
    else:
        return any(re.fullmatch(_pattern(m.name), t) for t in tokens)
    return any(re.search(said, e.code) for e in valid)


def _pattern(name: str) -> str:
    """The regex of a name as the request writes it: `mysql_*` is every name it starts."""
    return re.escape(name[:-1]) + r"\w*[!?]?" if name.endswith("*") else re.escape(name)


def _hits(name: str, example: Example) -> list[Node]:
    return [n for n in code_leaves(example.root) if n.named and re.fullmatch(_pattern(name), n.text)]


def _analogue(example: Example, like: list[Node], unwanted: set[str]) -> str | None:
    """The one name an invalid example writes where the others write a named one (`after_filter` beside
    `before_filter`): a leaf of the same kind, in the same field of the same construct."""
    places = {(n.kind, n.role, n.parent.kind if n.parent else None) for n in like}
    found = {n.text for n in code_leaves(example.root) if n.named and n.text not in unwanted
             and (n.kind, n.role, n.parent.kind if n.parent else None) in places}
    return found.pop() if len(found) == 1 else None


def _named(said: list[Mention], invalid: Sequence[Example]) -> tuple[list[set[str]], set[str]]:
    """The names each invalid example writes, and all of them."""
    per_example = [{m.name for m in said if _hits(m.name, e)} for e in invalid]
    return per_example, set().union(*per_example)


def _called_words(request: str, invalid: Sequence[Example]) -> list[Mention]:
    """The request's plain words that every invalid example calls ("don't call strlen in a loop condition"): in a
    request that places code in a construct, the call it names there, written as prose; not the word that names
    the construct (a `before` block is where, not what)."""
    callees = [{c.text for n in e.nodes() if call_like(n.kind) and (c := callnames.name_of(n)) is not None}
               for e in invalid]
    shared = (set.intersection(*callees) if callees else set()) - placed.kind_words(request)
    return [Mention("", m.group(0), False, m.start(), m.end(), False, False)
            for m in re.finditer(r"(?<![\w.])[A-Za-z_]\w{2,}(?![\w(])", request) if m.group(0) in shared]


def _asked(request: str, invalid: Sequence[Example], valid: Sequence[Example]) -> tuple[
        list[str] | None, list[Node], list[Mention]] | None:
    """The names the rule is for (the request's, its list's, and one per example that shows another in their
    place), the invalid examples' leaves that write them and the request's mentions of them; None when the request
    names no code only the invalid examples write, names two such things one example writes together, says one as
    the place of the point, or an example writes none of them and no one name in their place."""
    fine = set().union(*(code_tokens(e) for e in valid)) if valid else set()
    said = [m for m in mentions(request) if not _written(m, valid, fine)]
    per_example, named = _named(said, invalid)
    if not named and placed.kind_words(request):
        # Code the valid examples write elsewhere, asked about in a construct ("no time.After inside a for loop"):
        # the name's rule flags them too, and placed.py tries it inside the construct the request names.
        said, fine = mentions(request) or _called_words(request, invalid), set()
        per_example, named = _named(said, invalid)
    if not named or any(len(found) > 1 for found in per_example):
        return None  # two named things written together: a combination, said by a context
    listed = _listed(request, said, named)
    if listed is None:
        return None
    leaves = [n for e in invalid for name in named for n in _hits(name, e)]
    unnamed = [e for e, found in zip(invalid, per_example, strict=True) if not found]
    return _with_analogues(unnamed, list(dict.fromkeys(m.name for m in listed)), leaves, fine), leaves, listed


def _listed(request: str, mentions: list[Mention], named: set[str]) -> list[Mention] | None:
    """The mentions of the names shown with those the request lists beside them; None when one is said as the
    place of the point or as part of more code: then the rest of the request is the rule."""
    listed = [m for group in lists(request, mentions) if any(m.name in named for m in group) for m in group]
    return None if any(m.placed for m in listed) else listed


def _with_analogues(unnamed: list[Example], names: list[str], leaves: list[Node], fine: set[str]) -> list[str] | None:
    """The names with the one each example naming none of them writes in their place (its leaves added to
    `leaves`); None when such an example has no one name there."""
    for example in unnamed:
        other = _analogue(example, leaves, fine)
        if other is None:
            return None
        names.append(other)
        leaves += _hits(other, example)
    return names


def _said(names: list[str], mentions: list[Mention]) -> tuple[str, list[str]] | None:
    """The regex of the names and their labels: the stem their family shares (`\\w*_filter`) when the request
    says they are some of a family ("and friends", "like") or the examples show one it does not write, as an author
    would say it; else the names. None when the request says a family whose names share no stem: the names alone
    would miss the rest of it."""
    family = any(m.family for m in mentions)
    if any(n.endswith("*") for n in names):  # the request writes the stem itself (`mysql_*`)
        return "|".join(_pattern(n) for n in names), names
    if family or not set(names) <= {m.name for m in mentions}:
        stem = family_stem(names)
        if stem is not None:
            return stem[0], [stem[1]]
        if family:
            return None
    return "|".join(re.escape(n) for n in names), names


_CHAIN = r"([A-Za-z_]\w*)\s*(?:\([^()]*\)|\{{[^{{}}]*\}})\s*\.\s*{name}\b"  # `map { }.filterNotNull()`


def _chained(rule: dict[str, Any], request: str, names: list[str], leaves: list[Node]) -> dict[str, Any]:
    """The name on the result of the call the request writes it after (`map { }.filterNotNull()`, `select { ...
    }.first`): where every invalid example calls it so, only there; `filterNotNull()` on a list is fine."""
    receivers = sorted({m.group(1) for n in names for m in re.finditer(_CHAIN.format(name=re.escape(n)), request)})
    if not receivers:
        return rule
    ends = (rf"(^|[.\s])({'|'.join(map(re.escape, receivers))})\s*(\([\s\S]*\)|\{{[\s\S]*\}}|do\b[\s\S]*\bend)?"
            r"\s*$")
    holders = [_holder(leaf) for leaf in leaves]
    if any(h is None or not re.search(ends, h.named_children()[0].text) for h in holders):
        return rule
    kinds = {h.kind for h in holders if h is not None}
    if len(kinds) != 1:
        return rule
    kind = kinds.pop()
    receiver = {"has": {"nthChild": 1, "regex": ends}}
    if rule.get("kind") == kind:  # the rule flags the call itself (`first` in Ruby's `call`): its own receiver
        return {"all": [rule, receiver]}
    return {"all": [rule, {"inside": {"kind": kind, "stopBy": {"kind": kind}, **receiver}}]}


def _holder(leaf: Node) -> Node | None:
    """The access a member name is reached by: the nearest node around it whose first part is its receiver."""
    return next((a for a in leaf.ancestors() if a.named_children()
                 and not a.named_children()[0].start <= leaf.start < a.named_children()[0].end), None)


def request_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example], language: str,
                  start: int) -> list[Candidate]:
    """The rule for the code the request names, with the names its list adds and the examples show; to be verified
    on the examples like any other candidate."""
    asked = _asked(request, invalid, valid) if request and invalid else None
    if asked is None or asked[0] is None:
        return []
    said = _said(asked[0], asked[2])
    built = None if said is None else _names_rule(*said, asked[1], asked[2], language)
    if said is None or built is None:
        return []
    out = []
    # The names however reached first: where the receiver is the point, a valid example shows it and the
    # verification drops this one for the rule that keeps it.
    for made, wider in ((_anyhow(*said, asked[1], asked[2], language), True), (built, False)):
        if made is None:
            continue
        rule, label = made
        note = (f"flags every use of {label} (the code the request names), however it is qualified or called; "
                "lets through the same thing reached by another name (an alias, a wrapper)")
        cand = Candidate({"rule": _chained(rule, request or "", asked[0], asked[1])},
                         Generalised.written(asked[1][0], label), REQUESTED, start, note)
        cand.reached = wider
        out.append(cand)
    return out


def request_first(picked: list[Candidate], passing: Sequence[Candidate], request: str | None) -> list[Candidate]:
    """The rule for the code the request names, when it separates the examples, goes first; the rest keep their
    order."""
    # A construct by the parts it has and lacks (lacking.py) only where no rule on the code itself separates them;
    # a call with the arguments the request writes (argued.py) before the call by its name, which the request
    # says less of; the construct by the words one side writes (contrast.py) last: over a top rule shaped by the
    # examples alone (carry.py) only where it checks enough of the request's words or the top checks none of them
    # (a rule that reads no word of the request is not about it), never over one that carried; of those, the
    # smallest construct, then the one reading more of the request (a value it writes: `frozen=True`).
    said = min((c for c in passing if c.form == REQUESTED), default=None,
               key=lambda c: (c.contrast > 0, c.lacks, not c.argued, not c.reached,
                              c.gen.root.size() if c.contrast else 0, -c.contrast))
    if said is None or (said.contrast and picked and (not shaped_by_examples(picked[0])
                                                      or (said.contrast < contrast.OVER_SHAPED
                                                          and reads_request(picked[0].body, request)))):
        return picked
    return [said, *(c for c in picked if c is not said and c.body != said.body)][:max(1, len(picked))]


def _values(body: dict[str, Any]) -> list[tuple[str, str]]:
    """The rule's (key, text) leaves: its names, regexes and patterns (a `context`/`selector` pattern's too), not its
    keys (`kind`, `has`) nor where a relation stops (`end`, `stopBy: {kind: block}`)."""
    out: list[tuple[str, str]] = []
    for path, obj in rule_objects(body):
        if "stopBy" in path:
            continue
        for k, v in obj.items():
            if isinstance(v, str) and k != "stopBy":
                out.append((k, v))
            elif k == "pattern" and isinstance(v, Mapping):
                out += [(k, x) for x in v.values() if isinstance(x, str)]
    return out


def reads_request(body: dict[str, Any], request: str | None) -> bool:
    """The rule checks one of the request's words, or a literal the request writes (`""` of `String::from("")`)."""
    words = contrast.Words(request or "")
    values = _values(body)
    if any(words.of(t) is not None for _, v in values for t in re.findall(r"[A-Za-z_]\w*", v)):
        return True
    literals = (re.sub(r"\\(.)", r"\1", v.strip("^$")) for k, v in values if k == "regex")
    return any(len(t) > 1 and t in (request or "") for t in literals)


def words_read(body: dict[str, Any], request: str | None) -> int:
    """How many of the request's words (each family once) the rule checks, a regex's escapes (`\\b`) aside."""
    words = contrast.Words(request or "")
    return len({f for _, v in _values(body) for t in re.findall(r"[A-Za-z_]\w*", re.sub(r"\\[A-Za-z]", " ", v))
                if (f := words.of(t)) is not None})
