"""Whether the top rule is likely to hold on code it was not shown, judged from its form alone.

On sets written blind to the generaliser (docs/suggest-rule.md, "How far a suggestion carries"), a top rule read from
the request's own code words, or written as a plain pattern of what the invalid examples share, held on new code
about half the time; one whose shape came from the four examples alone (a telling child, an argument, an enclosing
context, a literal `not`, a literal's shared start) almost never did. Saying so lets the calling agent prove such a
rule on more code before it trusts it, instead of saving a rule everyone then believes checks the code.
"""

from __future__ import annotations

from sgtools.workflows.suggest.candidates import PLAIN, REQUESTED, Candidate
from sgtools.workflows.suggest.render import form_name

# The forms whose top rules carried to requests written blind; every other form is shaped by the examples.
_CARRIED = (PLAIN, REQUESTED)


def shaped_by_examples(cand: Candidate) -> bool:
    """The rule's shape was read from the examples alone, not from the request's code words nor a plain pattern."""
    return cand.form not in _CARRIED or cand.gen.pinned is not None


TOP_RULE = "(the top rule)"  # how the caution names the rule it is about (drafted.py drops it when a draft leads)


def cautions(cand: Candidate, rule_id: str) -> list[str]:
    """The warning an answer carries when its top rule is shaped by the examples alone (none when it is not)."""
    if not shaped_by_examples(cand):
        return []
    return [f"{rule_id} {TOP_RULE}: its shape ({form_name(cand)}) was read from the examples alone: on requests "
            "written blind, top rules shaped so seldom held on new code. Before saving it, check its proof on this "
            "project and run test_rule with more code it must flag (other receivers, arguments, nesting) and more "
            "fine code near it, or draft the rule from what the request means and pass it as `draft_rule`: "
            "proven on the examples, it comes first."]
