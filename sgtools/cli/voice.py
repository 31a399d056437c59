"""Messages in the CLI's own words: a service names its next step by the MCP tool an agent would call; a person at
the command line gets the command that does the same instead ("Run `sgtools rule list`", not "Run list_rules").

The services keep one wording (the MCP server shows it as is); the CLI passes every message it prints through
`speak`. `COMMANDS` covers every MCP tool, which a test checks against the server's tool list.
"""

from __future__ import annotations

import re

from sgtools.core.lazyre import LazyRe

COMMANDS: dict[str, str] = {
    "initialize_ast_grep": "`sgtools init`",
    "scan_code": "`sgtools scan FILE`",
    "add_or_update_rule": "`sgtools rule add`",
    "remove_rule": "`sgtools rule remove`",
    "list_rules": "`sgtools rule list`",
    "test_rule": "`sgtools rule test`",
    "suggest_rule": "`sgtools rule suggest`",
    "dump_syntax_tree": "`ast-grep run --pattern P --lang L --debug-query`",
    "find_code": "`ast-grep run --pattern P`",
    "apply_fixes": "`sgtools scan --fix`",
    "search_community_rules": "`sgtools community search`",
    "get_community_rule_details": "`sgtools community show`",
    "import_community_rule": "`sgtools community import`",
    "server_info": "`sgtools doctor`",
}

# "the X tool", "The X tool", "X tool" and a bare "X" all become the command; an argument phrase that only the
# tool takes (dump_syntax_tree's format "pattern") goes with it.
_TOOL = LazyRe(
    r"\b(?:[Tt]he )?(" + "|".join(sorted(map(re.escape, COMMANDS), key=len, reverse=True)) + r")\b(?: tool\b)?"
    r"(?: (?:with )?(?:\()?format \"pattern\"(?:\))?)?"
)


def speak(message: str) -> str:
    """`message` with every MCP tool it names replaced by the CLI command that does the same."""
    return _TOOL.sub(lambda m: COMMANDS[m.group(1)], message)
