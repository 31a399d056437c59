"""What `sgtools doctor` prints and the `server_info` tool returns: versions, root, config, rule health."""

from __future__ import annotations

import sys

from sgtools import __version__
from sgtools.contracts.common import SourceStatus
from sgtools.contracts.project import EngineInfo, ServerInfo
from sgtools.core.errors import SgToolsError
from sgtools.core.languages import LANGUAGES
from sgtools.engine import trust
from sgtools.engine.process import Engine
from sgtools.project import excludes
from sgtools.project.config import load_config, missing_folders_note
from sgtools.project.workspace import Workspace
from sgtools.rules.locate import proven_ids
from sgtools.rules.ruleset import load_ruleset


def server_info(ws: Workspace, engine: Engine, *, read_only: bool = False,
                community_sources: list[SourceStatus] | None = None) -> ServerInfo:
    info: ServerInfo = {
        "version": __version__,
        "python": sys.version.split()[0],
        "astGrepVersion": None,
        "astGrepBinary": None,
        "root": str(ws.root),
        "config": None,
        "ruleCount": 0,
        "ruleErrors": [],
        "languages": sorted(LANGUAGES),
        "communitySources": community_sources or [],
        "readOnly": read_only,
        "customLanguages": [],
        "defaultExcludes": {"enabled": True, "patterns": list(excludes.DEFAULT_EXCLUDES)},
        "problems": [],
        "engine": engine_info(engine),
    }
    try:
        info["astGrepBinary"] = str(engine.binary)
        info["astGrepVersion"] = engine.check_version()
    except SgToolsError as exc:
        info["problems"].append(exc.render())
        return info
    try:
        cfg = load_config(ws)
    except SgToolsError as exc:
        info["problems"].append(exc.render())
        return info
    info["config"] = ws.relative(cfg.path)
    info["defaultExcludes"]["enabled"] = excludes.enabled(cfg)
    info["customLanguages"] = [{**s, "loaded": s["trusted"] or engine.custom_languages == "allow"}
                               for s in trust.status(cfg.path)]
    rules = load_ruleset(ws, cfg, engine)
    info["ruleCount"] = len(rules.rules)
    info["ruleErrors"] = rules.error_dicts()
    proven = proven_ids(cfg)
    info["unprovenRules"] = sorted({r.id for r in rules.rules} - proven)
    missing = missing_folders_note(cfg)
    if missing is not None:  # once for the project, not once per rule; a problem only when no rule is left
        info["problems" if not rules.rules else "notes"] = [missing]
    from sgtools.rules.analysis.project import analyse_project, summary  # the analyser is not needed for a bare info

    info["ruleAnalysis"] = summary(analyse_project(ws, engine, cfg, rules.rules))
    return info


_SPAWN_ONLY = "one process per check: the warm engine is the MCP server's (SGTOOLS_WARM_ENGINE)"


def engine_info(engine: Engine) -> EngineInfo:
    """Which path snippet checks take and took (engine/warm.py)."""
    warm = engine.warm
    if warm is None:
        return {"mode": "spawn", "lastCall": "spawn", "lastReason": _SPAWN_ONLY, "warmCalls": 0, "spawnCalls": 0,
                "warmShare": None, "processes": 0, "starts": 0, "kills": 0}
    st = warm.stats
    calls = st.warm_calls + st.spawn_calls
    return {"mode": "warm", "lastCall": st.last, "lastReason": st.last_reason, "warmCalls": st.warm_calls,
            "spawnCalls": st.spawn_calls, "warmShare": round(st.warm_calls / calls, 3) if calls else None,
            "processes": len(warm.pids()), "starts": st.starts, "kills": st.kills}
