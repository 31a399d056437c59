"""suggest_rule writes the comparison the request names by what it compares (compared.py, issue 29): the code it
writes on either side with any arguments, a literal as written or a literal of the kind it names, with the
operator it writes and that operator's other spellings. Real ast-grep, real files in a temp workspace; each top
candidate judged by plain ast-grep on code the examples do not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.workflows.suggest import compared
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "a comparison the request writes as code, each side a call with any arguments": Case(
        "`sorted(a) == sorted(b)` and `!=`: any equality of two `sorted(...)` calls, whatever they sort, not a "
        "`sorted(...)` compared with something else",
        "python",
        ["if sorted(xs) == sorted(ys):\n    ok()", "same = sorted(a) != sorted(b)"],
        ["if Counter(xs) == Counter(ys):\n    ok()", "ordered = sorted(a)"],
        ["return sorted(left.items) == sorted(right.items, key=str)", "assert sorted(got) == sorted(want), got"],
        ["if sorted(a) == expected:\n    pass", "x = sorted(a) + sorted(b)", "if len(a) == len(b):\n    pass"],
        request="don't compare lists with sorted(a) == sorted(b), use collections.Counter",
    ),
    "a comparison the request says in words, with any operator, either way round": Case(
        "`a.compareTo(b) == 0`: a comparison of a `compareTo(...)` call with `0`, whichever operator and side, "
        "not one with another number",
        "java",
        ["class A { void f() { if (a.compareTo(b) == 0) { same(); } } }",
         "class B { boolean g() { boolean same = x.compareTo(y) == 0; return same; } }"],
        ["class A { void f() { if (a.equals(b)) { same(); } } }",
         "class B { int g() { int order = x.compareTo(y); return order; } }"],
        ["class C { boolean h() { return 0 == left.compareTo(right); } }",
         "class D { void k() { if (v.compareTo(BigDecimal.ZERO) != 0) { warn(); } } }"],
        ["class E { void m() { if (a.compareTo(b) > 1) { x(); } } }",
         "class F { void n() { int c = a.compareTo(b); } }", "class G { void p() { if (size == 0) { x(); } } }"],
        request="use equals() instead of comparing compareTo() with 0",
    ),
    "a placeholder receiver in the request's code is any object reached by a member access": Case(
        "`s.begin()` compared with `s.end()`: any set's, through `.` or `->`, either way round, with `==` too; not "
        "a free function `std::begin(...)` compared with an `end()`",
        "cpp",
        ["if (names.begin() == names.end()) {\n    return;\n}", "bool none = ids.begin() == ids.end();"],
        ["if (names.empty()) {\n    return;\n}", "bool none = ids.empty();"],
        ["while (queue->begin() != queue->end()) {\n    step();\n}",
         "return pending_.end() == pending_.begin();"],
        ["if (std::begin(arr) == std::end(arr)) return;", "auto it = names.begin();", "if (names.empty()) {}"],
        request="write s.empty() instead of comparing s.begin() with s.end()",
    ),
    "an integer comparison said in words is also the same test against the next integer": Case(
        "`s.indexOf(\"x\") != -1` and `== -1`: also `>= 0`, `0 <= ...`, `< 0`, whichever side the call is on; "
        "not `> 0` (another test), nor a variable compared with -1",
        "java",
        ["class A { void f() { if (s.indexOf(\"x\") != -1) { a(); } } }",
         "class B { boolean g() { return list.indexOf(v) == -1; } }"],
        ["class A { void f() { if (s.contains(\"x\")) { a(); } } }",
         "class B { boolean g() { return !list.contains(v); } }"],
        ["class C { boolean h() { return name.indexOf('.') >= 0; } }",
         "class D { void k() { if (0 <= path.indexOf(\"/\")) { b(); } } }",
         "class E { boolean m() { return ids.indexOf(id) < 0; } }"],
        ["class F { int n() { return s.indexOf(\"x\"); } }",
         "class G { void p() { if (s.indexOf(\"x\") > 0) { c(); } } }",
         "class H { void q() { if (i == -1) { d(); } } }"],
        request="use contains() instead of comparing indexOf() with -1",
    ),
    "code compared with an integer by the examples' other operators too: the operands are the point": Case(
        "`filter(...).length > 0` written, `=== 0` shown too: that code compared with 0 by any operator, or with 1 "
        "the same way (`>= 1`), either side; not with another number, nor another length",
        "javascript",
        ["if (items.filter(x => x.done).length > 0) { go(); }", "const none = users.filter(isAdmin).length === 0;"],
        ["if (items.some(x => x.done)) { go(); }", "const count = users.filter(isAdmin).length;"],
        ["return xs.filter(f).length >= 1;", "if (0 < rows.filter(r => r.bad).length) warn();",
         "const any = list.filter(p).length !== 0;"],
        ["const n = xs.filter(f).length;", "if (xs.filter(f).length > 2) big();", "if (xs.length > 0) go();"],
        request="use some() instead of filter(...).length > 0",
    ),
    "an operator on the kind of literal the request names": Case(
        "`ratio != 0.5` and `1.0 == x`: `==` or `!=` with a float literal operand, not an int, not an ordering",
        "python",
        ["if ratio != 0.5:\n    warn()", "while 1.0 == x:\n    step()"],
        ["if not math.isclose(ratio, 0.5):\n    warn()", "while x < 1.0:\n    step()"],
        ["assert mean(xs) == 2.25", "ok = 0.1 != score"],
        ["if x == 1:\n    pass", "if ratio > 0.5:\n    pass", "close = math.isclose(r, 0.5)"],
        request="use math.isclose, never == or != on a float literal",
    ),
    "a call the request writes with a comparison as its argument": Case(
        "`self.assertTrue(result == 3)` and `!=`: `assertTrue` on any object whose argument is an equality, "
        "whatever it compares; not a comparison nested in another call, nor another operator",
        "python",
        ["self.assertTrue(result == 3)", 'self.assertTrue(name != "")'],
        ["self.assertEqual(result, 3)", "self.assertTrue(is_ready())"],
        ['self.assertTrue(len(items) == 2, "two items")', "case.assertTrue(a.x != b.x)"],
        ["self.assertTrue(any(v == 3 for v in vs))", "self.assertTrue(x < y)", "ok = a == b",
         "self.assertIn(a, b)"],
        request="use assertEqual / assertNotEqual rather than assertTrue(a == b), the failure then shows both values",
    ),
    "a gtest macro the request writes with a comparison as its argument": Case(
        "`EXPECT_TRUE(v.size() == 2)`: `EXPECT_TRUE` whose argument is an equality, not one compared in a nested "
        "call, nor `EXPECT_EQ`",
        "cpp",
        ["TEST(Vec, Size) { EXPECT_TRUE(v.size() == 2); }", "TEST(Str, Name) { EXPECT_TRUE(name != \"\"); }"],
        ["TEST(Vec, Size) { EXPECT_EQ(v.size(), 2); }", "TEST(Str, Name) { EXPECT_TRUE(valid(name)); }"],
        ["TEST(Map, Count) { EXPECT_TRUE(m.count(k) == 1); }", "void check() { EXPECT_TRUE(a != b); }"],
        ["TEST(A, B) { EXPECT_TRUE(all(xs, [](int x) { return x == 1; })); }", "TEST(A, C) { EXPECT_TRUE(a < b); }",
         "TEST(A, D) { EXPECT_EQ(a, b); }"],
        request="prefer EXPECT_EQ / EXPECT_NE over EXPECT_TRUE(a == b)",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_comparison_the_request_names(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])


@pytest.mark.parametrize("request_text", [
    "range over a slice instead of `for i := 0; i < len(s); i++`",  # part of a loop header
    "use string.IsNullOrEmpty(s) instead of s == null || s == \"\"",  # two joined: a combination
    "use the elvis operator instead of if (x != null) x else y",  # an if's condition
    "write array types as T[], not Array<T>",  # a generic, no comparison
])
def test_a_comparison_written_as_part_of_more_code_is_no_rule_of_its_own(request_text: str) -> None:
    assert compared._asked(request_text) == [], request_text
