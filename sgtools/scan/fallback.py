"""`scan_code` and `scan_path` for the MCP server: without an `sgconfig.yml` they check with the bundled community
rules, as `sgtools scan` and the agent hook do, and say so in `notes`, instead of a dead end of [config-missing]
(which on a read-only server would name a tool the agent cannot see).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sgtools.contracts.scan import ScanCodeArgs, ScanPathArgs, ScanPathResult, ScanResult
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import paths, snippet
from sgtools.scan.collect import RuleSource, rule_source


def bundled_note(source: RuleSource, *, read_only: bool) -> str:
    how = ("this server is read-only, so ask the user to run `sgtools init` to set up the project's own rules"
           if read_only else "call initialize_ast_grep to set up the project's own rules")
    return f"No sgconfig.yml in the workspace: checked with the {source.rule_count} bundled community rules ({how})."


if TYPE_CHECKING:
    from typing_extensions import Unpack


def _add_note(result: ScanResult, source: RuleSource, read_only: bool) -> None:
    if source.bundled:
        result["notes"] = [bundled_note(source, read_only=read_only), *result.get("notes", [])]


def scan_code(ws: Workspace, engine: Engine, *, read_only: bool = False, **args: Unpack[ScanCodeArgs]) -> ScanResult:
    source = rule_source(ws, engine)
    # the config rule_source just loaded (the project's own, or the bundled one): not loaded and checked again
    result = snippet.scan_code(ws, engine, **args, config=source.config)
    _add_note(result, source, read_only)
    return result


def scan_path(ws: Workspace, engine: Engine, *, read_only: bool = False,
              **args: Unpack[ScanPathArgs]) -> ScanPathResult:
    source = rule_source(ws, engine)
    result = paths.scan_path(ws, engine, paths.PathScan(config=source.scan_config), **args)
    _add_note(result, source, read_only)
    return result
