"""suggest_rule tells the closest construct from fine code by a condition the request's words name (conditioned.py,
issue 29): a statement after it or before it saying the request's word, or a construct around it saying it, where
nothing else separated the examples. Real ast-grep, real files in a temp workspace; each top candidate judged by
plain ast-grep on code the examples do not show."""

from __future__ import annotations

from typing import Any

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.test_suggest_shapes import Case, check_case


def _said(doc: dict[str, Any]) -> bool:
    return "not" in str(doc["rule"])


CASES = {
    "a call not followed, later in its block, by the call the request names": Case(
        "`URL.createObjectURL(...)` with no `URL.revokeObjectURL` after it in its block, however far after and "
        "whatever the URL is kept in; not one revoked a few statements later",
        "javascript",
        ["const url = URL.createObjectURL(blob);\nimg.src = url;",
         "link.href = URL.createObjectURL(file);\nlink.click();"],
        ["const url = URL.createObjectURL(blob);\nimg.src = url;\nURL.revokeObjectURL(url);",
         "link.href = URL.createObjectURL(file);\nlink.click();\nURL.revokeObjectURL(link.href);"],
        ["function save(csv) {\n  const href = URL.createObjectURL(csv);\n  download(href);\n}",
         "preview.src = URL.createObjectURL(picked);"],
        ["function save(csv) {\n  const href = URL.createObjectURL(csv);\n  download(href);\n  log('saved');\n"
         "  URL.revokeObjectURL(href);\n}", "const n = items.length;"],
        check=_said,
        request="revoke every URL.createObjectURL(...) with URL.revokeObjectURL once you are done with it",
    ),
    "a call not preceded in its block by the call the request names": Case(
        "`form.save()` with no `validate(...)` before it in its block, a statement or more before; not one "
        "validated first",
        "python",
        ["form.save()", "def submit(f):\n    log(f)\n    f.save()"],
        ["validate(form)\nform.save()", "def submit(f):\n    validate(f)\n    log(f)\n    f.save()"],
        ["def edit(x):\n    x.title = 'x'\n    x.save()", "order_form.save()"],
        ["def edit(x):\n    validate(x)\n    x.title = 'x'\n    x.save()", "total = sum(xs)"],
        check=_said,
        request="call validate() on a form before form.save()",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_condition_the_request_names(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
