"""The MCP prompts: turn review feedback into a tested rule, and review code against the project's rules."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

# Each argument says what it is for: a client shows these descriptions when it asks the user for the values.
Feedback = Annotated[str, Field(description="the review feedback: the mistake that should never come back")]
Language = Annotated[str, Field(description="language of the code, as ast-grep names it (python, go, ...)")]
Example = Annotated[str, Field(description="a snippet of the code the feedback is about")]
Code = Annotated[str, Field(description="the code to review (leave empty to review files instead)")]
Path = Annotated[str, Field(description="with code: its virtual path (selects rules by glob); without: the file or "
                                        "directory to review (empty: the whole workspace)")]


def add_prompts(server: MCPServer[Any]) -> None:
    @server.prompt(name="rule_from_feedback", title="Turn this feedback into a rule",
                   description="Turn review feedback (a mistake that should never come back) into a tested rule.")
    def rule_from_feedback(feedback: Feedback, language: Language = "", example: Example = "") -> str:
        lang = f" The code is {language}." if language else ""
        sample = f"\n\nAn example of the code the feedback is about:\n```\n{example}\n```" if example else ""
        return (
            f"Turn this feedback into an ast-grep rule for this project.{lang}\n\nFeedback: {feedback}{sample}\n\n"
            "Examples come first: the rule is saved only with an invalid example it flags ([rule-unproven] "
            "otherwise).\n"
            "Steps:\n"
            "1. Write 2-3 snippets that SHOULD be flagged (vary the names and arguments) and 1-3 near misses "
            "that should NOT.\n"
            "2. Call suggest_rule with the language, `invalid_examples` and `valid_examples`, the feedback as "
            "`request`, your own draft of the rule as `draft_rule` (sgtools://guide/writing-rules, last section) "
            "and `fix_examples` [{before, after}] if the change is mechanical. Every rule it returns is already "
            "verified against "
            "the examples; if it returns none, its `explanation` says which example cannot be told apart: fix "
            "the examples and call it again.\n"
            "3. Review the top candidate's YAML and `why`: is it the construct the feedback is about, general "
            "enough for other code with the same problem? Give it a clear `message` and a `note` on how to fix "
            "it; re-check any edit with test_rule. (Read sgtools://guide/writing-rules to write one by hand.)\n"
            "4. Save it with add_or_update_rule with the same examples (invalid_examples is required). If it "
            "answers [config-missing], call "
            "initialize_ast_grep first.\n"
            "5. Call scan_code without code (files on disk) to see where the rule fires in the existing code and "
            "report what you found."
        )

    @server.prompt(name="review_code", title="Review this code against the project's rules",
                   description="Check code against the project's rules and explain each finding and its fix.")
    def review_code(code: Code = "", path: Path = "", language: Language = "") -> str:
        if code:
            target = f"this code{f' (virtual path {path})' if path else ''}:\n```{language}\n{code}\n```"
            how = "Call scan_code with it" + (f" and language={language}" if language else "") + \
                (f" and path={path}" if path else "") + "."
        else:
            target = f"the files at `{path}`" if path else "the whole workspace"
            how = "Call scan_code" + (f" with paths=[{path!r}]" if path else " without code (the files on disk)") + "."
        return (
            f"Review {target}\n\n{how} For each issue, quote the rule id and message, say why it matters "
            "(list_rules with its rule_id has the rule's note and url) and propose the change; prefer fix-its "
            "marked verified. "
            "If there are findings with fixes, offer apply_fixes (dry run first, show the diff). Mention any "
            "ruleErrors: they mean some rules did not run. If the scan notes that it used the bundled community "
            "rules, the project has no rules of its own yet: say so, and offer to create rules from the review."
        )
