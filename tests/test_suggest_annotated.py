"""Which annotations a request says code is in (annotated.py, issue 29): only one said as the place of the point
keeps a candidate inside the declaration it annotates; one said beside the point ("classes with their @Published
properties", "use @StateObject") is no place, and keeping code inside it misses the same code elsewhere."""

from __future__ import annotations

import pytest

from sgtools.workflows.suggest.annotated import annotation_names


@pytest.mark.parametrize(("request_text", "names"), [
    ("in a @Composable, wrap state in remember", ["Composable"]),
    ("no Thread.sleep in @Test methods", ["Test"]),
    ("inside @org.springframework.transaction.annotation.Transactional methods, no remote calls", ["Transactional"]),
    ("replace Delegate classes (with their @Inject fields) by constructor injection", []),
    ("use @StateObject, not @ObservedObject, for a view model made in place", []),
    ("no bare @SuppressWarnings", []),
])
def test_only_an_annotation_said_as_a_place_keeps_code_inside_it(request_text: str, names: list[str]) -> None:
    assert annotation_names(request_text) == names
