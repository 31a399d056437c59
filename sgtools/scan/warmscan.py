"""Snippet checks through the warm engine (engine/warm.py), exactly as the spawn path would answer them.

What comes from where, so that a warm answer equals the spawned `ast-grep scan --stdin` one:
- matches, rule ids, severities, interpolated messages and positions: the language server (code-point columns
  turned into byte offsets with the document text); `text` from the document; `note` and `url` from the rule;
- the fix's replacement and its range: the server's quick fix for that diagnostic;
- labels: the server does not carry unlabelled secondary nodes (`inside`, `has`...) nor label styles, so each
  rule that records them has a label twin in the same rule file (`labelled_doc`: each relational target bound
  to a label metavariable, as ast-grep records it), whose labels are taken where it matched exactly where its
  rule did; a rule with its own `labels` has them marked in place (`marked_labels`: all secondary, each with
  a message naming its metavariable, given back its style and message by `own_labels`); a finding of a rule
  without a twin (a global util), or whose twin did not match there, is scanned by a spawn; its fix-its are
  still verified warm;
- fix-it verification re-scans: warm always (they need rule ids and byte ranges only);
- MISSING-token counts (fixits/verify.py): a counting rule in the same rule file (scan/missing.py); a text it
  cannot count goes to the spawn path (`--debug-query=cst`).
The warm path serves built-in languages of projects without `customLanguages`; anything else, or a warm
engine that fails (it is then killed and restarted on the next call), is answered by the spawn path.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sgtools.core import languages
from sgtools.core.errors import SgToolsError
from sgtools.engine import trust
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.engine.warm import CHECKS_GLOB, LABEL_MARK, WarmSpec, WarmUnavailable
from sgtools.fixits.judge import PARSE_RULE_ID
from sgtools.project.config import ProjectConfig
from sgtools.rules.ruleset import Rule
from sgtools.scan import missing
from sgtools.scan.missing import missing_rule_doc
from sgtools.scan.rulefiles import docs_file, parse_rule_doc, rule_doc, tree_signature

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch, MatchLabel

_RELATIONAL = frozenset({"inside", "has", "follows", "precedes"})
_LABEL_KEYS = frozenset({*_RELATIONAL, "matches"})  # rules that may record labels
_RELATION_KEYS = ("stopBy", "field")
_LABEL_VAR = "SGTOOLSLBL"
TWIN = "sgtools-labels:"  # id prefix of the label twins of `_warm_rules`
_lock = threading.Lock()


@dataclass(frozen=True)
class WarmRules:
    """The warm engine's rule file for one spawn-path rule file, and what it can answer."""

    path: Path
    twinned: frozenset[str]  # rules whose labels come from their twin
    spawned: frozenset[str]  # rules whose findings need the spawn path (labels the server cannot give)
    own: frozenset[str] = frozenset()  # rules with their own `labels`, each given a marker message (`marked_labels`)
    scoped: bool = False  # fix-it verification's rules run on `checks` documents only (`_warm_rules`)


# (rule file (content-addressed), the utils' stamp) -> its warm twin
_warm_files: dict[tuple[str, tuple[Any, ...]], WarmRules] = {}


class _Scope(NamedTuple):
    """The utils a `matches` can name: the rule's own (`local`), then the project's global ones (`shared`: the
    `rule` of each util of utilDirs that holds nothing else, by id)."""

    local: Mapping[str, Any]
    shared: Mapping[str, Any]


def warm_spec(engine: Engine, cfg: ProjectConfig | None, rules: Sequence[Rule], rules_path: Path, file_name: str,
              language: str) -> tuple[WarmSpec, WarmRules] | None:
    """What the warm engine needs for these rules, or None when this check stays on the spawn path."""
    if engine.warm is None or language not in languages.LANGUAGES:
        return None
    body: dict[str, Any] = {"ruleDirs": ["rules"]}
    stamp: tuple[Any, ...] = ()
    flags = engine.language_flags(NO_CONFIG)  # none without a config
    if cfg is not None:
        if cfg.raw.get("customLanguages"):
            return None  # native parsers and their trust stay with the spawn path
        # what engine.language_flags(cfg.path) says for a config naming no library, without reading it again
        flags = trust.flag_without_libraries(engine.custom_languages)
        utils = [str(d) for d in cfg.util_dirs if d.is_dir()]  # a folder git dropped holds no util
        if utils:
            body["utilDirs"] = utils
        if cfg.language_globs:
            body["languageGlobs"] = cfg.language_globs
        # the key of the warm processes: it must not change while no file does (a new key starts a process)
        stamp = tree_signature([cfg.path], cfg.util_dirs, contents=True)
    warm_rules = _warm_rules(rules, rules_path, language, cfg, stamp)
    return WarmSpec(str(engine.binary), json.dumps(body, sort_keys=True), stamp, warm_rules.path,
                    tuple(flags), file_name, language), warm_rules


def _warm_rules(rules: Sequence[Rule], rules_path: Path, language: str, cfg: ProjectConfig | None = None,
                stamp: tuple[Any, ...] = ()) -> WarmRules:
    """`rules_path`'s rules as they are (they decide what matches), plus a label twin of each rule that can
    record secondary labels (see `labelled_doc`). A twin's labels are used only where it matched exactly where
    its rule did. `stamp`: the utils' and config's, whose global utils the twins read."""
    with _lock:
        hit = _warm_files.get((str(rules_path), stamp))
    if hit is not None and hit.path.is_file():
        return hit
    shared = _global_utils(cfg, language) if cfg is not None else {}
    docs: list[dict[str, Any]] = []
    twinned: set[str] = set()
    spawned: set[str] = set()
    own: set[str] = set()
    for r in rules:
        doc = rule_doc(r, keep_globs=False)
        if "labels" in doc:
            marked = marked_labels(doc)
            (spawned if marked is None else own).add(r.id)
            docs.append(marked or doc)
            continue
        docs.append(doc)
        if not _has_key(doc, _LABEL_KEYS) and "labels" not in doc:
            continue  # only the primary label: the server's diagnostic is the whole story
        twin = labelled_doc(doc, shared)
        if twin is None:
            spawned.add(r.id)
        elif twin:
            twinned.add(r.id)
            docs.append(twin)
    # Parse errors and MISSING tokens (scan/missing.py) for fix-it verification run on the documents opened with
    # `checks` (re-scans); the others get the cheaper rule that says a text has neither (`clean_rule_doc`), all a
    # snippet that parses cleanly needs: about half of ast-grep's work on a clean TypeScript snippet. A language
    # without a known root keeps the parse-error rule everywhere.
    counting, clean = missing_rule_doc(language), missing.clean_rule_doc(language)
    if counting is None or clean is None:
        docs.append(parse_rule_doc(language))
    else:
        docs += [{**parse_rule_doc(language), "files": [CHECKS_GLOB]}, {**counting, "files": [CHECKS_GLOB]},
                 {**clean, "ignores": [CHECKS_GLOB]}]
    out = WarmRules(docs_file(docs), frozenset(twinned), frozenset(spawned), frozenset(own), clean is not None)
    with _lock:
        if len(_warm_files) > 256:
            _warm_files.clear()
        _warm_files[(str(rules_path), stamp)] = out
    return out


def marked_labels(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """`doc` with its own `labels` all secondary, each with the message `LABEL_MARK:<its metavariable>`, so that
    the server reports every one (it reports labels that have a message) and `own_labels` can give each its
    style and message back; None when the labels are not a mapping of metavariables to {style, message}. A
    rule's `labels` replace ast-grep's default ones (the primary match and the relational rules' secondary
    nodes: `get_labels` in ast-grep's rule_config.rs), and only decide the labels and, through a primary label,
    the range the server reports: never what matches, the message or the fix. No label being primary, the
    server reports the match's own range."""
    labels = doc.get("labels")
    if not isinstance(labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, Mapping) and v.get("style") in ("primary", "secondary")
            and isinstance(v.get("message", ""), str | None) for k, v in labels.items()):
        return None
    return {**doc, "labels": {var: {"style": "secondary", "message": f"{LABEL_MARK}:{var}"} for var in labels}}


def own_labels(found: Sequence[MatchLabel], labels: Mapping[str, Any]) -> list[MatchLabel] | None:
    """The labels `ast-grep scan` prints for a match of a rule with its own `labels`, from the server's marked
    ones (`marked_labels`): each with its metavariable's style and message (none when the rule gives none);
    None when a marker is not one of the rule's."""
    out: list[MatchLabel] = []
    for label in found:
        var = str(label.get("message") or "").removeprefix(f"{LABEL_MARK}:")
        conf = labels.get(var)
        if not isinstance(conf, Mapping) or label.get("message") != f"{LABEL_MARK}:{var}":
            return None
        out.append({"text": label["text"], "range": label["range"], "style": str(conf["style"]),
                    "message": conf.get("message")})
    return out


def _global_utils(cfg: ProjectConfig, language: str) -> dict[str, Any]:
    """The `rule` of each global util of `language` in the project's utilDirs that holds only `id`, `language`
    and `rule` (one with constraints, utils, a transform or arguments is left out: a `matches` naming it sends
    its rule to the spawn path), by id; an id defined twice is left out too."""
    from sgtools.core import yamlio
    from sgtools.project.languages import language_key

    found: dict[str, Any] = {}
    twice: set[str] = set()
    for path in cfg.util_files():
        try:
            docs = yamlio.load_all_cached(path.read_bytes())
        except (OSError, ValueError, SgToolsError):
            continue
        for doc in docs:
            if not isinstance(doc, Mapping) or not isinstance(doc.get("id"), str):
                continue
            uid = str(doc["id"])
            twice.update({uid} & found.keys())
            if set(doc) <= {"id", "language", "rule"} and language_key(str(doc.get("language")), cfg) == language:
                found[uid] = doc.get("rule")
    return {k: v for k, v in found.items() if k not in twice}


def labelled_doc(doc: Mapping[str, Any], shared: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The label twin of `doc`: the same rule with the target T of each relational rule (in `rule`, its local
    utils and its constraints) replaced by `all: [T, pattern: $$SGTOOLSLBL<n>]` and a label on each such
    metavariable (with `LABEL_MARK` as its message, so the server reports it). ast-grep records exactly the node
    each relational rule matched on the way to a match as a "secondary" label (`match_and_add_label` in
    ast-grep's rule/mod.rs; `any` keeps the env of the branch that matched, `all` and `not` drop what a failed
    try bound, constraints are matched in the match's env), so the twin's labels are the scan's; `$$` binds
    unnamed nodes too (`%`, `(`). `{}` when the rule records no secondary label (no relational rule outside
    `not`); None when its labels could differ from `ast-grep scan`'s: the rule's own `labels` (`marked_labels`
    serves those), or a global util the twin cannot see through (`_returns_self`). A global util (`shared`) is
    matched in an env of its own (`match_global_rule` in ast-grep's referent_rule.rs): what it records is
    dropped, so the twin leaves it as it is. Rewriters run on the finished match, in an env of their own: the
    twin drops them with the fix and the transform."""
    utils = doc.get("utils") or {}
    constraints = doc.get("constraints") or {}
    if "labels" in doc or not isinstance(utils, Mapping) or not isinstance(constraints, Mapping):
        return None
    names: list[str] = []
    scope = _Scope(utils, shared or {})
    rule = _label_targets(doc.get("rule"), names, scope)
    twin_utils = {k: _label_targets(v, names, scope) for k, v in utils.items()}
    twin_constraints = {k: _label_targets(v, names, scope) for k, v in constraints.items()}
    if rule is None or any(v is None for v in [*twin_utils.values(), *twin_constraints.values()]):
        return None
    if not names:
        return {}
    twin = {k: v for k, v in doc.items() if k not in ("fix", "transform", "rewriters")}
    if utils:
        twin["utils"] = twin_utils
    if constraints:
        twin["constraints"] = twin_constraints
    return {**twin, "id": TWIN + str(doc["id"]), "rule": rule,
            "labels": {n: {"style": "secondary", "message": LABEL_MARK} for n in names}}


def _label_targets(node: Any, names: list[str], utils: _Scope) -> Any:
    """`node` (a rule object, or an `all`/`any` list) with each relational target labelled (`labelled_doc`);
    None where a label could come from a rule the twin cannot see (a global util)."""
    if isinstance(node, list):
        items = [_label_targets(x, names, utils) for x in node]
        return None if any(x is None for x in items) else items
    if not isinstance(node, Mapping):
        return node
    if "matches" in node and node["matches"] not in utils.local and node["matches"] not in utils.shared:
        return None
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("all", "any"):
            out[key] = _label_targets(value, names, utils)
        elif key in _RELATIONAL:
            out[key] = _labelled_relation(value, names, utils)
        elif key == "nthChild" and _has_key(value, _LABEL_KEYS):
            # `ofRule` is tried on each sibling with a throwaway env, then matched once more on the node itself
            # into the match's env (`find_index` in ast-grep's nth_child.rs, since ast-grep#2677): only that
            # last match records labels, as in any other position
            if not isinstance(value, Mapping) or "ofRule" not in value:
                return None
            out[key] = {**value, "ofRule": _label_targets(value["ofRule"], names, utils)}
        else:
            out[key] = value  # atomic rules, `matches` (its util is labelled in `utils`), and `not`: no label
        if out[key] is None:
            return None
    return out


def _labelled_relation(value: Any, names: list[str], utils: _Scope) -> dict[str, Any] | None:
    """One relational rule with its target bound to a new label metavariable. ast-grep labels the node its
    target rule returns: the candidate itself, except for a target that is one relational rule (or a util that
    is one), which returns (and labels) the node *it* found, so this one adds nothing new. A stopBy rule is
    matched without the env: it records nothing and stays as it is."""
    if not isinstance(value, Mapping):
        return None
    meta = {k: v for k, v in value.items() if k in _RELATION_KEYS}
    bare = {k: v for k, v in value.items() if k not in _RELATION_KEYS}
    returns_self = _returns_self(bare, utils, set())
    if returns_self is None:
        return None
    name = f"{_LABEL_VAR}{len(names)}"
    if returns_self:
        names.append(name)
    target = _label_targets(bare, names, utils)
    if target is None:
        return None
    return {**meta, "all": [target, {"pattern": f"$${name}"}]} if returns_self else {**meta, **target}


def _returns_self(rule: Any, utils: _Scope, seen: set[str]) -> bool | None:
    """Whether ast-grep's matcher for the rule object `rule` returns the node it is tried on (an atomic or
    composite rule, several keys: their `all`), not a node a relational rule found; None when unknown (a util
    that is not known, a cycle, or a global util that returns another node: its own label is dropped with its
    env, yet the relational rule around it labels that node, which the twin cannot bind)."""
    if not isinstance(rule, Mapping) or len(rule) != 1:
        return True
    key, value = next(iter(rule.items()))
    if key in _RELATIONAL:
        return False
    if key != "matches":
        return True
    if not isinstance(value, str) or value in seen:
        return None
    if value in utils.local:
        return _returns_self(utils.local[value], utils, {*seen, value})
    if value not in utils.shared:
        return None
    # a global util's own `matches` name global utils only
    return _returns_self(utils.shared[value], _Scope({}, utils.shared), {*seen, value}) or None


def _has_key(node: object, keys: frozenset[str]) -> bool:
    """Whether `keys` occur in the rule tree outside a `not` (a negated relational rule records no label:
    `ast-grep scan` prints only the primary one for `not: {has: ...}`)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if keys.intersection(item):
                return True
            stack.extend(v for k, v in item.items() if k != "not")
        elif isinstance(item, list):
            stack.extend(item)
    return False


def warm_matches(engine: Engine, spec: WarmSpec, rules: WarmRules, codes: Sequence[str],
                 rules_by_id: Sequence[Mapping[str, Rule]], counts: dict[str, int | None] | None = None,
                 clean: set[str] | None = None) -> tuple[list[list[AstGrepMatch] | None] | None, str | None]:
    """The matches of each text (one document round for all) from the warm engine, keeping the rules of
    `rules_by_id[i]` (and parse errors) for text i, None for a text the spawn path must scan (a finding whose
    labels the server cannot give); (None, why) when the warm engine failed. `why`: the first reason.
    `counts`: where to keep each countable text's MISSING-token count. `clean` given (`rules.scoped` only): the
    documents are opened without fix-it verification's rules (engine/warm.py `checks`), so their matches hold no
    parse errors, and `clean` gets each text with none and no MISSING token (scan/missing.py `clean_rule_doc`),
    whose count is then 0."""
    assert engine.warm is not None
    fixes_for = frozenset(rid for by_id in rules_by_id for rid, r in by_id.items() if r.data.get("fix") is not None)
    try:
        every = engine.warm.scan(spec, codes, fixes_for, checks=clean is None)
    except WarmUnavailable as exc:
        return None, exc.reason
    if clean is not None:
        certified = [text for text, found in zip(codes, every, strict=True) if missing.certified(found)]
        clean.update(certified)
        if counts is not None:
            missing.keep_clean(counts, spec.language, certified)
    elif counts is not None:
        missing.keep(counts, spec.language, codes, every)
    out: list[list[AstGrepMatch] | None] = []
    first: str | None = None
    for found, by_id in zip(every, rules_by_id, strict=True):
        raw, why = _with_labels(found, rules, by_id)
        first = first or why
        out.append(raw)
    return out, first


def checked_scan(engine: Engine, spec: WarmSpec, rules: WarmRules, texts: Sequence[str],
                 counts: dict[str, int | None] | None) -> list[list[AstGrepMatch]]:
    """Every rule's matches in each text, parse errors included, as a document opened with fix-it verification's
    rules gives them (without label twins, the counting rule or the clean rule); `counts` gets each countable
    text's MISSING tokens. With `rules.scoped`, a plain document first: a text it shows parsing cleanly has no
    parse error and 0 MISSING tokens (scan/missing.py `clean_rule_doc`), and only the others are opened again
    with those rules (a fix-it's copy nearly always parses cleanly). `WarmUnavailable` as engine/warm.py's."""
    assert engine.warm is not None
    every = engine.warm.scan(spec, texts, skip=TWIN, checks=not rules.scoped)
    if rules.scoped:
        unsure = [i for i, found in enumerate(every) if not missing.certified(found)]
        if unsure:
            again = engine.warm.scan(spec, [texts[i] for i in unsure], skip=TWIN)
            for i, found in zip(unsure, again, strict=True):
                every[i] = found
        if counts is not None:
            missing.keep_clean(counts, spec.language, [t for i, t in enumerate(texts) if i not in unsure])
            missing.keep(counts, spec.language, [texts[i] for i in unsure], [every[i] for i in unsure])
    elif counts is not None:
        missing.keep(counts, spec.language, texts, every)
    drop = (missing.MISSING_RULE_ID, missing.CLEAN_RULE_ID)
    return [[m for m in found if m["ruleId"] not in drop] for found in every]


def _with_labels(every: list[AstGrepMatch], rules: WarmRules, rules_by_id: Mapping[str, Rule],
                 ) -> tuple[list[AstGrepMatch] | None, str | None]:
    """One text's matches of the rules in `rules_by_id` (and parse errors) as `ast-grep scan` gives them: labels
    from the twins, or (None, why) when they cannot be had."""
    raw = [m for m in every if m["ruleId"] in rules_by_id or m["ruleId"] == PARSE_RULE_ID]
    twins: dict[tuple[str, int, int], list[AstGrepMatch]] = {}
    for m in every:
        if m["ruleId"].startswith(TWIN) and m["ruleId"][len(TWIN):] in rules_by_id:
            twins.setdefault(_at(m, m["ruleId"][len(TWIN):]), []).append(m)
    for m in raw:
        rule = rules_by_id.get(m["ruleId"])
        if rule is None:
            continue
        if rule.id in rules.spawned:
            return None, f"{rule.id} reports labels the language server does not carry"
        if rule.id in rules.own:
            labels = own_labels(m["labels"], rule.data["labels"])
            if labels is None:
                return None, f"the labels of {rule.id} could not be had from the language server"
            m["labels"] = labels
        if rule.id in rules.twinned:
            twin = twins.pop(_at(m, rule.id), [])
            if len(twin) != 1:
                return None, f"the labels of {rule.id} could not be had from the language server"
            m["labels"] = twin[0]["labels"]
        if not rule.data.get("message"):
            m["message"] = ""  # the server puts the rule id in an empty message (editors hide empty ones)
    if twins:
        return None, "a label twin matched where its rule did not"
    return raw, None


def _at(m: AstGrepMatch, rule_id: str) -> tuple[str, int, int]:
    off = m["range"]["byteOffset"]
    return rule_id, int(off["start"]), int(off["end"])
