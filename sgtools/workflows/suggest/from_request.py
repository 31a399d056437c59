"""Every candidate written from the request's own words (issue 29): the code it names (requested.py), the argument it
says a call needs (required.py), the part it says a construct with the parts it names lacks (lacking.py), the write it
names by its place (assigned.py), the comment, attribute or directive text it writes (directives.py), the comparison it
writes (compared.py), the key it writes with its value (valued.py), the call it writes with its arguments (argued.py),
the call made on the subject it names (subject.py) and the spelling it says a name or literal must have (spelled.py,
also inside the first stage's near misses). Each is verified on the examples like any candidate, and the first that
separates them goes first (`requested.request_first`): four snippets are a sample of the code, the request says what is
meant. Gathered here so the search (service.py) asks for them at one place."""

from __future__ import annotations

from collections.abc import Sequence

from sgtools.workflows.suggest import (
    argued,
    assigned,
    compared,
    contrast,
    directives,
    lacking,
    requested,
    required,
    spelled,
    subject,
    valued,
)
from sgtools.workflows.suggest.candidates import Candidate
from sgtools.workflows.suggest.tree import Example
from sgtools.workflows.suggest.verify import Outcome


def request_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example], language: str,
                  start: int) -> list[Candidate]:
    """The candidates the request's words give, each source with root indexes of its own from `start`."""
    if not request:
        return []
    return (requested.request_forms(request, invalid, valid, language, start)
            + required.required_forms(request, invalid, valid, language, start + 1)
            + lacking.lacking_forms(request, invalid, valid, start + 6)
            + assigned.assign_forms(request, invalid, valid, language, start + 2)
            + directives.directive_forms(request, invalid, valid, language, start + 3)
            + compared.compare_forms(request, invalid, start + 4)
            + directives.attribute_forms(request, invalid, valid, start + 5)
            + compared.argument_forms(request, invalid, language, start + 10)
            + valued.value_forms(request, invalid, start + 20)
            + argued.argued_forms(request, invalid, valid, language, start + 30)
            + subject.subject_forms(request, invalid, language, start + 35)
            + contrast.contrast_forms(request, invalid, valid, start + 40))


def near_forms(tried: Sequence[tuple[Candidate, Outcome]], request: str | None, invalid: Sequence[Example],
               valid: Sequence[Example], language: str, start: int) -> list[Candidate]:
    """The candidates the request's words give that also read what the first stage tried (its near misses)."""
    return spelled.spelled_forms(tried, invalid, valid, request, language, start)
