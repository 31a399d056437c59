"""The tool table: for each SPEC tool its description, annotations, service call and text rendering.

Each call is a thin typed wrapper that imports its service on first use, so `tools/list` is answered without
locating ast-grep or loading the community index. Add a tool here (and its schemas in `schemas.py`).
"""

from __future__ import annotations

from functools import partial
from typing import cast

from sgtools.contracts.community import (
    CommunityRuleDetails,
    ImportCommunityRuleArgs,
    ImportCommunityRuleResult,
    SearchCommunityRulesArgs,
    SearchCommunityRulesResult,
)
from sgtools.contracts.edit import FindCodeToolArgs, FindCodeToolResult
from sgtools.contracts.fixits import ApplyFixesArgs, ApplyFixesResult
from sgtools.contracts.project import InitializeResult, NoArgs, ServerInfo
from sgtools.contracts.rules import (
    AddOrUpdateRuleArgs,
    AddOrUpdateRuleResult,
    DumpSyntaxTreeArgs,
    ListRulesResult,
    RemoveRuleResult,
    RuleIdArgs,
    RulesArgs,
    RulesResult,
    SyntaxTreeResult,
    TestRuleArgs,
    TestRuleResult,
)
from sgtools.contracts.scan import ScanAnswer, ScanAnyResult, ScanArgs, ScanCodeArgs, ScanPathArgs
from sgtools.contracts.suggest import SuggestArgs, SuggestResult
from sgtools.core.errors import BadInput, SgToolsError
from sgtools.present import community as present_community
from sgtools.present import doctor as present_doctor
from sgtools.present import results as render
from sgtools.present import rules as present_rules
from sgtools.present.results import TEXT_ITEMS
from sgtools.server.spec import App, ToolSpec


def _initialize(app: App, args: NoArgs) -> InitializeResult:
    from sgtools.project.config import initialize

    return initialize(app.ws).to_result()


_DISK_ONLY = ("paths", "rule_ids", "offset", "profile")
_SNIPPET_ONLY = ("code", "files", "language", "path")


def _scan_code(app: App, args: ScanArgs) -> ScanAnswer:
    from sgtools.present.answer import scan_answer

    return scan_answer(_scan(app, args))


def _scan(app: App, args: ScanArgs) -> ScanAnyResult:
    """A snippet (`code` / `files`) through the scan_code service; otherwise files on disk through scan_path."""
    from sgtools.scan.fallback import scan_code, scan_path  # the bundled rules without an sgconfig.yml, saying so

    snippet = sorted(k for k in _SNIPPET_ONLY if k in args)
    disk = sorted(k for k in _DISK_ONLY if k in args)
    if snippet and disk:
        raise BadInput(f"scan_code got {', '.join(snippet)} (a snippet) and {', '.join(disk)} (files on disk). "
                       "Give `code` or `files` to check a snippet, or leave both out to scan files on disk with "
                       "`paths` / `rule_ids` / `offset` / `profile`.")
    if "code" in args or "files" in args:
        code_args = ScanCodeArgs()
        for key in (*_SNIPPET_ONLY, "min_severity", "max_results"):
            if key in args:
                code_args[key] = args[key]  # type: ignore[literal-required]
        return cast(ScanAnyResult, scan_code(app.ws, app.engine, read_only=app.read_only, **code_args))
    if snippet:
        raise BadInput(f"scan_code got {', '.join(snippet)} without `code` or `files`: pass the snippet as `code` "
                       "(or the files of a change as `files`), or leave them out to scan files on disk.")
    path_args = ScanPathArgs()
    for key in (*_DISK_ONLY, "min_severity", "max_results"):
        if key in args:
            path_args[key] = args[key]  # type: ignore[literal-required]
    return cast(ScanAnyResult, scan_path(app.ws, app.engine, read_only=app.read_only, **path_args))


def _add_or_update_rule(app: App, args: AddOrUpdateRuleArgs) -> AddOrUpdateRuleResult:
    from sgtools.rules.store import add_or_update_rule

    return add_or_update_rule(app.ws, app.engine, **args)


def _remove_rule(app: App, args: RuleIdArgs) -> RemoveRuleResult:
    from sgtools.rules.store import remove_rule

    return remove_rule(app.ws, app.engine, **args)


def _list_rules(app: App, args: RulesArgs) -> RulesResult:
    from sgtools.rules.listing import explain_rule, list_rules

    if "rule_id" in args:
        if "language" in args:
            raise BadInput("list_rules takes `rule_id` (one rule explained) or `language` (the list), not both.")
        return {"rule": explain_rule(app.ws, app.engine, args["rule_id"])}
    return cast(RulesResult, list_rules(app.ws, app.engine, args.get("language")))


def _render_rules(data: RulesResult) -> str:
    if "rule" in data:
        return present_rules.render_explanation(data["rule"])
    return present_rules.render_rules(cast(ListRulesResult, data), limit=TEXT_ITEMS * 5)


def _test_rule(app: App, args: TestRuleArgs) -> TestRuleResult:
    from sgtools.workflows.rule_testing import test_rule

    return test_rule(app.ws, app.engine, **args)


def _suggest_rule(app: App, args: SuggestArgs) -> SuggestResult:
    from sgtools.workflows.suggest.service import suggest_rule

    return suggest_rule(app.ws, app.engine, **args)


def _dump_syntax_tree(app: App, args: DumpSyntaxTreeArgs) -> SyntaxTreeResult:
    from sgtools.rules.syntax import dump_syntax_tree

    return dump_syntax_tree(app.ws, app.engine, **args)


def _find_code(app: App, args: FindCodeToolArgs) -> FindCodeToolResult:
    from sgtools.edit.structural import find_code, rewrite_code

    if "rewrite" in args:
        if "max_results" in args:
            raise BadInput("find_code with `rewrite` changes every match: leave out `max_results`, or narrow "
                           "`paths`.")
        return cast(FindCodeToolResult, rewrite_code(app.ws, app.engine, args["pattern"], args["rewrite"],
                                                     args["language"], args.get("paths"), args.get("apply", False)))
    if "apply" in args:
        raise BadInput("find_code's `apply` writes a `rewrite`: pass `rewrite` too, or leave `apply` out.")
    return cast(FindCodeToolResult, find_code(app.ws, app.engine, args["pattern"], args["language"],
                                              args.get("paths"), args.get("max_results")))


def _render_find(data: FindCodeToolResult) -> str:
    return render.render_diff(data) if "diff" in data else render.render_find(data)


def _apply_fixes(app: App, args: ApplyFixesArgs) -> ApplyFixesResult:
    from sgtools.workflows.apply_fixes import apply_fixes

    return apply_fixes(app.ws, app.engine, **args)


def _search_community_rules(app: App, args: SearchCommunityRulesArgs) -> SearchCommunityRulesResult:
    from sgtools.community.service import search_community_rules

    return search_community_rules(**args)


def _get_community_rule_details(app: App, args: RuleIdArgs) -> CommunityRuleDetails:
    from sgtools.community.service import get_community_rule_details

    return get_community_rule_details(**args)


def _import_community_rule(app: App, args: ImportCommunityRuleArgs) -> ImportCommunityRuleResult:
    from sgtools.community.service import import_community_rule

    return import_community_rule(app.ws, app.engine, **args)


def _server_info(app: App, args: NoArgs) -> ServerInfo:
    from sgtools.community.service import community_sources
    from sgtools.workflows.doctor import server_info

    try:
        sources = community_sources()
    except SgToolsError as exc:  # a broken sources config must not hide the rest of the report
        sources = [{"name": "community sources", "location": "", "kind": "config", "ruleCount": 0,
                    "status": "error", "error": exc.render()}]
    return server_info(app.ws, app.engine, read_only=app.read_only, community_sources=sources)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "initialize_ast_grep", "Initialize ast-grep project",
        "Create sgconfig.yml, rules/ and rule-tests/ in the workspace root. Call once when a tool answers "
        "[config-missing]; never overwrites.",
        _initialize, present_rules.render_init, read_only=False, idempotent=True, write_only=True),
    ToolSpec(
        "scan_code", "Scan code",
        "Check code against the project's rules (bundled ones without sgconfig.yml): a snippet (`code` with "
        "`language` or `path`), a pending change's `files`, or without code the files on disk (`paths`). "
        "Apply fix-its whose safety is safe, then scan again; a finding's `suppress` comment only on the "
        "developer's word.",
        _scan_code, render.render_scan),
    ToolSpec(
        "add_or_update_rule", "Add or update a rule",
        "Save a rule as rules/<rule_id>.yml with its examples as its test. A failing example or a rule that "
        "can never fire refuses the change ([rule-invalid] with a repair). Draft with test_rule or suggest_rule.",
        _add_or_update_rule, present_rules.render_saved,
        read_only=False, destructive=True, idempotent=True, write_only=True),
    ToolSpec(
        "remove_rule", "Remove a rule",
        "Delete rules/<rule_id>.yml and its test file.",
        _remove_rule, present_rules.render_saved,
        read_only=False, destructive=True, idempotent=True, write_only=True),
    ToolSpec(
        "list_rules", "List or explain rules",
        "The project's rules (id, severity, message, fix, tests) and broken rule files; with `rule_id`, one "
        "rule in full (YAML, note, examples) to read before changing it.",
        _list_rules, _render_rules),
    ToolSpec(
        "test_rule", "Test a draft rule",
        "Try rule YAML without saving: errors with where, matches on `code`, and which examples fail. "
        "Iterate until success, then add_or_update_rule with the same examples.",
        _test_rule, partial(present_rules.render_test, limit=TEXT_ITEMS)),
    ToolSpec(
        "suggest_rule", "Suggest a rule from examples",
        "Rules from code to flag and code to leave alone, verified on them, best first, or why none "
        "separates them; your `draft_rule`, proven, comes first. Writes nothing.",
        _suggest_rule, partial(present_rules.render_suggest, limit=TEXT_ITEMS)),
    ToolSpec(
        "dump_syntax_tree", "Show the syntax tree",
        "Parse code and show its tree-sitter nodes (cst, ast) or how ast-grep reads it as a pattern: the node "
        "kinds for `kind:` rules and why a pattern does not match.",
        _dump_syntax_tree, render.render_tree),
    ToolSpec(
        "find_code", "Find or rewrite code by pattern",
        "Search files with an ast-grep pattern ($X one node, $$$X any number): matches with metavariables. "
        "With `rewrite`: every match replaced, a diff (dry run) or written with apply=true.",
        _find_code, _render_find,
        read_only=False, destructive=True, idempotent=False, writes_when_applied=True),
    ToolSpec(
        "apply_fixes", "Apply rule fixes",
        "Apply the rules' verified safe fixes to files (`paths`, `rule_ids`): a diff (dry run) or written with "
        "apply=true; include_unsafe adds fixes that may change behaviour. Each fix says its safety and confidence. "
        "Never suppresses: suppress only on the developer's word.",
        _apply_fixes, render.render_fixes,
        read_only=False, destructive=True, idempotent=False, writes_when_applied=True),
    ToolSpec(
        "search_community_rules", "Search community rules",
        "Search the community rule catalogues by words, `language` and `tags`. Read one with "
        "get_community_rule_details, add it with import_community_rule.",
        _search_community_rules, partial(present_community.render_search, limit=TEXT_ITEMS), open_world=True),
    ToolSpec(
        "get_community_rule_details", "Show a community rule",
        "A community rule in full: YAML, description, tests, license and source.",
        _get_community_rule_details, present_community.render_details, open_world=True),
    ToolSpec(
        "import_community_rule", "Import a community rule",
        "Copy a community rule and its tests into rules/, adapted to the installed ast-grep; [conflict] if "
        "the id exists unless overwrite=true.",
        _import_community_rule, present_rules.render_saved,
        read_only=False, destructive=True, idempotent=True, open_world=True, write_only=True),
    ToolSpec(
        "server_info", "Server info",
        "Workspace root, config, rule count and health, languages, versions, engine use and `problems` with "
        "their fixes. Call first in a new project.",
        _server_info, present_doctor.render_info, open_world=True),
)
