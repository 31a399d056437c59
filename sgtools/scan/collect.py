"""Whole-project scans for CI, pre-commit and agent hooks: which rules run, and every finding, in one engine pass.

`sgtools scan` and `sgtools hook claude` share this, so a project without `sgconfig.yml` gets the same bundled
community rules from both, and both see the same findings as the `scan_path` tool.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sgtools.contracts.common import RuleErrorDict
from sgtools.core.bundled import bundled_dir
from sgtools.engine.process import Engine, ScanWatch
from sgtools.project.config import ProjectConfig, load_config, try_load_config
from sgtools.project.workspace import Workspace
from sgtools.scan import signal

if TYPE_CHECKING:  # shapes only: the CLI's scan never loads contracts/scan.py (the server's schemas do)
    from sgtools.contracts.scan import Diagnostic, Profile
    from sgtools.rules.ruleset import RuleSet


class RuleSource:
    """The rules a scan runs (a plain class: every CLI start defines it, and a NamedTuple costs ~1 million
    instructions to define, a dataclass several times more)."""

    __slots__ = ("bundled", "config", "description", "rule_count")

    def __init__(self, config: ProjectConfig, description: str, bundled: bool = False, rule_count: int = 0) -> None:
        self.config = config  # the project's own sgconfig.yml, or the bundled index's
        self.description = description  # for humans and the JSON `config` field
        self.bundled = bundled
        self.rule_count = rule_count

    @property
    def scan_config(self) -> ProjectConfig | None:
        """What `PathScan(config=...)` takes: None means the workspace's own sgconfig.yml."""
        return self.config if self.bundled else None


def rule_source(ws: Workspace, engine: Engine) -> RuleSource:
    """The project's rules; without an `sgconfig.yml`, the bundled community rules (zero configuration)."""
    own = try_load_config(ws)
    if own is not None:
        return RuleSource(own, ws.relative(own.path))
    from sgtools.scan.rulefiles import cached_ruleset  # the scan reuses this load and its validation

    cfg = load_config(Workspace(bundled_dir()))
    count = sum(r.enabled for r in cached_ruleset(ws, cfg, engine).rules)
    return RuleSource(cfg, "bundled community rules", bundled=True, rule_count=count)


def rule_metadata(ws: Workspace, engine: Engine, source: RuleSource,
                  ruleset: "RuleSet | None" = None) -> list[dict[str, Any]]:
    """id, severity, message, note, url, language and metadata of every rule that can run (SARIF's rules):
    of `ruleset` when given (the set the scan ran with, `Findings.ruleset`), else as loaded now."""
    if ruleset is None:
        from sgtools.scan.rulefiles import cached_ruleset

        ruleset = cached_ruleset(ws, source.config, engine)
    return [{"id": r.id, "severity": r.severity, "message": r.message, "note": r.note, "url": r.url,
             "language": r.language, "metadata": r.data.get("metadata") or {}} for r in ruleset.rules if r.enabled]


class Findings:
    """What a CLI scan found, added to group by group (a plain class: no module on a CLI scan's path imports
    `dataclasses`)."""

    __slots__ = ("files_checked", "issues", "no_rule_ran", "notes", "profiles", "rule_errors", "rules_loaded",
                 "rules_run", "ruleset", "signal")

    def __init__(self) -> None:
        self.issues: list[Diagnostic] = []
        self.rule_errors: list[RuleErrorDict] = []
        self.files_checked = 0  # as ast-grep counted them
        self.profiles: list[Profile] = []  # one per engine call group, when profiled
        self.signal: dict[str, Any] = {}  # suppressed, inTests, generated... (scan/signal.py)
        self.ruleset: RuleSet | None = None  # the one rule set every batch ran with
        self.rules_loaded = 0  # enabled rules the project could run
        self.rules_run = 0  # the most that ran in one engine pass
        self.no_rule_ran: str | None = None  # why no rule ran at all (scan/ran.py), when none did
        self.notes: list[str] = []  # said once per scan (a declared folder that is missing)


def batches(paths: list[str], limit: int) -> list[list[str]]:
    """Split a long file list so no ast-grep command line grows past `limit` bytes of paths (Linux caps the
    whole argv at about 2 MiB; a shard of a big repository names tens of thousands of files)."""
    out: list[list[str]] = [[]]
    size = 0
    for p in paths:
        cost = len(p.encode("utf-8", "surrogateescape")) + 1
        if out[-1] and size + cost > limit:
            out.append([])
            size = 0
        out[-1].append(p)
        size += cost
    return out


def path_groups(engine: Engine, paths: list[str] | None) -> list[list[str] | None]:
    """The engine calls a scan of `paths` takes: one over the whole workspace (None), else one per batch."""
    return [None] if paths is None else [*batches(paths, engine.settings.scan_batch_bytes)]


def collect(ws: Workspace, engine: Engine, source: RuleSource, *, paths: list[str] | None,
            min_severity: str | None = None, rule_ids: list[str] | None = None,
            verify_fixits: bool = True, on_file: Callable[[], None] | None = None,
            default_excludes: bool | None = None, profile: bool = False, with_suppress: bool = True) -> Findings:
    """Every finding of `scan_path`, in one engine pass per batch of paths. All of them, always: a CI gate
    must not pass because the finding that fails it lay beyond a display limit. `verify_fixits=False` skips the
    re-scans that check fix-its, for output that never shows them. `on_file` hears of each file as it is
    scanned (progress). `profile` times each rule too (`Findings.profiles`). `with_suppress=False` skips
    each finding's `suppress` comment, for output that never shows it."""
    from sgtools.scan.diagnostics import sort_key
    from sgtools.scan.paths import PathScan, scan_path, tool_args  # pulls in fix-it verification: only to scan
    from sgtools.scan.rulefiles import cached_ruleset

    found = Findings()
    # Loaded once for every batch: a rule saved between two batches must not split the findings between versions.
    found.ruleset = ruleset = cached_ruleset(ws, source.config, engine)
    found.rules_loaded = sum(r.enabled for r in ruleset.rules)
    if not found.rules_loaded:
        from sgtools.scan import ran

        found.rule_errors = ruleset.error_dicts()
        found.no_rule_ran = ran.nothing_loaded(ws, source.config, ruleset)
    if paths is not None and not paths:
        return found  # nothing changed / nothing in this shard: an empty list must not mean "everything"
    groups = path_groups(engine, paths)
    reasons: list[str] = []
    for group in groups:
        # One engine pass per group: every finding on one page (paging re-ran ast-grep for each page).
        watch = ScanWatch(on_file)
        how = PathScan(config=source.scan_config, verify_fixits=verify_fixits, watch=watch,
                       default_excludes=default_excludes, every_finding=True, with_suppress=with_suppress,
                       ruleset=found.ruleset)
        result = scan_path(ws, engine, how, **tool_args(group, min_severity, rule_ids, profile=profile))
        found.files_checked += watch.files
        if "profile" in result:
            found.profiles.append(result["profile"])
        if not found.rule_errors:
            found.rule_errors = list(result.get("ruleErrors") or [])
        found.issues.extend(result.get("issues") or [])
        found.rules_run = max(found.rules_run, result.get("rulesRun") or 0)
        reasons.append(result.get("noRuleRan") or "")
        found.notes += [n for n in result.get("notes") or [] if n not in found.notes]
        signal.merge(found.signal, result)
    if found.no_rule_ran is None and not found.rules_run:
        found.no_rule_ran = next((r for r in reasons if r), None)
    if len(groups) > 1:
        found.issues.sort(key=sort_key)
    return found
