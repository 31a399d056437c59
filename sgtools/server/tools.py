"""The tool table: for each SPEC tool its description, annotations, service call and text rendering.

Each call is a thin typed wrapper that imports its service on first use, so `tools/list` is answered without
locating ast-grep or loading the community index. Add a tool here (and its schemas in `schemas.py`).
"""

from __future__ import annotations

from functools import partial

from sgtools.contracts.community import (
    CommunityRuleDetails,
    ImportCommunityRuleArgs,
    ImportCommunityRuleResult,
    SearchCommunityRulesArgs,
    SearchCommunityRulesResult,
)
from sgtools.contracts.edit import FindCodeArgs, FindCodeResult, RewriteCodeArgs, RewriteCodeResult
from sgtools.contracts.fixits import ApplyFixesArgs, ApplyFixesResult
from sgtools.contracts.project import InitializeResult, NoArgs, ServerInfo
from sgtools.contracts.rules import (
    AddOrUpdateRuleArgs,
    AddOrUpdateRuleResult,
    DumpSyntaxTreeArgs,
    ExplainRuleResult,
    ListRulesArgs,
    ListRulesResult,
    RemoveRuleResult,
    RuleIdArgs,
    SyntaxTreeResult,
    TestRuleArgs,
    TestRuleResult,
)
from sgtools.contracts.scan import ScanCodeArgs, ScanPathArgs, ScanPathResult, ScanResult
from sgtools.contracts.suggest import SuggestArgs, SuggestResult
from sgtools.core.errors import SgToolsError
from sgtools.present import community as present_community
from sgtools.present import doctor as present_doctor
from sgtools.present import results as render
from sgtools.present import rules as present_rules
from sgtools.present.results import TEXT_ITEMS
from sgtools.server.spec import App, ToolSpec


def _initialize(app: App, args: NoArgs) -> InitializeResult:
    from sgtools.project.config import initialize

    return initialize(app.ws).to_result()


def _scan_code(app: App, args: ScanCodeArgs) -> ScanResult:
    from sgtools.scan.fallback import scan_code  # the bundled rules without an sgconfig.yml, saying so

    return scan_code(app.ws, app.engine, read_only=app.read_only, **args)


def _scan_path(app: App, args: ScanPathArgs) -> ScanPathResult:
    from sgtools.scan.fallback import scan_path

    return scan_path(app.ws, app.engine, read_only=app.read_only, **args)


def _add_or_update_rule(app: App, args: AddOrUpdateRuleArgs) -> AddOrUpdateRuleResult:
    from sgtools.rules.store import add_or_update_rule

    return add_or_update_rule(app.ws, app.engine, **args)


def _remove_rule(app: App, args: RuleIdArgs) -> RemoveRuleResult:
    from sgtools.rules.store import remove_rule

    return remove_rule(app.ws, app.engine, **args)


def _list_rules(app: App, args: ListRulesArgs) -> ListRulesResult:
    from sgtools.rules.listing import list_rules

    return list_rules(app.ws, app.engine, **args)


def _explain_rule(app: App, args: RuleIdArgs) -> ExplainRuleResult:
    from sgtools.rules.listing import explain_rule

    return explain_rule(app.ws, app.engine, **args)


def _test_rule(app: App, args: TestRuleArgs) -> TestRuleResult:
    from sgtools.workflows.rule_testing import test_rule

    return test_rule(app.ws, app.engine, **args)


def _suggest_rule(app: App, args: SuggestArgs) -> SuggestResult:
    from sgtools.workflows.suggest.service import suggest_rule

    return suggest_rule(app.ws, app.engine, **args)


def _dump_syntax_tree(app: App, args: DumpSyntaxTreeArgs) -> SyntaxTreeResult:
    from sgtools.rules.syntax import dump_syntax_tree

    return dump_syntax_tree(app.ws, app.engine, **args)


def _find_code(app: App, args: FindCodeArgs) -> FindCodeResult:
    from sgtools.edit.structural import find_code

    return find_code(app.ws, app.engine, **args)


def _rewrite_code(app: App, args: RewriteCodeArgs) -> RewriteCodeResult:
    from sgtools.edit.structural import rewrite_code

    return rewrite_code(app.ws, app.engine, **args)


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


_AFTER_ERROR = "On an error, the text starts with a [code] and says what to do next."

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "initialize_ast_grep", "Initialize ast-grep project",
        "Create the project's ast-grep setup in the workspace root: sgconfig.yml, rules/, utils/ and rule-tests/. "
        "Call it once when another tool answers [config-missing]. Safe to repeat: existing files are never "
        "overwritten, missing directories are added. Returns what was created and what already existed.",
        _initialize, present_rules.render_init, read_only=False, idempotent=True, write_only=True),
    ToolSpec(
        "scan_code", "Scan a code snippet",
        "Check a snippet of code (for example code you are about to write) against the project's rules "
        "(the bundled community rules when it has no sgconfig.yml), without touching disk. Give `language`, "
        "or a virtual `path` such as src/app.py (it also selects the rules whose files/ignores globs apply). "
        "Returns `issues` (Diagnostics with 1-based positions, and fix-its: `verified` means the fix was "
        "applied and re-scanned, `safety` whether it keeps behaviour), `counts` by severity and `ruleErrors` "
        "for broken rule files. Findings are data, not errors: `success` is false when anything was found. "
        "Apply fix-its whose safety is safe, then scan again; an issue's `suppress` comment silences it: "
        "suppress only on the developer's word. " + _AFTER_ERROR,
        _scan_code, render.render_scan),
    ToolSpec(
        "scan_path", "Scan files",
        "Scan files or directories in the workspace (default: all of it) with the project's rules. Paths are "
        "relative to the root. Filter with `rule_ids` and `min_severity`; page with `max_results` and "
        "`offset` (`nextOffset` is the next page, null at the end). Returns the same Diagnostics as scan_code. "
        "To fix what it finds, call apply_fixes (dry run first): apply fix-its whose safety is safe; suppress "
        "(an issue's `suppress` comment) only on the developer's word. " + _AFTER_ERROR,
        _scan_path, render.render_scan),
    ToolSpec(
        "add_or_update_rule", "Add or update a rule",
        "Save an ast-grep rule as rules/<rule_id>.yml (replacing a rule with that id). The YAML is checked by "
        "ast-grep first; with `invalid_examples` (code the rule must match) and `valid_examples` (code it must "
        "not match) a test file rule-tests/<rule_id>-test.yml is written and run, and a failing example refuses "
        "the whole change. Always pass examples. The rule is also analysed (`analysis`): a rule that can never "
        "fire (e.g. a pattern ast-grep reads as another node kind) is refused with [rule-invalid], the cause and a "
        "verified repair to save instead (`force: true` saves it anyway). Nothing is written when a check fails. "
        "Draft with test_rule first. Needs an "
        "initialized project ([config-missing]: call initialize_ast_grep). " + _AFTER_ERROR,
        _add_or_update_rule, present_rules.render_saved,
        read_only=False, destructive=True, idempotent=True, write_only=True),
    ToolSpec(
        "remove_rule", "Remove a rule",
        "Delete rules/<rule_id>.yml and its test file. Returns the removed paths; [not-found] if no such rule "
        "(list_rules shows the ids). " + _AFTER_ERROR,
        _remove_rule, present_rules.render_saved,
        read_only=False, destructive=True, idempotent=True, write_only=True),
    ToolSpec(
        "list_rules", "List rules",
        "List the project's rules (optionally for one `language`): id, language, severity, message, file, "
        "whether it has a fix and tests. Broken rule files are listed in `ruleErrors`. Use explain_rule for one "
        "rule's YAML. " + _AFTER_ERROR,
        _list_rules, partial(present_rules.render_rules, limit=TEXT_ITEMS * 5)),
    ToolSpec(
        "explain_rule", "Explain a rule",
        "Everything about one project rule: message, note, url, fix, the YAML, its file and its test examples. "
        "Use it before editing a rule with add_or_update_rule. " + _AFTER_ERROR,
        _explain_rule, present_rules.render_explanation),
    ToolSpec(
        "test_rule", "Test a draft rule",
        "Try a draft rule without saving anything: ast-grep checks the YAML (`errors` say what is wrong and "
        "where), runs it on `code` (the `matches`), and checks `invalid_examples` (must match) and "
        "`valid_examples` (must not match). Iterate until `success` is true, then save it with "
        "add_or_update_rule using the same examples. dump_syntax_tree shows the node kinds to match. "
        + _AFTER_ERROR,
        _test_rule, partial(present_rules.render_test, limit=TEXT_ITEMS)),
    ToolSpec(
        "suggest_rule", "Suggest a rule from examples",
        "Write the rule for you: give `invalid_examples` (code that must be flagged) and `valid_examples` (code "
        "that must not), and get ast-grep rules generalised from their syntax trees, best first, each verified "
        "by ast-grep to flag every invalid example and no valid one (`checked` lists them). Optional "
        "`fix_examples` ({before, after}) add a verified `fix`. Review the YAML, then save it with "
        "add_or_update_rule and the same examples. When no rule separates the examples, `explanation` says "
        "which example and why. Writes nothing. " + _AFTER_ERROR,
        _suggest_rule, partial(present_rules.render_suggest, limit=TEXT_ITEMS)),
    ToolSpec(
        "dump_syntax_tree", "Show the syntax tree",
        "Parse code with ast-grep's tree-sitter grammar and return the tree as text: `cst` (every node), `ast` "
        "(named nodes) or `pattern` (how ast-grep reads the code as a pattern). Use it to find node kinds "
        "(`kind:` rules) and to see why a pattern does or does not match. " + _AFTER_ERROR,
        _dump_syntax_tree, render.render_tree),
    ToolSpec(
        "find_code", "Find code by pattern",
        "Search the workspace with an ast-grep pattern (structural, not text: `$X` matches one node, `$$$X` "
        "any number). Returns matches with 1-based positions, text and captured metavariables. Good for "
        "checking a pattern against real code before writing a rule. " + _AFTER_ERROR,
        _find_code, render.render_find),
    ToolSpec(
        "rewrite_code", "Rewrite code by pattern",
        "Structural search and replace: every match of `pattern` becomes `rewrite` (metavariables carry over). "
        "By default a dry run that returns a unified `diff` and the `changes`; with apply=true the files are "
        "written atomically (all or nothing). Review the diff before applying. " + _AFTER_ERROR,
        _rewrite_code, render.render_diff,
        read_only=False, destructive=True, idempotent=False, writes_when_applied=True),
    ToolSpec(
        "apply_fixes", "Apply rule fixes",
        "Apply the `fix` of the project's rules to files (optionally only some `paths` / `rule_ids`). By default "
        "a dry run returning the unified `diff`; with apply=true the files are written atomically. Only fixes "
        "that verify (re-scan is clean and the code still parses) and are `safe` (keep behaviour) are applied; "
        "include_unsafe=true adds verified `unsafe` ones (review each). A suppression comment is never applied: "
        "suppress only on the developer's word. Scan again afterwards. "
        + _AFTER_ERROR,
        _apply_fixes, render.render_diff,
        read_only=False, destructive=True, idempotent=False, writes_when_applied=True),
    ToolSpec(
        "search_community_rules", "Search community rules",
        "Search the community rule catalogues (the bundled one and any configured remote sources) by words, "
        "optionally filtered by `language` and comma-separated `tags`. Returns ranked `matches` and a readable "
        "`results` text. Next: get_community_rule_details to read one, import_community_rule to add it. "
        + _AFTER_ERROR,
        _search_community_rules, partial(present_community.render_search, limit=TEXT_ITEMS), open_world=True),
    ToolSpec(
        "get_community_rule_details", "Show a community rule",
        "The full community rule: YAML, description, tags, test examples, license, source and digest. Read it "
        "before importing. " + _AFTER_ERROR,
        _get_community_rule_details, present_community.render_details, open_world=True),
    ToolSpec(
        "import_community_rule", "Import a community rule",
        "Copy a community rule (after checking its digest) into rules/<rule_id>.yml with its tests, adapted to "
        "the installed ast-grep. Refuses with [conflict] if the project already has that id unless "
        "overwrite=true. Needs an initialized project. scan_code / scan_path use it right away. "
        + _AFTER_ERROR,
        _import_community_rule, present_rules.render_saved,
        read_only=False, destructive=True, idempotent=True, open_world=True, write_only=True),
    ToolSpec(
        "server_info", "Server info",
        "Versions of context-sherpa and ast-grep, the workspace root, the config file, the rule count, broken "
        "rule files, supported languages, community sources (remote ones configured by the user are checked, "
        "so it may reach the network), and whether the server is read-only. Call it first to see what state "
        "the project is in; `problems` lists what is broken and how to fix it.",
        _server_info, present_doctor.render_info, open_world=True),
)

