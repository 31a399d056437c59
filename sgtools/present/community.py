"""The text of the community services' results, shared by `sgtools community ...` and the MCP tools."""

from __future__ import annotations

from sgtools.contracts.community import CommunityRuleDetails, SearchCommunityRulesResult
from sgtools.present.results import Say, keep


def render_search(data: SearchCommunityRulesResult, limit: int | None = None, say: Say = keep) -> str:
    """Three lines per match: id with language, severity and score; the description; tags and source.
    Without matches, the service's own text (it says what was searched and what to try)."""
    matches = data["matches"][:limit]
    if not matches:
        return say(data["results"])
    lines: list[str] = []
    for m in matches:
        fix = ", fix" if m["hasFix"] else ""
        lines += [f"{m['id']}  [{m['language']}, {m['severity']}{fix}]  score {m['score']:.2f}",
                  f"    {m['description']}", f"    tags: {', '.join(m['tags'])}   source: {m['source']}"]
    return "\n".join(lines)


def render_details(data: CommunityRuleDetails) -> str:
    return data["details"]
