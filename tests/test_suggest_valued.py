"""suggest_rule writes the key the request writes set to a value (valued.py, issue 29): the keyed element, keyword
argument or attribute by that key with that literal, or any string where the examples write different ones, in
whatever holds it. Real ast-grep, real files in a temp workspace; each top candidate judged by plain ast-grep on
code the examples do not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "a keyword argument set to the literal the request writes, in any call": Case(
        "`autoescape=False` in `Environment(...)` and `Template(...)`: the keyword argument, whatever call it is "
        "passed to, wherever it stands among the arguments; not `autoescape=True` nor a call of it, nor a variable "
        "named `autoescape` (without valued.py the top candidate is `$A($B, autoescape=False)`, the examples' "
        "argument list, and misses it first or alone)",
        "python",
        ["env = Environment(loader=l, autoescape=False)", "Template(src, autoescape=False)"],
        ["env = Environment(loader=l, autoescape=True)", "Template(src)"],
        ["jinja2.Environment(autoescape=False, loader=FileSystemLoader('t'))", "mk(autoescape=False)",
         "render(tpl, autoescape=False)"],
        ["Environment(autoescape=select_autoescape())", "autoescape = False", "Environment(autoescape=True)"],
        request="never pass autoescape=False, it turns off HTML escaping",
    ),
    "an attribute set to a string, whatever the string, bare or in braces": Case(
        "`style=\"color: red\"` and `style='margin: 0'`: the attribute with any string value, also `{\"...\"}`; "
        "not an object value, nor another attribute holding the word",
        "tsx",
        ['const p = <p style="color: red">Hi</p>;', "const s = <span style='margin: 0' />;"],
        ['const p = <p style={{ color: "red" }}>Hi</p>;', "const s = <span style={{ margin: 0 }} />;"],
        ["const d = <div className=\"x\" style='display:none'>x</div>;", 'const b = <Box style={"padding: 4px"} />;'],
        ["const d = <div style={styles.box} />;", 'const i = <img alt="style" />;',
         'const a = <a data-style="x">y</a>;'],
        request='no inline style strings like style="color: red", pass an object',
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_key_the_request_writes_with_its_value(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
