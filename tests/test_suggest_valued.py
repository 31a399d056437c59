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
        "`check=False` in `subprocess.run(...)` and `run(...)`: the keyword argument, whatever call it is passed "
        "to and whatever else is passed; not `check=True`, nor a variable named `check`",
        "python",
        ["subprocess.run(cmd, check=False)", 'run(["ls"], check=False, text=True)'],
        ["subprocess.run(cmd, check=True)", 'run(["ls"], text=True)'],
        ["proc = subprocess.run(args, capture_output=True, check=False)", "sp.call(x, check=False)"],
        ["subprocess.run(cmd, check=True)", "check = False", "run(cmd, text=False)"],
        request="never pass check=False to subprocess calls, handle the error",
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
