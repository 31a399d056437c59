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
    "the keyword a construct needs, with the literal the request writes it with": Case(
        "`@attr.s` without `auto_attribs=True`: also `auto_attribs=False`, which writes the word but not the need, "
        "and one among other arguments; not one that passes it (with an `attr.ib()` or not), nor another decorator "
        "(without valued.py's needed_pair the top candidate lacks the word `auto_attribs` however set, and misses "
        "`auto_attribs=False`)",
        "python",
        ["@attr.s\nclass Point:\n    x = attr.ib()", "@attr.s(frozen=True)\nclass Size:\n    w = attr.ib()"],
        ["@attr.s(auto_attribs=True)\nclass Point:\n    x = attr.ib()",
         "@attr.s(frozen=True, auto_attribs=True)\nclass Size:\n    w = attr.ib()"],
        ["@attr.s(auto_attribs=False)\nclass Rect:\n    h: int",
         "@attr.s(slots=True, repr=False)\nclass Line:\n    a = attr.ib()"],
        ["@attr.s(slots=True, auto_attribs=True)\nclass Rect:\n    h: int",
         "@dataclass\nclass Line:\n    a: int",
         "@attr.s(auto_attribs=True)\nclass Box:\n    d: int = attr.ib(default=0)"],
        request="every @attr.s must pass auto_attribs=True, annotate the fields",
    ),
    "a keyword argument the request needs at a number or more": Case(
        "`RotatingFileHandler(...)` without `backupCount=3` or more: also `backupCount=1` and `backupCount=0`, "
        "under a module path; not 3 or a greater number, nor a value computed elsewhere, nor another handler "
        "(without valued.py's floor the top candidate needs the word `backupCount` alone and lets `=1` through)",
        "python",
        ['h = RotatingFileHandler("app.log", maxBytes=10_000_000)',
         "h = handlers.RotatingFileHandler(path, maxBytes=1 << 20)"],
        ['h = RotatingFileHandler("app.log", maxBytes=10_000_000, backupCount=3)',
         "h = handlers.RotatingFileHandler(path, maxBytes=1 << 20, backupCount=7)"],
        ["h = RotatingFileHandler(p, backupCount=1)",
         'logging.handlers.RotatingFileHandler(filename=log_path, mode="a")',
         "RotatingFileHandler(p, maxBytes=m, backupCount=0)"],
        ["h = RotatingFileHandler(p, backupCount=settings.LOG_BACKUPS)", "h = RotatingFileHandler(p, backupCount=30)",
         'h = FileHandler("x.log")'],
        request="RotatingFileHandler needs backupCount=3 (or more), or rotation throws the old logs away",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_key_the_request_writes_with_its_value(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
