"""Whether a scan ran any rule, and why not: a scan that ran no rule checked nothing and is never a success.

Each function returns the reason a scan result carries in `noRuleRan` (the text's first line says it), with the
next step in the MCP tools' words (the CLI speaks them in its own, cli/voice.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from sgtools.project.config import ProjectConfig, missing_folders_note
from sgtools.project.workspace import Workspace
from sgtools.rules.ruleset import Rule, RuleSet

ADD_A_RULE = "add one with suggest_rule and add_or_update_rule, or import_community_rule"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def nothing_loaded(ws: Workspace, cfg: ProjectConfig, ruleset: RuleSet) -> str:
    """Why the project has no enabled rule to run: its rule files all failed, all are off, or there are none."""
    if ruleset.errors and not any(r.enabled for r in ruleset.rules):
        return (f"none of the project's {_plural(len(ruleset.errors), 'rule file')} could be loaded (see "
                "ruleErrors); fix them (list_rules says why), then retry")
    if ruleset.rules:
        return f"all {_plural(len(ruleset.rules), 'rule')} of the project are turned off (severity: off)"
    missing = missing_folders_note(cfg)
    if missing is not None and any(not d.is_dir() for d in cfg.rule_dirs):
        return missing.rstrip(".") + f", then {ADD_A_RULE}"
    where = ", ".join(f"`{ws.relative(d)}`" for d in cfg.rule_dirs) or "no ruleDirs in sgconfig.yml"
    return f"the project has no rules ({where} holds no rule file); {ADD_A_RULE}"


def languages(rules: Sequence[Rule]) -> str:
    return ", ".join(sorted({r.language for r in rules}))


def not_for_language(of_lang: Sequence[Rule], enabled: Sequence[Rule], lang: str, file: str | None) -> str:
    """Why no rule ran on a snippet of `lang` while the project has `enabled` rules."""
    if of_lang:
        where = file or "this code"
        return (f"the {_plural(len(of_lang), lang + ' rule')} leave {where} out by their files/ignores globs"
                + ("" if file else ": pass `path` to check the code as that file"))
    return (f"none of the project's {_plural(len(enabled), 'rule')} is for {lang} (its rules are for "
            f"{languages(enabled)})")


def no_file_checked(paths: Sequence[str], rules: Sequence[Rule]) -> str:
    """Why a path scan with rules to run checked no file."""
    where = "the workspace" if not paths else ", ".join(paths[:3]) + (", …" if len(paths) > 3 else "")
    return (f"no file under {where} is in the language of a rule ({languages(rules)}), or every file there is "
            "excluded")

