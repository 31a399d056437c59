"""suggest_rule writes the write the request names by its place (assigned.py, issue 29): "never by assigning to
sys.path" is every assignment to that name, an element or a member of it, and a call of a method that writes it,
not reading it. Real ast-grep, real files in a temp workspace; each top candidate judged by plain ast-grep on code
the examples do not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "the name written among several targets at once": Case(
        "`os.environ` written alone or as one of a tuple's targets (`os.environ, saved = ...`), an element of it "
        "among others; not read on the right of one",
        "python",
        ['os.environ["DEBUG"] = "1"', "os.environ = {}"],
        ['debug = os.environ.get("DEBUG")', "env = dict(os.environ)"],
        ["os.environ, saved = {}, os.environ", 'os.environ["A"], os.environ["B"] = "1", "2"'],
        ["saved, env = os.environ, {}", 'home, user = os.environ["HOME"], os.environ["USER"]'],
        request="tests must not assign to os.environ, use monkeypatch.setenv",
    ),
    "assigning to a module's list: its elements, a compound assignment and its writing methods": Case(
        "`sys.path[0] = ...` and `sys.path += [...]`: any assignment to `sys.path` or an element of it, and "
        "`sys.path.append(...)`; not reading it (`first = sys.path[0]`, `list(sys.path)`), nor another `path`",
        "python",
        ['sys.path[0] = "/opt/plugins"', 'sys.path += ["vendor"]'],
        ['paths = list(sys.path)', 'print(sys.path[0])'],
        ['sys.path = ["lib"]', 'sys.path.append(str(root / "src"))', 'sys.path[:0] = extra',
         'def setup():\n    sys.path.insert(0, here)'],
        ['first = sys.path[0]', 'for entry in sys.path:\n    print(entry)', 'self.path = p',
         'os.path.append = None if False else 1'],
        request="set PYTHONPATH for the process, never by assigning to sys.path",
    ),
    "assigning to a property, through whatever object holds it": Case(
        "`window.location.href = url` and `window.location.hash = h`: the write of `location` or a member of it on any "
        "object, not reading it (`const here = window.location.href`)",
        "javascript",
        ['window.location.href = "/login";', "window.location.hash = tab;"],
        ["const here = window.location.href;", "router.push(tab);"],
        ["this.win.location = next;", 'document.location.search += "&page=2";'],
        ["const { hash } = location;", "log(window.location.pathname);", "const location = '/x';"],
        request="navigate with the router, no assigning to `location`",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_write_of_the_name_the_request_places_the_point_at(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
