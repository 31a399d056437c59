"""The text of each rule service's result, one rendering shared by the CLI (`sgtools rule ...`, `init`) and the
MCP tools. `limit` caps long lists for the MCP text (the structured result has them all); the CLI shows all.
Service messages name MCP tools; the CLI passes `say=cli.voice.speak` so they name its commands instead. `say` is
applied to messages only, never to a rule's YAML or code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgtools.present.results import Say, diagnostic_line, keep, more, rule_errors_lines
from sgtools.present.text import plural

if TYPE_CHECKING:  # shapes only (the MCP server's schemas load them)
    from sgtools.contracts.project import InitializeResult
    from sgtools.contracts.rules import ExplainRuleResult, ListRulesResult, TestRuleResult
    from sgtools.contracts.suggest import SuggestResult


def render_rules(data: ListRulesResult, limit: int | None = None, *, errors: bool = True, say: Say = keep) -> str:
    """One line per rule: id, language, severity, file, [fix tests unproven], message. `errors=False` leaves the broken
    rule files out (the CLI prints them on stderr)."""
    rules = data["rules"]
    lines = [f"{plural(len(rules), 'rule')}." if rules else "No rules."]
    for r in rules[:limit]:
        flags = " ".join(f for f, on in (("fix", r["hasFix"]), ("tests", r["hasTests"]),
                                               ("unproven", r.get("unproven", False))) if on)
        lines.append(f"{r['id']}  {r['language']}  {r['severity']}  {r['path']}" + (f"  [{flags}]" if flags else "")
                     + (f"  {r['message']}" if r["message"] else ""))
    lines += more(rules, limit)
    if errors:
        lines += rule_errors_lines(data["ruleErrors"], limit, say)
    return "\n".join(lines)


def render_explanation(info: ExplainRuleResult, say: Say = keep) -> str:
    lines = [f"{info['id']} ({info['language']}, {info['severity']}) in {info['path']}, source: {info['source']}"]
    lines += [f"{label}: {value}" for label, value in
              (("message", info["message"]), ("note", info["note"]), ("url", info["url"])) if value]
    lines += [f"problem: {say(p)}" for p in info["problems"]]
    lines += ["---", info["yaml"].rstrip("\n")]
    examples = info["examples"]
    for kind, verb, cases in (("invalid", "matched", examples["invalid"]), ("valid", "not matched", examples["valid"])):
        if cases:
            lines.append(f"--- {kind} examples ({verb}):")
            lines += ["  " + code.rstrip("\n").replace("\n", "\n  ") for code in cases]
    return "\n".join(lines)


def render_test(data: TestRuleResult, limit: int | None = None, say: Say = keep) -> str:
    matches = data["matches"]
    failed = data["examples"]["failed"]
    lines = ["Rule OK." if data["success"] else "Rule has problems."]
    lines += [f"error: {say(err)}" for err in data["errors"][:limit]]
    lines.append(f"{plural(len(matches), 'match')} in the code.")
    lines += [diagnostic_line(d) for d in matches[:limit]]
    lines += more(matches, limit)
    lines.append(f"examples: {data['examples']['passed']} passed, {len(failed)} failed")
    lines += [f"  ✗ {f['reason']}" for f in failed[:limit]]
    lines += [f"hint: {say(h)}" for h in data["hints"][:limit]]
    lines += [f"warning: {say(w)}" for w in data["warnings"][:limit]]
    return "\n".join(lines)


def render_suggest(data: SuggestResult, limit: int | None = None, say: Say = keep) -> str:
    """The rules as one YAML stream (each with its reason as a comment), so it can be saved as it is."""
    cands = data["candidates"]
    lines: list[str] = []
    proof = data.get("proof")
    if cands and proof is not None:
        cap = f"at most {proof['fileCap']} files, {proof['secondsCap']:g} s"
        lines.append(f"# Proof on this project: {proof['files']} file(s) of the language ({cap}"
                     + ("; more files exist" if proof["capped"] else "") + ")"
                     + (f": {proof['note']}" if proof.get("note") else ""))
    for n, cand in enumerate(cands, 1):
        lines += [f"# {n}. {cand['rule_id']} ({cand['form']})", f"# {cand['why']}"]
        if cand.get("scope"):
            lines.append(f"# scope: {cand['scope']}")
        found = cand.get("proof")
        if found is not None:
            disagree = f"; {found['onlyThis']} only this one flags, {found['notThis']} others flag and it does not" \
                if len(cands) > 1 else ""
            lines.append(f"# in this project: flags {found['flags']} place(s){disagree}")
            lines += [f"#   {p}" for p in found["places"]]
            lines += [f"#   only this one: {p}" for p in found.get("onlyThisPlaces", [])]
        if cand.get("fixNote"):
            lines.append(f"# fix: {cand['fixNote']}")
        lines.append(cand["yaml"].rstrip("\n"))
        if n < len(cands):
            lines.append("---")
    lines += [f"warning: {say(w)}" for w in data["warnings"][:limit]]
    if not data["success"]:
        lines.append(f"No rule found: {say(data.get('explanation', ''))}".rstrip(": "))
    return "\n".join(lines)


def render_saved(data: Mapping[str, Any], say: Say = keep) -> str:
    """What add_or_update_rule, remove_rule and import_community_rule did: the message, then the files."""
    lines = [say(str(data["message"]))]
    for key, label in (("path", "rule file"), ("testPath", "test file")):
        if data.get(key):
            lines.append(f"{label}: {data[key]}")
    test = data.get("testResult")
    if test is not None:
        lines.append("tests: " + ("passed" if test["passed"] else f"FAILED ({test['summary']})"))
    removed: Sequence[str] = data.get("removed") or []
    if removed:
        lines.append("removed: " + ", ".join(removed))
    return "\n".join(lines)


def render_init(data: InitializeResult, say: Say = keep) -> str:
    lines = [say(data["message"])]
    if data["existing"]:
        lines.append("Already present: " + ", ".join(data["existing"]))
    return "\n".join(lines)
