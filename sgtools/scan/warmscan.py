"""Snippet checks through the warm engine (engine/warm.py), exactly as the spawn path would answer them.

What comes from where, so that a warm answer equals the spawned `ast-grep scan --stdin` one:
- matches, rule ids, severities, interpolated messages and positions: the language server (code-point columns
  turned into byte offsets with the document text); `text` from the document; `note` and `url` from the rule;
- the fix's replacement and its range: the server's quick fix for that diagnostic;
- labels: the server does not carry unlabelled secondary nodes (`inside`, `has`...) nor label styles, so when a
  finding comes from a rule with `labels`, a relational rule or a util reference (`matches`), the snippet itself
  is scanned by a spawn; its fix-its are still verified warm;
- fix-it verification re-scans: warm always (they need rule ids and byte ranges only);
- MISSING-token counts (fixits/verify.py): still a spawn (`--debug-query=cst`), and only for fixes that could
  drop a token; the server never reports MISSING nodes.
The warm path serves built-in languages of projects without `customLanguages`; anything else, or a warm
engine that fails (it is then killed and restarted on the next call), is answered by the spawn path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sgtools.core import languages
from sgtools.engine.process import Engine
from sgtools.engine.texts import scan_texts
from sgtools.engine.warm import WarmSpec, WarmUnavailable
from sgtools.fixits.judge import PARSE_RULE_ID
from sgtools.fixits.verify import BatchRunner
from sgtools.project.config import ProjectConfig
from sgtools.rules.ruleset import Rule
from sgtools.scan.rulefiles import tree_signature

_LABEL_KEYS = frozenset({"inside", "has", "follows", "precedes", "matches"})


def warm_spec(engine: Engine, cfg: ProjectConfig | None, rules_path: Path, file_name: str,
              language: str) -> WarmSpec | None:
    """What the warm engine needs for these rules, or None when this check stays on the spawn path."""
    if engine.warm is None or language not in languages.LANGUAGES:
        return None
    body: dict[str, Any] = {"ruleDirs": ["rules"]}
    stamp: tuple[Any, ...] = ()
    if cfg is not None:
        if cfg.raw.get("customLanguages"):
            return None  # native parsers and their trust stay with the spawn path
        if cfg.util_dirs:
            body["utilDirs"] = [str(d) for d in cfg.util_dirs]
        if cfg.language_globs:
            body["languageGlobs"] = cfg.language_globs
        stamp = tree_signature([cfg.path], cfg.util_dirs)
    config = cfg.path if cfg is not None else Path("/dev/null")
    return WarmSpec(str(engine.binary), json.dumps(body, sort_keys=True), stamp, rules_path,
                    tuple(engine.language_flags(config)), file_name, language)


def needs_labels(rule: Rule) -> bool:
    """Whether this rule's findings can carry labels the language server does not report."""
    if "labels" in rule.data:
        return True
    return any(_has_key(rule.data.get(k), _LABEL_KEYS) for k in ("rule", "utils", "constraints", "rewriters"))


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


def warm_matches(engine: Engine, spec: WarmSpec, code: str,
                 rules_by_id: Mapping[str, Rule]) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The snippet's matches from the warm engine, or (None, why) when the spawn path must scan it."""
    assert engine.warm is not None
    fixes_for = frozenset(rid for rid, r in rules_by_id.items() if r.data.get("fix") is not None)
    try:
        raw = engine.warm.scan(spec, [code], fixes_for)[0]
    except WarmUnavailable as exc:
        return None, exc.reason
    for m in raw:
        rule = rules_by_id.get(m["ruleId"])
        if m["ruleId"] == PARSE_RULE_ID or rule is None:
            continue
        if needs_labels(rule):
            return None, f"{rule.id} reports labels the language server does not carry"
        if not rule.data.get("message"):
            m["message"] = ""  # the server puts the rule id in an empty message (editors hide empty ones)
    return raw, None


def verify_runner(engine: Engine, spec: WarmSpec | None, config: Path | str, rules_path: Path, file_name: str,
                  fell_back: list[str]) -> BatchRunner:
    """The fix-it verification re-scans: warm when it can, else (and after a warm failure) spawned; a fallback
    is appended to `fell_back`."""
    def spawned(texts: Sequence[str]) -> list[list[dict[str, Any]]]:
        return scan_texts(engine, config, rules_path, file_name, texts)

    if spec is None or engine.warm is None:
        return lambda _lang, texts: spawned(texts)
    warm = engine.warm

    def run(_lang: str, texts: Sequence[str]) -> list[list[dict[str, Any]]]:
        try:
            return warm.scan(spec, texts)
        except WarmUnavailable as exc:
            fell_back.append(exc.reason)
            return spawned(texts)
    return run
