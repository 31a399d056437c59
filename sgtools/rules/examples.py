"""The one example checker: a rule must match every invalid example and none of the valid ones.

The rule store refuses a rule whose examples contradict it; test_rule reports the same failures without
refusing. Both run the examples through one ast-grep call (`engine.texts.scan_texts`) and judge them here, so a
rule that passes one passes the other, with the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sgtools.contracts.rules import ExampleFailure
from sgtools.rules.draft import snip

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch

# texts -> ast-grep's matches for each text, in order
ExampleRunner = Callable[[Sequence[str]], "list[list[AstGrepMatch]]"]


def check_examples(run: ExampleRunner, rule_id: str, valid: Sequence[str],
                   invalid: Sequence[str]) -> tuple[int, list[ExampleFailure]]:
    """(how many examples behave as claimed, the ones that do not). Only matches of `rule_id` count."""
    if not valid and not invalid:
        return 0, []
    outcomes = run([*valid, *invalid])
    passed = 0
    failed: list[ExampleFailure] = []
    for n, (example, matches) in enumerate(zip([*valid, *invalid], outcomes, strict=True)):
        hits = [m for m in matches if m.get("ruleId") == rule_id]
        if n < len(valid) and hits:
            lines = sorted({int(m["range"]["start"]["line"]) + 1 for m in hits})
            where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines))}"
            failed.append({"kind": "valid", "index": n, "code": example, "lines": lines,
                           "reason": f"valid_examples[{n}] is matched at {where} "
                                     f"(`{snip(str(hits[0].get('text', '')))}`)"})
        elif n >= len(valid) and not hits:
            index = n - len(valid)
            failed.append({"kind": "invalid", "index": index, "code": example, "lines": [],
                           "reason": f"invalid_examples[{index}] is not matched: {snip(example)}"})
        else:
            passed += 1
    return passed, failed
