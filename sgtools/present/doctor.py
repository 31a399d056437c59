"""The text of server_info, shared by `sgtools doctor` and the MCP tool: versions, root, config, rule health."""

from __future__ import annotations

from collections.abc import Sequence

from sgtools.contracts.project import DefaultExcludes, ServerInfo
from sgtools.present.results import Say, keep
from sgtools.project.excludes import CONFIG_KEY

_SHOWN = 10


def render_info(info: ServerInfo, *, config_line: str | None = None, problems: Sequence[str] | None = None,
                say: Say = keep) -> str:
    """`config_line` and `problems` replace the plain config path and the full problem list (the CLI explains a
    missing sgconfig.yml in the config line instead of listing it as a problem)."""
    config = config_line or info["config"] or say("none (call initialize_ast_grep)")
    lines = [
        f"context-sherpa {info['version']} (Python {info['python']})",
        f"ast-grep       {info['astGrepVersion'] or 'unavailable'} {info['astGrepBinary'] or ''}".rstrip(),
        f"root           {info['root']}",
        f"config         {config}",
        f"rules          {info['ruleCount']} loaded, {len(info['ruleErrors'])} with errors"
        + (" (read-only mode)" if info["readOnly"] else ""),
        f"not scanned    {_excludes_line(info['defaultExcludes'])}",
        f"engine         {_engine_line(info)}",
    ]
    for lang in info["customLanguages"]:
        state = "loaded" if lang["loaded"] else f"NOT loaded ({lang['state']}: run `sgtools trust`)"
        lines.append(f"parser         {lang['language']}: {lang['library']} {state}")
    lines += [f"  ✗ {err['path']}: {say(err['message'])}" for err in info["ruleErrors"]]
    lines += [f"  ✗ rule {rid} can never fire: `sgtools rule lint {rid}` says why and shows a verified repair"
              for rid in info.get("ruleAnalysis", {}).get("neverFire", [])]
    unproven = info.get("unprovenRules") or []
    if unproven:
        shown = ", ".join(unproven[:_SHOWN]) + (f" and {len(unproven) - _SHOWN} more" if len(unproven) > _SHOWN else "")
        lines.append(f"unproven       {len(unproven)} rule(s) with no invalid test case (nothing shows they fire): "
                     f"{shown}")
    lines += [f"note           {say(n)}" for n in info.get("notes") or []]
    lines += [f"problem        {say(p)}" for p in (info["problems"] if problems is None else problems)]
    return "\n".join(lines)


def _engine_line(info: ServerInfo) -> str:
    e = info.get("engine")
    if e is None or e["mode"] != "warm":
        return "spawn: one ast-grep process per check"
    why = f" ({e['lastReason']})" if e["lastReason"] else ""
    return (f"warm: {e['processes']} ast-grep lsp process(es); last check {e['lastCall']}{why}; "
            f"{e['warmCalls']} warm, {e['spawnCalls']} spawned"
            + (f" ({e['warmShare']:.0%} warm)" if e.get("warmShare") is not None else ""))


def _excludes_line(ex: DefaultExcludes) -> str:
    """The default excludes and how to switch them off (or that they are off)."""
    if not ex["enabled"]:
        return f"everything (default excludes off: {CONFIG_KEY}: false in sgconfig.yml)"
    return (", ".join(ex["patterns"]) + f" (off: sgtools scan --no-default-excludes, or {CONFIG_KEY}: false in "
            "sgconfig.yml)")
